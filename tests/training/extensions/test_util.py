import io
import os
import sys

import pytest

from chainer.training.extensions import util


class TtyIO(io.StringIO):
    def isatty(self):
        return True


class _Bar(util.ProgressBar):
    def __init__(self, out):
        super().__init__(out)
        self.ticks = 0

    def tick(self):
        self.ticks += 1

    def get_lines(self):
        return ["first line\n", "second line\n"]


def test_open_atomic_writes_text(tmp_path):
    path = tmp_path / "log"
    with util.open_atomic(str(path)) as f:
        f.write("hello\n")
    assert path.read_text() == "hello\n"
    assert os.listdir(tmp_path) == ["log"]


def test_open_atomic_binary_and_parent_dirs(tmp_path):
    path = tmp_path / "a" / "b" / "x.bin"
    with util.open_atomic(path, "wb") as f:
        f.write(b"\x00\x01")
    assert path.read_bytes() == b"\x00\x01"


def test_open_atomic_replaces_existing_file(tmp_path):
    path = tmp_path / "log"
    path.write_text("old")
    with util.open_atomic(path) as f:
        f.write("new")
    assert path.read_text() == "new"


def test_open_atomic_keeps_old_content_on_error(tmp_path):
    path = tmp_path / "log"
    path.write_text("old")
    with pytest.raises(RuntimeError, match="boom"), util.open_atomic(path) as f:
        f.write("half written")
        raise RuntimeError("boom")
    assert path.read_text() == "old"
    assert os.listdir(tmp_path) == ["log"]


def test_open_atomic_temp_file_is_in_same_directory(tmp_path):
    path = tmp_path / "log"
    with util.open_atomic(path):
        names = os.listdir(tmp_path)
        assert len(names) == 1
        assert names[0].startswith("tmp.")
        assert names[0].endswith(".log")
    assert os.listdir(tmp_path) == ["log"]


def test_open_atomic_bad_mode(tmp_path):
    with pytest.raises(ValueError, match="mode"), util.open_atomic(tmp_path / "x", "a"):
        pass


def test_isatty():
    assert util.isatty(TtyIO())
    assert not util.isatty(io.StringIO())
    assert not util.isatty(object())
    closed = io.StringIO()
    closed.close()
    assert not util.isatty(closed)


def test_format_eta():
    assert util.format_eta(65.4) == "0:01:05"
    assert util.format_eta(0) == "0:00:00"
    assert util.format_eta(None) == "unknown"
    assert util.format_eta(float("inf")) == "unknown"
    assert util.format_eta(float("nan")) == "unknown"


def test_render_bar():
    assert util.render_bar(0.5, 10) == "[#####.....]"
    assert util.render_bar(2.0, 4) == "[####]"
    assert util.render_bar(-1, 3) == "[...]"


def test_progress_bar_is_abstract():
    with pytest.raises(TypeError):
        util.ProgressBar()


def test_progress_bar_on_tty_redraws_in_place():
    out = TtyIO()
    bar = _Bar(out)
    bar.update()
    assert out.getvalue() == "\x1b[Jfirst line\nsecond line\n\x1b[2A"
    bar.close()
    assert out.getvalue().endswith("\x1b[2A\x1b[J")
    assert bar.ticks == 1


def test_progress_bar_close_without_update_writes_nothing():
    out = TtyIO()
    _Bar(out).close()
    assert out.getvalue() == ""


def test_progress_bar_in_a_log_is_quiet():
    out = io.StringIO()
    bar = _Bar(out)
    for _ in range(5):
        bar.update()
    bar.close()
    # Within the first log period nothing is written, and never escapes.
    assert out.getvalue() == ""
    assert bar.ticks == 5


def test_progress_bar_in_a_log_writes_summary_lines(monkeypatch):
    monkeypatch.setattr(util.ProgressBar, "log_period", 0)
    out = io.StringIO()
    bar = _Bar(out)
    bar.update()
    bar.update()
    assert out.getvalue() == "first line; second line\n" * 2


def test_progress_bar_default_out_is_stdout(monkeypatch):
    fake = TtyIO()
    monkeypatch.setattr(sys, "stdout", fake)
    _Bar(None).update()
    assert "first line" in fake.getvalue()


def test_update_speed():
    bar = _Bar(io.StringIO())
    assert bar.update_speed(0, 0.0) == (float("inf"), float("inf"))
    speed_t, speed_e = bar.update_speed(10, 1.0)
    assert speed_t > 0
    assert speed_e == pytest.approx(speed_t / 10)


def test_matplotlib_available_false_when_import_fails(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    assert util.matplotlib_available() is False


def test_save_figure_rejects_unknown_format(tmp_path):
    pytest.importorskip("matplotlib", reason="matplotlib is not installed")
    fig = util.new_figure()
    with pytest.raises(ValueError, match="'xyz'"):
        util.save_figure(fig, tmp_path / "plot.xyz")
    assert os.listdir(tmp_path) == []


def test_save_figure_png_and_svg(tmp_path):
    pytest.importorskip("matplotlib", reason="matplotlib is not installed")
    fig = util.new_figure((2, 2))
    fig.add_subplot(111).plot([0, 1], [1, 0])
    util.save_figure(fig, tmp_path / "a.png")
    util.save_figure(fig, tmp_path / "b.svg")
    util.save_figure(fig, tmp_path / "noext")
    assert (tmp_path / "a.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert b"<svg" in (tmp_path / "b.svg").read_bytes()
    assert (tmp_path / "noext").read_bytes().startswith(b"\x89PNG")
