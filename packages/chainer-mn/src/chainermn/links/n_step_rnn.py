"""Stacked RNNs whose states come from and go to other processes."""

from __future__ import annotations

from chainer import link
from chainer.links.rnn import n_step_rnn
from chainermn import functions
from chainermn.functions import _util
from chainermn.links import _sharing


class _MultiNodeNStepRNN(_sharing.SharesCommunicator, link.Chain):
    """An NStep RNN link receiving its initial states and sending its final ones."""

    def __init__(self, actual_link, communicator, rank_in, rank_out):
        super().__init__()
        with self.init_scope():
            self.actual_rnn = actual_link
        self.communicator = communicator
        self.rank_in = rank_in
        self.rank_out = rank_out
        self.n_cells = actual_link.n_cells

    def forward(self, *inputs):
        """Runs the RNN from received states and sends the resulting ones.

        Args:
            *inputs: The arguments of the RNN link after its states (``xs``,
                the list of input sequences).

        Returns:
            tuple: The outputs of the RNN link (``hy, ys`` or ``hy, cy, ys``)
            followed by the delegate variable of the send of the states
            (``None`` without ``rank_out``).
        """
        if self.rank_in is None:
            cells = (None,) * self.n_cells
        else:
            cells = functions.recv(self.communicator, self.rank_in, force_tuple=True)
            if len(cells) != self.n_cells:
                raise RuntimeError(
                    f"received {len(cells)} state array(s) from rank "
                    f"{self.rank_in}, but {type(self.actual_rnn).__name__} takes "
                    f"{self.n_cells}; the sender is a different kind of RNN"
                )
        outputs = self.actual_rnn(*cells, *inputs)
        delegate = None
        if self.rank_out is not None:
            # All the states travel as one message: no order to get wrong.
            states = tuple(outputs[: self.n_cells])
            delegate = functions.send(states, self.communicator, self.rank_out)
        return (*outputs, delegate)


def create_multi_node_n_step_rnn(
    actual_link, communicator, rank_in=None, rank_out=None
):
    """Makes a stacked RNN link whose states are exchanged with other processes.

    For model parallelism over processes (e.g. the encoder of a seq2seq model
    on one process, the decoder on another). The returned link receives its
    initial states (``hx``, and ``cx`` for LSTMs) from the process
    ``rank_in`` (or starts from zeros if it is ``None``), runs ``actual_link``
    on its arguments, and sends the final states (``hy``, ``cy``) to the
    process ``rank_out`` (unless it is ``None``); the states' gradients
    travel back in the backward pass.

    The link returns the outputs of ``actual_link`` followed by one more
    value, the *delegate variable* of the send (``None`` without
    ``rank_out``). A process whose loss does not depend on the sent states
    starts its backward pass from it; see
    :func:`~chainermn.functions.pseudo_connect` to combine it with a loss.

    Both sides must use links made by this function (the states travel as
    one message). The RNN links that can be given are
    :class:`~chainer.links.NStepLSTM`, :class:`~chainer.links.NStepBiLSTM`,
    :class:`~chainer.links.NStepGRU`, :class:`~chainer.links.NStepBiGRU`,
    :class:`~chainer.links.NStepRNNTanh`, :class:`~chainer.links.NStepRNNReLU`,
    :class:`~chainer.links.NStepBiRNNTanh` and
    :class:`~chainer.links.NStepBiRNNReLU`.

    Args:
        actual_link (~chainer.Link): The stacked RNN link.
        communicator (~chainermn.communicators.CommunicatorBase):
            Communicator.
        rank_in (int): Rank of the process sending the initial states, or
            ``None``.
        rank_out (int): Rank of the process receiving the final states, or
            ``None``.

    Returns:
        ~chainer.Link: The multi-node RNN link, holding ``actual_link`` as
        its child ``actual_rnn``.
    """
    if not isinstance(actual_link, n_step_rnn.NStepRNNBase):
        raise TypeError(
            "create_multi_node_n_step_rnn takes an NStep RNN link (NStepLSTM, "
            f"NStepGRU, NStepRNNTanh, ... or a subclass), got "
            f"{type(actual_link).__name__}"
        )
    if rank_in is not None:
        rank_in = _util.check_peer(communicator, rank_in, "rank_in")
    if rank_out is not None:
        rank_out = _util.check_peer(communicator, rank_out, "rank_out")
    return _MultiNodeNStepRNN(actual_link, communicator, rank_in, rank_out)
