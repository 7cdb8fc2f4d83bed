"""Deep copies of links that hold a communicator (private)."""

from __future__ import annotations

import copy

from chainermn.communicators import communicator_base


class SharesCommunicator:
    """Mixin of links holding a communicator: deep copies share it.

    A communicator wraps an MPI communicator, which cannot be copied;
    ``link.copy('copy')`` and ``copy.deepcopy(link)`` give a link that uses
    the same communicator as the original.
    """

    def __deepcopy__(self, memo):
        for value in self.__dict__.values():
            if isinstance(value, communicator_base.CommunicatorBase):
                memo.setdefault(id(value), value)
        cls = type(self)
        new = cls.__new__(cls)
        memo[id(self)] = new
        for name, value in self.__dict__.items():
            new.__dict__[name] = copy.deepcopy(value, memo)
        return new
