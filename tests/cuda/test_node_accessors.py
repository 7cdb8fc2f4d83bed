"""The documented node and update-rule names that chainer-cuda's kernels use.

Each mirrors state that the NumPy forward pass keeps, so it is checked here on
NumPy arrays, and a kernel override setting it is seen by the backward pass.
"""

import numpy
import pytest

import chainer
from chainer import optimizers
from chainer.functions.connection import deconvolution_nd
from chainer.functions.loss import softmax_cross_entropy as sce
from chainer.functions.normalization import batch_normalization as bn
from chainer.functions.pooling import average_pooling_nd
from chainer.functions.pooling import max_pooling_nd
from chainer.functions.rnn import lstm


def _array(*shape, seed=0):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(numpy.float32)


def test_lstm_gates_and_tanh_c():
    node = lstm.LSTM()
    c_prev, x = _array(2, 3), _array(2, 12, seed=1)
    c, _h = node.apply((c_prev, x))
    assert node.gates is node._gates
    assert node.gates.shape == (4, 2, 3)
    numpy.testing.assert_allclose(node.tanh_c, numpy.tanh(c.array), rtol=1e-6)
    node.gates = None
    assert node._gates is None


def test_pooling_geometry_and_indexes():
    x = _array(2, 3, 5, 5)
    node = max_pooling_nd.MaxPoolingND(2, 2, 2, cover_all=False)
    assert node.in_size is None
    assert node.out_size is None
    node.setup_geometry((5, 5))
    assert node.in_size == (5, 5)
    assert node.out_size == (2, 2)
    node = max_pooling_nd.MaxPoolingND(2, 2, 2, cover_all=False)
    (y,) = node.apply((x,))
    idx = node.compact_indexes()
    numpy.testing.assert_array_equal(idx.astype(numpy.int64), node.indexes)
    grad = max_pooling_nd.MaxPoolingNDGrad(node)
    assert grad.mpool is node
    assert max_pooling_nd.MaxPoolingNDWithIndexes(node).mpool is node
    # Indexes given by a kernel override are what the gradient routes by.
    node.set_indexes(numpy.zeros_like(idx))
    (gx,) = grad.apply((numpy.ones_like(y.array),))
    assert gx.array[:, :, 0:4:2, 0:4:2].sum() == gx.array.sum() == y.size
    apool = average_pooling_nd.AveragePoolingND(2, 2)
    assert average_pooling_nd.AveragePoolingNDGrad(apool).apool is apool


def test_deconvolution_output_geometry():
    node = deconvolution_nd.DeconvolutionND(2, stride=2)
    assert node.set_output_geometry((3, 3), (3, 3)) == (7, 7)
    assert node.cover_all is False
    assert node._set_output_geometry((3, 3), (3, 3)) == (7, 7)


def test_batch_normalization_state():
    x, gamma, beta = _array(4, 3, 2), _array(3, seed=1), _array(3, seed=2)
    node = bn.BatchNormalization()
    node.apply((x, gamma, beta))
    assert node.layout is node._layout
    assert node.layout.count == 8
    grad = bn.BatchNormalizationGrad(node.axis, node.mean, node.inv_std, node.layout)
    assert grad.layout is node.layout
    grad.apply((x, gamma, _array(4, 3, 2, seed=3)))
    assert grad.ggamma is grad._ggamma
    assert grad.gbeta is grad._gbeta
    assert grad.ggamma.shape == grad.gbeta.shape == (3,)
    fixed = bn.FixedBatchNormalization()
    assert fixed.full is None
    fixed.apply((x, gamma, beta, _array(3, seed=4), numpy.ones(3, numpy.float32)))
    assert fixed.full == (1, 3, 1)


def test_softmax_cross_entropy_state():
    node = sce.SoftmaxCrossEntropy(ignore_label=-1)
    t = numpy.array([0, -1, 2], numpy.int32)
    labels, plain = node.check_hard_labels(t, 4)
    assert not plain
    numpy.testing.assert_array_equal(labels, [0, 0, 2])
    with pytest.raises(ValueError, match="softmax_cross_entropy"):
        node.check_hard_labels(numpy.array([4], numpy.int32), 4)
    flat = node.flat_label_indexes(labels, 4)
    numpy.testing.assert_array_equal(flat, [0, 4, 10])
    assert node.flat_labels is None
    assert node.row_weight is None
    node.flat_labels, node.row_weight, node.coeff = flat, numpy.ones(3), 0.5
    assert node._labels is flat
    assert node._coeff == 0.5
    node = sce.SoftmaxCrossEntropy()
    node.apply((_array(3, 4), numpy.array([0, 1, 2], numpy.int32)))
    assert node.coeff == pytest.approx(1 / 3)
    y = numpy.full((3, 4), 0.25, numpy.float32)
    grad = sce.SoftmaxCrossEntropyGradNoDoubleBackprop(node, y, t)
    assert grad.func is node
    assert grad.y is y


def _rule(optimizer, shape=(3,)):
    link = chainer.Link()
    with link.init_scope():
        link.w = chainer.Parameter(_array(*shape))
    optimizer.setup(link)
    link.w.grad = _array(*shape, seed=5)
    optimizer.update()
    return link.w.update_rule


def test_adam_rule_names():
    rule = _rule(optimizers.AdaBound())
    assert rule.step_size_bounds() == rule._bounds(rule.hyperparam)
    rule.check_eps(numpy.float32)
    rule.hyperparam.eps = 1e-8
    with pytest.raises(ValueError, match="eps"):
        rule.check_eps(numpy.float16)
    rule = _rule(optimizers.RMSprop(eps=1e-8))
    with pytest.raises(ValueError, match="eps"):
        rule.check_eps(numpy.float16)


def test_msvag_rule_rho():
    rule = _rule(optimizers.MSVAG(beta=0.9))
    assert rule.t == 1
    assert rule.rho == pytest.approx(1.0)
    rule.t = 3
    bt = 0.9**3
    assert rule.rho == pytest.approx(0.1 * (1 + bt) / (1.9 * (1 - bt)))
