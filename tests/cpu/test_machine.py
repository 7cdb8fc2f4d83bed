"""chainer_cpu._machine reads the cache sizes the machine reports."""

import os

from chainer_cpu import _machine


def _index(root, name, level, kind, size):
    folder = root / name
    folder.mkdir()
    (folder / "level").write_text(f"{level}\n")
    (folder / "type").write_text(f"{kind}\n")
    (folder / "size").write_text(f"{size}\n")


def test_cache_bytes_reads_sysfs(tmp_path):
    _index(tmp_path, "index0", 1, "Data", "48K")
    _index(tmp_path, "index1", 1, "Instruction", "32K")
    _index(tmp_path, "index2", 2, "Unified", "2048K")
    _index(tmp_path, "index3", 3, "Unified", "300M")
    root = str(tmp_path)
    assert _machine.cache_bytes(1, root) == 48 << 10
    assert _machine.cache_bytes(2, root) == 2 << 20
    assert _machine.cache_bytes(3, root) == 300 << 20


def test_cache_bytes_falls_back_when_unreported(tmp_path):
    _index(tmp_path, "index0", 1, "Instruction", "32K")
    (tmp_path / "index9").mkdir()  # unreadable entry: skipped
    root = str(tmp_path)
    assert _machine.cache_bytes(1, root) == _machine.FALLBACK_CACHE_BYTES[1]
    assert _machine.cache_bytes(2, root + "/missing") == 1 << 20


def test_installed_libraries_lists_matching_files_of_installed_wheels():
    paths = _machine.installed_libraries(
        ("no-such-distribution", "numpy"), r"_multiarray_umath\..*\.(so|pyd)"
    )
    assert paths
    assert all(os.path.isfile(p) for p in paths)
    assert _machine.installed_libraries(("no-such-distribution",), r".*") == []
