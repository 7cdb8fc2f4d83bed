"""Release smoke test: the seven distributions as a user installs them.

Run by ``.ci/run`` with the Python of a fresh virtualenv into which the seven
wheels built by ``python -m build`` (and NumPy) were installed, from a
directory outside the checkout::

    python smoke_wheels.py DIST_DIR

``DIST_DIR`` holds the wheels and sdists. The script checks that every wheel
carries a LICENSE file in its ``.dist-info`` and every sdist one at its top,
that Chainer is imported from the virtualenv (not from a checkout), that the
catalogues, the training loop and the datasets import, trains a tiny MLP two
iterations with a Trainer on a TupleDataset, and prints the runtime info.
"""

import importlib
import importlib.metadata
import io
import math
import pathlib
import sys
import sysconfig
import tarfile
import tempfile
import zipfile

DISTRIBUTIONS = (
    "chainer-core",
    "chainer-links",
    "chainer-training",
    "chainer-datasets",
    "chainer-cpu",
    "chainer-cuda",
    "chainer-mn",
)

# What a user script imports (chainer_cuda without CuPy reports CUDA as absent).
IMPORTED = (
    "chainer",
    "chainer.functions",
    "chainer.links",
    "chainer.training",
    "chainer.training.extensions",
    "chainer.datasets",
    "chainer_cpu",
    "chainer_cuda",
)


def _fail(message):
    print(f"smoke_wheels: FAILED: {message}", file=sys.stderr)
    sys.exit(1)


def _is_license(name):
    return pathlib.PurePosixPath(name).name.upper().startswith(("LICENSE", "COPYING"))


def check_archives(dist_dir):
    """One wheel and one sdist per distribution, each with a LICENSE file."""
    wheels = sorted(dist_dir.glob("*.whl"))
    sdists = sorted(dist_dir.glob("*.tar.gz"))
    for dist in DISTRIBUTIONS:
        stem = dist.replace("-", "_")
        found_wheels = [w for w in wheels if w.name.startswith(stem + "-")]
        found_sdists = [s for s in sdists if s.name.startswith(stem + "-")]
        if len(found_wheels) != 1 or len(found_sdists) != 1:
            _fail(
                f"{dist}: expected one wheel and one sdist in {dist_dir}, found "
                f"{[p.name for p in found_wheels + found_sdists]}"
            )
        with zipfile.ZipFile(found_wheels[0]) as wheel:
            names = wheel.namelist()
        licenses = [n for n in names if ".dist-info/" in n and _is_license(n)]
        if not licenses:
            _fail(f"{found_wheels[0].name} has no LICENSE file in its .dist-info")
        with tarfile.open(found_sdists[0]) as sdist:
            members = sdist.getnames()
        # sdist members are "<name>-<version>/<path>": a LICENSE at the top.
        top = [m for m in members if m.count("/") == 1 and _is_license(m)]
        if not top:
            _fail(f"{found_sdists[0].name} has no LICENSE file at its top")
        print(f"{dist}: {found_wheels[0].name} ({licenses[0]}), {found_sdists[0].name}")


def check_installed():
    """Chainer comes from this environment's site-packages, with versions."""
    import chainer

    site = pathlib.Path(sysconfig.get_paths()["purelib"]).resolve()
    where = pathlib.Path(chainer.__file__).resolve()
    if site not in where.parents:
        _fail(f"chainer imported from {where}, not from {site}")
    versions = {}
    for dist in DISTRIBUTIONS:
        try:
            versions[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            _fail(f"{dist} is not installed")
    major = int(chainer.__version__.split(".")[0])
    if major < 7:
        _fail(f"chainer.__version__ is {chainer.__version__}: checks for >= 7 fail")
    print("installed:", ", ".join(f"{d} {v}" for d, v in versions.items()))
    return versions


def train_tiny_mlp():
    """Two iterations of a Trainer on a TupleDataset; returns the last loss."""
    import numpy

    import chainer
    import chainer.datasets
    import chainer.functions as F
    import chainer.links as L
    from chainer import training

    class MLP(chainer.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.l1 = L.Linear(None, 8)
                self.l2 = L.Linear(8, 3)

        def forward(self, x):
            return self.l2(F.relu(self.l1(x)))

    numpy.random.seed(0)  # the initializers draw from NumPy's global RNG
    rng = numpy.random.RandomState(0)
    x = rng.standard_normal((16, 4)).astype(numpy.float32)
    t = rng.randint(0, 3, size=16).astype(numpy.int32)
    dataset = chainer.datasets.TupleDataset(x, t)
    model = L.Classifier(MLP())
    optimizer = chainer.optimizers.SGD(lr=0.1)
    optimizer.setup(model)
    iterator = chainer.iterators.SerialIterator(dataset, batch_size=4)
    updater = training.updaters.StandardUpdater(iterator, optimizer)
    losses = []

    @training.make_extension(trigger=(1, "iteration"))
    def record(trainer):
        losses.append(float(trainer.observation["main/loss"].array))

    with tempfile.TemporaryDirectory() as out:
        trainer = training.Trainer(updater, (2, "iteration"), out=out)
        trainer.extend(record)
        trainer.run()
    if updater.iteration != 2 or len(losses) != 2:
        _fail(f"trained {updater.iteration} iterations, recorded {losses}")
    if not all(math.isfinite(v) for v in losses):
        _fail(f"losses are not finite: {losses}")
    print(f"trained 2 iterations: losses {losses[0]:.4f}, {losses[1]:.4f}")


def check_cpu_fast_paths():
    """chainer-cpu's entry point puts its NumPy convolution kernel in place.

    Its outputs lie in memory batch-innermost, ``(c, h, w, n)``; the
    catalogue's reference implementation gives another layout.
    """
    import numpy

    import chainer.functions as F
    from chainer import plugins

    plugins.ensure_loaded()
    x = numpy.ones((2, 3, 5, 5), numpy.float32)
    W = numpy.ones((4, 3, 3, 3), numpy.float32)
    y = F.convolution_2d(x, W, pad=1).array
    if not y.transpose(1, 2, 3, 0).flags.c_contiguous or float(y[0, 0, 2, 2]) != 27:
        _fail("chainer-cpu's convolution kernel did not run on NumPy arrays")
    print("chainer-cpu's NumPy convolution kernel ran")


def check_runtime_info(versions):
    import chainer

    out = io.StringIO()
    chainer.print_runtime_info(out=out)
    text = out.getvalue()
    print(text, end="")
    missing = [d for d, v in versions.items() if f"{d} {v}" not in text]
    if missing:
        _fail(f"print_runtime_info() does not show the versions of {missing}")


def main(argv):
    if len(argv) != 1:
        print("usage: python smoke_wheels.py DIST_DIR", file=sys.stderr)
        return 2
    dist_dir = pathlib.Path(argv[0])
    if not dist_dir.is_dir():
        _fail(f"{dist_dir} is not a directory")
    check_archives(dist_dir)
    versions = check_installed()
    for module in IMPORTED:
        importlib.import_module(module)
    print("imported:", ", ".join(IMPORTED))
    train_tiny_mlp()
    check_cpu_fast_paths()
    check_runtime_info(versions)
    print("smoke_wheels: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
