import io
import os
import threading
import zipfile

import numpy
import pytest

import chainer.links as L
from chainer import iterators
from chainer import optimizers
from chainer import serializers
from chainer import training
from chainer.training import extensions
from chainer.training.extensions import snapshot_writers


def _dataset(n=12):
    rng = numpy.random.RandomState(0)
    x = rng.randn(n, 3).astype(numpy.float32)
    t = (x[:, 0] > 0).astype(numpy.int32)
    return list(zip(x, t, strict=True))


def _make_trainer(out, stop=(6, "iteration"), seed=None):
    if seed is not None:
        numpy.random.seed(seed)
    model = L.Classifier(L.Linear(3, 2))
    optimizer = optimizers.MomentumSGD(lr=0.1).setup(model)
    it = iterators.SerialIterator(_dataset(), 4, shuffle=False)  # 3 iterations/epoch
    updater = training.updaters.StandardUpdater(it, optimizer)
    return training.Trainer(updater, stop, out=str(out)), model


def _files(directory):
    return sorted(os.listdir(directory))


def _set_mtime(path, seconds):
    os.utime(path, ns=(seconds * 10**9, seconds * 10**9))


# --- defaults, filenames ----------------------------------------------------


def test_defaults():
    ext = extensions.snapshot()
    assert ext.trigger == (1, "epoch")
    assert ext.priority == -100
    assert ext.filename == "snapshot_iter_{.updater.iteration}"
    assert isinstance(ext.writer, snapshot_writers.SimpleWriter)


def test_default_runs_every_epoch(tmp_path):
    trainer, _ = _make_trainer(tmp_path)
    trainer.extend(extensions.snapshot())
    trainer.run()
    assert _files(tmp_path) == ["snapshot_iter_3", "snapshot_iter_6"]


def test_filename_is_formatted_with_the_trainer(tmp_path):
    trainer, _ = _make_trainer(tmp_path)
    trainer.extend(extensions.snapshot(filename="snapshot_epoch-{.updater.epoch}.npz"))
    trainer.run()
    assert _files(tmp_path) == ["snapshot_epoch-1.npz", "snapshot_epoch-2.npz"]


def test_callable_filename(tmp_path):
    trainer, _ = _make_trainer(tmp_path)
    trainer.extend(
        extensions.snapshot(filename=lambda tr: f"it{tr.updater.iteration:03d}"),
        trigger=(2, "iteration"),
    )
    trainer.run()
    assert _files(tmp_path) == ["it002", "it004", "it006"]


def test_filename_in_a_subdirectory(tmp_path):
    trainer, _ = _make_trainer(tmp_path)
    trainer.extend(
        extensions.snapshot(filename="snaps/s_{.updater.iteration}", n_retains=2),
        trigger=(1, "iteration"),
    )
    trainer.run()
    assert _files(tmp_path / "snaps") == ["s_5", "s_6"]


def test_bad_format_field_is_named(tmp_path):
    trainer, _ = _make_trainer(tmp_path)
    trainer.extend(extensions.snapshot(filename="snap_{.updater.iter}"))
    with pytest.raises(ValueError, match=r"cannot format snapshot filename 'snap_"):
        trainer.run(show_loop_exception_msg=False)


def test_invalid_template():
    with pytest.raises(ValueError, match="invalid snapshot filename template"):
        extensions.snapshot(filename="snap_{.updater.iteration")


def test_callable_filename_must_return_str(tmp_path):
    trainer, _ = _make_trainer(tmp_path)
    trainer.extend(extensions.snapshot(filename=lambda tr: 3))
    with pytest.raises(TypeError, match="must return a str"):
        trainer.run(show_loop_exception_msg=False)


# --- content --------------------------------------------------------------------


def test_snapshot_resumes_an_identical_trainer(tmp_path):
    trainer, model = _make_trainer(tmp_path / "a", stop=(4, "iteration"))
    trainer.extend(extensions.snapshot(), trigger=(4, "iteration"))
    trainer.run()
    resumed, resumed_model = _make_trainer(tmp_path / "b")
    serializers.load_npz(str(tmp_path / "a" / "snapshot_iter_4"), resumed)
    assert resumed.updater.iteration == 4
    assert resumed.updater.get_iterator("main").current_position == 4
    numpy.testing.assert_array_equal(
        resumed_model.predictor.W.array, model.predictor.W.array
    )


def test_snapshot_object_loads_into_a_bare_link(tmp_path):
    trainer, model = _make_trainer(tmp_path)
    trainer.extend(
        extensions.snapshot_object(model.predictor, "model_{.updater.epoch}"),
        trigger=(1, "epoch"),
    )
    trainer.run()
    bare = L.Linear(3, 2)
    serializers.load_npz(str(tmp_path / "model_2"), bare)
    numpy.testing.assert_array_equal(bare.W.array, model.predictor.W.array)
    numpy.testing.assert_array_equal(bare.b.array, model.predictor.b.array)


def test_custom_savefun_gets_path_and_serialized_dict(tmp_path):
    calls = []

    def savefun(path, target):
        calls.append((os.path.dirname(path), dict(target)))
        serializers.save_npz(path, target)

    trainer, model = _make_trainer(tmp_path, stop=(3, "iteration"))
    trainer.extend(extensions.snapshot_object(model, "m", savefun=savefun))
    trainer.run()
    ((directory, target),) = calls
    assert directory == str(tmp_path)
    assert set(target) == {"predictor/W", "predictor/b"}
    assert isinstance(target["predictor/W"], numpy.ndarray)


def test_condition(tmp_path):
    trainer, _ = _make_trainer(tmp_path)
    answers = iter([False, True, False, True, False, False])
    trainer.extend(
        extensions.snapshot(condition=lambda: next(answers)), trigger=(1, "iteration")
    )
    trainer.run()
    assert _files(tmp_path) == ["snapshot_iter_2", "snapshot_iter_4"]


@pytest.mark.parametrize("on_error", [True, False])
def test_snapshot_on_error(tmp_path, on_error):
    trainer, _ = _make_trainer(tmp_path, stop=(10, "iteration"))

    def fail(trainer):
        if trainer.updater.iteration == 2:
            raise RuntimeError("boom")

    trainer.extend(fail, trigger=(1, "iteration"))
    trainer.extend(extensions.snapshot(snapshot_on_error=on_error))
    with pytest.raises(RuntimeError, match="boom"):
        trainer.run(show_loop_exception_msg=False)
    assert _files(tmp_path) == (["snapshot_iter_2"] if on_error else [])


def test_async_writers_save_the_state_at_snapshot_time(tmp_path):
    release = threading.Event()

    def slow_save(path, target):
        release.wait(10)
        serializers.save_npz(path, target)

    trainer, model = _make_trainer(tmp_path, stop=(1, "iteration"))
    writer = snapshot_writers.ThreadWriter(savefun=slow_save)
    ext = extensions.snapshot_object(model, "m", writer=writer)
    ext(trainer)
    expected = model.predictor.W.array.copy()
    model.predictor.W.array[...] += 1  # training goes on while the thread writes
    release.set()
    ext.finalize()
    loaded = L.Classifier(L.Linear(3, 2))
    serializers.load_npz(str(tmp_path / "m"), loaded)
    numpy.testing.assert_array_equal(loaded.predictor.W.array, expected)


# --- atomic writes --------------------------------------------------------------


def test_failed_save_leaves_the_previous_file_and_no_temporary(tmp_path):
    (tmp_path / "m").write_bytes(b"previous")

    def failing_save(path, target):
        with open(path, "wb") as f:
            f.write(b"partial")
        raise OSError("disk full")

    trainer, model = _make_trainer(tmp_path, stop=(1, "iteration"))
    ext = extensions.snapshot_object(model, "m", savefun=failing_save)
    with pytest.raises(OSError, match="disk full"):
        ext(trainer)
    assert _files(tmp_path) == ["m"]
    assert (tmp_path / "m").read_bytes() == b"previous"


# --- n_retains --------------------------------------------------------------------


# Python 3.12+ warns when a multi-threaded process forks (see
# test_snapshot_writers); the process writers are safe here.
@pytest.mark.filterwarnings(
    "ignore:This process .* is multi-threaded:DeprecationWarning"
)
@pytest.mark.parametrize(
    "writer",
    [
        None,
        snapshot_writers.ThreadWriter,
        snapshot_writers.ProcessWriter,
        snapshot_writers.ThreadQueueWriter,
        snapshot_writers.ProcessQueueWriter,
    ],
)
def test_n_retains_keeps_the_newest(tmp_path, writer):
    (tmp_path / "unrelated.txt").write_text("kept")
    (tmp_path / "snapshot_iter_old").write_text("older than all")
    _set_mtime(tmp_path / "snapshot_iter_old", 1)
    trainer, _ = _make_trainer(tmp_path)
    kwargs = {} if writer is None else {"writer": writer()}
    trainer.extend(extensions.snapshot(n_retains=2, **kwargs), trigger=(1, "iteration"))
    trainer.run()
    assert _files(tmp_path) == ["snapshot_iter_5", "snapshot_iter_6", "unrelated.txt"]


def test_n_retains_orders_by_mtime(tmp_path):
    for name, mtime in [("snap_a", 30), ("snap_b", 10), ("snap_c", 20)]:
        (tmp_path / name).write_text(name)
        _set_mtime(tmp_path / name, mtime)
    trainer, _ = _make_trainer(tmp_path, stop=(1, "iteration"))
    ext = extensions.snapshot(filename="snap_{.updater.iteration}", n_retains=2)
    trainer.extend(ext, trigger=(1, "iteration"))
    trainer.run()
    # snap_1 is the newest; of the old ones snap_a has the latest mtime.
    assert _files(tmp_path) == ["snap_1", "snap_a"]


def test_n_retains_not_positive_keeps_everything(tmp_path):
    trainer, _ = _make_trainer(tmp_path, stop=(3, "iteration"))
    trainer.extend(extensions.snapshot(n_retains=0), trigger=(1, "iteration"))
    trainer.run()
    assert len(_files(tmp_path)) == 3


def test_num_retain_is_a_deprecated_alias(tmp_path):
    with pytest.warns(DeprecationWarning, match="num_retain"):
        ext = extensions.snapshot(num_retain=1)
    assert ext.n_retains == 1


# --- autoload -----------------------------------------------------------------


def _saved_trainer(tmp_path, iteration):
    trainer, _ = _make_trainer(tmp_path / "src", stop=(iteration, "iteration"))
    # The same extension as the resuming trainer's (its trigger state is in
    # the snapshot), firing too late to write anything itself.
    trainer.extend(extensions.snapshot(), trigger=(10**6, "iteration"))
    trainer.run()
    path = tmp_path / f"snapshot_iter_{iteration}"
    serializers.save_npz(str(path), trainer)
    return path


def _never_run(trainer):
    return True


def _autoloaded(tmp_path, **kwargs):
    trainer, _ = _make_trainer(tmp_path, stop=_never_run)
    trainer.extend(extensions.snapshot(autoload=True, **kwargs))
    trainer.run()
    return trainer.updater.iteration


def test_autoload_loads_the_newest_snapshot(tmp_path):
    for iteration, mtime in [(2, 10), (5, 30), (4, 20)]:
        _set_mtime(_saved_trainer(tmp_path, iteration), mtime)
    assert _autoloaded(tmp_path) == 5


def test_autoload_breaks_mtime_ties_by_number(tmp_path):
    for iteration in (9, 10):
        _set_mtime(_saved_trainer(tmp_path, iteration), 10)
    assert _autoloaded(tmp_path) == 10


def test_autoload_without_snapshot_starts_fresh(tmp_path):
    assert _autoloaded(tmp_path / "missing") == 0


@pytest.mark.parametrize("keep", [0, 30, 1000])
def test_autoload_skips_a_truncated_snapshot(tmp_path, keep):
    _set_mtime(_saved_trainer(tmp_path, 2), 10)
    newest = _saved_trainer(tmp_path, 5)
    data = newest.read_bytes()
    newest.write_bytes(data[:keep] if keep < len(data) else data[: len(data) // 2])
    _set_mtime(newest, 20)
    with pytest.warns(RuntimeWarning, match="skipping .*snapshot_iter_5"):
        assert _autoloaded(tmp_path) == 2


def test_autoload_skips_a_corrupted_member(tmp_path):
    _set_mtime(_saved_trainer(tmp_path, 2), 10)
    newest = _saved_trainer(tmp_path, 5)
    data = bytearray(newest.read_bytes())
    # Flip bytes in the middle of a member's data (found through the archive's
    # directory, since the layout changes with the snapshot's entries): the
    # CRC check fails before anything is loaded.
    with zipfile.ZipFile(newest) as archive:
        info = archive.getinfo("updater/model:main/predictor/W.npy")
    # A local header is 30 bytes, then the name and the extra field.
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    middle = start + info.compress_size // 2
    data[middle : middle + 8] = bytes(b ^ 0xFF for b in data[middle : middle + 8])
    newest.write_bytes(bytes(data))
    _set_mtime(newest, 20)
    with pytest.warns(RuntimeWarning, match="skipping"):
        assert _autoloaded(tmp_path) == 2


def test_autoload_skips_non_snapshot_files(tmp_path):
    _set_mtime(_saved_trainer(tmp_path, 2), 10)
    (tmp_path / "snapshot_iter_9").write_text("not a snapshot")
    with pytest.warns(RuntimeWarning, match="neither an NPZ nor an HDF5"):
        assert _autoloaded(tmp_path) == 2


def test_autoload_never_considers_temporary_files(tmp_path):
    _set_mtime(_saved_trainer(tmp_path, 2), 10)
    complete = _saved_trainer(tmp_path, 5)
    # A temporary file left by a killed writer, even a complete one, is not
    # a snapshot: it was never renamed into place.
    os.rename(complete, tmp_path / "tmp.0123456789ab.snapshot_iter_5")
    assert _autoloaded(tmp_path) == 2


def test_temporary_files_are_excluded_even_for_a_bare_pattern(tmp_path):
    _set_mtime(_saved_trainer(tmp_path, 2), 10)
    os.rename(tmp_path / "snapshot_iter_2", tmp_path / "2")
    complete = _saved_trainer(tmp_path, 5)
    os.rename(complete, tmp_path / "tmp.0123456789ab.5")
    assert _autoloaded(tmp_path, filename="{.updater.iteration}") == 2


def test_autoload_of_an_incompatible_snapshot_raises(tmp_path):
    model = L.Classifier(L.Linear(3, 5))
    serializers.save_npz(str(tmp_path / "model_1"), model)
    trainer, model = _make_trainer(tmp_path, stop=_never_run)
    trainer.extend(
        extensions.snapshot_object(model, "model_{.updater.epoch}", autoload=True)
    )
    with pytest.raises(ValueError, match="shape mismatch"):
        trainer.run(show_loop_exception_msg=False)


def test_autoload_into_a_target(tmp_path):
    source = L.Classifier(L.Linear(3, 2))
    serializers.save_npz(str(tmp_path / "model_7"), source)
    trainer, model = _make_trainer(tmp_path, stop=_never_run)
    trainer.extend(
        extensions.snapshot_object(model, "model_{.updater.epoch}", autoload=True)
    )
    trainer.run()
    numpy.testing.assert_array_equal(model.predictor.W.array, source.predictor.W.array)


def test_autoload_hdf5(tmp_path):
    pytest.importorskip("h5py")
    trainer, model = _make_trainer(tmp_path / "a", stop=(4, "iteration"))
    trainer.extend(
        extensions.snapshot(savefun=serializers.save_hdf5), trigger=(4, "iteration")
    )
    trainer.run()
    resumed, resumed_model = _make_trainer(tmp_path / "a", stop=(4, "iteration"))
    resumed.extend(extensions.snapshot(savefun=serializers.save_hdf5, autoload=True))
    resumed.run()
    assert resumed.updater.iteration == 4
    numpy.testing.assert_array_equal(
        resumed_model.predictor.W.array, model.predictor.W.array
    )


def test_autoload_then_continue_matches_an_uninterrupted_run(tmp_path):
    full, full_model = _make_trainer(tmp_path / "full", (8, "iteration"), seed=1)
    full.extend(extensions.ExponentialShift("lr", 0.5))
    full.run()

    first, _ = _make_trainer(tmp_path / "run", (5, "iteration"), seed=1)
    first.extend(extensions.ExponentialShift("lr", 0.5))
    first.extend(extensions.snapshot(autoload=True), trigger=(5, "iteration"))
    first.run()
    second, model = _make_trainer(tmp_path / "run", (8, "iteration"), seed=2)
    second.extend(extensions.ExponentialShift("lr", 0.5))
    second.extend(extensions.snapshot(autoload=True), trigger=(5, "iteration"))
    second.run()
    assert second.updater.iteration == 8
    assert (
        second.updater.get_optimizer("main").lr == full.updater.get_optimizer("main").lr
    )
    numpy.testing.assert_array_equal(
        model.predictor.W.array, full_model.predictor.W.array
    )


# --- a failed resume changes nothing ---------------------------------------------


def _trainer_state(trainer):
    """Copies of everything a trainer saves, and which optimizer state is missing."""
    d = serializers.DictionarySerializer()
    d.save(trainer)
    state = {k: numpy.array(v, copy=True) for k, v in d.target.items()}
    optimizer = trainer.updater.get_optimizer("main")
    for name, param in optimizer.target.namedparams():
        state["stateless" + name] = numpy.array(param.update_rule.state is None)
    state["lr"] = numpy.array(optimizer.lr)
    return state


def _assert_same_state(before, trainer, running=False):
    after = _trainer_state(trainer)
    if running:
        # A started trainer saves its running clock, which moves on.
        before = dict(before)
        del before["_snapshot_elapsed_time"], after["_snapshot_elapsed_time"]
    assert sorted(after) == sorted(before)
    for key, value in before.items():
        numpy.testing.assert_array_equal(after[key], value, err_msg=key)


def _replace_member(path, member, data):
    with zipfile.ZipFile(path) as zf:
        members = {info.filename: zf.read(info) for info in zf.infolist()}
    members[member] = data
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, value in members.items():
            zf.writestr(name, value)


def _chainer_none():
    # What Chainer writes for None: numpy.asarray(None), a pickled object array.
    buf = io.BytesIO()
    numpy.lib.format.write_array(buf, numpy.asarray(None), allow_pickle=True)
    return buf.getvalue()


def _ran_trainer(out):
    # A trainer with state: 2 iterations done, momentum created.
    trainer, _ = _make_trainer(out, stop=(2, "iteration"), seed=3)
    trainer.extend(extensions.snapshot(), trigger=(10**6, "iteration"))
    trainer.run()
    return trainer


@pytest.mark.parametrize("ran", [False, True])
def test_failed_resume_leaves_the_trainer_unchanged(tmp_path, ran):
    path = _saved_trainer(tmp_path, 5)
    # The model comes after the iterator and the optimizer in the snapshot.
    _replace_member(path, "updater/model:main/predictor/b.npy", _chainer_none())
    if ran:
        trainer = _ran_trainer(tmp_path / "b")
    else:
        trainer, _ = _make_trainer(tmp_path / "b")
        trainer.extend(extensions.snapshot(), trigger=(10**6, "iteration"))
    before = _trainer_state(trainer)
    with pytest.raises(ValueError, match=r"'updater/model:main/predictor/b'.*None"):
        serializers.load_npz(str(path), trainer)
    _assert_same_state(before, trainer)


def test_failed_resume_from_a_corrupted_member_leaves_the_trainer_unchanged(tmp_path):
    trainer = _ran_trainer(tmp_path / "a")
    path = _saved_trainer(tmp_path, 5)
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo("updater/model:main/predictor/b.npy")
    data = bytearray(path.read_bytes())
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    end = start + info.compress_size - 4
    data[end : end + 4] = bytes(b ^ 0xFF for b in data[end : end + 4])
    path.write_bytes(bytes(data))
    before = _trainer_state(trainer)
    with pytest.raises(ValueError, match=r"predictor/b'.*corrupted"):
        serializers.load_npz(str(path), trainer)
    _assert_same_state(before, trainer)


def test_autoload_of_a_chainer_none_into_a_parameter_raises(tmp_path):
    path = _saved_trainer(tmp_path, 5)
    _replace_member(path, "updater/model:main/predictor/W.npy", _chainer_none())
    trainer, _ = _make_trainer(tmp_path, stop=_never_run)
    trainer.extend(extensions.snapshot(autoload=True))
    before = _trainer_state(trainer)
    with pytest.raises(ValueError, match=r"'updater/model:main/predictor/W'.*None"):
        trainer.run(show_loop_exception_msg=False)
    _assert_same_state(before, trainer, running=True)


def test_autoload_of_an_incompatible_snapshot_leaves_the_trainer_unchanged(tmp_path):
    source, _ = _make_trainer(tmp_path / "src", stop=(4, "iteration"))
    source.extend(extensions.snapshot(), trigger=(10**6, "iteration"))
    source.run()
    serializers.save_npz(str(tmp_path / "snapshot_iter_4"), source)
    _replace_member(
        tmp_path / "snapshot_iter_4",
        "updater/model:main/predictor/b.npy",
        _npy_bytes(numpy.zeros(7, dtype=numpy.float32)),
    )
    trainer, _ = _make_trainer(tmp_path, stop=_never_run)
    trainer.extend(extensions.snapshot(autoload=True))
    before = _trainer_state(trainer)
    with pytest.raises(ValueError, match="shape mismatch"):
        trainer.run(show_loop_exception_msg=False)
    _assert_same_state(before, trainer, running=True)


def _npy_bytes(arr):
    buf = io.BytesIO()
    numpy.lib.format.write_array(buf, arr)
    return buf.getvalue()


# --- bad arguments -----------------------------------------------------------------


def test_unknown_keyword():
    with pytest.raises(TypeError, match="unexpected keyword argument 'n_retain'"):
        extensions.snapshot(n_retain=2)


def test_trigger_keyword_points_to_extend():
    with pytest.raises(TypeError, match=r"pass trigger= to trainer.extend\(\)"):
        extensions.snapshot(trigger=(1, "epoch"))


def test_savefun_and_writer_together():
    with pytest.raises(TypeError, match="cannot be specified together"):
        extensions.snapshot(
            savefun=serializers.save_npz, writer=snapshot_writers.SimpleWriter()
        )


def test_snapshot_object_target_twice():
    with pytest.raises(TypeError, match="multiple values for argument 'target'"):
        extensions.snapshot_object(object(), "f", target=object())


@pytest.mark.parametrize(
    "kwargs",
    [
        {"n_retains": "2"},
        {"n_retains": 2.0},
        {"condition": True},
        {"writer": "thread"},
        {"filename": 3},
        {"savefun": "save_npz"},
    ],
)
def test_bad_argument_types(kwargs):
    with pytest.raises(TypeError):
        extensions.snapshot(**kwargs)


def test_n_retains_needs_fields_in_the_file_name():
    with pytest.raises(ValueError, match="in the file name itself"):
        extensions.snapshot(filename="run_{.updater.epoch}/snap", n_retains=2)


def test_n_retains_with_a_callable_filename_warns():
    with pytest.warns(UserWarning, match="only work with a string filename"):
        extensions.snapshot(filename=lambda tr: "snap", n_retains=2)


def test_n_retains_with_a_plain_callable_writer_warns(tmp_path):
    written = []
    trainer, _ = _make_trainer(tmp_path, stop=(2, "iteration"))
    ext = extensions.snapshot(
        writer=lambda filename, outdir, target: written.append(filename), n_retains=1
    )
    trainer.extend(ext, trigger=(1, "iteration"))
    with pytest.warns(UserWarning, match="n_retains has no effect"):
        trainer.run()
    assert written == ["snapshot_iter_1", "snapshot_iter_2"]


# --- Chainer 7's private search helpers -----------------------------------------


def _touch_snapshots(directory, names, start=1_000_000):
    for i, name in enumerate(names):
        path = directory / name
        path.write_bytes(b"")
        os.utime(path, (start + i, start + i))


@pytest.mark.parametrize(
    "fmt", ["snapshot_iter_{}", "snapshot_iter_{}.npz", "{}_snapshot_man_suffix.npz"]
)
def test_find_snapshot_helpers(tmp_path, fmt):
    from chainer.training.extensions import _snapshot

    names = [fmt.format(i) for i in range(1, 12)]
    _touch_snapshots(tmp_path, names)
    _touch_snapshots(tmp_path, ["dummy-foobar-iter1", "tmpsnapshot_iter_3"])
    (tmp_path / fmt.format(99)).mkdir()  # a directory is not a snapshot
    found = _snapshot._find_snapshot_files(fmt, str(tmp_path))
    assert [name for _, name in found] == names
    mtimes = [mtime for mtime, _ in found]
    assert mtimes == sorted(mtimes)
    assert _snapshot._find_latest_snapshot(fmt, str(tmp_path)) == names[-1]
    stale = _snapshot._find_stale_snapshots(fmt, str(tmp_path), 4)
    assert list(stale) == names[:-4]
    assert list(_snapshot._find_stale_snapshots(fmt, str(tmp_path), 20)) == []


def test_find_latest_snapshot_in_an_empty_directory(tmp_path):
    from chainer.training.extensions import _snapshot

    assert _snapshot._find_latest_snapshot("snapshot_{}", str(tmp_path)) is None
    assert _snapshot._find_snapshot_files("snapshot_{}", str(tmp_path / "no")) == []
