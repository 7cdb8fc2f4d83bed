"""Testing utilities (``chainer.testing``).

Parameterized and backend-injected test classes, standard test cases for
functions and links, array assertions and helpers.
"""

from chainer.testing import array
from chainer.testing import attr as attr
from chainer.testing import backend
from chainer.testing import condition as condition
from chainer.testing import function_link
from chainer.testing import helper
from chainer.testing import matrix
from chainer.testing import parameterized
from chainer.testing import random
from chainer.testing import serializer
from chainer.testing import training
from chainer.testing import unary_math_function_test

assert_allclose = array.assert_allclose
BackendConfig = backend.BackendConfig
inject_backend_tests = backend.inject_backend_tests
FunctionTestCase = function_link.FunctionTestCase
FunctionTestError = function_link.FunctionTestError
LinkTestCase = function_link.LinkTestCase
LinkTestError = function_link.LinkTestError
LinkInitializersTestCase = function_link.LinkInitializersTestCase
InitializerArgument = function_link.InitializerArgument
assert_warns = helper.assert_warns
patch = helper.patch
with_requires = helper.with_requires
without_requires = helper.without_requires
generate_matrix = matrix.generate_matrix
parameterize = parameterized.parameterize
parameterize_pytest = parameterized.parameterize_pytest
from_pytest_parameterize = parameterized.from_pytest_parameterize
product = parameterized.product
product_dict = parameterized.product_dict
fix_random = random.fix_random
generate_seed = random.generate_seed
save_and_load = serializer.save_and_load
save_and_load_hdf5 = serializer.save_and_load_hdf5
save_and_load_npz = serializer.save_and_load_npz
get_trainer_with_mock_updater = training.get_trainer_with_mock_updater
unary_math_function_unittest = unary_math_function_test.unary_math_function_unittest


def __getattr__(name):
    # distribution_unittest marks its GPU tests with pytest at class creation;
    # loading it on first use keeps pytest out of `import chainer.testing`.
    if name == "distribution_unittest":
        from chainer.testing import distribution_test

        return distribution_test.distribution_unittest
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted([*globals(), "distribution_unittest"])


def run_module(name, file):
    """Runs the tests of a file with pytest when it is executed as a script.

    Put ``testing.run_module(__name__, __file__)`` at the end of a test file.

    Args:
        name (str): ``__name__`` of the file.
        file (str): ``__file__`` of the file.
    """
    if name == "__main__":
        import pytest

        pytest.main([file, "-vvs", "-x", "--pdb"])
