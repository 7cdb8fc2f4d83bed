import numpy
import pytest

import chainer
from chainer import initializers


class Dense(chainer.Link):
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


def relu(x):
    return x * (x.array > 0).astype(x.dtype)


def split(x):
    return x, x * 2


def join(a, b):
    return a + b


def inputs():
    return numpy.arange(6, dtype=numpy.float32).reshape(2, 3)


def test_forward_runs_layers_in_order():
    l1, l2 = Dense(3, 4), Dense(4, 2)
    model = chainer.Sequential(l1, relu, l2)
    x = inputs()
    expected = numpy.maximum(x @ l1.W.array.T, 0) @ l2.W.array.T
    numpy.testing.assert_allclose(model(x).array, expected, rtol=1e-6)


def test_tuple_outputs_are_unpacked():
    model = chainer.Sequential(split, join)
    numpy.testing.assert_array_equal(model(numpy.ones(2)), [3.0, 3.0])
    assert chainer.Sequential(join)(1, 2) == 3


def test_empty_forward():
    with pytest.raises(RuntimeError, match="any layer"):
        chainer.Sequential()(inputs())


def test_links_are_children_named_by_link_index():
    l1, l2 = Dense(3, 4), Dense(4, 2)
    model = chainer.Sequential(l1, relu, l2)
    assert len(model) == 3
    assert list(model) == [l1, relu, l2]
    assert list(model.children()) == [l1, l2]
    assert (l1.name, l2.name) == ("0", "1")
    assert [name for name, _ in model.namedparams()] == ["/0/W", "/1/W"]
    assert model.count_params() == 12 + 8


def test_non_callable_layers_are_rejected():
    with pytest.raises(TypeError, match="callable"):
        chainer.Sequential(Dense(1, 1), 3)
    model = chainer.Sequential()
    with pytest.raises(TypeError, match="callable"):
        model.append("relu")
    with pytest.raises(TypeError, match="callable"):
        model.insert(0, None)
    model.append(relu)
    with pytest.raises(TypeError, match="callable"):
        model[0] = 1.5
    with pytest.raises(TypeError, match="non-link"):
        model.add_link(relu)


def test_bad_operands_raise_value_error_as_in_chainer():
    # Chainer raises ValueError; ours is also a TypeError.
    with pytest.raises(ValueError, match="callable"):
        chainer.Sequential(0)
    model = chainer.Sequential(relu)
    with pytest.raises(ValueError, match=r"\+ operator"):
        model + 0
    with pytest.raises(TypeError, match=r"\+= operator"):
        model += 0
    assert len(model + chainer.Sequential(relu)) == 2


def test_lambda_layers_copy_but_do_not_pickle():
    import pickle

    model = chainer.Sequential(Dense(2, 2), lambda x: x * 2)
    with pytest.raises(ValueError, match="lambda"):
        pickle.dumps(model)
    for mode in ("share", "copy", "init"):
        assert len(model.copy(mode)) == 2
    shared = chainer.Sequential(Dense(2, 2), relu)
    clone = pickle.loads(pickle.dumps(shared))
    numpy.testing.assert_array_equal(clone[0].W.array, shared[0].W.array)


def test_append_insert_and_names():
    a, b, c = Dense(1, 1), Dense(1, 1), Dense(1, 1)
    model = chainer.Sequential(a, relu)
    model.append(b)
    model.insert(1, c)
    assert list(model) == [a, c, relu, b]
    assert [link.name for link in model.children()] == ["0", "1", "2"]
    assert list(model.children()) == [a, c, b]
    model.insert(-1, relu)
    assert list(model) == [a, c, relu, relu, b]
    model.add_link(Dense(1, 1))
    assert len(list(model.children())) == 4
    with pytest.raises(IndexError, match="out of range"):
        model.insert(10, relu)


def test_item_assignment_and_deletion():
    a, b, c = Dense(1, 1), Dense(1, 1), Dense(1, 1)
    model = chainer.Sequential(a, relu, b)
    model[1] = c
    assert list(model.children()) == [a, c, b]
    del model[0]
    assert list(model.children()) == [c, b]
    assert a.name is None
    assert (c.name, b.name) == ("0", "1")
    with pytest.raises(TypeError, match="slice"):
        model[0:1] = [relu]


def test_pop_remove_clear():
    a, b = Dense(1, 1), Dense(1, 1)
    model = chainer.Sequential(a, relu, b)
    assert model.pop() is b
    assert model.pop(0) is a
    assert list(model) == [relu]
    assert list(model.children()) == []
    model.extend(chainer.Sequential(a, b))
    model.remove(a)
    assert list(model) == [relu, b]
    with pytest.raises(ValueError, match="no layer"):
        model.remove(a)
    model.clear()
    assert len(model) == 0
    assert list(model.params()) == []


def test_index_count_and_types():
    a, b = Dense(1, 1), Dense(1, 1)
    model = chainer.Sequential(a, relu, b, relu)
    assert model.index(relu) == 1
    assert model.index(relu, 2) == 3
    with pytest.raises(ValueError):
        model.index(relu, 2, 3)
    assert model.count(relu) == 2
    assert model.count(a) == 1
    assert model.count_by_layer_type("Dense") == 2
    assert model.count_by_layer_type("relu") == 2
    assert model.count_by_layer_type("Linear") == 0
    model.remove_by_layer_type("relu")
    assert list(model) == [a, b]
    model.remove_by_layer_type("Dense")
    assert len(model) == 0
    with pytest.raises(TypeError, match="str"):
        model.count_by_layer_type(Dense)
    with pytest.raises(TypeError, match="str"):
        model.remove_by_layer_type(Dense)


def test_slicing_and_concatenation():
    a, b = Dense(1, 1), Dense(1, 1)
    model = chainer.Sequential(a, relu, b)
    head = model[:2]
    assert isinstance(head, chainer.Sequential)
    assert list(head) == [a, relu]
    assert model[-1] is b
    both = head + chainer.Sequential(relu)
    assert list(both) == [a, relu, relu]
    not_a_sequential = [relu]
    with pytest.raises(TypeError):
        model + not_a_sequential
    alias = model
    model += chainer.Sequential(relu)
    assert model is alias
    assert len(model) == 4
    with pytest.raises(TypeError):
        model += relu
    assert list(reversed(chainer.Sequential(a, relu))) == [relu, a]


def test_shared_link_is_one_child():
    a = Dense(2, 2)
    model = chainer.Sequential(a, relu, a)
    assert list(model.children()) == [a]
    assert len(list(model.params())) == 1
    dup = model.copy()
    assert dup[0] is dup[2]
    assert dup[0] is not a


def test_flatten():
    a, b, c = Dense(1, 1), Dense(1, 1), Dense(1, 1)
    nested = chainer.Sequential(a, chainer.Sequential(relu, chainer.Sequential(b)), c)
    flat = nested.flatten()
    assert list(flat) == [a, relu, b, c]
    assert [link.name for link in flat.children()] == ["0", "1", "2"]


def test_copy_modes():
    a = Dense(2, 2)
    model = chainer.Sequential(a, relu)
    shared = model.copy()
    assert shared[1] is relu
    assert shared[0] is not a
    assert shared[0].W.array is a.W.array
    assert shared[0].name == "0"
    assert a.name == "0"
    deep = model.copy("copy")
    assert deep[0].W.array is not a.W.array
    numpy.testing.assert_array_equal(deep[0].W.array, a.W.array)
    fresh = model.copy("init")
    assert not numpy.array_equal(fresh[0].W.array, a.W.array)
    with pytest.raises(ValueError, match="mode"):
        model.copy("nope")


def test_repeat_like_the_mushroom_example():
    block = chainer.Sequential(Dense(None, 4), relu)
    model = block.repeat(2)
    model.append(Dense(None, 1))
    assert [type(layer).__name__ for layer in model] == [
        "Sequential",
        "Sequential",
        "Dense",
    ]
    y = model(inputs())
    assert y.shape == (2, 1)
    assert [name for name, _ in model.namedparams()] == ["/0/0/W", "/1/0/W", "/2/W"]
    assert model[0][0].W.shape == (4, 3)
    assert model[1][0].W.shape == (4, 4)


def test_copyparams():
    src = chainer.Sequential(Dense(2, 2), relu, Dense(2, 3))
    dst = chainer.Sequential(Dense(2, 2), relu, Dense(2, 3))
    dst.cleargrads()
    dst.copyparams(src)
    for p, q in zip(dst.params(), src.params(), strict=True):
        numpy.testing.assert_array_equal(p.array, q.array)
    with pytest.raises(TypeError, match="Sequential"):
        dst.copyparams(chainer.ChainList(Dense(2, 2)))
    with pytest.raises(ValueError, match="layers"):
        dst.copyparams(chainer.Sequential(Dense(2, 2)))
    with pytest.raises(ValueError, match="layer 0"):
        dst.copyparams(chainer.Sequential(relu, relu, Dense(2, 3)))


def test_addgrads_and_serialize_use_link_positions():
    src = chainer.Sequential(Dense(2, 2), relu, Dense(2, 3))
    dst = chainer.Sequential(Dense(2, 2), relu, Dense(2, 3))
    dst.cleargrads()
    for p in src.params():
        p.grad = numpy.ones_like(p.array)
    dst.addgrads(src)
    numpy.testing.assert_array_equal(dst[2].W.grad, numpy.ones((3, 2)))

    from chainer import serializers

    target = serializers.DictionarySerializer()
    target.save(src)
    assert set(target.target) == {"0/W", "1/W"}


def test_repr():
    model = chainer.Sequential(
        chainer.Sequential(relu),
        lambda x: x + 1,
    )
    text = repr(model)
    lines = text.splitlines()
    assert lines[0] == "Sequential("
    assert lines[1] == "  (0): Sequential("
    assert lines[2].startswith("    (0): <function relu at")
    assert lines[3] == "  ),"
    # A lambda is shown by its source line.
    assert lines[4].startswith("  (1): lambda x: x + 1")
    assert lines[-1] == ")"
    assert repr(chainer.Sequential()) == "Sequential()"
