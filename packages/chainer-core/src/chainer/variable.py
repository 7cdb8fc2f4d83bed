"""``Variable``, ``Parameter`` and ``VariableNode``: the nodes of the graph."""

from __future__ import annotations

import numbers
import warnings
import weakref

import numpy

from chainer import backend
from chainer import configuration

_config = configuration.config
_ndarray = numpy.ndarray
_new = object.__new__
_weakref = weakref.ref


def _is_array(x) -> bool:
    if type(x) is _ndarray:
        return True
    return not isinstance(x, numpy.generic) and backend.is_array_supported(x)


def _check_grad_type(func, x, is_node_x, gx):
    """Raises ValueError/TypeError if ``gx`` cannot be the gradient of ``x``."""
    x_data = x.data if is_node_x else x._data
    if x_data is None or gx is None:
        return
    where = "" if func is None else f" (function {func.label})"
    if not _is_array(gx):
        raise TypeError(f"gradient must be an array{where}; got {type(gx).__name__}")
    if type(gx) is not type(x_data):
        raise TypeError(
            f"type of data and grad mismatch{where}\n"
            f"{type(x_data).__name__} != {type(gx).__name__}"
        )
    if gx.dtype != x_data.dtype:
        raise TypeError(
            f"dtype of data and grad mismatch{where}\n{x_data.dtype} != {gx.dtype}"
        )
    if gx.shape != x_data.shape:
        raise ValueError(
            f"shape of data and grad mismatch{where}\n{x_data.shape} != {gx.shape}"
        )


def _no_variable():
    # The "weak reference" of a node that never had a Variable.
    return None


def _array_node(data):
    """Graph node of a plain array (or None) given to a function: no Variable,
    no gradient."""
    node = _new(VariableNode)
    node._variable = _no_variable
    node.name = None
    node._requires_grad = False
    node._creator_node = None
    node.data = None
    node.rank = 0
    if data is None:
        node.shape = node.dtype = None
    else:
        node.shape = data.shape
        node.dtype = data.dtype
    return node


class VariableNode:
    """The node of a :class:`Variable` in the backward graph.

    It holds what backprop needs after the user drops the Variable: the creator
    function, shape, dtype and, when retained, the data. The Variable is held
    only weakly, so graphs never keep user arrays alive through cycles.

    Args:
        variable (Variable): The variable this node belongs to.
        name (str): Name of the node.
    """

    __slots__ = (
        "__weakref__",
        "_creator_node",
        "_requires_grad",
        "_variable",
        "data",
        "dtype",
        "name",
        "rank",
        "shape",
    )

    def __init__(self, variable: Variable, name: str | None, **kwargs) -> None:
        if kwargs:
            raise TypeError(f"unexpected keyword arguments: {sorted(kwargs)}")
        self._variable = weakref.ref(variable)
        self.name = name
        self._requires_grad = variable._requires_grad
        self._creator_node = None
        self.data = None
        self.rank = 0
        arr = variable._data
        if arr is None:
            self.shape = self.dtype = None
        else:
            self.shape = arr.shape
            self.dtype = arr.dtype

    @property
    def creator(self):
        """The old-style Function that created this node, or its FunctionNode."""
        node = self._creator_node
        if node is None:
            return None
        return getattr(node, "_function", node)

    @creator.setter
    def creator(self, func):
        self.creator_node = func

    @property
    def creator_node(self):
        """The :class:`~chainer.FunctionNode` that created this node, or None."""
        return self._creator_node

    @creator_node.setter
    def creator_node(self, func):
        func = getattr(func, "node", func)  # old-style Function -> its node
        self._creator_node = func
        if func is not None:
            self.rank = func.rank + 1

    @property
    def _rank(self):
        # Chainer's attribute name for the rank; some code sets it directly.
        return self.rank

    @_rank.setter
    def _rank(self, value):
        self.rank = value

    @property
    def grad(self):
        """Gradient array of the owning variable (None when it is gone)."""
        var = self._variable()
        return None if var is None else var.grad

    @property
    def grad_var(self):
        """Gradient Variable of the owning variable (None when it is gone)."""
        var = self._variable()
        return None if var is None else var._grad_var

    @property
    def label(self) -> str:
        """Short text with shape and dtype, used in graph dumps."""
        if self.shape == ():
            return str(self.dtype)
        return "({}), {}".format(", ".join(map(str, self.shape or ())), self.dtype)

    @property
    def requires_grad(self) -> bool:
        """Whether gradients flow to this node."""
        return self._requires_grad

    def get_variable(self) -> Variable:
        """Returns the owning variable, or a new one sharing this node if it is gone."""
        var = self._variable()
        if var is not None:
            return var
        if self.data is None:
            # No array kept (e.g. a None input of a function).
            var = Variable(None, requires_grad=self._requires_grad)
        else:
            var = Variable._make(self.data, self._requires_grad)
        var._node = self
        return var

    def get_variable_or_none(self) -> Variable | None:
        """Returns the owning variable, or None if it was released."""
        return self._variable()

    def set_creator(self, creator) -> None:
        """Sets the creator (an old-style Function or a FunctionNode)."""
        self.creator_node = creator

    def set_creator_node(self, creator_node) -> None:
        """Sets the creator :class:`~chainer.FunctionNode`."""
        self.creator_node = creator_node

    def unchain(self) -> None:
        """Removes the reference to the creator."""
        self._creator_node = None

    def retain_data(self) -> None:
        """Keeps the owning variable's array in the node for backprop."""
        var = self._variable()
        if var is None:
            raise RuntimeError("cannot retain variable data: the variable is gone")
        self.data = var._data


class Variable:
    """Array with a structure to keep track of computation.

    Every variable holds a data array (NumPy, CuPy or another registered
    backend) and, once backprop ran, a gradient. Applying functions to
    variables builds the backward graph (define-by-run).

    Args:
        data (:ref:`ndarray`): Initial data array, or None.
        name (str): Name of the variable.
        grad (:ref:`ndarray`): Initial gradient array, or None.
        requires_grad (bool): Whether backprop computes a gradient for it.
    """

    __array_priority__ = 200  # make ``ndarray op Variable`` defer to Variable
    _is_chainer_variable = True
    _loss_scale = None

    def __init__(
        self, data=None, *, name=None, grad=None, requires_grad=True, **kwargs
    ) -> None:
        if kwargs:
            if "volatile" in kwargs:
                raise ValueError(
                    "'volatile' argument is not supported anymore. "
                    "Use chainer.using_config('enable_backprop', False)"
                )
            if kwargs.pop("layout", None) is not None:
                raise ValueError(
                    "Variable: only the standard memory layout is supported "
                    "(layout=None); Chainer 7's experimental layouts of "
                    "chainer.memory_layouts are not implemented"
                )
            if kwargs:
                raise TypeError(f"unexpected keyword arguments: {sorted(kwargs)}")
        if data is not None and type(data) is not _ndarray and not _is_array(data):
            raise TypeError(
                "numpy.ndarray or cuda.ndarray are expected as Variable data; "
                f"got {type(data).__name__}"
            )
        if requires_grad is not True:
            requires_grad = bool(requires_grad)
        self._data = data
        self._requires_grad = requires_grad
        # VariableNode(self, name), spelled out: a Variable is made per op
        # input in user code.
        node = _new(VariableNode)
        node._variable = _weakref(self)
        node.name = name
        node._requires_grad = requires_grad
        node._creator_node = None
        node.data = None
        node.rank = 0
        if data is None:
            node.shape = node.dtype = None
        else:
            node.shape = data.shape
            node.dtype = data.dtype
        self._node = node
        self._grad_var = None if grad is None else Variable(grad)

    @classmethod
    def _make(cls, data, requires_grad):
        """Fast constructor for function outputs (no argument checks)."""
        v = object.__new__(cls)
        v._data = data
        v._requires_grad = requires_grad
        v._grad_var = None
        node = object.__new__(VariableNode)
        node._variable = weakref.ref(v)
        node.name = None
        node._requires_grad = requires_grad
        node._creator_node = None
        node.data = None
        node.rank = 0
        node.shape = data.shape
        node.dtype = data.dtype
        v._node = node
        return v

    @staticmethod
    def _make_output(data, creator, rank):
        """Fast constructor for an output of ``creator`` in a graph.

        The twin of :meth:`_make` with the creator and rank set at once; kept
        separate rather than shared because both run once per op and a shared
        helper costs a call each time.
        """
        v = object.__new__(Variable)
        v._data = data
        v._requires_grad = True
        v._grad_var = None
        node = object.__new__(VariableNode)
        node._variable = weakref.ref(v)
        node.name = None
        node._requires_grad = True
        node._creator_node = creator
        node.data = None
        node.rank = rank
        node.shape = data.shape
        node.dtype = data.dtype
        v._node = node
        return v

    def __copy__(self):
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new._node = VariableNode(new, self._node.name)
        new._node._creator_node = self._node._creator_node
        new._node.rank = self._node.rank
        return new

    def __reduce__(self):
        return _rebuild_variable, (
            type(self),
            self._data,
            self.name,
            self.grad,
            self._requires_grad,
        )

    # -- representation ---------------------------------------------------
    def __repr__(self) -> str:
        return variable_repr(self)

    def __str__(self) -> str:
        return variable_str(self)

    @property
    def label(self) -> str:
        """Short text describing shape and dtype."""
        return self._node.label

    def summary(self) -> str:
        """Returns ``'<variable NAME>'`` or ``'<variable at 0x...>'``."""
        if self.name:
            return f"<variable {self.name}>"
        return f"<variable at 0x{id(self):x}>"

    def debug_print(self) -> str:
        """Returns a multi-line summary of the data and gradient, as Chainer's.

        The lines give the summary, device (``CPU`` for NumPy), array type,
        shape, dtype, the mean and standard deviation of the data, and those
        of the gradient (``None`` without one, ``0`` if it is all zeros).
        """
        arr = self._data
        if arr is None:
            device = array_type = shape = dtype = stats = None
        else:
            device = (
                "CPU"
                if isinstance(arr, numpy.ndarray)
                else getattr(arr, "device", "CPU")
            )
            array_type = type(arr)
            shape, dtype = arr.shape, arr.dtype
            stats = _statistics(arr)
        grad = self.grad
        if grad is not None:
            xp = backend.get_array_module(grad)
            grad = 0 if bool(xp.all(grad == 0)) else _statistics(grad)
        return (
            f"{self.summary()}\n"
            f"- device: {device}\n"
            f"- backend: {array_type}\n"
            f"- shape: {shape}\n"
            f"- dtype: {dtype}\n"
            f"- statistics: {stats}\n"
            f"- grad: {grad}"
        )

    # -- basic properties -------------------------------------------------
    @property
    def name(self) -> str | None:
        """Name of the variable."""
        return self._node.name

    @name.setter
    def name(self, n) -> None:
        self._node.name = n

    @property
    def array(self):
        """The underlying data array."""
        return self._data

    @array.setter
    def array(self, d) -> None:
        self._set_array(d)

    data = array

    @property
    def raw_array(self):
        """The underlying array as it is (same as :attr:`array` here)."""
        return self._data

    @property
    def chx_array(self):
        """ChainerX view; ChainerX is not supported, so this raises RuntimeError."""
        raise RuntimeError("ChainerX is not supported by this Chainer")

    def _set_array(self, d) -> None:
        if d is not None and not _is_array(d):
            raise TypeError(
                "numpy.ndarray or cuda.ndarray are expected as Variable data; "
                f"got {type(d).__name__}"
            )
        self._data = d
        node = self._node
        if node.data is not None:
            node.data = d
        if d is None:
            node.shape = node.dtype = None
        else:
            node.shape = d.shape
            node.dtype = d.dtype

    @property
    def layout(self):
        """Memory layout of the array; only the standard layout (None) exists."""
        return None

    def as_layout(self, layout):
        """Returns a variable with the given layout (only None is supported)."""
        if layout is not None:
            raise ValueError(f"unsupported memory layout: {layout!r}")
        return self

    @property
    def grad(self):
        """Gradient array, or None."""
        gv = self._grad_var
        return None if gv is None else gv._data

    @grad.setter
    def grad(self, g) -> None:
        if g is not None:
            _check_grad_type(None, self, False, g)
            # As in Chainer, a new Variable that requires grad: a graph built
            # on grad_var (double backprop) reaches it.
            self._grad_var = Variable._make(g, True)
        else:
            self._grad_var = None

    @property
    def grad_var(self):
        """Gradient as a :class:`Variable` (keeps its graph in double backprop)."""
        return self._grad_var

    @grad_var.setter
    def grad_var(self, g) -> None:
        if g is not None:
            if not isinstance(g, Variable):
                raise TypeError("grad_var must be a Variable or None")
            _check_grad_type(None, self, False, g._data)
        self._grad_var = g

    @property
    def shape(self):
        return self._data.shape

    @property
    def ndim(self):
        return self._data.ndim

    @property
    def size(self):
        return self._data.size

    @property
    def dtype(self):
        return self._data.dtype

    @property
    def xp(self):
        """Array module of the data (``numpy``, ``cupy``...)."""
        return backend.get_array_module(self._data)

    @property
    def device(self):
        """:class:`~chainer.backend.Device` holding the data."""
        return backend.get_device_from_array(self._data)

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of unsized object")
        return len(self._data)

    def __bool__(self) -> bool:
        return bool(self._data)

    def item(self):
        """Returns the single element of the data as a Python scalar."""
        if self._data.size != 1:
            raise ValueError(
                "item() requires a variable of one element; "
                f"this one has shape {self._data.shape}"
            )
        return self._data.item()

    @property
    def node(self) -> VariableNode:
        """The :class:`VariableNode` of this variable."""
        return self._node

    @property
    def requires_grad(self) -> bool:
        """Whether backprop computes a gradient for this variable."""
        return self._requires_grad

    @property
    def rank(self) -> int:
        return self._node.rank

    @property
    def creator(self):
        """The function (old-style Function or FunctionNode) that created it."""
        return self._node.creator

    @creator.setter
    def creator(self, func) -> None:
        self._node.creator_node = func

    @property
    def creator_node(self):
        """The :class:`~chainer.FunctionNode` that created it, or None."""
        return self._node._creator_node

    @creator_node.setter
    def creator_node(self, func) -> None:
        self._node.creator_node = func

    def set_creator(self, gen_func) -> None:
        """Notifies the variable that it was created by ``gen_func``."""
        self._node.creator_node = gen_func

    def set_creator_node(self, fnode) -> None:
        """Notifies the variable that it was created by ``fnode``."""
        self._node.creator_node = fnode

    # -- gradients --------------------------------------------------------
    def cleargrad(self) -> None:
        """Clears the gradient (sets it to None)."""
        self._grad_var = None

    def zerograd(self) -> None:
        """Fills the gradient with zeros (deprecated: use :meth:`cleargrad`)."""
        warnings.warn(
            "Variable.zerograd is deprecated. Use Variable.cleargrad instead.",
            DeprecationWarning,
        )
        if self._data is None:
            return
        gv = self._grad_var
        if gv is None:
            xp = backend.get_array_module(self._data)
            self._grad_var = Variable._make(xp.zeros_like(self._data), False)
        else:
            gv._data.fill(0)

    def addgrad(self, var) -> None:
        """Adds the gradient of ``var`` to this variable's gradient.

        ``var``'s gradient is moved to this variable's device first.

        Args:
            var (Variable): Source variable.
        """
        src = var.grad
        if src is None:
            return
        dst_dev = self.device
        src = dst_dev.send(src)
        if self._grad_var is None:
            self.grad = src.copy()
        else:
            self._grad_var._data = self._grad_var._data + src

    def copydata(self, var) -> None:
        """Copies ``var``'s data into this variable's array (in place).

        If one side has no data yet (an uninitialized Parameter), it is
        initialized with the other side's shape first.
        """
        src, dst = var._data, self._data
        if src is None:
            if dst is None:
                return
            _initialize_empty(var, dst.shape, "source")
            src = var._data
        elif dst is None:
            _initialize_empty(self, src.shape, "destination")
            dst = self._data
        backend.copyto(dst, src)

    # -- graph surgery ----------------------------------------------------
    def unchain(self) -> None:
        """Deletes the reference to the creator of this variable."""
        self._node._creator_node = None

    def unchain_backward(self) -> None:
        """Deletes references between functions and variables backward from here."""
        stack = [self._node]
        seen: set[int] = set()
        while stack:
            node = stack.pop()
            func = node._creator_node
            node._creator_node = None
            if func is None or id(func) in seen:
                continue
            seen.add(id(func))
            inputs = func.inputs or ()
            func.unchain()
            stack.extend(inputs)

    def retain_data(self) -> None:
        """Lets the node keep the data array (used by functions' backward)."""
        self._node.data = self._data

    # -- devices ----------------------------------------------------------
    def to_device(self, device) -> None:
        """Moves data and gradient to ``device`` (anything ``get_device`` takes)."""
        dev = backend.get_device(device)
        self._to_device(dev)

    def _to_device(self, dev) -> None:
        if self._data is not None:
            self._set_array(dev.send(self._data))
        if self._grad_var is not None:
            self._grad_var._to_device(dev)

    def to_cpu(self) -> None:
        """Moves data and gradient to host memory."""
        self._to_device(backend.CpuDevice())

    def to_gpu(self, device=None) -> None:
        """Moves data and gradient to a GPU (the current one if ``device`` is None)."""
        if device is None:
            device = "@cupy"
        elif isinstance(device, int) and device < 0:
            raise ValueError(f"invalid GPU id: {device}")
        self._to_device(backend.get_device(device))

    def to_intel64(self) -> None:
        """Copies data and gradient to the iDeep backend.

        Raises:
            RuntimeError: iDeep is not available in this Chainer.
        """
        from chainer.backends import intel64

        intel64.check_ideep_available()
        self._to_device(intel64.Intel64Device())  # pragma: no cover - no iDeep

    def to_chx(self) -> None:
        """Converts data and gradient to ChainerX arrays.

        Raises:
            RuntimeError: ChainerX is not available in this Chainer.
        """
        from chainer.backends import _chainerx

        _chainerx.check_chainerx_available()

    def from_chx(self) -> None:
        """Converts ChainerX data and gradient to NumPy/CuPy arrays.

        It does nothing when the data is not a ChainerX array, which is
        always the case here (ChainerX is not available).
        """

    # -- backprop ---------------------------------------------------------
    def backward(
        self, retain_grad=False, enable_double_backprop=False, loss_scale=None
    ) -> None:
        """Runs error backpropagation from this variable.

        If this is a one-element variable and its gradient is unset, the
        gradient is initialized to one (times ``loss_scale``). A variable of
        several elements without a gradient has nothing to propagate: set
        its ``grad`` first.

        Args:
            retain_grad (bool): Keep the gradients of intermediate variables.
            enable_double_backprop (bool): Build the graph of the backward
                computation so that gradients can be differentiated again.
            loss_scale (float): Multiply the initial gradient by this factor;
                parameter updates divide it out again.
        """
        from chainer import _backprop

        _backprop.backward_from_variable(
            self, retain_grad, enable_double_backprop, loss_scale
        )

    # -- array-like API ---------------------------------------------------
    def reshape(self, *shape):
        """Returns a reshaped variable (differentiable)."""
        from chainer import primitive_ops

        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = shape[0]
        return primitive_ops.reshape(self, tuple(shape))

    def transpose(self, *axes):
        """Returns a variable with permuted axes (differentiable)."""
        from chainer import primitive_ops

        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = axes[0]
        return primitive_ops.transpose(self, tuple(axes) if axes else None)

    @property
    def T(self):
        """Transposed variable (all axes reversed)."""
        from chainer import primitive_ops

        return primitive_ops.transpose(self, None)

    def mean(self, axis=None, *, weights=None, keepdims=False):
        """Returns the (weighted) mean along ``axis`` (differentiable).

        Args:
            axis (None, int or tuple of int): Axes to average over.
            weights (Variable or :ref:`ndarray`): Weights broadcastable along
                ``axis``; None means equal weights.
            keepdims (bool): Keep the reduced axes with length one.
        """
        from chainer import primitive_ops

        return primitive_ops.average(
            self, axis=axis, weights=weights, keepdims=keepdims
        )

    def __getitem__(self, slices):
        from chainer import primitive_ops

        return primitive_ops.get_item(self, slices)

    def __neg__(self):
        from chainer import primitive_ops

        return primitive_ops.neg(self)

    def __abs__(self):
        from chainer import primitive_ops

        return primitive_ops.absolute(self)

    def __pos__(self):
        return self

    # Comparisons return plain boolean arrays; hashing stays by identity.
    def __lt__(self, other):
        return self._data < _as_data(other)

    def __le__(self, other):
        return self._data <= _as_data(other)

    def __eq__(self, other):
        return self._data == _as_data(other)

    def __ne__(self, other):
        return self._data != _as_data(other)

    def __gt__(self, other):
        return self._data > _as_data(other)

    def __ge__(self, other):
        return self._data >= _as_data(other)

    __hash__ = object.__hash__


def _statistics(arr):
    if arr.size == 0:
        return "empty"  # (NumPy warns on the mean of nothing)
    xp = backend.get_array_module(arr)
    return f"mean={float(xp.mean(arr)):.8f}, std={float(xp.std(arr)):.8f}"


def _initialize_empty(var, shape, side):
    if not isinstance(var, Parameter):
        raise ValueError(
            f"cannot copy data: the {side} variable has no data and, not being a "
            "Parameter, cannot be initialized"
        )
    var.initialize(shape)


def _as_data(x):
    return x._data if isinstance(x, Variable) else x


def _rebuild_variable(cls, data, name, grad, requires_grad):
    if cls is Parameter:
        v = Parameter(data, name=name)
        if grad is not None:
            v.grad = grad
        return v
    return cls(data, name=name, grad=grad, requires_grad=requires_grad)


class Parameter(Variable):
    """A trainable variable owned by a :class:`~chainer.Link`.

    Args:
        initializer: An initializer (callable filling an array), a scalar, an
            array (used as the initial data), or None (filled with NaN).
        shape (int or tuple of int): Shape; if None (and ``initializer`` is not
            an array) the parameter is initialized lazily by
            :meth:`initialize`.
        name (str): Name of the parameter.
    """

    initializer = None
    _grad_initializer = None
    _initial_device = None

    def __init__(self, initializer=None, shape=None, name=None, *, layout=None):
        if layout is not None:
            raise ValueError(f"unsupported memory layout: {layout!r}")
        from chainer import initializers

        if initializer is None:
            initializer = initializers.NaN()
        elif isinstance(initializer, (numbers.Number, numpy.generic)):
            initializer = initializers.Constant(initializer)
        if shape is None:
            if _is_array(initializer):
                super().__init__(initializer, name=name)
                self.initializer = initializers.Constant(initializer)
            else:
                if not callable(initializer):
                    raise TypeError(
                        "Parameter initializer must be an initializer, a scalar, "
                        f"an array or None; got {type(initializer).__name__}"
                    )
                super().__init__(name=name)
                self.initializer = initializer
                dtype = getattr(initializer, "dtype", None)
                self._grad_initializer = initializers.NaN(dtype)
        else:
            if _is_array(initializer):
                initializer = initializers.Constant(initializer)
            data = initializers.generate_array(initializer, shape, numpy)
            # As in Chainer, the gradient starts filled with NaN: backward
            # accumulates into it, so call cleargrads() before a backward.
            super().__init__(data, name=name, grad=numpy.full_like(data, numpy.nan))
            self.initializer = initializer
        self.update_rule = None

    def __reduce__(self):
        return _rebuild_parameter, (
            self._data,
            self.name,
            self.grad,
            self.initializer,
            self.update_rule,
        )

    @property
    def dtype(self):
        """Dtype of the data; known before initialization from the initializer.

        Raises:
            RuntimeError: The parameter is uninitialized and its initializer
                has no ``dtype`` attribute (e.g. a plain function).
        """
        if self._data is not None:
            return self._data.dtype
        from chainer import initializers

        try:
            dtype = self.initializer.dtype
        except AttributeError:
            raise RuntimeError(
                "the dtype of the parameter is not known yet: it is "
                "uninitialized and its initializer has no dtype"
            ) from None
        return (
            numpy.dtype(dtype) if dtype is not None else initializers._default_dtype()
        )

    @property
    def is_initialized(self) -> bool:
        """Whether the data array exists."""
        return self._data is not None

    def initialize(self, shape) -> None:
        """Initializes the data with ``shape``, and the gradient.

        The gradient is filled with NaN, as for a parameter created with a
        shape; with zeros if :meth:`zerograd` was called before, and left
        None if :meth:`cleargrad` was.

        Args:
            shape (int or tuple of int): Shape of the parameter.
        """
        from chainer import initializers

        device = self._initial_device
        if device is None:
            device = self.device if self._data is not None else backend.CpuDevice()
        data = initializers.generate_array(
            self.initializer, shape, device.xp, device=device
        )
        ginit = self._grad_initializer
        grad = None
        if ginit is not None:
            grad = initializers.generate_array(
                ginit, shape, device.xp, dtype=data.dtype, device=device
            )
        self._set_array(data)
        self._grad_var = None if grad is None else Variable._make(grad, False)

    def cleargrad(self) -> None:
        """Clears the gradient (sets it to None)."""
        self._grad_var = None
        if self._data is None:
            self._grad_initializer = None

    def zerograd(self) -> None:
        """Fills the gradient with zeros (deprecated: use :meth:`cleargrad`).

        An uninitialized parameter gets a zero gradient when it is initialized.
        """
        if self._data is None:
            warnings.warn(
                "Parameter.zerograd is deprecated. Use Parameter.cleargrad instead.",
                DeprecationWarning,
            )
            from chainer import initializers

            dtype = getattr(self.initializer, "dtype", None)
            self._grad_initializer = initializers.Zero(dtype)
            return
        super().zerograd()

    def _to_device(self, dev) -> None:
        self._initial_device = dev
        super()._to_device(dev)

    def update(self) -> None:
        """Updates the data with its :attr:`update_rule` (if any)."""
        if self.update_rule is not None:
            self.update_rule.update(self)


def _rebuild_parameter(data, name, grad, initializer, update_rule):
    # Rebuilt as Chainer does: an uninitialized parameter given the data, so
    # a later initialize() gives the copy a NaN gradient.
    p = Parameter(initializer, name=name)
    if data is not None:
        p.array = data
    if grad is not None:
        p.grad = grad
    p.update_rule = update_rule
    return p


def as_variable(obj) -> Variable:
    """Returns ``obj`` if it is a Variable, else wraps it in one (no gradient).

    Args:
        obj (:ref:`ndarray` or Variable): Array or variable.

    Returns:
        Variable: A variable; a wrapped array has ``requires_grad=False``.
    """
    if isinstance(obj, Variable):
        return obj
    return Variable(obj, requires_grad=False)


def as_array(obj):
    """Returns the array of a Variable, or ``obj`` itself if it is an array."""
    if isinstance(obj, Variable):
        return obj._data
    return obj


def _array_text(var, fmt):
    arr = var._data
    if arr is None:
        return "None"
    arr = backend.CpuDevice().send(arr)
    return fmt(arr)


def variable_repr(var) -> str:
    """Returns ``repr`` text of a variable, like NumPy's with 'variable'."""
    prefix = "variable" if var.name is None else f"variable {var.name}"
    arr = var._data

    def fmt(a):
        if a.size > 0 or a.shape == (0,):
            return numpy.array2string(a, separator=", ", prefix=prefix + "(")
        return f"[], shape={a.shape!r}"

    text = _array_text(var, fmt) if arr is not None else "None"
    return f"{prefix}({text})"


def variable_str(var) -> str:
    """Returns ``str`` text of a variable, like NumPy's with 'variable'."""
    prefix = "variable" if var.name is None else f"variable {var.name}"

    def fmt(a):
        if a.size > 0 or a.shape == (0,):
            return numpy.array2string(a, prefix=prefix + "(")
        return f"[], shape={a.shape!r}"

    return f"{prefix}({_array_text(var, fmt)})"
