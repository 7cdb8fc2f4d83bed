import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.functions.evaluation import accuracy
from chainer.functions.loss import softmax_cross_entropy
from chainer.links.model import classifier


class _Affine(chainer.Link):
    """y = x W + b, with optional extra inputs added to y."""

    def __init__(self, n_in=3, n_out=4):
        super().__init__()
        with self.init_scope():
            self.W = chainer.Parameter(
                numpy.random.uniform(-1, 1, (n_in, n_out)).astype("f")
            )
            self.b = chainer.Parameter(numpy.zeros(n_out, "f"))
        self.calls = []

    def forward(self, x, *extra, **kwargs):
        self.calls.append((len(extra), sorted(kwargs)))
        y = x @ self.W + self.b
        for e in (*extra, *kwargs.values()):
            y = y + e
        return y


def _data():
    x = numpy.random.uniform(-1, 1, (5, 3)).astype("f")
    t = numpy.random.randint(0, 4, 5).astype(numpy.int32)
    return x, t


def _observe(model, *args, **kwargs):
    reporter = chainer.Reporter()
    reporter.add_observer("main", model)
    observation = {}
    with reporter.scope(observation):
        loss = model(*args, **kwargs)
    return loss, observation


def test_loss_accuracy_and_report():
    model = classifier.Classifier(_Affine())
    x, t = _data()
    loss, observation = _observe(model, x, t)
    y = x @ model.predictor.W.array + model.predictor.b.array
    expected_loss = softmax_cross_entropy.softmax_cross_entropy(y, t).array
    expected_acc = (y.argmax(axis=1) == t).mean()
    testing.assert_allclose(loss.array, expected_loss, rtol=1e-5)
    assert loss is model.loss
    testing.assert_allclose(model.y.array, y, rtol=1e-5)
    testing.assert_allclose(model.accuracy.array, expected_acc)
    assert sorted(observation) == ["main/accuracy", "main/loss"]
    testing.assert_allclose(observation["main/loss"].array, expected_loss, rtol=1e-5)
    testing.assert_allclose(observation["main/accuracy"].array, expected_acc)
    # The report does not keep the graph; the returned loss does.
    assert observation["main/loss"].creator is None
    assert loss.creator is not None


def test_backward_reaches_predictor():
    model = classifier.Classifier(_Affine())
    loss = model(*_data())
    loss.backward()
    assert model.predictor.W.grad is not None
    assert numpy.abs(model.predictor.W.grad).sum() > 0


def test_defaults():
    model = classifier.Classifier(_Affine())
    assert model.lossfun is softmax_cross_entropy.softmax_cross_entropy
    assert model.accfun is accuracy.accuracy
    assert model.label_key == -1
    assert model.compute_accuracy is True
    assert model.y is None
    assert model.loss is None
    assert model.accuracy is None
    assert [name for name, _ in model.namedlinks(skipself=True)] == ["/predictor"]


def test_compute_accuracy_off():
    model = classifier.Classifier(_Affine())
    model.compute_accuracy = False
    _, observation = _observe(model, *_data())
    assert list(observation) == ["main/loss"]
    assert model.accuracy is None


def test_custom_functions():
    seen = []

    def lossfun(y, t):
        seen.append("loss")
        return F.sum(y)

    def accfun(y, t):
        seen.append("acc")
        return chainer.Variable(numpy.array(0.25, "f"))

    model = classifier.Classifier(_Affine(), lossfun=lossfun, accfun=accfun)
    x, t = _data()
    loss, observation = _observe(model, x, t)
    assert seen == ["loss", "acc"]
    testing.assert_allclose(loss.array, model.y.array.sum(), rtol=1e-5)
    assert float(observation["main/accuracy"].array) == 0.25


@pytest.mark.parametrize("label_key", [0, 1, 2, -1, -2, -3])
def test_int_label_key(label_key):
    model = classifier.Classifier(_Affine(), label_key=label_key)
    x, t = _data()
    e = numpy.random.uniform(-1, 1, (5, 4)).astype("f")
    args = [x, e]
    args.insert(label_key % 3, t)
    model(*args)
    assert model.predictor.calls == [(1, [])]
    y = x @ model.predictor.W.array + model.predictor.b.array + e
    testing.assert_allclose(model.y.array, y, rtol=1e-5)


def test_str_label_key():
    model = classifier.Classifier(_Affine(), label_key="label")
    x, t = _data()
    e = numpy.random.uniform(-1, 1, (5, 4)).astype("f")
    _, observation = _observe(model, x, extra=e, label=t)
    assert model.predictor.calls == [(0, ["extra"])]
    y = x @ model.predictor.W.array + model.predictor.b.array + e
    testing.assert_allclose(model.y.array, y, rtol=1e-5)
    assert "main/loss" in observation


@pytest.mark.parametrize("label_key", [1.0, None, True, (0,)])
def test_bad_label_key_type(label_key):
    with pytest.raises(TypeError, match="label_key must be int or str"):
        classifier.Classifier(_Affine(), label_key=label_key)


def test_label_key_out_of_bounds():
    model = classifier.Classifier(_Affine(), label_key=2)
    with pytest.raises(ValueError, match="out of bounds"):
        model(*_data())
    model = classifier.Classifier(_Affine(), label_key=-3)
    with pytest.raises(ValueError, match="out of bounds"):
        model(*_data())
    model = classifier.Classifier(_Affine())
    with pytest.raises(ValueError, match="out of bounds"):
        model()


def test_missing_str_label_key():
    model = classifier.Classifier(_Affine(), label_key="t")
    x, t = _data()
    with pytest.raises(ValueError, match='Label key "t" is not found'):
        model(x, t)


def test_works_without_reporter():
    model = classifier.Classifier(_Affine())
    loss = model(*_data())
    assert loss.shape == ()


def test_serialization_round_trip():
    src = classifier.Classifier(_Affine())
    dst = classifier.Classifier(_Affine())
    testing.save_and_load_npz(src, dst)
    numpy.testing.assert_array_equal(dst.predictor.W.array, src.predictor.W.array)
    numpy.testing.assert_array_equal(dst.predictor.b.array, src.predictor.b.array)


def test_linear_classifier_on_one_label_too_many_raises():
    # Issue 21: a Classifier(L.Linear(20, 10)) fed labels 0..10 trained
    # without a word, label 10 reading the next sample's first logit.
    import chainer.links as L

    rng = numpy.random.RandomState(0)
    model = classifier.Classifier(L.Linear(20, 10))
    optimizer = chainer.optimizers.SGD()
    optimizer.setup(model)
    x = rng.uniform(-1, 1, (100, 20)).astype(numpy.float32)
    t = (numpy.arange(100) % 11).astype(numpy.int32)
    with pytest.raises(ValueError, match=r"softmax_cross_entropy: t\[10\] = 10 "):
        optimizer.update(model, x, t)
    # In range, the same step runs.
    optimizer.update(model, x, t % 10)


def test_accuracy_rejects_a_label_the_loss_ignores():
    # The loss ignores -1; accuracy with its default ignore_label=None
    # would count it as a miss: it asks for ignore_label instead.
    model = classifier.Classifier(_Affine())
    x, t = _data()
    t[0] = -1
    with pytest.raises(ValueError, match=r"accuracy: t\[0\] = -1 "):
        model(x, t)
