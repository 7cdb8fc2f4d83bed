"""What load_npz says when it is given the wrong file.

A directory, a file that is no NPZ archive and a file saved from another
kind of object (a model file given where a trainer snapshot is expected, or
the reverse) each get a message naming the file and saying what it is.
"""

import errno
import io
import zipfile

import numpy
import pytest

from chainer import serializers
from chainer.serializers import npz


class _TrainerLike:
    """Asks for entries the way a Trainer does: everything under ``updater/``."""

    def __init__(self):
        self.iteration = 0
        self.W = numpy.zeros((2, 3), dtype=numpy.float32)

    def serialize(self, serializer):
        updater = serializer["updater"]
        self.iteration = updater("iteration", self.iteration)
        updater["model:main"]["predictor"]("W", self.W)


class _ModelLike:
    """Asks for entries the way a Classifier does: under ``predictor/``."""

    def __init__(self):
        self.W = numpy.zeros((2, 3), dtype=numpy.float32)

    def serialize(self, serializer):
        serializer["predictor"]("W", self.W)


class _Leaf:
    def __init__(self, *keys):
        self.keys = keys

    def serialize(self, serializer):
        for key in self.keys:
            serializer(key, numpy.zeros(2, dtype=numpy.float32))


def _model_file(path):
    # What snapshot_object(Classifier(...)) writes: parameters only.
    serializers.save_npz(str(path), _ModelLike())
    return path


def _trainer_file(path):
    trainer = _TrainerLike()
    trainer.iteration = 600
    serializers.save_npz(
        str(path),
        {
            "updater/iteration": numpy.asarray(600),
            "updater/model:main/predictor/W": trainer.W,
            "stop_trigger/period": numpy.asarray(5),
            "extensions/LogReport/_log": numpy.asarray("[]"),
        },
    )
    return path


# -- a directory ---------------------------------------------------------------


def test_directory_names_its_newest_snapshot(tmp_path):
    # By iteration, not by name: 1200 is newer than 600 although "6" > "1".
    for name in ("snapshot_iter_600", "snapshot_iter_1200", "model_iter_1800"):
        (tmp_path / name).write_bytes(b"")
    (tmp_path / "snapshot_iter_5000").mkdir()  # not a file
    with pytest.raises(IsADirectoryError) as info:
        serializers.load_npz(str(tmp_path), _TrainerLike())
    assert info.value.errno == errno.EISDIR
    newest = tmp_path / "snapshot_iter_1200"
    assert str(info.value) == (
        f"'{tmp_path}' is a directory; load_npz reads one NPZ file (a trainer "
        f"snapshot such as {newest}, the newest there)"
    )


def test_directory_without_snapshots(tmp_path):
    (tmp_path / "log").write_text("[]")
    with pytest.raises(OSError, match=r"is a directory; load_npz reads one") as info:
        serializers.load_npz(tmp_path, _TrainerLike())  # a pathlib.Path
    assert str(tmp_path) in str(info.value)
    assert "holds no snapshot_iter_N file" in str(info.value)


# -- not an NPZ archive ----------------------------------------------------------


def test_text_file_is_not_a_zip_archive(tmp_path):
    path = tmp_path / "log"
    path.write_text("[]")
    with pytest.raises(ValueError) as info:
        serializers.load_npz(str(path), _ModelLike())
    assert str(info.value).startswith(
        f"'{path}' is not a readable NPZ file: it is not a zip archive"
    )
    # Not numpy's word about pickles, which says nothing to the user.
    assert "pickle" not in str(info.value)


def test_empty_file(tmp_path):
    path = tmp_path / "snapshot_iter_600"
    path.write_bytes(b"")
    with pytest.raises(ValueError, match=r"snapshot_iter_600' .*: it is empty$"):
        serializers.load_npz(str(path), _ModelLike())


def test_truncated_archive(tmp_path):
    path = _model_file(tmp_path / "model")
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match=r"'.*model' .*damaged or truncated"):
        serializers.load_npz(str(path), _ModelLike())


def test_file_object_that_is_not_an_archive():
    with pytest.raises(ValueError, match="not a zip archive"):
        serializers.load_npz(io.BytesIO(b"hello world"), _ModelLike())


# -- saved from another object ---------------------------------------------------


def test_model_file_loaded_into_a_trainer(tmp_path):
    path = _model_file(tmp_path / "model_iter_600")
    trainer = _TrainerLike()
    with pytest.raises(KeyError) as info:
        serializers.load_npz(str(path), trainer)
    # Read as written: not quoted as KeyError's str() quotes a plain message.
    assert str(info.value) == (
        f"'updater/iteration' is not found in '{path}': the file holds no "
        "'updater/' entries (its entries start with 'predictor/'); it was saved "
        "from another object, e.g. a model written by snapshot_object rather "
        "than a trainer snapshot written by extensions.snapshot()"
    )
    assert trainer.iteration == 0


def test_trainer_snapshot_loaded_into_a_model(tmp_path):
    path = _trainer_file(tmp_path / "snapshot_iter_600")
    with pytest.raises(KeyError) as info:
        serializers.load_npz(str(path), _ModelLike())
    message = str(info.value)
    assert "the file holds no 'predictor/' entries" in message
    assert "(its entries start with 'extensions/', 'stop_trigger/', 'updater/')" in (
        message
    )
    assert "path='updater/model:main/'" in message
    # ... and the hint works.
    model = _ModelLike()
    serializers.load_npz(str(path), model, path="updater/model:main/")


def test_part_of_another_object_hints_at_path(tmp_path):
    path = _model_file(tmp_path / "model")
    with pytest.raises(KeyError) as info:
        serializers.load_npz(str(path), _Leaf("W"))
    assert "holds no entry 'W' (its entries start with 'predictor/')" in str(info.value)
    assert "e.g. path='predictor/'" in str(info.value)


def test_many_top_level_names_are_cut_short():
    names = {f"part{i}/W": numpy.zeros(1) for i in range(9)}
    with pytest.raises(KeyError) as info:
        npz.NpzDeserializer(names).load(_ModelLike())
    assert "'part5/' and 3 more)" in str(info.value)
    assert "'part6/'" not in str(info.value)


def test_a_missing_entry_beside_others_is_a_plain_missing_key(tmp_path):
    # Same kind of object, one entry fewer: no talk of another object.
    path = tmp_path / "model"
    serializers.save_npz(str(path), _Leaf("W"))
    with pytest.raises(KeyError) as info:
        serializers.load_npz(str(path), _Leaf("W", "b"))
    assert str(info.value) == f"'b' is not found in '{path}'"

    serializers.save_npz(str(path), {"predictor/W": numpy.zeros(2)})
    with pytest.raises(KeyError) as info:
        serializers.load_npz(str(path), _Leaf("predictor/b"))
    assert str(info.value) == f"'predictor/b' is not found in '{path}'"


def test_empty_archive(tmp_path):
    path = tmp_path / "empty.npz"
    with zipfile.ZipFile(path, "w"):
        pass
    with pytest.raises(KeyError, match="which holds no entries at all"):
        serializers.load_npz(str(path), _ModelLike())


def test_normal_loads_do_not_build_the_message(tmp_path, monkeypatch):
    # The listing of the file's names is made only once a key is missing.
    def fail(*args):
        raise AssertionError("the message was built during a normal load")

    monkeypatch.setattr(npz, "_missing_message", fail)
    path = _model_file(tmp_path / "model")
    serializers.load_npz(str(path), _ModelLike())
    serializers.load_npz(str(path), _Leaf("W"), strict=False)


# -- ignore_names and strict ------------------------------------------------------


@pytest.mark.parametrize("ignore", ["b", lambda key: key == "b", ["x", "b"]])
def test_an_ignored_key_may_be_missing(tmp_path, ignore):
    # As in Chainer 7: names to ignore are skipped before the key is looked
    # up, so a strict load does not ask for them.
    path = tmp_path / "model"
    serializers.save_npz(str(path), _Leaf("W"))
    serializers.load_npz(str(path), _Leaf("W", "b"), ignore_names=ignore)
    with pytest.raises(KeyError, match="'b' is not found"):
        serializers.load_npz(str(path), _Leaf("W", "b"), ignore_names="c")
