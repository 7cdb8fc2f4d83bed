"""benchmarks/run.py keeps one results section per machine kind."""

import importlib.util
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _run_module():
    spec = importlib.util.spec_from_file_location(
        "bench_run", ROOT / "benchmarks" / "run.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_merge_replaces_its_own_kind_and_keeps_the_others():
    run = _run_module()
    first = run.merge_report("", "CPU B, 2 CPUs, OpenBLAS X", ["- Date: 1", "", "old"])
    second = run.merge_report(first, "CPU A, 4 CPUs, OpenBLAS Y", ["- Date: 2"])
    third = run.merge_report(second, "CPU B, 2 CPUs, OpenBLAS X", ["- Date: 3"])
    assert third.startswith("# Benchmark results\n")
    headings = [line for line in third.splitlines() if line.startswith("## ")]
    assert headings == [
        "## Machine: CPU A, 4 CPUs, OpenBLAS Y",
        "## Machine: CPU B, 2 CPUs, OpenBLAS X",
    ]
    assert "- Date: 2" in third
    assert "- Date: 3" in third
    assert "- Date: 1" not in third
    assert "old" not in third


def test_the_committed_results_are_sections_per_machine():
    text = (ROOT / "benchmarks" / "results.md").read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines[0] == "# Benchmark results"
    level2 = [line for line in lines if line.startswith("## ")]
    assert level2
    assert all(line.startswith("## Machine: ") for line in level2)


def test_blas_kernel_from_openblas_configuration():
    run = _run_module()
    line = (
        "OpenBLAS 0.3.31.188.0  USE64BITINT DYNAMIC_ARCH NO_AFFINITY SkylakeX "
        "MAX_THREADS=64 (pthreads, 2 threads)"
    )
    assert run.blas_kernel({"blas_line": line}) == "OpenBLAS SkylakeX"
    assert run.blas_kernel({"blas_line": "OpenBLAS 0.3.27 core=Haswell"}) == (
        "OpenBLAS Haswell"
    )
    threadpool = {"blas": [{"internal_api": "openblas", "architecture": "Zen"}]}
    assert run.blas_kernel(threadpool) == "OpenBLAS Zen"
    assert run.blas_kernel({}) == "BLAS unknown"


def test_cpu_model_names_family_and_model(tmp_path):
    run = _run_module()
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(
        "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n"
        "model\t\t: 167\nmodel name\t: Intel(R) Xeon(R) Processor\n\n"
        "processor\t: 1\ncpu family\t: 6\nmodel\t\t: 143\n"
    )
    assert run.cpu_model(str(cpuinfo)) == (
        "Intel(R) Xeon(R) Processor (family 6, model 167)"
    )
    cpuinfo.write_text("processor\t: 0\nmodel name\t: Some CPU\n")
    assert run.cpu_model(str(cpuinfo)) == "Some CPU"


def test_scale_charts_are_valid_svg_with_one_line_per_series():
    import xml.etree.ElementTree as ET

    spec = importlib.util.spec_from_file_location(
        "bench_scale", ROOT / "benchmarks" / "scale.py"
    )
    scale = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(scale)
    text = scale.svg_chart(
        "t", "x", "y", {"a": [(1, 2.0), (10, 3.0)], "b": [(1, 1.0), (10, 0.5)]}
    )
    root = ET.fromstring(text)
    paths = root.findall("{http://www.w3.org/2000/svg}path")
    assert len(paths) == 2
    assert all(p.get("d").startswith("M") for p in paths)
