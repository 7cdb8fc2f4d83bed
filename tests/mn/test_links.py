"""chainermn.links: MultiNodeChainList, MultiNodeBatchNormalization and friends.

programs/mn_links_chain_list.py trains models split over 2 and 3 processes
and compares the parameters with the whole model trained in one process;
programs/mn_links_batch_normalization.py compares multi-node batch
normalization on the processes' parts of a batch with batch normalization
on the whole batch. The in-process tests use a one-process communicator.
"""

import copy

import numpy
import pytest
from numpy import testing

import chainer
import chainer.functions as F
import chainer.links as L
import chainermn
from chainermn import links

pytestmark = pytest.mark.mpi


@pytest.mark.parametrize("n", [2, 3])
def test_split_models_train_like_the_whole_model(mpirun, n, tmp_path):
    records = mpirun(n, "mn_links_chain_list.py", tmp_path).assert_all_passed(n)
    passed = set(records[0]["passed"])
    assert {"pipeline sgd", "pipeline adam", "pipeline with updater"} <= passed
    assert {"local and remote", "n-step rnn lstm", "n-step rnn gru"} <= passed
    if n == 3:
        assert {"diamond", "ring of three"} <= passed


@pytest.mark.parametrize("n", [2, 3])
def test_multi_node_batch_normalization_equals_the_whole_batch(mpirun, n):
    records = mpirun(n, "mn_links_batch_normalization.py").assert_all_passed(n)
    passed = set(records[n - 1]["passed"])
    for dtype in ("float16", "float32", "float64"):
        assert f"equals one process {dtype} (2, 3, 2)" in passed
    assert {"numerically", "training sgd", "training adam"} <= passed
    assert {"create_mnbn_model", "finetune", "errors"} <= passed


def test_public_names():
    assert sorted(links.__all__) == [
        "MultiNodeBatchNormalization",
        "MultiNodeChainList",
        "create_mnbn_model",
        "create_multi_node_n_step_rnn",
    ]
    for name in links.__all__:
        assert "Args:" in getattr(links, name).__doc__


# ------------------------------------------------------------ one process


def test_batch_normalization_with_one_process_equals_batch_normalization(comm):
    rng = numpy.random.RandomState(0)
    x = (rng.randn(6, 3, 2) * 3 + 1).astype(numpy.float32)
    c = rng.randn(6, 3, 2).astype(numpy.float32)
    bn = L.BatchNormalization(3)
    mnbn = links.MultiNodeBatchNormalization(3, comm)
    for _ in range(2):
        vx, mx = chainer.Variable(x), chainer.Variable(x)
        expected = bn(vx)
        F.sum(expected * c).backward()
        y = mnbn(mx)
        F.sum(y * c).backward()
        testing.assert_allclose(y.array, expected.array, atol=1e-5, rtol=1e-5)
        testing.assert_allclose(mx.grad, vx.grad, atol=1e-5, rtol=1e-4)
    testing.assert_allclose(mnbn.gamma.grad, bn.gamma.grad, rtol=1e-4)
    testing.assert_allclose(mnbn.avg_var, bn.avg_var, rtol=1e-5)
    with chainer.using_config("train", False):
        testing.assert_allclose(mnbn(x).array, bn(x).array, atol=1e-5, rtol=1e-5)


def test_batch_normalization_options(comm):
    mnbn = links.MultiNodeBatchNormalization(
        (2, 3),
        comm,
        dtype=numpy.float64,
        initial_gamma=2.0,
        initial_beta=numpy.full((2, 3), 0.5),
    )
    assert mnbn.gamma.dtype == numpy.float64
    assert mnbn.avg_mean.shape == (2, 3)
    testing.assert_array_equal(mnbn.gamma.array, numpy.full((2, 3), 2.0))
    testing.assert_array_equal(mnbn.beta.array, numpy.full((2, 3), 0.5))
    testing.assert_array_equal(mnbn.avg_var, numpy.ones((2, 3)))
    bare = links.MultiNodeBatchNormalization(3, comm, use_gamma=False, use_beta=False)
    assert bare.gamma is None
    assert bare.beta is None
    assert not list(bare.params())
    assert "MultiNodeBatchNormalization(size=(3,)" in repr(bare)


def test_batch_normalization_copies_share_the_communicator(comm, tmp_path):
    mnbn = links.MultiNodeBatchNormalization(3, comm)
    mnbn(numpy.arange(6, dtype=numpy.float32).reshape(2, 3))
    deep = copy.deepcopy(mnbn)
    assert deep.comm is comm
    assert deep.avg_mean is not mnbn.avg_mean
    assert mnbn.copy(mode="copy").comm is comm
    chainer.serializers.save_npz(tmp_path / "bn.npz", mnbn)
    loaded = links.MultiNodeBatchNormalization(3, comm)
    chainer.serializers.load_npz(tmp_path / "bn.npz", loaded)
    testing.assert_array_equal(loaded.avg_mean, mnbn.avg_mean)


def test_communication_backends(comm):
    links.MultiNodeBatchNormalization(3, comm, communication_backend="mpi")
    with pytest.raises(ValueError, match="pure_nccl"):
        links.MultiNodeBatchNormalization(3, comm, communication_backend="nccl")
    with pytest.raises(ValueError, match="unknown communication_backend"):
        links.MultiNodeBatchNormalization(3, comm, communication_backend="x")


def test_create_mnbn_model_replaces_every_batch_normalization(comm):
    model = chainer.Sequential(
        L.Linear(4, 3),
        L.BatchNormalization(3, decay=0.5),
        chainer.Sequential(L.BatchNormalization(3, use_beta=False)),
        F.relu,
    )
    model(numpy.arange(8, dtype=numpy.float32).reshape(2, 4))
    mn = links.create_mnbn_model(model, comm)
    assert isinstance(mn[1], links.MultiNodeBatchNormalization)
    assert isinstance(mn[2][0], links.MultiNodeBatchNormalization)
    assert isinstance(model[1], L.BatchNormalization)
    assert mn[1].decay == 0.5
    assert mn[2][0].beta is None
    testing.assert_array_equal(mn[1].avg_var, model[1].avg_var)
    assert [p for p, _ in mn.namedparams()] == [p for p, _ in model.namedparams()]
    with chainer.using_config("train", False):
        x = numpy.ones((2, 4), numpy.float32)
        testing.assert_allclose(mn(x).array, model(x).array, rtol=1e-6)


def test_create_mnbn_model_refuses_what_it_cannot_copy(comm):
    with pytest.raises(ValueError, match="no size"):
        links.create_mnbn_model(L.BatchNormalization(axis=0), comm)
    with pytest.raises(ValueError, match="axis"):
        links.create_mnbn_model(L.BatchNormalization(3, axis=(0, 1)), comm)
    with pytest.raises(TypeError, match="chainer.Link"):
        links.create_mnbn_model(F.relu, comm)


def test_chain_list_with_one_process(comm):
    model = chainermn.MultiNodeChainList(comm)
    model.add_link(L.Linear(3, 2), rank_in=None, rank_out=0)
    model.add_link(L.Linear(2, 2), rank_in=0, rank_out=None)
    x = numpy.ones((1, 3), numpy.float32)
    y = model(x)
    expected = model[1](model[0](x))
    testing.assert_allclose(y.array, expected.array)
    assert isinstance(model, chainer.ChainList)
    assert [name for name, _ in model.namedparams()] == [
        "/0/W",
        "/0/b",
        "/1/W",
        "/1/b",
    ]


def test_chain_list_checks_its_components(comm):
    model = chainermn.MultiNodeChainList(comm)
    with pytest.raises(ValueError, match="rank 1, out of range"):
        model.add_link(L.Linear(2, 2), rank_in=1)
    with pytest.raises(TypeError, match="rank_out must be None, an int"):
        model.add_link(L.Linear(2, 2), rank_out="0")
    with pytest.raises(ValueError, match="empty list"):
        model.add_link(L.Linear(2, 2), rank_in=[])
    model.add_link(L.Linear(2, 2))
    with pytest.raises(ValueError, match="only one may have it"):
        model.add_link(L.Linear(2, 2))
    model.insert(0, L.Linear(2, 2), rank_in=None, rank_out=0)
    assert len(model) == 2
    orphan = chainermn.MultiNodeChainList(comm)
    orphan.add_link(L.Linear(2, 2), rank_in=0, rank_out=None)
    with pytest.raises(RuntimeError, match="no earlier component"):
        orphan(numpy.ones((1, 2), numpy.float32))


def test_n_step_rnn_checks_its_arguments(comm):
    with pytest.raises(TypeError, match="NStep RNN link"):
        links.create_multi_node_n_step_rnn(L.Linear(2, 2), comm)
    with pytest.raises(ValueError, match="own rank"):
        links.create_multi_node_n_step_rnn(L.NStepLSTM(1, 2, 2, 0.0), comm, 0)
    rnn = links.create_multi_node_n_step_rnn(L.NStepGRU(1, 2, 2, 0.0), comm)
    hy, ys, delegate = rnn([numpy.ones((3, 2), numpy.float32)])
    assert len(ys) == 1
    assert hy.shape == (1, 1, 2)
    assert delegate is None
    assert isinstance(rnn.actual_rnn, L.NStepGRU)
