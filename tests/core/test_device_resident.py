import importlib.util

import numpy
import pytest

import chainer
from chainer import backend
from chainer import device_resident
from chainer import initializers
from chainer.backends import cuda


class TagDevice(backend.CpuDevice):
    """A host device under another name that records what it receives."""

    name = "@tag"

    def __init__(self):
        self.received = []
        self.uses = 0

    def __repr__(self):
        return "<TagDevice>"

    def use(self):
        self.uses += 1

    def send_array(self, array):
        self.received.append(array)
        return numpy.array(array, copy=True)


class Holder(chainer.Link):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.W = chainer.Parameter(numpy.ones((2, 3), numpy.float32))
            self.lazy = chainer.Parameter(initializers.Zero())
        self.add_persistent("stat", numpy.zeros(3, numpy.float32))
        self.add_persistent("count", 4)


class Model(chainer.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.a = Holder()
            self.b = chainer.ChainList(Holder())


def test_default_device():
    link = Holder()
    assert isinstance(link.device, backend.CpuDevice)
    assert link.xp is numpy
    assert isinstance(device_resident.DeviceResident().device, backend.CpuDevice)


def test_to_device_moves_the_hierarchy():
    model = Model()
    old_w = model.a.W.array
    old_stat = model.b[0].stat
    device = TagDevice()
    assert model.to_device(device) is model
    for link in model.links():
        assert link.device is device
    assert model.a.W.array is not old_w
    numpy.testing.assert_array_equal(model.a.W.array, old_w)
    assert model.b[0].stat is not old_stat
    assert model.b[0].count == 4
    # Two W arrays and two stat arrays went through the device.
    assert len(device.received) == 4
    # An uninitialized parameter is created on the device it was sent to.
    uses = device.uses
    model.a.lazy.initialize((2,))
    assert device.uses > uses


def test_to_device_by_specifier():
    link = Holder()
    assert link.to_device("@numpy") is link
    assert link.device == backend.CpuDevice()
    assert link.to_device(numpy).device == backend.CpuDevice()
    # Specifiers without '@' are ChainerX devices, which do not exist here.
    with pytest.raises(RuntimeError, match="ChainerX"):
        link.to_device("numpy")


def test_to_cpu_is_deprecated_and_moves():
    link = Holder()
    link.to_device(TagDevice())
    with pytest.warns(DeprecationWarning, match=r"to_device\('@numpy'\)"):
        assert link.to_cpu() is link
    assert link.device == backend.CpuDevice()
    assert isinstance(link.W.array, numpy.ndarray)


@pytest.mark.skipif(cuda.available, reason="checks the error raised without CUDA")
def test_to_gpu_without_cuda():
    with (
        pytest.warns(DeprecationWarning),
        pytest.raises(RuntimeError, match="chainer-cuda"),
    ):
        Holder().to_gpu()
    with (
        pytest.warns(DeprecationWarning),
        pytest.raises(RuntimeError, match="chainer-cuda"),
    ):
        Holder().to_gpu(0)


@pytest.mark.gpu
def test_to_gpu():
    model = Model()
    with pytest.warns(DeprecationWarning):
        assert model.to_gpu() is model
    assert model.xp is not numpy
    assert model.a.W.array.__class__.__module__.startswith("cupy")
    assert model.b[0].stat.__class__.__module__.startswith("cupy")
    with pytest.warns(DeprecationWarning):
        model.to_cpu()
    assert isinstance(model.a.W.array, numpy.ndarray)


def test_unsupported_backends():
    link = Holder()
    with pytest.warns(DeprecationWarning), pytest.raises(RuntimeError, match="iDeep"):
        link.to_intel64()
    with pytest.raises(RuntimeError, match="ChainerX is not available"):
        link.to_chx()
    # Nothing is on a ChainerX device, so from_chx leaves everything alone.
    w = link.W.array
    assert link.from_chx() is link
    assert link.W.array is w
    assert link.device == backend.CpuDevice()


@pytest.mark.parametrize("method", ["to_device", "to_chx", "from_chx"])
def test_final_methods_cannot_be_overridden(method):
    with pytest.raises(TypeError, match=f"'{method}'.*final"):
        type("Bad", (chainer.Link,), {method: lambda self, *a: None})


@pytest.mark.parametrize("method", ["to_cpu", "to_gpu", "to_intel64"])
def test_overriding_legacy_methods_is_deprecated(method):
    with pytest.warns(DeprecationWarning, match=f"'{method}'.*deprecated"):
        type("Old", (chainer.Link,), {method: lambda self, *a: None})


class ExtraArray(chainer.Link):
    """A link holding an unregistered array that it moves itself."""

    def __init__(self):
        super().__init__()
        self.table = numpy.arange(3)

    def device_resident_accept(self, visitor):
        super().device_resident_accept(visitor)
        self.table = visitor.visit_array(self.table)


def test_custom_device_resident_accept():
    link = ExtraArray()
    device = TagDevice()
    link.to_device(device)
    assert len(device.received) == 1
    numpy.testing.assert_array_equal(link.table, [0, 1, 2])


class CountingVisitor(device_resident.DeviceResidentsVisitor):
    def __init__(self):
        self.residents = []
        self.variables = []
        self.arrays = []

    def visit_device_resident(self, device_resident):
        self.residents.append(device_resident)

    def visit_variable(self, param):
        self.variables.append(param)

    def visit_array(self, arr):
        self.arrays.append(arr)
        return arr


def test_visitor_sees_everything_registered():
    model = Model()
    visitor = CountingVisitor()
    model.device_resident_accept(visitor)
    assert visitor.residents == list(model.links())
    assert {id(v) for v in visitor.variables} == {id(p) for p in model.params()}
    assert len(visitor.arrays) == 2  # the two 'stat' arrays; 'count' is no array


def test_base_visitor_leaves_things_alone():
    visitor = device_resident.DeviceResidentsVisitor()
    arr = numpy.zeros(2)
    assert visitor.visit_array(arr) is arr
    link = Holder()
    link.device_resident_accept(visitor)
    assert link.device == backend.CpuDevice()


with pytest.warns(DeprecationWarning, match="'to_cpu'"):

    class LegacyOverride(chainer.Link):
        """Chainer < 6 style: to_cpu overridden to move an extra attribute."""

        def __init__(self):
            super().__init__()
            self.calls = 0

        def to_cpu(self):
            self.calls += 1
            return super().to_cpu()


def test_legacy_to_cpu_override_is_called_for_children():
    chain = chainer.Chain()
    with chain.init_scope():
        chain.child = LegacyOverride()
    with pytest.warns(DeprecationWarning):
        chain.to_cpu()
    assert chain.child.calls == 1
    with pytest.warns(DeprecationWarning):
        chain.child.to_cpu()
    assert chain.child.calls == 2
    # As in Chainer 7, to_device('@numpy') calls the override of to_cpu too.
    with pytest.warns(DeprecationWarning):
        chain.to_device("@numpy")
    assert chain.child.calls == 3


@pytest.mark.skipif(
    importlib.util.find_spec("cupy") is not None, reason="needs a host without CuPy"
)
def test_get_device_error_names_the_package():
    with pytest.raises(RuntimeError, match="chainer-cuda"):
        Holder().to_device("@cupy:0")
