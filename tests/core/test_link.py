import copy
import pickle
import threading

import numpy
import pytest

import chainer
from chainer import initializers
from chainer import link_hook


class Dense(chainer.Link):
    """y = x @ W.T, with W lazily initialized when in_size is None."""

    def __init__(self, in_size, out_size):
        super().__init__()
        self.out_size = out_size
        with self.init_scope():
            self.W = chainer.Parameter(initializers.Normal(1.0))
            if in_size is not None:
                self.W.initialize((out_size, in_size))

    def forward(self, x):
        if self.W.array is None:
            self.W.initialize((self.out_size, x.shape[1]))
        return x @ self.W.T


class WithSpecs(Dense):
    @property
    def printable_specs(self):
        yield "out_size", self.out_size


class MLP(chainer.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = Dense(3, 4)
            self.l2 = Dense(4, 2)

    def forward(self, x):
        return self.l2(self.l1(x))


class DictSaver(chainer.Serializer):
    def __init__(self, target=None, path=""):
        self.target = {} if target is None else target
        self.path = path

    def __getitem__(self, key):
        return DictSaver(self.target, self.path + key + "/")

    def __call__(self, key, value):
        stored = value
        if isinstance(value, numpy.ndarray):
            stored = value.copy()
        self.target[self.path + key] = stored
        return value


class DictLoader(chainer.Deserializer):
    def __init__(self, target, path=""):
        self.target = target
        self.path = path

    def __getitem__(self, key):
        return DictLoader(self.target, self.path + key + "/")

    def __call__(self, key, value):
        stored = self.target[self.path + key]
        if value is None:
            return stored
        if isinstance(value, numpy.ndarray):
            numpy.copyto(value, stored)
            return value
        return type(value)(stored)


class FakeRule:
    def __init__(self):
        self.enabled = True


def x34():
    return numpy.arange(6, dtype=numpy.float32).reshape(2, 3)


# -- registration --------------------------------------------------------------
def test_init_scope_registers_parameters():
    link = chainer.Link()
    assert not link.within_init_scope
    with link.init_scope():
        assert link.within_init_scope
        link.p = chainer.Parameter(numpy.zeros(3, numpy.float32))
    assert not link.within_init_scope
    link.q = chainer.Parameter(numpy.zeros(3, numpy.float32))
    assert [name for name, _ in link.namedparams()] == ["/p"]
    assert link.p.name == "p"
    assert link.q.name is None


def test_init_scope_restores_flag_on_error():
    link = chainer.Link()
    with pytest.raises(RuntimeError), link.init_scope():
        raise RuntimeError
    assert not link.within_init_scope


def test_add_param():
    link = chainer.Link()
    link.add_param("W", (2, 3))
    link.add_param("b", 3, dtype=numpy.float64)
    link.add_param("u")
    link.add_param("c", (2,), initializer=initializers.Constant(5.0))
    assert link.W.shape == (2, 3)
    assert link.W.dtype == numpy.float32
    assert numpy.isnan(link.W.array).all()
    assert link.b.dtype == numpy.float64
    assert link.u.array is None
    numpy.testing.assert_array_equal(link.c.array, [5.0, 5.0])
    assert [name for name, _ in link.namedparams()] == ["/W", "/b", "/c", "/u"]
    assert [name for name, _ in link.namedparams(include_uninit=False)] == [
        "/W",
        "/b",
        "/c",
    ]


def test_add_param_existing_name():
    link = chainer.Link()
    link.add_param("W", (2,))
    with pytest.raises(AttributeError, match="W"):
        link.add_param("W", (2,))
    link.other = 1
    with pytest.raises(AttributeError, match="other"):
        link.add_param("other", (2,))


def test_add_param_bad_name():
    with pytest.raises(TypeError, match="str"):
        chainer.Link().add_param(3, (2,))


def test_old_style_params_are_deprecated():
    with pytest.warns(DeprecationWarning, match="init_scope"):
        link = chainer.Link(W=(2, 3), b=((3,), numpy.float64), u=None)
    assert link.W.shape == (2, 3)
    assert link.b.dtype == numpy.float64
    assert link.u.array is None


def test_old_style_bad_value():
    with (
        pytest.warns(DeprecationWarning),
        pytest.raises(TypeError, match="invalid initial parameter 'W'"),
    ):
        chainer.Link(W="abc")


def test_persistent_values():
    link = chainer.Link()
    link.add_persistent("count", 3)
    link.mean = numpy.zeros(2, numpy.float32)
    link.register_persistent("mean")
    assert link.count == 3
    assert link._persistent == {"count", "mean"}
    with pytest.raises(AttributeError, match="count"):
        link.add_persistent("count", 4)
    with pytest.raises(AttributeError, match="missing"):
        link.register_persistent("missing")
    with pytest.raises(TypeError, match="str"):
        link.add_persistent(1, 4)


def test_register_persistent_takes_over_a_parameter():
    link = chainer.Link()
    link.add_param("W", (2,))
    link.register_persistent("W")
    assert list(link.params()) == []


def test_delattr_unregisters():
    model = MLP()
    model.l1.add_persistent("s", 1)
    del model.l1.W
    del model.l1.s
    assert [name for name, _ in model.namedparams()] == ["/l2/W"]
    assert not hasattr(model.l1, "s")
    del model.l2
    assert [name for name, _ in model.namedlinks()] == ["/", "/l1"]
    with pytest.raises(AttributeError):
        del model.nothing


def test_reassign_parameter_in_scope_keeps_one_entry():
    link = Dense(3, 2)
    with link.init_scope():
        link.W = chainer.Parameter(numpy.ones((2, 3), numpy.float32))
    assert [p for p in link.params()] == [link.W]


# -- traversal -----------------------------------------------------------------
def test_chain_paths():
    model = chainer.Chain()
    with model.init_scope():
        model.mlp = MLP()
        model.head = Dense(2, 1)
        model.p = chainer.Parameter(numpy.zeros(1, numpy.float32))
    assert [name for name, _ in model.namedparams()] == [
        "/p",
        "/head/W",
        "/mlp/l1/W",
        "/mlp/l2/W",
    ]
    assert [name for name, _ in model.namedlinks()] == [
        "/",
        "/head",
        "/mlp",
        "/mlp/l1",
        "/mlp/l2",
    ]
    assert [name for name, _ in model.namedlinks(skipself=True)] == [
        "/head",
        "/mlp",
        "/mlp/l1",
        "/mlp/l2",
    ]
    assert next(model.links()) is model
    assert len(list(model.links(skipself=True))) == 4
    assert list(model.children()) == [model.head, model.mlp]
    assert model.mlp.name == "mlp"
    assert model["head"] is model.head
    params = dict(model.namedparams())
    assert params["/mlp/l1/W"] is model.mlp.l1.W
    assert list(model.params()) == list(params.values())


def test_plain_link_has_no_children():
    link = Dense(2, 2)
    assert list(link.children()) == []
    assert list(link.links(skipself=True)) == []
    assert list(link.namedlinks()) == [("/", link)]


def test_chain_kwargs_construction():
    l1, l2 = Dense(2, 2), Dense(2, 3)
    chain = chainer.Chain(l1=l1, l2=l2)
    assert chain.l1 is l1
    assert l2.name == "l2"
    assert [name for name, _ in chain.namedparams()] == ["/l1/W", "/l2/W"]


def test_chain_add_link_errors():
    chain = chainer.Chain()
    chain.add_link("l1", Dense(2, 2))
    with pytest.raises(AttributeError, match="l1"):
        chain.add_link("l1", Dense(2, 2))
    with pytest.raises(TypeError, match="non-link"):
        chain.add_link("f", lambda x: x)
    with pytest.raises(AttributeError, match="l1"), chain.init_scope():
        chain.l1 = Dense(2, 2)


def test_link_outside_scope_is_not_a_child():
    chain = chainer.Chain()
    chain.helper = Dense(2, 2)
    assert list(chain.children()) == []


def test_chainlist():
    l0, l1, l2 = Dense(2, 3), Dense(3, 4), Dense(4, 5)
    cl = chainer.ChainList(l0, l1)
    cl.append(l2)
    assert len(cl) == 3
    assert cl[1] is l1
    assert cl[-1] is l2
    assert cl[0:2] == [l0, l1]
    assert list(cl) == [l0, l1, l2]
    assert [c.name for c in cl] == ["0", "1", "2"]
    assert [name for name, _ in cl.namedparams()] == ["/0/W", "/1/W", "/2/W"]
    assert [name for name, _ in cl.namedlinks()] == ["/", "/0", "/1", "/2"]
    extra = Dense(1, 2)
    cl.insert(0, extra)
    assert [c.name for c in cl] == ["0", "1", "2", "3"]
    assert cl[0] is extra
    assert list(cl.children()) == [extra, l0, l1, l2]


def test_chainlist_rejects_non_links():
    with pytest.raises(TypeError, match="non-link"):
        chainer.ChainList(Dense(1, 1), lambda x: x)
    cl = chainer.ChainList()
    with pytest.raises(TypeError, match="non-link"):
        cl.add_link(3)
    with pytest.raises(TypeError, match="non-link"):
        cl.insert(0, "x")
    with pytest.raises(TypeError, match="init_scope"), cl.init_scope():
        cl.child = Dense(1, 1)


def test_chainlist_params_in_scope():
    cl = chainer.ChainList(Dense(1, 1))
    with cl.init_scope():
        cl.scale = chainer.Parameter(numpy.ones(1, numpy.float32))
    assert [name for name, _ in cl.namedparams()] == ["/scale", "/0/W"]


# -- gradients and copies ------------------------------------------------------
def test_cleargrads_and_zerograds():
    model = MLP()
    y = model(x34())
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert all(p.grad is not None for p in model.params())
    model.cleargrads()
    assert all(p.grad is None for p in model.params())
    with pytest.warns(DeprecationWarning, match="cleargrads"):
        model.zerograds()
    for p in model.params():
        numpy.testing.assert_array_equal(p.grad, numpy.zeros_like(p.array))


def test_addgrads():
    a, b = MLP(), MLP()
    for link in (a, b):
        for p in link.params():
            p.grad = numpy.full_like(p.array, 2.0)
    b.l2.W.grad[...] = 5.0
    a.addgrads(b)
    numpy.testing.assert_array_equal(a.l1.W.grad, numpy.full((4, 3), 4.0))
    numpy.testing.assert_array_equal(a.l2.W.grad, numpy.full((2, 4), 7.0))
    numpy.testing.assert_array_equal(b.l1.W.grad, numpy.full((4, 3), 2.0))


def test_addgrads_chainlist_and_errors():
    a = chainer.ChainList(Dense(2, 2))
    a.cleargrads()  # parameters start with NaN gradients, as in Chainer
    b = chainer.ChainList(Dense(2, 2))
    b[0].W.grad = numpy.ones((2, 2), numpy.float32)
    a.addgrads(b)
    numpy.testing.assert_array_equal(a[0].W.grad, numpy.ones((2, 2)))
    with pytest.raises(TypeError, match="Link"):
        a.addgrads(3)
    with pytest.raises(ValueError, match="child links"):
        a.addgrads(chainer.ChainList())
    with pytest.raises(ValueError, match="l2"):
        MLP().addgrads(chainer.Chain(l1=Dense(3, 4)))


def test_copyparams():
    a, b = MLP(), MLP()
    a.cleargrads()  # parameters start with NaN gradients, as in Chainer
    a.l1.add_persistent("stat", numpy.zeros(3, numpy.float32))
    b.l1.add_persistent("stat", numpy.arange(3, dtype=numpy.float32))
    a.l1.add_persistent("count", 0)
    b.l1.add_persistent("count", 7)
    b.l1.W.grad = numpy.ones((4, 3), numpy.float32)
    stat = a.l1.stat
    a.copyparams(b)
    for pa, pb in zip(a.params(), b.params(), strict=True):
        numpy.testing.assert_array_equal(pa.array, pb.array)
        assert pa.array is not pb.array
    assert a.l1.W.grad is None
    assert a.l1.stat is stat
    numpy.testing.assert_array_equal(stat, [0, 1, 2])
    assert a.l1.count == 7


def test_copyparams_without_persistent():
    a, b = Dense(2, 2), Dense(2, 2)
    a.add_persistent("count", 0)
    b.add_persistent("count", 7)
    a.copyparams(b, copy_persistent=False)
    assert a.count == 0
    numpy.testing.assert_array_equal(a.W.array, b.W.array)


def test_copyparams_bad_source():
    with pytest.raises(TypeError, match="Link"):
        Dense(2, 2).copyparams(object())
    with pytest.raises(ValueError, match="'W'"):
        Dense(2, 2).copyparams(chainer.Link())


def test_copy_share():
    model = MLP()
    model.l1.add_persistent("stat", numpy.zeros(3, numpy.float32))
    model.l1.W.grad = numpy.ones((4, 3), numpy.float32)
    model.name = "top"
    dup = model.copy()
    assert dup.name is None
    assert dup.l1 is not model.l1
    assert dup.l1.name == "l1"
    assert dup.l1.W is not model.l1.W
    assert dup.l1.W.array is model.l1.W.array
    assert dup.l1.W.grad is None
    assert model.l1.W.grad is not None
    assert dup.l1.stat is model.l1.stat
    assert [name for name, _ in dup.namedparams()] == ["/l1/W", "/l2/W"]
    dup.l1.W.array[...] = 3
    numpy.testing.assert_array_equal(model.l1.W.array, 3)
    # Registering on the copy leaves the original alone.
    with dup.init_scope():
        dup.extra = Dense(1, 1)
    assert "extra" not in model._children


def test_copy_copy_and_init():
    model = MLP()
    before = model.l1.W.array.copy()
    deep = model.copy(mode="copy")
    assert deep.l1.W.array is not model.l1.W.array
    numpy.testing.assert_array_equal(deep.l1.W.array, before)
    deep.l1.W.array[...] = 0
    numpy.testing.assert_array_equal(model.l1.W.array, before)
    fresh = model.copy(mode="init")
    assert fresh.l1.W.shape == before.shape
    assert not numpy.array_equal(fresh.l1.W.array, before)
    assert fresh.l1.name == "l1"


def test_copy_init_keeps_uninitialized():
    link = Dense(None, 3)
    dup = link.copy(mode="init")
    assert dup.W.array is None
    dup(x34())
    assert dup.W.shape == (3, 3)
    assert link.W.array is None


def test_copy_chainlist():
    cl = chainer.ChainList(Dense(2, 2), Dense(2, 2))
    dup = cl.copy()
    assert [c.name for c in dup] == ["0", "1"]
    assert dup[0] is not cl[0]
    assert dup[0].W.array is cl[0].W.array
    dup.append(Dense(1, 1))
    assert len(cl) == 2
    deep = cl.copy("copy")
    assert deep[1].W.array is not cl[1].W.array


def test_copy_bad_mode():
    with pytest.raises(ValueError, match="'deep'"):
        Dense(1, 1).copy(mode="deep")


def test_copy_shares_no_hook_dict():
    link = Dense(2, 2)
    link.add_hook(link_hook.LinkHook())
    dup = link.copy()
    dup.delete_hook("LinkHook")
    assert "LinkHook" in link.local_link_hooks


def test_repeat():
    link = Dense(2, 2)
    seq = link.repeat(3)
    assert isinstance(seq, chainer.Sequential)
    assert len(seq) == 3
    assert all(layer is not link for layer in seq)
    assert not numpy.array_equal(seq[0].W.array, link.W.array)
    shared = link.repeat(2, mode="share")
    assert shared[0].W.array is link.W.array
    assert len(link.repeat(0)) == 0
    assert len(link.repeat(-1)) == 0


def test_repeat_bad_input():
    with pytest.raises(TypeError, match="n_repeat"):
        Dense(1, 1).repeat(2.0)
    with pytest.raises(ValueError, match="mode"):
        Dense(1, 1).repeat(2, mode="x")


def test_pickle_and_deepcopy_round_trip():
    model = MLP()
    for dup in (pickle.loads(pickle.dumps(model)), copy.deepcopy(model)):
        assert [n for n, _ in dup.namedparams()] == ["/l1/W", "/l2/W"]
        numpy.testing.assert_array_equal(dup.l2.W.array, model.l2.W.array)
        numpy.testing.assert_allclose(dup(x34()).array, model(x34()).array)


# -- counting, updating, serialization -----------------------------------------
def test_count_params():
    model = MLP()
    assert model.count_params() == 12 + 8
    with model.init_scope():
        model.lazy = Dense(None, 2)
    with pytest.warns(UserWarning, match="/lazy/W"):
        assert model.count_params() == 20


def test_update_switches():
    model = MLP()
    assert not model.update_enabled
    for p in model.params():
        p.update_rule = FakeRule()
    assert model.update_enabled
    model.disable_update()
    assert not model.update_enabled
    assert all(not p.update_rule.enabled for p in model.params())
    model.l1.enable_update()
    assert model.update_enabled
    assert model.l1.W.update_rule.enabled
    assert not model.l2.W.update_rule.enabled


def test_serialize_round_trip():
    model = chainer.Chain()
    with model.init_scope():
        model.mlp = MLP()
        model.stack = chainer.ChainList(Dense(2, 2))
    model.mlp.l1.add_persistent("count", 5)
    model.mlp.l1.add_persistent("stat", numpy.arange(3, dtype=numpy.float32))
    saver = DictSaver()
    model.serialize(saver)
    assert set(saver.target) == {
        "mlp/l1/W",
        "mlp/l1/count",
        "mlp/l1/stat",
        "mlp/l2/W",
        "stack/0/W",
    }
    other = chainer.Chain()
    with other.init_scope():
        other.mlp = MLP()
        other.stack = chainer.ChainList(Dense(2, 2))
    other.mlp.l1.add_persistent("count", 0)
    other.mlp.l1.add_persistent("stat", numpy.zeros(3, numpy.float32))
    other.serialize(DictLoader(saver.target))
    for (na, pa), (nb, pb) in zip(
        model.namedparams(), other.namedparams(), strict=True
    ):
        assert na == nb
        numpy.testing.assert_array_equal(pa.array, pb.array)
    assert other.mlp.l1.count == 5
    numpy.testing.assert_array_equal(other.mlp.l1.stat, [0, 1, 2])


def test_serialize_initializes_uninitialized_parameter():
    src = Dense(3, 2)
    saver = DictSaver()
    src.serialize(saver)
    dst = Dense(None, 2)
    dst.serialize(DictLoader(saver.target))
    assert dst.W.shape == (2, 3)
    numpy.testing.assert_array_equal(dst.W.array, src.W.array)


def test_serialize_with_npz(tmp_path):
    from chainer import serializers

    model = MLP()
    path = tmp_path / "model.npz"
    serializers.save_npz(str(path), model)
    other = MLP()
    serializers.load_npz(str(path), other)
    numpy.testing.assert_array_equal(other.l2.W.array, model.l2.W.array)


# -- hooks and forward ---------------------------------------------------------
class RecordingHook(link_hook.LinkHook):
    def __init__(self, name, log):
        self.name = name
        self.log = log

    def added(self, link):
        self.log.append((self.name, "added", link))

    def deleted(self, link):
        self.log.append((self.name, "deleted", link))

    def forward_preprocess(self, args):
        self.log.append((self.name, "pre", args.link, args.forward_name, args.args))

    def forward_postprocess(self, args):
        self.log.append((self.name, "post", args.link, args.kwargs, args.out))


def test_local_hooks_run_in_order():
    log = []
    link = Dense(3, 2)
    assert link.add_hook(RecordingHook("a", log)) is link
    link.add_hook(RecordingHook("b", log))
    assert list(link.local_link_hooks) == ["a", "b"]
    assert log == [("a", "added", link), ("b", "added", link)]
    log.clear()
    x = x34()
    y = link(x)
    assert [(entry[0], entry[1]) for entry in log] == [
        ("a", "pre"),
        ("b", "pre"),
        ("a", "post"),
        ("b", "post"),
    ]
    assert log[0][2] is link
    assert log[0][3] == "forward"
    assert log[0][4][0] is x
    assert log[2][3] == {}
    assert log[2][4] is y
    log.clear()
    link.delete_hook("a")
    assert log == [("a", "deleted", link)]


def test_global_hooks_run_before_local_ones():
    log = []
    link = Dense(3, 2)
    link.add_hook(RecordingHook("local", log))
    with RecordingHook("global", log):
        link(x34())
    order = [(entry[0], entry[1]) for entry in log if entry[1] in ("pre", "post")]
    assert order == [
        ("global", "pre"),
        ("local", "pre"),
        ("global", "post"),
        ("local", "post"),
    ]
    assert ("global", "added", None) in log
    assert ("global", "deleted", None) in log


def test_global_hooks_are_thread_local():
    log = []
    link = Dense(3, 2)
    with RecordingHook("g", log):
        thread = threading.Thread(target=link, args=(x34(),))
        thread.start()
        thread.join()
    assert [entry for entry in log if entry[1] == "pre"] == []


def test_hook_name_override_and_errors():
    link = Dense(1, 1)
    link.add_hook(link_hook.LinkHook(), name="mine")
    assert "mine" in link.local_link_hooks
    with pytest.raises(KeyError, match="mine"):
        link.add_hook(link_hook.LinkHook(), name="mine")
    with pytest.raises(TypeError, match="LinkHook"):
        link.add_hook(lambda args: None)
    with pytest.raises(KeyError, match="nothing"):
        link.delete_hook("nothing")


def test_call_without_forward():
    # Chainer 7 looks up ``forward`` and lets the AttributeError through.
    with pytest.raises(AttributeError, match="forward"):
        chainer.Link()(1)


def test_from_params_on_base_class():
    with pytest.raises(TypeError, match="from_params"):
        chainer.Link.from_params(numpy.zeros(2))


# -- repr ------------------------------------------------------------------------
def test_repr():
    assert repr(Dense(1, 1)) == "Dense()"
    assert repr(WithSpecs(1, 3)) == "WithSpecs(out_size=3)"
    assert repr(chainer.Chain()) == "Chain()"
    model = chainer.Chain()
    with model.init_scope():
        model.mlp = MLP()
        model.stack = chainer.ChainList(WithSpecs(2, 2))
    assert str(model) == (
        "Chain(\n"
        "  (mlp): MLP(\n"
        "    (l1): Dense(),\n"
        "    (l2): Dense(),\n"
        "  ),\n"
        "  (stack): ChainList(\n"
        "    (0): WithSpecs(out_size=2),\n"
        "  ),\n"
        ")"
    )


def test_module_path():
    assert chainer.link.Chain is chainer.Chain
    assert chainer.Chain.__module__ == "chainer.link"
    assert chainer.link.ChainList is chainer.ChainList
    assert chainer.link.Link is chainer.Link


# -- Chainer 7 details: missing __init__, injected __call__, ChainList as a
# mutable sequence, names of copies


def test_missing_link_init_is_reported():
    class NoInit(chainer.Link):
        def __init__(self):
            pass

        def forward(self, x):
            return x

    link = NoInit()
    with pytest.raises(
        RuntimeError, match=r"^Link\.__init__\(\) has not been called\.$"
    ):
        link(1)
    with pytest.raises(RuntimeError, match="has not been called"), link.init_scope():
        pass
    with pytest.raises(RuntimeError, match="has not been called"):
        link.add_param("p", (2,))


def test_call_injected_by_a_mixin_takes_precedence():
    class CallMixin:
        def __call__(self, *args, **kwargs):
            return ("mixin", args, kwargs)

    class Injected(chainer.Link, CallMixin):
        def forward(self, x):
            return "forward"

    assert Injected()(1, a=2) == ("mixin", (1,), {"a": 2})


def test_chainlist_is_a_mutable_sequence():
    import collections.abc

    links = [chainer.Link() for _ in range(5)]
    c = chainer.ChainList(*links[:3])
    assert isinstance(c, collections.abc.MutableSequence)
    c[1] = links[3]
    assert [l.name for l in c] == ["0", "1", "2"]
    assert c[1] is links[3]
    c[-1] = links[4]
    assert links[4].name == "2"
    c[0:2] = [links[1]]
    assert list(c) == [links[1], links[4]]
    assert [l.name for l in c] == ["0", "1"]
    del c[0]
    assert list(c) == [links[4]]
    assert links[4].name == "0"
    c += chainer.ChainList(links[0])
    assert list(c) == [links[4], links[0]]
    assert links[0].name == "1"
    assert c.index(links[0]) == 1
    assert links[0] in c
    assert c.pop() is links[0]
    with pytest.raises(TypeError, match="non-link"):
        c[0] = 3
    with pytest.raises(TypeError, match="integers or slices"):
        c["a"] = links[0]


def test_copy_keeps_the_name_except_in_share_mode():
    link = chainer.Link()
    link.name = "a"
    assert link.copy("share").name is None
    assert link.copy("copy").name == "a"
    assert link.copy("init").name == "a"
