from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer import variable
from chainer.utils import type_check

# NOTE: Chainer keeps its COO matrix in ``chainer.utils.sparse`` (CooMatrix,
# to_coo). Any object with Chainer's attributes is accepted here:
#   data:  (nnz,) values, or (B, ldnz) for a batch of B matrices;
#   row, col:  integer arrays of data's shape, -1 marking padding;
#   shape:  (M, N), the shape of one matrix.


def _is_coo(x):
    return all(hasattr(x, name) for name in ("data", "row", "col", "shape"))


def _is_dense(x):
    return isinstance(x, variable.Variable) or backend.is_array_supported(x)


class CooMatMul(function_node.FunctionNode):
    """``op(A) @ op(B)`` for a sparse COO ``A`` (its values are input 0)."""

    def __init__(self, sp_row, sp_col, sp_shape, transa=False, transb=False):
        self.sp_row = sp_row
        self.sp_col = sp_col
        self.sp_shape = tuple(sp_shape)
        self.transa = transa
        self.transb = transb

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 2)
        type_check.argname(in_types, ("sp", "dn"))
        sp_type, dn_type = in_types
        type_check.expect(
            sp_type.dtype.kind == "f",
            sp_type.dtype == dn_type.dtype,
            sp_type.ndim >= 1,
            sp_type.ndim <= 2,
            dn_type.ndim == sp_type.ndim + 1,
        )
        k = self.sp_shape[0] if self.transa else self.sp_shape[1]
        k_dn = dn_type.shape[-1] if self.transb else dn_type.shape[-2]
        type_check.expect(k_dn == k)
        if type_check.eval(sp_type.ndim) == 2:
            type_check.expect(sp_type.shape[0] == dn_type.shape[0])

    def forward(self, inputs):
        data, dense = inputs
        xp = backend.get_array_module(data)
        self.retain_inputs((0, 1))
        row, col = xp.asarray(self.sp_row), xp.asarray(self.sp_col)
        if self.transa:
            row, col = col, row
        if self.transb:
            dense = dense.swapaxes(-1, -2)
        m = self.sp_shape[1] if self.transa else self.sp_shape[0]
        valid = row >= 0
        row = xp.where(valid, row, 0)
        col = xp.where(valid, col, 0)
        data = xp.where(valid, data, 0)
        if data.ndim == 1:
            y = xp.zeros((m, dense.shape[-1]), data.dtype)
            xp.add.at(y, row, data[:, None] * dense[col])
        else:
            batch = xp.arange(data.shape[0])[:, None]
            y = xp.zeros((data.shape[0], m, dense.shape[-1]), data.dtype)
            xp.add.at(y, (batch, row), data[..., None] * dense[batch, col])
        return (y,)

    def backward(self, indexes, grad_outputs):
        data, dense = self.get_retained_inputs()
        (gy,) = grad_outputs
        ret = []
        if 0 in indexes:
            ret.append(self._grad_sparse(data, dense, gy))
        if 1 in indexes:
            # op(B)'s gradient is op(A)^T @ gy, again a sparse product.
            node = CooMatMul(self.sp_row, self.sp_col, self.sp_shape, not self.transa)
            (g,) = node.apply((data, gy))
            if self.transb:
                g = _swap_last(g)
            ret.append(g)
        return tuple(ret)

    def _grad_sparse(self, data, dense, gy):
        # The gradient of a stored value A[r, c] is (gy @ op(B)^T)[r, c],
        # computed only at the stored positions.
        xp = backend.get_array_module(data.array)
        row, col = xp.asarray(self.sp_row), xp.asarray(self.sp_col)
        valid = row >= 0
        row = xp.where(valid, row, 0)
        col = xp.where(valid, col, 0)
        if self.transa:
            row, col = col, row
        dense_op = _swap_last(dense) if self.transb else dense
        if data.ndim == 1:
            rows = primitive_ops.get_item(gy, row)
            cols = primitive_ops.get_item(dense_op, col)
        else:
            batch = xp.arange(data.shape[0])[:, None]
            rows = primitive_ops.get_item(gy, (batch, row))
            cols = primitive_ops.get_item(dense_op, (batch, col))
        g = primitive_ops.sum(rows * cols, axis=-1)
        return g * valid.astype(data.dtype)


def _swap_last(x):
    axes = list(range(x.ndim))
    axes[-1], axes[-2] = axes[-2], axes[-1]
    return primitive_ops.transpose(x, tuple(axes))


def sparse_matmul(a, b, transa=False, transb=False):
    """Matrix product of a sparse COO matrix and a dense one (either order).

    One of ``a`` and ``b`` is a sparse matrix in COO format (Chainer's
    ``CooMatrix``: an object with ``data``, ``row``, ``col`` and ``shape``),
    the other a dense float array. Both are single matrices, or both batches
    of ``B`` matrices. Gradients flow to the dense operand and to the stored
    values ``data`` of the sparse one.

    Args:
        a (~chainer.Variable, :ref:`ndarray` or CooMatrix): The left operand:
            a dense array of shape ``(M, K)`` or ``(B, M, K)``, or a sparse
            matrix with ``shape`` ``(M, K)``.
        b (~chainer.Variable, :ref:`ndarray` or CooMatrix): The right
            operand, of shape ``(K, N)`` or ``(B, K, N)`` (or sparse).
        transa (bool): If ``True``, each matrix of ``a`` is transposed.
        transb (bool): If ``True``, each matrix of ``b`` is transposed.

    Returns:
        ~chainer.Variable: The dense product, of shape ``(M, N)`` or
        ``(B, M, N)``.

    Raises:
        ValueError: If neither or both operands are sparse.
    """
    if _is_coo(a) and _is_dense(b):
        node = CooMatMul(a.row, a.col, a.shape, transa, transb)
        (y,) = node.apply((a.data, b))
        return y
    if _is_dense(a) and _is_coo(b):
        # op(a) @ op(b) = (op(b)^T @ op(a)^T)^T
        node = CooMatMul(b.row, b.col, b.shape, not transb, not transa)
        (y,) = node.apply((b.data, a))
        return _swap_last(y)
    raise ValueError(
        "sparse_matmul needs one sparse (COO) and one dense operand; got "
        f"a: {type(a).__name__}, b: {type(b).__name__}"
    )
