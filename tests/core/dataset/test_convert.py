import inspect
import pickle

import numpy
import pytest

from chainer import backend
from chainer import dataset
from chainer.backends import cuda

needs_no_cuda = pytest.mark.skipif(
    cuda.available, reason="checks the error raised when CUDA is missing"
)


def test_arrays_are_stacked():
    batch = [numpy.full((2, 3), i, dtype=numpy.float32) for i in range(4)]
    out = dataset.concat_examples(batch)
    assert out.shape == (4, 2, 3)
    assert out.dtype == numpy.float32
    numpy.testing.assert_array_equal(out[:, 0, 0], [0, 1, 2, 3])
    batch[0][...] = 9  # the result is a new array, not a view of an example
    assert out[0, 0, 0] == 0


def test_tuple_examples_with_scalars():
    batch = [(numpy.array([i, i + 1], dtype=numpy.float32), i) for i in range(3)]
    x, t = dataset.concat_examples(batch)
    assert x.shape == (3, 2)
    numpy.testing.assert_array_equal(t, [0, 1, 2])
    assert t.dtype.kind == "i"


def test_dict_examples():
    batch = [{"x": numpy.ones(2) * i, "y": numpy.int32(i)} for i in range(3)]
    out = dataset.concat_examples(batch)
    assert set(out) == {"x", "y"}
    numpy.testing.assert_array_equal(out["x"][:, 0], [0, 1, 2])
    assert out["y"].dtype == numpy.int32


def test_python_lists_become_arrays():
    out = dataset.concat_examples([[1, 2], [3, 4]])
    assert isinstance(out, numpy.ndarray)
    numpy.testing.assert_array_equal(out, [[1, 2], [3, 4]])


def test_zero_dim_arrays():
    out = dataset.concat_examples([numpy.array(1.5), numpy.array(2.5)])
    numpy.testing.assert_array_equal(out, [1.5, 2.5])


def test_padding_scalar():
    batch = [numpy.ones((1, 2)), numpy.ones((2, 1)) * 2]
    out = dataset.concat_examples(batch, padding=-1)
    expected = [[[1, 1], [-1, -1]], [[2, -1], [2, -1]]]
    numpy.testing.assert_array_equal(out, expected)


def test_padding_ragged_python_lists():
    out = dataset.concat_examples([[1], [2, 3, 4]], padding=0)
    numpy.testing.assert_array_equal(out, [[1, 0, 0], [2, 3, 4]])


def test_padding_per_tuple_element():
    batch = [(numpy.ones(1), numpy.ones(2)), (numpy.ones(2), numpy.ones(1))]
    x, y = dataset.concat_examples(batch, padding=(0, 7))
    numpy.testing.assert_array_equal(x, [[1, 0], [1, 1]])
    numpy.testing.assert_array_equal(y, [[1, 1], [1, 7]])


def test_padding_per_dict_key():
    batch = [
        {"a": numpy.ones(1), "b": numpy.ones(2)},
        {"a": numpy.ones(2), "b": numpy.ones(1)},
    ]
    out = dataset.concat_examples(batch, padding={"a": 5, "b": 0})
    numpy.testing.assert_array_equal(out["a"], [[1, 5], [1, 1]])
    numpy.testing.assert_array_equal(out["b"], [[1, 1], [1, 0]])


def test_padding_errors():
    with pytest.raises(ValueError, match="2 entries but examples have 1"):
        dataset.concat_examples([(numpy.ones(1),)], padding=(0, 0))
    with pytest.raises(ValueError, match="no entry for the example keys"):
        dataset.concat_examples([{"a": numpy.ones(1)}], padding={"b": 0})
    with pytest.raises(ValueError, match="numbers of dimensions"):
        dataset.concat_examples([numpy.ones(1), numpy.ones((1, 1))], padding=0)


def test_shape_mismatch_without_padding():
    with pytest.raises(ValueError, match="pass padding="):
        dataset.concat_examples([numpy.ones(2), numpy.ones(3)])


def test_empty_batch():
    with pytest.raises(ValueError, match="batch is empty"):
        dataset.concat_examples([])


def test_batch_must_be_a_sequence():
    with pytest.raises(TypeError, match="sequence of examples"):
        dataset.concat_examples(3)


@pytest.mark.parametrize("device", [-1, "@numpy", numpy, backend.CpuDevice()])
def test_cpu_devices(device):
    x = numpy.arange(6).reshape(3, 2)
    out = dataset.concat_examples(list(x), device)
    assert isinstance(out, numpy.ndarray)
    numpy.testing.assert_array_equal(out, x)
    x2, t = dataset.concat_examples([(x[0], 1), (x[1], 2)], device=device)
    numpy.testing.assert_array_equal(x2, x[:2])
    numpy.testing.assert_array_equal(t, [1, 2])


def test_invalid_device_spec():
    # Chainer 7 raises RuntimeError for a specifier it can only read as a
    # ChainerX device, which is not available.
    with pytest.raises((ValueError, RuntimeError), match="invalid device specifier"):
        dataset.concat_examples([numpy.ones(1)], "cpu")


@needs_no_cuda
@pytest.mark.parametrize("device", [0, "@cupy:0"])
def test_gpu_device_without_cuda_is_a_clear_error(device):
    with pytest.raises(RuntimeError, match="chainer-cuda"):
        dataset.concat_examples([numpy.ones(1)], device)
    with pytest.raises(RuntimeError, match="chainer-cuda"):
        dataset.to_device(device, numpy.ones(1))


def test_to_device():
    x = numpy.ones(3)
    assert dataset.to_device(None, x) is x
    assert dataset.to_device(-1, x) is x
    assert dataset.to_device("@numpy", x) is x
    out = dataset.to_device(-1, (x, [x]))
    assert out[0] is x
    assert out[1][0] is x
    with pytest.raises((ValueError, RuntimeError), match="invalid device specifier"):
        dataset.to_device("gpu", x)


def test_concat_examples_is_a_converter():
    assert isinstance(dataset.concat_examples, dataset.Converter)
    assert str(inspect.signature(dataset.concat_examples)) == "(*args, **kwargs)"
    assert "Args:" in dataset.concat_examples.__doc__
    assert dataset.concat_examples.__name__ == "concat_examples"


def test_concat_examples_pickles_by_reference():
    restored = pickle.loads(pickle.dumps(dataset.concat_examples))
    assert restored is dataset.concat_examples


@dataset.converter()
def _module_level_converter(batch, device):
    return device, batch


def test_converter_decorator_converts_device_argument():
    conv = _module_level_converter
    assert isinstance(conv, dataset.Converter)
    device, batch = conv([1], -1)
    assert isinstance(device, backend.CpuDevice)
    assert batch == [1]
    device, _ = conv([1], device="@numpy")
    assert isinstance(device, backend.CpuDevice)
    assert conv([1], None)[0] is None
    cpu = backend.CpuDevice()
    assert conv([1], cpu)[0] is cpu
    assert pickle.loads(pickle.dumps(conv)) is conv


def test_converter_not_bound_to_its_name_pickles_the_function():
    conv = dataset.converter()(_plain_function)
    restored = pickle.loads(pickle.dumps(conv))
    assert restored is not conv
    assert isinstance(restored, dataset.Converter)
    assert restored([3], -1) == [3]


def _plain_function(batch, device):
    return batch


def test_converter_decorator_rejects_non_callables():
    with pytest.raises(TypeError, match="can only wrap a callable"):
        dataset.converter()(42)


def test_converter_subclass():
    class Doubler(dataset.Converter):
        def __call__(self, batch, device):
            return [2 * b for b in batch]

    assert Doubler()([1, 2], None) == [2, 4]

    class Incomplete(dataset.Converter):
        pass

    with pytest.raises(TypeError, match="__call__"):
        Incomplete()


def test_async_transfer_on_cpu_matches_concat_examples():
    conv = dataset.ConcatWithAsyncTransfer()
    assert isinstance(conv, dataset.Converter)
    batch = [(numpy.ones(2) * i, i) for i in range(3)]
    for device in (None, -1, "@numpy"):
        x, t = conv(batch, device)
        ex, et = dataset.concat_examples(batch)
        numpy.testing.assert_array_equal(x, ex)
        numpy.testing.assert_array_equal(t, et)
    out = conv([{"a": numpy.ones(1)}, {"a": numpy.ones(2)}], -1, padding=0)
    numpy.testing.assert_array_equal(out["a"], [[1, 0], [1, 1]])


def test_async_transfer_errors():
    conv = dataset.ConcatWithAsyncTransfer()
    with pytest.raises(ValueError, match="batch is empty"):
        conv([])


@needs_no_cuda
def test_async_transfer_without_cuda():
    conv = dataset.ConcatWithAsyncTransfer()
    with pytest.raises(RuntimeError, match="chainer-cuda"):
        conv([numpy.ones(1)], 0)
    with pytest.raises(RuntimeError, match="chainer-cuda"):
        dataset.ConcatWithAsyncTransfer(compute_stream=object())
