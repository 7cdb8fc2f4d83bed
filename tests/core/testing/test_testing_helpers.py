import os
import random
import unittest
import warnings

import numpy
import pytest

import chainer
from chainer import testing
from chainer.testing import attr
from chainer.testing import condition

# -- assert_allclose ---------------------------------------------------------


def test_assert_allclose_passes_within_tolerance():
    testing.assert_allclose(numpy.array([1.0, 2.0]), numpy.array([1.0, 2.0001]))
    testing.assert_allclose(1.0, numpy.float32(1.0))
    testing.assert_allclose([1, 2], numpy.array([1.0, 2.0]))


def test_assert_allclose_failure_message():
    with pytest.raises(AssertionError) as info:
        testing.assert_allclose(
            numpy.array([1.0, 2.0]), numpy.array([1.0, 2.5]), atol=1e-3, rtol=0
        )
    msg = str(info.value)
    assert "assert_allclose failed" in msg
    assert "i: (1,)" in msg
    assert "x[i]: 2.0" in msg
    assert "y[i]: 2.5" in msg


def test_assert_allclose_shape_mismatch_and_nan():
    with pytest.raises(AssertionError, match="shape"):
        testing.assert_allclose(numpy.zeros(2), numpy.zeros(3))
    with pytest.raises(AssertionError):
        testing.assert_allclose(numpy.array([numpy.nan]), numpy.array([0.0]))


def test_assert_allclose_rejects_variable():
    with pytest.raises(TypeError, match="Variable"):
        testing.assert_allclose(chainer.Variable(numpy.zeros(1)), numpy.zeros(1))


# -- condition ---------------------------------------------------------------


class _Counter(unittest.TestCase):
    setups = 0
    runs = 0

    def setUp(self):
        type(self).setups += 1

    def runTest(self):
        pass


def _counting(outcomes):
    class Case(_Counter):
        __test__ = False
        setups = 0
        runs = 0

        def body(self):
            i = type(self).runs
            type(self).runs += 1
            if not outcomes[i]:
                raise AssertionError(f"attempt {i} failed")

    case = Case()
    case.setUp()
    return case


def test_retry_succeeds_after_failures():
    case = _counting([False, False, True])
    condition.retry(3)(type(case).body)(case)
    assert type(case).runs == 3
    assert type(case).setups == 3


def test_retry_fails_when_all_fail():
    case = _counting([False, False])
    with pytest.raises(AssertionError, match="Fail: 2, Success: 0") as info:
        condition.retry(2)(type(case).body)(case)
    assert "attempt 0 failed" in str(info.value)


def test_repeat_requires_every_success():
    case = _counting([True, True, True])
    condition.repeat(3)(type(case).body)(case)
    assert type(case).runs == 3
    case = _counting([True, False, True])
    with pytest.raises(AssertionError, match="Fail: 1"):
        condition.repeat(3)(type(case).body)(case)
    assert type(case).runs == 2  # stops once success became impossible


def test_repeat_with_success_at_least():
    case = _counting([False, True, True, False])
    condition.repeat_with_success_at_least(4, 2)(type(case).body)(case)
    assert type(case).runs == 3  # stops once enough attempts passed


def test_condition_propagates_skip():
    def body():
        raise unittest.SkipTest("no")

    with pytest.raises(unittest.SkipTest):
        condition.retry(3)(body)()


def test_condition_bad_input():
    with pytest.raises(ValueError, match="times"):
        condition.repeat(0)
    with pytest.raises(ValueError, match="min_success"):
        condition.repeat_with_success_at_least(2, 3)


# -- attr --------------------------------------------------------------------


def test_attr_markers():
    def f():
        pass

    assert [m.name for m in attr.slow(f).pytestmark] == ["slow"]

    def g():
        pass

    names = [m.name for m in attr.gpu(g).pytestmark]
    assert "gpu" in names
    assert "skipif" in names

    def h():
        pass

    assert "gpu" in [m.name for m in attr.multi_gpu(2)(h).pytestmark]
    with pytest.raises(ValueError, match="gpu_num"):
        attr.multi_gpu(0)


@attr.gpu
def test_gpu_marked_test_is_skipped_without_cuda():
    from chainer.backends import cuda

    assert cuda.available


# -- helper --------------------------------------------------------------------


def test_with_requires():
    @testing.with_requires("numpy>=1.0")
    def ok():
        return "ran"

    assert ok() == "ran"

    @testing.with_requires("numpy<1.0")
    def too_new():
        pass

    with pytest.raises(unittest.SkipTest, match="requires: numpy<1.0"):
        too_new()

    @testing.with_requires("surely-not-installed-distribution-xyz")
    def missing():
        pass

    with pytest.raises(unittest.SkipTest):
        missing()


def test_without_requires():
    @testing.without_requires("numpy")
    def needs_absence():
        pass

    with pytest.raises(unittest.SkipTest):
        needs_absence()

    @testing.without_requires("surely-not-installed-distribution-xyz")
    def runs():
        return 1

    assert runs() == 1


def test_with_requires_on_classes():
    @testing.with_requires("numpy<1.0")
    class Skipped(unittest.TestCase):
        def test_a(self):
            pass

    assert Skipped.__unittest_skip__

    @testing.with_requires("numpy<1.0")
    class PytestStyle:
        def test_a(self):
            pass

    assert [m.name for m in PytestStyle.pytestmark] == ["skip"]


def test_with_requires_bad_requirement():
    with pytest.raises(ValueError, match="invalid requirement"):
        testing.with_requires("numpy>>=")


def test_assert_warns():
    with testing.assert_warns(UserWarning):
        warnings.warn("hello", UserWarning)
    with (
        pytest.raises(AssertionError, match="DeprecationWarning not triggered"),
        testing.assert_warns(DeprecationWarning),
    ):
        warnings.warn("hello", UserWarning)
    with (
        pytest.raises(TypeError, match="Warning subclass"),
        testing.assert_warns(ValueError),
    ):
        pass


def test_patch_wraps_original():
    with testing.patch("os.path.join") as mock:
        assert os.path.join("a", "b") == "a" + os.sep + "b"
    mock.assert_called_once_with("a", "b")
    with testing.patch("os.path.join", return_value="x"):
        assert os.path.join("a", "b") == "x"
    with pytest.raises(ValueError, match="cannot find"):
        testing.patch("os.path.no_such_function_here")
    with pytest.raises(TypeError, match="dotted name"):
        testing.patch(os.path.join)


# -- random --------------------------------------------------------------------


def test_fix_random_function_is_repeatable_and_restores_state():
    @testing.fix_random()
    def draw():
        return numpy.random.rand(3), random.random()

    numpy.random.seed(5)
    before = numpy.random.get_state()[1].copy()
    a = draw()
    b = draw()
    numpy.testing.assert_array_equal(a[0], b[0])
    assert a[1] == b[1]
    numpy.testing.assert_array_equal(numpy.random.get_state()[1], before)


def test_fix_random_class():
    draws = []

    @testing.fix_random()
    class Case(unittest.TestCase):
        def setUp(self):
            self.x = numpy.random.rand()

        def test_a(self):
            draws.append(self.x)

    for _ in range(2):
        case = Case("test_a")
        case.setUp()
        case.test_a()
        case.tearDown()
    assert draws[0] == draws[1]


def test_fix_random_pytest_style_class():
    @testing.fix_random(setup_method="setup_method", teardown_method="teardown_method")
    class Case:
        pass

    case = Case()
    case.setup_method(None)
    x = numpy.random.rand()
    case.teardown_method(None)
    case.setup_method(None)
    assert numpy.random.rand() == x
    case.teardown_method(None)


def test_fix_random_bad_target():
    with pytest.raises(TypeError, match="fix_random"):
        testing.fix_random()(3)


def test_generate_seed():
    numpy.random.seed(0)
    a = testing.generate_seed()
    numpy.random.seed(0)
    assert testing.generate_seed() == a
    assert 0 <= a < 2**32


# -- generate_matrix -----------------------------------------------------------


def test_generate_matrix_singular_values():
    m = testing.generate_matrix((2, 4, 3), numpy.float32, singular_values=[1, 2, 3])
    assert m.shape == (2, 4, 3)
    assert m.dtype == numpy.float32
    for a in m:
        s = numpy.linalg.svd(a.astype(numpy.float64), compute_uv=False)
        numpy.testing.assert_allclose(sorted(s), [1, 2, 3], rtol=1e-5)
    c = testing.generate_matrix((3, 3), numpy.complex64, singular_values=1)
    numpy.testing.assert_allclose(
        numpy.linalg.svd(c, compute_uv=False), numpy.ones(3), rtol=1e-5
    )
    assert testing.generate_matrix((0, 3), singular_values=1).shape == (0, 3)


def test_generate_matrix_bad_input():
    with pytest.raises(ValueError, match="too few axes"):
        testing.generate_matrix((3,), singular_values=1)
    with pytest.raises(TypeError, match="not supported"):
        testing.generate_matrix((2, 2), numpy.int32, singular_values=1)
    with pytest.raises(TypeError, match="singular_values is not given"):
        testing.generate_matrix((2, 2))
    with pytest.raises(ValueError, match="negative"):
        testing.generate_matrix((2, 2), singular_values=-1)
    with pytest.raises(TypeError, match="not real"):
        testing.generate_matrix((2, 2), singular_values=1j)
    with pytest.raises(ValueError, match="cannot be broadcast"):
        testing.generate_matrix((2, 2), singular_values=[1, 2, 3])
    with pytest.raises(TypeError, match="unexpected"):
        testing.generate_matrix((2, 2), singular_values=1, foo=2)


# -- serializers, trainer, run_module ------------------------------------------


class _Holder(chainer.Link):
    def __init__(self, value):
        super().__init__()
        with self.init_scope():
            self.w = chainer.Parameter(numpy.full(3, value, numpy.float32))


def test_save_and_load_custom(tmp_path):
    calls = []
    testing.save_and_load(
        "src",
        "dst",
        str(tmp_path / "f"),
        lambda f, o: calls.append(("save", o)),
        lambda f, o: calls.append(("load", o)),
    )
    assert calls == [("save", "src"), ("load", "dst")]


def test_save_and_load_npz():
    src, dst = _Holder(1.0), _Holder(0.0)
    testing.save_and_load_npz(src, dst)
    numpy.testing.assert_array_equal(dst.w.array, src.w.array)


def test_save_and_load_hdf5():
    pytest.importorskip("h5py")
    src, dst = _Holder(2.0), _Holder(0.0)
    testing.save_and_load_hdf5(src, dst)
    numpy.testing.assert_array_equal(dst.w.array, src.w.array)


def test_get_trainer_with_mock_updater(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the trainer writes to ./result
    import importlib.util

    try:
        has_training = importlib.util.find_spec("chainer.training") is not None
    except ModuleNotFoundError:
        has_training = False
    if not has_training:
        with pytest.raises(RuntimeError, match="chainer-training"):
            testing.get_trainer_with_mock_updater()
    else:
        trainer = testing.get_trainer_with_mock_updater((3, "iteration"), 2)
        trainer.run()
        assert trainer.updater.iteration == 3
        assert trainer.updater.epoch == 1
    with pytest.raises(ValueError, match="iter_per_epoch"):
        testing.get_trainer_with_mock_updater(iter_per_epoch=0)


def test_run_module_is_noop_when_imported():
    assert testing.run_module("not_main", __file__) is None


def test_public_names_exist():
    for name in [
        "BackendConfig",
        "FunctionTestCase",
        "FunctionTestError",
        "InitializerArgument",
        "LinkInitializersTestCase",
        "LinkTestCase",
        "LinkTestError",
        "assert_allclose",
        "assert_warns",
        "distribution_unittest",
        "fix_random",
        "from_pytest_parameterize",
        "generate_matrix",
        "generate_seed",
        "get_trainer_with_mock_updater",
        "inject_backend_tests",
        "parameterize",
        "parameterize_pytest",
        "patch",
        "product",
        "product_dict",
        "run_module",
        "save_and_load",
        "save_and_load_hdf5",
        "save_and_load_npz",
        "unary_math_function_unittest",
        "with_requires",
        "without_requires",
    ]:
        assert getattr(testing, name) is not None, name
        assert name in dir(testing)
    with pytest.raises(AttributeError):
        testing.no_such_name  # noqa: B018


def test_doctest_helper(monkeypatch):
    from chainer.testing import doctest_helper

    assert doctest_helper.skipif(1) is True
    assert doctest_helper.skipif_requires_satisfied("numpy") is True
    assert doctest_helper.skipif_requires_satisfied("no-such-dist-xyz") is False
    monkeypatch.delenv("CHAINER_TEST_GPU_LIMIT", raising=False)
    assert doctest_helper.skipif_not_enough_cuda_devices(2) is False
    monkeypatch.setenv("CHAINER_TEST_GPU_LIMIT", "1")
    assert doctest_helper.skipif_not_enough_cuda_devices(2) is True
    assert doctest_helper.skipif_not_enough_cuda_devices(1) is False
    monkeypatch.setenv("CHAINER_TEST_GPU_LIMIT", "two")
    with pytest.raises(ValueError, match="CHAINER_TEST_GPU_LIMIT"):
        doctest_helper.skipif_not_enough_cuda_devices(1)


def test_distribution_test_module_paths():
    from chainer.testing import _distribution_test
    from chainer.testing import distribution_test

    assert (
        _distribution_test.distribution_unittest
        is distribution_test.distribution_unittest
    )
