"""Version of chainer-core, and the optional dependencies it checks."""

__version__ = "0.1.0"

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
