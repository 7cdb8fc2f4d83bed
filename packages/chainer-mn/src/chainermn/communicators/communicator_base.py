"""The interface every ChainerMN communicator implements."""

from __future__ import annotations

import abc
import warnings


class CommunicatorBase(abc.ABC):
    """Interface of communicators, the objects through which processes talk.

    A communicator knows its process's place in the job (:attr:`rank` among
    :attr:`size` processes, and the same within one node and across nodes),
    moves arrays and picklable objects between processes, and implements the
    two operations of data-parallel training: :meth:`bcast_data`, which makes
    every process start from the same parameters, and
    :meth:`multi_node_mean_grad`, which averages the gradients over all
    processes after each backward pass.

    Use :func:`chainermn.create_communicator` to make one. Every method whose
    description says *collective* must be called by all processes of the
    communicator, in the same order.
    """

    @property
    @abc.abstractmethod
    def rank(self):
        """int: Rank (index) of this process in the communicator."""

    @property
    @abc.abstractmethod
    def size(self):
        """int: Number of processes in the communicator."""

    @property
    @abc.abstractmethod
    def intra_rank(self):
        """int: Rank of this process among the processes of its node."""

    @property
    @abc.abstractmethod
    def intra_size(self):
        """int: Number of processes on this process's node."""

    @property
    @abc.abstractmethod
    def inter_rank(self):
        """int: Index of this process's node among the nodes of the job."""

    @property
    @abc.abstractmethod
    def inter_size(self):
        """int: Number of nodes taking part in the communicator."""

    @abc.abstractmethod
    def split(self, color, key):
        """Splits the communicator into disjoint sub-communicators (collective).

        Processes passing the same ``color`` end up in the same new
        communicator, ordered by ``key`` (ties by their old rank). It wraps
        ``MPI_Comm_split``.

        Args:
            color (int): Group selector.
            key (int): Ordering of the ranks within the new communicator.

        Returns:
            CommunicatorBase: A communicator of the same kind.
        """

    @abc.abstractmethod
    def send(self, data, dest, tag):
        """Sends an array, or a tuple of arrays, to one process.

        Args:
            data (numpy.ndarray or tuple of numpy.ndarray): What to send; the
                arrays may differ in shape and dtype.
            dest (int): Rank of the destination process.
            tag (int): Message tag, matched by :meth:`recv`.
        """

    @abc.abstractmethod
    def recv(self, source, tag):
        """Receives what :meth:`send` sent.

        Args:
            source (int): Rank of the sending process.
            tag (int): Message tag.

        Returns:
            numpy.ndarray or tuple of numpy.ndarray: An array, or a tuple if
            a tuple (or list) was sent.
        """

    @abc.abstractmethod
    def bcast(self, data, max_buf_len=None, root=0):
        """Broadcasts an array from the root process (collective).

        Args:
            data (numpy.ndarray): Array to broadcast; only the root's value
                is used (others may pass ``None``).
            max_buf_len (int): Largest message in bytes; bigger arrays go in
                pieces. ``None`` uses the communicator's ``max_buf_len``.
            root (int): Rank of the process holding the array.

        Returns:
            numpy.ndarray: The root's array on every process.
        """

    @abc.abstractmethod
    def gather(self, data, root=0):
        """Gathers one array from every process to the root (collective).

        Args:
            data (numpy.ndarray): This process's array; shapes and dtypes may
                differ between processes.
            root (int): Rank of the receiving process.

        Returns:
            tuple of numpy.ndarray: The arrays in rank order on the root,
            ``None`` on the other processes.
        """

    @abc.abstractmethod
    def allgather(self, x):
        """Gathers one array from every process to every process (collective).

        Args:
            x (numpy.ndarray): This process's array.

        Returns:
            tuple of numpy.ndarray: The arrays of all processes in rank order.
        """

    @abc.abstractmethod
    def alltoall(self, xs):
        """Sends ``xs[i]`` to process ``i`` and receives one array from each.

        Collective.

        Args:
            xs (tuple of numpy.ndarray): One array per process (``size`` of
                them); shapes and dtypes may differ.

        Returns:
            tuple of numpy.ndarray: The array each process sent to this one,
            in rank order.
        """

    @abc.abstractmethod
    def scatter(self, xs, root=0):
        """Sends ``xs[i]`` from the root to process ``i`` (collective).

        Args:
            xs (tuple of numpy.ndarray): One array per process, on the root;
                ignored elsewhere.
            root (int): Rank of the sending process.

        Returns:
            numpy.ndarray: This process's array.
        """

    @abc.abstractmethod
    def allreduce(self, data):
        """Sums an array elementwise over all processes (collective).

        Args:
            data (numpy.ndarray): Array of the same shape and dtype on every
                process.

        Returns:
            numpy.ndarray: The elementwise sum, on every process.
        """

    @abc.abstractmethod
    def send_obj(self, obj, dest, tag=0):
        """Sends a picklable object to one process.

        Args:
            obj: Any picklable object; large ones go in pieces.
            dest (int): Rank of the destination process.
            tag (int): Message tag.
        """

    @abc.abstractmethod
    def recv_obj(self, source, status=None, tag=None):
        """Receives an object sent by :meth:`send_obj`.

        Args:
            source (int): Rank of the sender (``mpi4py.MPI.ANY_SOURCE`` for
                any).
            status (mpi4py.MPI.Status): Filled with the message's status.
            tag (int): Message tag; ``None`` accepts any tag.

        Returns:
            The received object.
        """

    @abc.abstractmethod
    def bcast_obj(self, obj, max_buf_len=None, root=0):
        """Broadcasts a picklable object from the root (collective).

        Args:
            obj: The object, on the root.
            max_buf_len (int): Largest message in bytes; bigger pickles go in
                pieces.
            root (int): Rank of the sending process.

        Returns:
            The root's object on every process.
        """

    @abc.abstractmethod
    def gather_obj(self, obj, root=0):
        """Gathers one picklable object from every process to the root.

        Collective.

        Args:
            obj: This process's object.
            root (int): Rank of the receiving process.

        Returns:
            list: The objects in rank order on the root, ``None`` elsewhere.
        """

    @abc.abstractmethod
    def allgather_obj(self, obj):
        """Gathers one picklable object from every process to all of them.

        Collective.

        Args:
            obj: This process's object.

        Returns:
            list: The objects of all processes in rank order.
        """

    @abc.abstractmethod
    def scatter_obj(self, obj, root=0):
        """Sends ``obj[i]`` from the root to process ``i`` (collective).

        Args:
            obj (sequence): One picklable object per process, on the root.
            root (int): Rank of the sending process.

        Returns:
            This process's object.
        """

    @abc.abstractmethod
    def allreduce_obj(self, obj):
        """Sums picklable objects over all processes (collective).

        The objects are combined with ``+`` in rank order, the same on every
        process; summation is the only reduction, as in ChainerMN.

        Args:
            obj: This process's object (a number, array, or anything
                supporting ``+``).

        Returns:
            The sum, on every process.
        """

    @abc.abstractmethod
    def bcast_data(self, model):
        """Copies the root's parameters into every process's model (collective).

        The initialized parameters of ``model``, in the order of their names,
        are overwritten in place with rank 0's values. The processes first
        compare their parameters' names, shapes and dtypes; if they differ,
        every process raises the same ``ValueError`` and nothing is copied.

        Args:
            model (~chainer.Link): The model, built the same way everywhere.
        """

    @abc.abstractmethod
    def multi_node_mean_grad(self, model, zero_fill=False):
        """Averages the gradients of ``model`` over all processes (collective).

        After it, every initialized parameter's gradient is the mean of that
        gradient over the processes.

        Args:
            model (~chainer.Link): The model, after the backward pass.
            zero_fill (bool): What to do with an initialized parameter whose
                gradient is ``None`` (its link was not used): if ``True`` it
                takes part as zeros (and receives the mean); if ``False`` it
                is skipped, which is only correct when it is ``None`` on every
                process.
        """

    def allreduce_grad(self, model, zero_fill=False):
        """Averages the gradients of ``model`` over all processes.

        .. deprecated:: v7.0.0
            Use :meth:`multi_node_mean_grad`; this is its old name.

        Args:
            model (~chainer.Link): The model, after the backward pass.
            zero_fill (bool): See :meth:`multi_node_mean_grad`.
        """
        warnings.warn(
            "allreduce_grad() is deprecated; use multi_node_mean_grad()",
            DeprecationWarning,
        )
        self.multi_node_mean_grad(model, zero_fill)

    @abc.abstractmethod
    def finalize(self):
        """Waits for pending operations and frees the communicator's resources.

        Collective.
        """

    @abc.abstractmethod
    def set_config(self, name, value=True, **kwargs):
        """Sets a configuration of the communicator.

        Args:
            name (str): Name of the configuration.
            value: Its new value.
            **kwargs: Options of configurations that take any.
        """

    @abc.abstractmethod
    def get_config(self, name=None):
        """Returns a configuration value, or all of them.

        Args:
            name (str): Name of the configuration; ``None`` for a dict of all.

        Returns:
            The value, or a dict of names to values.
        """
