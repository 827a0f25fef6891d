"""Build hook: everything else is in pyproject.toml.

Every hot loop of the native backend is C (``edgematch/solvers/native/ckernel.c`` and, beside their package,
``best/dfs.c``, ``best/beam.c``, ``best/repair.c``; ``em.h`` is what they share), compiled at install time
into one extension module and called through ctypes (see ``edgematch/solvers/native/kernels.py``). The
extension is optional: without a C compiler the install still succeeds, the cpsat and sat backends work,
and the native backend says it was not built and what to install. -O3 only, never -march=native: a built
wheel or install may move to another machine.
"""

from setuptools import Extension, setup

NATIVE = "edgematch/solvers/native"

setup(
    ext_modules=[
        Extension(
            "edgematch.solvers.native._ckernel",
            [f"{NATIVE}/ckernel.c", f"{NATIVE}/best/dfs.c", f"{NATIVE}/best/beam.c", f"{NATIVE}/best/repair.c"],
            depends=[f"{NATIVE}/em.h"],
            optional=True,
            extra_compile_args=["-O3"],
        )
    ]
)
