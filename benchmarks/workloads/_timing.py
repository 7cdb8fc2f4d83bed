"""Timing helpers shared by the workload scripts (standard library + NumPy only).

The workloads run under several interpreters (this project, Chainer 7.8.1,
PyTorch), so this module must import nothing but the standard library.
"""

import gc
import json
import os
import statistics
import sys
import time


def measure(fn, repeats, warmup=2):
    """Calls ``fn()`` ``warmup`` times, then times ``repeats`` calls.

    ``gc.collect()`` runs before each timed call so that collections
    triggered by the previous call's garbage are not charged to this one.
    ``fn`` may return its own timings (a tuple of seconds) instead of None;
    then those are collected instead of the wall time of the call.

    Returns:
        list: One entry per timed call, seconds or tuples of seconds.
    """
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeats):
        gc.collect()
        t0 = time.perf_counter()
        parts = fn()
        elapsed = time.perf_counter() - t0
        samples.append(elapsed if parts is None else parts)
    return samples


def summary(values, scale=1.0):
    """Median and spread of ``values`` multiplied by ``scale``.

    Returns:
        dict: ``median``, ``min``, ``max`` and ``n``.
    """
    scaled = [v * scale for v in values]
    return {
        "median": statistics.median(scaled),
        "min": min(scaled),
        "max": max(scaled),
        "n": len(scaled),
    }


def synchronizer(device):
    """A function that waits for the queued work of a Chainer ``device``.

    A no-op on the CPU; on a CuPy device, the current stream's
    ``synchronize``, so that a phase's time includes its GPU work.
    """
    xp = device.xp
    if xp.__name__ != "cupy":
        return lambda: None
    return xp.cuda.get_current_stream().synchronize


def torch_device(name):
    """PyTorch's device for a Chainer device name, and its synchronizer.

    ``@numpy`` is ``cpu``, ``@cupy:N`` is ``cuda:N``.

    Returns:
        tuple: ``(device name, function that waits for its queued work)``.
    """
    import torch

    if name == "@numpy":
        return "cpu", lambda: None
    if not name.startswith("@cupy:"):
        raise ValueError(f"device must be @numpy or @cupy:N, got {name!r}")
    return "cuda:" + name.rpartition(":")[2], torch.cuda.synchronize


def framework_info():
    """Names the framework and NumPy that this interpreter imports."""
    import numpy

    info = {
        "python": sys.executable,
        "numpy": numpy.__version__,
    }
    try:
        import chainer

        info["chainer"] = chainer.__version__
        info["chainer_path"] = os.path.dirname(chainer.__file__)
    except ImportError:
        pass
    return info


def emit(name, results):
    """Prints the single JSON line that ``benchmarks/run.py`` reads."""
    record = {"workload": name, "info": framework_info()}
    record.update(results)
    sys.stdout.write(json.dumps(record, sort_keys=True) + "\n")
    sys.stdout.flush()
