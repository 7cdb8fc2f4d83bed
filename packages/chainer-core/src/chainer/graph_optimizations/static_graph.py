"""The static subgraph decorator (:func:`static_graph`) and its schedules.

Chainer builds its graph define-by-run on every call. A chain whose forward
computation is the same every iteration can say so with :func:`static_graph`;
Chainer 7 then records a *static schedule* on the first call and replays it
afterwards, as a speed optimization. Here the define-by-run code of the chain
runs on every call: results and gradients are those of define-by-run by
construction, the schedule objects (``chain.schedule_manager``,
``chain.static_schedule``) exist and keep their bookkeeping, functions marked
with :func:`~chainer.graph_optimizations.static_graph_utilities.static_code`
run on every call, and the documented restrictions are checked.
"""

import functools

from chainer import backend
from chainer import configuration
from chainer import function_node
from chainer import link
from chainer import variable

_OPTIONS = (
    "force_test_define_by_run",
    "minimize_cache_size",
    "verbosity_level",
    "enable_double_backprop",
)


class ScheduleInfo:
    """One function recorded in a static schedule.

    Attributes:
        func (callable): The function marked with ``static_code`` (or the
            forward method of a function node).
        func_name (str): The name shown in debugging output.
    """

    __slots__ = ("func", "func_name")

    def __init__(self, func, func_name=None):
        self.func = func
        self.func_name = func_name or getattr(func, "__qualname__", repr(func))

    def __repr__(self):
        return f"ScheduleInfo({self.func_name})"


class StaticScheduleFunction:
    """The static schedule of a static chain for one kind of input.

    A schedule is made by :meth:`ScheduleManager.get_schedule` for an input
    signature (shapes, dtypes, train or test mode). While the chain runs, it
    is ``chainer.config.schedule_func``: functions marked with
    ``static_code`` are recorded in it by :meth:`append_function` the first
    time and run on every call.

    Args:
        schedule_manager (ScheduleManager): The manager owning the schedule.
        in_vars (tuple of ~chainer.Variable): The inputs it is made for.
        verbosity_level (int): See :func:`static_graph`.
        enable_double_backprop (bool): See :func:`static_graph`.
    """

    def __init__(
        self,
        schedule_manager,
        in_vars=(),
        verbosity_level=0,
        enable_double_backprop=False,
    ):
        self._schedule_manager = schedule_manager
        self.verbosity_level = verbosity_level
        self.enable_double_backprop = enable_double_backprop
        self.in_shapes = tuple(getattr(v, "shape", None) for v in in_vars)
        self.call_count = 0
        self._functions = []
        self._building = False
        self._built = False

    @property
    def schedule_manager(self):
        """The :class:`ScheduleManager` owning this schedule."""
        return self._schedule_manager

    @property
    def functions(self):
        """The recorded functions, as a tuple of :class:`ScheduleInfo`."""
        return tuple(self._functions)

    def is_empty(self):
        """Returns True until a first call of the chain has built the schedule."""
        return not self._built

    def append_function(self, func, args, kwargs, func_name=None):
        """Runs ``func(*args, **kwargs)``, recording it while the schedule is built.

        Returns:
            What ``func`` returns.
        """
        if self._building:
            info = ScheduleInfo(func, func_name)
            self._functions.append(info)
            if self.verbosity_level >= 2:
                print("Adding function to static schedule:", info.func_name)
        return func(*args, **kwargs)

    def _begin_call(self):
        self._building = not self._built
        if self.verbosity_level >= 2:
            if self._building:
                print("This is the first call of the schedule: building it.")
            else:
                print("Running the static chain with its existing schedule.")

    def _end_call(self):
        self._building = False
        self._built = True
        self.call_count += 1

    def debug_print_ref_counts(self):
        """Prints the recorded functions and how often the schedule ran."""
        print(self._describe())

    def _describe(self):
        lines = [
            f"StaticScheduleFunction: input shapes {self.in_shapes}, "
            f"{len(self._functions)} static function(s), "
            f"called {self.call_count} time(s)"
        ]
        lines.extend(f"  {info.func_name}" for info in self._functions)
        return "\n".join(lines)

    def __repr__(self):
        return self._describe()


class ScheduleManager:
    """The static schedules of one static chain.

    A static chain gets a manager (``chain.schedule_manager``) on its first
    call. The manager keeps one list of :class:`StaticScheduleFunction` per
    input signature (shapes and dtypes of the inputs, train or test mode); a
    chain called several times in one iteration (an RNN, for instance) uses
    one schedule per call. :meth:`end_forward` makes the schedules available
    to the next iteration; it is called when backprop reaches the outputs of
    the chain, and in test mode automatically when the chain was never
    called more than once per iteration in training mode.

    Args:
        minimize_cache_size (bool): If True, only the schedules of the latest
            input signature are kept.
        verbosity_level (int): See :func:`static_graph`.
    """

    def __init__(self, minimize_cache_size=True, verbosity_level=0):
        self.schedules = {}
        self.in_use_count = {}
        self.minimize_cache_size = minimize_cache_size
        self.verbosity_level = verbosity_level
        self.max_in_use_train = 0

    def get_schedule(self, in_vars, enable_double_backprop=False):
        """Returns the schedule to use for a call with inputs ``in_vars``.

        Args:
            in_vars (tuple of ~chainer.Variable): The flattened inputs.
            enable_double_backprop (bool): See :func:`static_graph`.

        Returns:
            StaticScheduleFunction: An existing schedule for this input
            signature that is not in use in the current iteration, or a new
            (empty) one.
        """
        train = bool(configuration.config.train)
        key = self._key(in_vars, train)
        if not train and self.max_in_use_train < 2:
            self.end_forward()
        if key not in self.schedules and self.minimize_cache_size:
            self.schedules.clear()
            self.in_use_count.clear()
        schedules = self.schedules.setdefault(key, [])
        index = self.in_use_count.get(key, 0)
        if index >= len(schedules):
            if self.verbosity_level >= 1:
                print(f"Creating a new static schedule for {key}")
            schedules.append(
                StaticScheduleFunction(
                    self,
                    in_vars=in_vars,
                    verbosity_level=self.verbosity_level,
                    enable_double_backprop=enable_double_backprop,
                )
            )
        self.in_use_count[key] = index + 1
        if train and index + 1 > self.max_in_use_train:
            self.max_in_use_train = index + 1
        return schedules[index]

    def end_forward(self):
        """Marks every schedule as free for the next iteration."""
        for key in self.in_use_count:
            self.in_use_count[key] = 0

    @staticmethod
    def _key(in_vars, train):
        parts = ["train" if train else "test"]
        parts.extend(f"{v.shape}:{v.dtype}" for v in in_vars)
        return " ".join(parts)

    def __repr__(self):
        lines = ["ScheduleManager:"]
        for key, schedules in self.schedules.items():
            lines.append(f"  key {key!r}: {len(schedules)} schedule(s)")
            for schedule in schedules:
                lines.extend("    " + line for line in repr(schedule).splitlines())
        return "\n".join(lines)


class _ScheduleOutput(function_node.FunctionNode):
    """Passes the outputs of a static chain through, and its gradients back.

    Backprop reaching it ends the forward pass of the chain's schedules.
    """

    def __init__(self, schedule_manager):
        self._schedule_manager = schedule_manager

    def forward(self, inputs):
        return tuple(inputs)

    def backward(self, target_input_indexes, grad_outputs):
        self._schedule_manager.end_forward()
        return tuple(grad_outputs[i] for i in target_input_indexes)


def _flatten(xs, kind, leaf_ok, out):
    """Flattens nested lists/tuples into ``out``; returns the structure."""
    if isinstance(xs, (list, tuple)):
        return type(xs), [_flatten(x, kind, leaf_ok, out) for x in xs]
    if not leaf_ok(xs):
        raise TypeError(
            f"the {kind} of a static chain must be Variables"
            + (" or arrays" if kind == "arguments" else "")
            + f", or lists/tuples of them; got {type(xs).__name__}"
        )
    out.append(xs)
    return None


def _unflatten(structure, flat):
    it = iter(flat)

    def build(node):
        if node is None:
            return next(it)
        container, children = node
        items = [build(child) for child in children]
        if container is list:
            return items
        if hasattr(container, "_fields"):  # a namedtuple
            return container(*items)
        try:
            return container(items)
        except TypeError:
            return tuple(items)

    return build(structure)


def _is_input(x):
    return isinstance(x, (variable.Variable, *backend.get_array_types()))


def _is_output(x):
    return isinstance(x, variable.Variable)


def static_graph(*args, **kwargs):
    """Decorator marking the ``forward`` of a chain as a static subgraph.

    Apply it to the ``forward`` (or ``__call__``) of a :class:`~chainer.Chain`
    whose computation is the same on every call. Chainer 7 uses the mark to
    record a static schedule on the first call and replay it afterwards;
    this implementation runs the define-by-run code on every call (no cached
    schedule is replayed), which gives the same outputs and gradients. The
    chain gets the attributes ``schedule_manager`` (a
    :class:`ScheduleManager`) and ``static_schedule`` (the
    :class:`StaticScheduleFunction` of the latest call). Setting
    ``chainer.config.use_static_graph`` to False makes the decorator call the
    method as it is, without those attributes.

    It can be used bare (``@static_graph``) or with keyword options.

    Restrictions of a static chain: its positional arguments are Variables or
    arrays, or (nested) lists/tuples of them, and no keyword arguments are
    allowed; it returns a Variable or (nested) lists/tuples of Variables;
    static chains are not nested (calling one while another runs raises
    RuntimeError). Code that has to run on every call, whatever the
    optimization does, goes in functions marked with
    :func:`~chainer.static_code`.

    Args:
        force_test_define_by_run (bool): If True, the method runs as plain
            define-by-run code in test mode (``chainer.config.train`` False).
            Default False.
        minimize_cache_size (bool): If True, only the schedules of the latest
            input signature are kept. Default False.
        verbosity_level (int): 0 prints nothing, 1 reports new schedules, 2
            reports every call. Default 0.
        enable_double_backprop (bool): Whether the graph supports double
            backprop. Default False (backprop here always supports it).

    Returns:
        The wrapped method (or a decorator, when options are given).
    """
    if len(args) == 1 and not kwargs and callable(args[0]):
        return _wrap_static_graph(args[0], {})
    if args:
        raise TypeError(
            "static_graph takes a method, or keyword options only "
            f"({', '.join(_OPTIONS)}); got positional arguments {args!r}"
        )
    unknown = set(kwargs) - set(_OPTIONS)
    if unknown:
        raise TypeError(f"static_graph got unexpected options: {sorted(unknown)}")
    return functools.partial(_wrap_static_graph, options=kwargs)


def _wrap_static_graph(func, options):
    if not callable(func):
        raise TypeError(f"static_graph decorates a method, not {func!r}")
    force_test_define_by_run = bool(options.get("force_test_define_by_run", False))
    minimize_cache_size = bool(options.get("minimize_cache_size", False))
    verbosity_level = int(options.get("verbosity_level", 0))
    enable_double_backprop = bool(options.get("enable_double_backprop", False))

    @functools.wraps(func)
    def wrapped_func(*inner_args, **inner_kwargs):
        config = configuration.config
        if not config.use_static_graph:
            return func(*inner_args, **inner_kwargs)
        if not inner_args or not isinstance(inner_args[0], link.Chain):
            raise TypeError(
                "static_graph decorates the forward method of a chain; it was "
                f"called on {type(inner_args[0]).__name__ if inner_args else 'nothing'}"
            )
        chain = inner_args[0]
        if force_test_define_by_run and not config.train:
            return func(*inner_args, **inner_kwargs)
        if config.schedule_func is not None:
            raise RuntimeError(
                f"static chains cannot be nested: {type(chain).__name__} was "
                "called while another static chain was running"
            )
        if inner_kwargs:
            raise TypeError(
                "a static chain takes no keyword arguments; got "
                f"{sorted(inner_kwargs)} for {type(chain).__name__}"
            )
        flat_in = []
        in_structure = _flatten(list(inner_args[1:]), "arguments", _is_input, flat_in)
        # The method always sees Variables, as in Chainer's static chains.
        in_vars = tuple(variable.as_variable(x) for x in flat_in)
        call_args = (chain, *_unflatten(in_structure, in_vars))

        manager = getattr(chain, "schedule_manager", None)
        if manager is None:
            manager = ScheduleManager(
                minimize_cache_size=minimize_cache_size,
                verbosity_level=verbosity_level,
            )
            chain.schedule_manager = manager
        schedule = manager.get_schedule(
            in_vars, enable_double_backprop=enable_double_backprop
        )
        chain.static_schedule = schedule
        if verbosity_level >= 2:
            print(f"Calling static chain {type(chain).__name__}")

        schedule._begin_call()
        try:
            with configuration.using_config("schedule_func", schedule):
                out = func(*call_args)
        finally:
            schedule._building = False
        flat_out = []
        structure = _flatten(out, "outputs", _is_output, flat_out)
        schedule._end_call()
        if not flat_out or not configuration.config.enable_backprop:
            return out
        ys = _ScheduleOutput(manager).apply(flat_out)
        return _unflatten(structure, ys)

    return wrapped_func
