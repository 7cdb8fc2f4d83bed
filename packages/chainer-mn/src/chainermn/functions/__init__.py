"""Differentiable communication between processes (``chainermn.functions``).

Point to point: :func:`send`, :func:`recv` and :func:`pseudo_connect`, which
orders communications in the backward pass with delegate variables.
Collective: :func:`bcast`, :func:`gather`, :func:`allgather`,
:func:`alltoall` and :func:`scatter`. Each one's backward pass communicates
the gradients the opposite way; it is not differentiable again (no double
backprop), as in ChainerMN.
"""

from chainermn.functions.collective_communication import allgather
from chainermn.functions.collective_communication import alltoall
from chainermn.functions.collective_communication import bcast
from chainermn.functions.collective_communication import gather
from chainermn.functions.collective_communication import scatter
from chainermn.functions.point_to_point_communication import recv
from chainermn.functions.point_to_point_communication import send
from chainermn.functions.pseudo_connect import pseudo_connect

__all__ = [
    "allgather",
    "alltoall",
    "bcast",
    "gather",
    "pseudo_connect",
    "recv",
    "scatter",
    "send",
]
