"""Build hook: everything else is in pyproject.toml.

The native backend's search loop in C (``edgematch/solvers/native/ckernel.c``) is compiled at install time
as an optional extension: without a C compiler the install still succeeds and the backend falls back to
its numba kernel (see ``edgematch/solvers/native/kernels.py``). -O3 only, never -march=native: a built
wheel or install may move to another machine.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "edgematch.solvers.native._ckernel",
            ["edgematch/solvers/native/ckernel.c"],
            optional=True,
            extra_compile_args=["-O3"],
        )
    ]
)
