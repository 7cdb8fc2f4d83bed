import copy
import heapq
import numbers

import numpy

import chainer
from chainer import backend
from chainer import function_node
from chainer import initializers
from chainer import link
from chainer import primitive_ops
from chainer import variable
from chainer.functions import _labels
from chainer.functions.activation import sigmoid
from chainer.functions.array import scatter_add
from chainer.utils import type_check


class TreeParser:
    """Parser of binary trees made of nested pairs, such as ``((0, 1), 2)``.

    Internal nodes are numbered in depth-first (pre-)order from 0. The path
    of a leaf lists the internal nodes from the root down to it, and its
    code says at each of them whether the path goes left (``1``) or right
    (``-1``).

    Args:
        dtype (numpy.dtype): dtype of the codes.
    """

    def __init__(self, dtype=numpy.float32):
        self.dtype = dtype
        self.next_id = 0
        self.paths = {}
        self.codes = {}

    def size(self):
        """Returns the number of internal nodes of the last parsed tree.

        Returns:
            int: Number of internal nodes.
        """
        return self.next_id

    def get_paths(self):
        """Returns the paths of the leaves of the last parsed tree.

        Returns:
            dict: Leaf to an int32 array of internal node ids.
        """
        return self.paths

    def get_codes(self):
        """Returns the codes of the leaves of the last parsed tree.

        Returns:
            dict: Leaf to an array of ``1`` (left) and ``-1`` (right).
        """
        return self.codes

    def parse(self, tree):
        """Parses a tree.

        Args:
            tree: A leaf (any hashable that is not a tuple) or a pair
                ``(left, right)`` of trees.

        Raises:
            ValueError: An internal node does not have two children, or a
                leaf appears twice.
        """
        self.next_id = 0
        self.paths = {}
        self.codes = {}
        # An explicit stack rather than recursion: unbalanced trees (e.g.
        # Huffman trees of skewed counts) can be deeper than Python's limit.
        stack = [(tree, (), ())]
        while stack:
            node, path, code = stack.pop()
            if isinstance(node, tuple):
                if len(node) != 2:
                    raise ValueError(
                        "All internal nodes must have two child nodes; got "
                        f"{len(node)} children"
                    )
                node_id = self.next_id
                self.next_id += 1
                left, right = node
                # Pushed right first so that the left subtree is numbered first.
                stack.append((right, (*path, node_id), (*code, -1.0)))
                stack.append((left, (*path, node_id), (*code, 1.0)))
            else:
                if node in self.paths:
                    raise ValueError(f"leaf {node!r} appears twice in the tree")
                self.paths[node] = numpy.array(path, numpy.int32)
                self.codes[node] = numpy.array(code, self.dtype)


class BinaryHierarchicalSoftmaxFunction(function_node.FunctionNode):
    """Hierarchical softmax loss over a binary tree, summed over the batch.

    The node is built once per tree (parsing it is costly) and copied for
    every call, as :class:`BinaryHierarchicalSoftmax` does.

    Args:
        tree: A binary tree of nested pairs whose leaves are the word ids,
            non-negative integers.
        dtype (numpy.dtype): dtype of the codes.

    Attributes:
        paths (:ref:`ndarray`): int32 internal node ids of the paths of all
            words, concatenated in word order.
        codes (:ref:`ndarray`): Directions (``1`` left, ``-1`` right) along
            those paths.
        begins (:ref:`ndarray`): int32 array of shape ``(n_vocab + 1,)``; the
            path of word ``i`` is ``paths[begins[i]:begins[i + 1]]`` (empty
            for an id that is not a leaf).
        parser_size (int): Number of internal nodes, i.e. rows of ``W``.
    """

    def __init__(self, tree, dtype=numpy.float32):
        parser = TreeParser(dtype)
        parser.parse(tree)
        paths = parser.get_paths()
        codes = parser.get_codes()
        for leaf in paths:
            if (
                isinstance(leaf, bool)
                or not isinstance(leaf, numbers.Integral)
                or leaf < 0
            ):
                raise ValueError(
                    f"the leaves of the tree must be non-negative ints; got {leaf!r}"
                )
        n_vocab = max(paths) + 1
        lengths = numpy.zeros(n_vocab, numpy.int32)
        for leaf, path in paths.items():
            lengths[leaf] = len(path)
        self.begins = numpy.concatenate(([0], numpy.cumsum(lengths))).astype(
            numpy.int32
        )
        words = [i for i in range(n_vocab) if i in paths]
        self.paths = numpy.concatenate(
            [numpy.empty(0, numpy.int32)] + [paths[i] for i in words]
        )
        self.codes = numpy.concatenate(
            [numpy.empty(0, dtype)] + [codes[i] for i in words]
        )
        self.parser_size = parser.size()

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 3)
        type_check.argname(in_types, ("x", "t", "W"))
        x_type, t_type, w_type = in_types
        type_check.expect(
            x_type.dtype.kind == "f",
            x_type.ndim == 2,
            t_type.dtype.kind == "i",
            t_type.ndim == 1,
            x_type.shape[0] == t_type.shape[0],
            w_type.dtype == x_type.dtype,
            w_type.ndim == 2,
            w_type.shape[0] == self.parser_size,
            w_type.shape[1] == x_type.shape[1],
        )

    def forward(self, inputs):
        x, t, W = inputs
        xp = backend.get_array_module(x)
        n_vocab = len(self.begins) - 1
        _labels.check_labels(
            "BinaryHierarchicalSoftmax", t, n_vocab, None, "t", "number of word ids"
        )
        self.retain_inputs((0, 2))
        # Paths padded to the longest one of the batch; padded steps get the
        # sign 0, which cancels their gradient (and their loss, masked below).
        start = self.begins[t]
        lengths = self.begins[t + 1] - start
        max_len = int(lengths.max()) if lengths.size else 0
        steps = xp.arange(max_len, dtype=numpy.int32)
        valid = steps < lengths[:, None]
        pos = xp.where(valid, start[:, None] + steps, 0)
        self._node_ids = self.paths[pos]
        self._signs = self.codes[pos].astype(x.dtype) * valid
        # Kept for the first-order backward, which would gather them again.
        self._w = W[self._node_ids]
        self._wx = xp.matmul(self._w, x[:, :, None])[:, :, 0]
        # -log sigmoid(c * wx) = log(1 + exp(-c * wx)).
        loss = (xp.logaddexp(0, -self._signs * self._wx) * valid).sum()
        return (xp.asarray(loss, dtype=x.dtype),)

    def backward(self, indexes, grad_outputs):
        if chainer.config.enable_backprop:
            return self._backward_graph(indexes, grad_outputs)
        # No graph is recorded: plain array code, about twice as fast.
        x, W = (v.array for v in self.get_retained_inputs())
        gy = grad_outputs[0].array
        xp = backend.get_array_module(x)
        signs = self._signs
        half = x.dtype.type(0.5)
        # d/ds log(1 + exp(-c s)) = -c * sigmoid(-c s).
        g = xp.tanh(self._wx * (signs * -half))
        g *= half
        g += half
        g *= signs * -gy
        ret = []
        if 0 in indexes:
            gx = xp.matmul(g[:, None, :], self._w)[:, 0, :]
            ret.append(variable.Variable(gx, requires_grad=False))
        if 1 in indexes:
            ret.append(None)
        if 2 in indexes:
            rows = g[:, :, None] * x[:, None, :]
            gW = xp.zeros(W.size, W.dtype)
            xp.add.at(gW, self._flat_indexes(x.shape[1]), rows.ravel())
            gW = gW.reshape(W.shape)
            ret.append(variable.Variable(gW, requires_grad=False))
        return tuple(ret)

    def _flat_indexes(self, n_in):
        # Element indices of the rows W[node_ids] in W.ravel(): NumPy's add.at
        # is several times faster on 1-d indices than on whole rows.
        xp = backend.get_array_module(self._node_ids)
        flat = self._node_ids[:, :, None].astype(numpy.intp) * n_in + xp.arange(n_in)
        return flat.ravel()

    def _backward_graph(self, indexes, grad_outputs):
        # The same gradients composed of differentiable ops, for double backprop.
        x, W = self.get_retained_inputs()
        (gy,) = grad_outputs
        ids, signs = self._node_ids, self._signs
        n, length = ids.shape
        n_in = x.shape[1]
        w = primitive_ops.get_item(W, ids)
        wx = primitive_ops.reshape(
            primitive_ops.matmul(w, primitive_ops.reshape(x, (n, n_in, 1))), (n, length)
        )
        g = sigmoid.sigmoid(wx * -signs) * (-signs) * gy
        ret = []
        if 0 in indexes:
            gx = primitive_ops.matmul(primitive_ops.reshape(g, (n, 1, length)), w)
            ret.append(primitive_ops.reshape(gx, (n, n_in)))
        if 1 in indexes:
            ret.append(None)
        if 2 in indexes:
            rows = primitive_ops.reshape(g, (n, length, 1)) * primitive_ops.reshape(
                x, (n, 1, n_in)
            )
            xp = backend.get_array_module(x)
            gW = scatter_add.scatter_add(
                xp.zeros(W.size, W.dtype),
                self._flat_indexes(n_in),
                primitive_ops.reshape(rows, (-1,)),
            )
            ret.append(primitive_ops.reshape(gW, W.shape))
        return tuple(ret)


class BinaryHierarchicalSoftmax(link.Link):
    """Hierarchical softmax layer over a binary tree.

    In natural language applications the vocabulary is too large for a
    softmax loss. The hierarchical softmax uses a product of sigmoid
    functions instead, which costs :math:`O(\\log n)` time on average for a
    vocabulary of size :math:`n`.

    Each leaf of a binary tree is a word. When word :math:`x` is given,
    exactly one path from the root to its leaf exists. Let
    :math:`\\mbox{path}(x) = ((e_1, b_1), \\dots, (e_m, b_m))` be that path,
    where :math:`e_i` is the index of the :math:`i`-th internal node and
    :math:`b_i \\in \\{-1, 1\\}` the direction taken there (``1`` left,
    ``-1`` right). The probability of :math:`x` is

    .. math::
        P(x) = \\prod_{(e_i, b_i) \\in \\mbox{path}(x)} P(b_i | e_i)
             = \\prod_{(e_i, b_i) \\in \\mbox{path}(x)}
               \\sigma(b_i h^\\top w_{e_i}),

    where :math:`\\sigma` is the sigmoid function, :math:`h` the input
    vector and :math:`w` the weight matrix. The loss is
    :math:`-\\log P(x)`, summed over the batch. It needs :math:`O(n)`
    memory, as the number of internal nodes is :math:`n - 1`.

    Args:
        in_size (int): Dimension of input vectors.
        tree: A binary tree made with tuples like ``((1, 2), 3)``; its leaves
            are the word ids.
        dtype (numpy.dtype): Type of the weight and the codes; ``None`` means
            :func:`chainer.get_dtype`.

    Attributes:
        W (~chainer.Parameter): Weight parameter matrix of shape
            ``(n_internal_nodes, in_size)``, uniformly initialized in
            ``[-1, 1]``.

    See: Hierarchical Probabilistic Neural Network Language Model
    [Morin+, AISTAT2005].

    Example:
        >>> import numpy as np
        >>> import chainer.links as L
        >>> tree = L.BinaryHierarchicalSoftmax.create_huffman_tree(
        ...     {0: 3, 1: 4, 2: 5, 3: 6})
        >>> tree
        ((0, 1), (2, 3))
        >>> hsm = L.BinaryHierarchicalSoftmax(2, tree)
        >>> hsm.W.shape
        (3, 2)
        >>> hsm.W.array[...] = 0  # every turn has probability 1/2
        >>> x = np.ones((1, 2), np.float32)
        >>> round(float(hsm(x, np.array([3], np.int32)).array), 4)  # 2 log 2
        1.3863
    """

    def __init__(self, in_size, tree, dtype=None):
        super().__init__()
        dtype = chainer.get_dtype(dtype)
        # Parsed once; the node is copied on every forward computation.
        self._func = BinaryHierarchicalSoftmaxFunction(tree, dtype)
        with self.init_scope():
            self.W = variable.Parameter(
                initializers.Uniform(1, dtype), (self._func.parser_size, in_size)
            )

    def device_resident_accept(self, visitor):
        """Moves the parameter and the tree's path tables with the link.

        Args:
            visitor (~chainer.device_resident.DeviceResidentsVisitor):
                Visitor.
        """
        super().device_resident_accept(visitor)
        func = self._func
        func.paths = visitor.visit_array(func.paths)
        func.codes = visitor.visit_array(func.codes)
        func.begins = visitor.visit_array(func.begins)

    def forward(self, x, t):
        """Computes the loss value for given input and ground truth labels.

        Args:
            x (~chainer.Variable or :ref:`ndarray`): Input vectors of shape
                ``(batch_size, in_size)``.
            t (~chainer.Variable or :ref:`ndarray`): Integer word ids of
                shape ``(batch_size,)``.

        Returns:
            ~chainer.Variable: Loss value, summed over the batch.
        """
        (loss,) = copy.copy(self._func).apply((x, t, self.W))
        return loss

    @staticmethod
    def create_huffman_tree(word_counts):
        """Makes a Huffman tree from a dictionary containing word counts.

        This method creates a binary Huffman tree, which is required for
        :class:`BinaryHierarchicalSoftmax`. For example,
        ``{0: 8, 1: 5, 2: 6, 3: 4}`` is converted to
        ``((3, 1), (2, 0))``.

        Args:
            word_counts (dict of int key and int or float values): Dictionary
                representing counts of words.

        Returns:
            Binary Huffman tree with tuples and keys of ``word_counts``.

        Example:
            >>> w = {'a': 3, 'b': 4, 'c': 5, 'd': 6}
            >>> BinaryHierarchicalSoftmax.create_huffman_tree(w)
            (('a', 'b'), ('c', 'd'))
        """
        if not word_counts:
            raise ValueError("Empty vocabulary")
        # The insertion id breaks ties between equal counts, so that trees
        # themselves are never compared.
        heap = [(c, uid, w) for uid, (w, c) in enumerate(word_counts.items())]
        heapq.heapify(heap)
        while len(heap) >= 2:
            count1, uid1, tree1 = heapq.heappop(heap)
            count2, _, tree2 = heapq.heappop(heap)
            heapq.heappush(heap, (count1 + count2, uid1, (tree1, tree2)))
        return heap[0][2]
