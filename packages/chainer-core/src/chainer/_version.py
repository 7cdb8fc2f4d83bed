"""Version of chainer-core, and the optional dependencies it checks."""

# This project continues Chainer's release line after 7.8.1, so that code
# which checks ``chainer.__version__`` against Chainer 7 accepts it. The value
# equals chainer-core's version in packages/chainer-core/pyproject.toml
# (tests/contracts/test_distribution_metadata.py checks it).
__version__ = "7.9.0"

# Optional packages whose installed version :mod:`chainer._environment_check`
# compares with the supported range (one entry per package family).
_optional_dependencies = [
    {
        "name": "CuPy",
        "packages": [
            "cupy-cuda13x",
            "cupy-cuda12x",
            "cupy-cuda11x",
            "cupy-rocm-5-0",
            "cupy",
        ],
        "specifier": ">=13.0.0",
        "help": "https://docs.cupy.dev/en/latest/install.html",
    },
]
