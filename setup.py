"""Build hook: everything else is in pyproject.toml.

Every hot loop of the native backend is C (``edgematch/solvers/native/ckernel.c`` and, beside their package,
``best/dfs.c``, ``best/beam.c``, ``best/repair.c``), compiled at install time into one extension module,
``edgematch.solvers.native._ckernel``: a cffi module in API mode whose binding is generated from
``em_api.h``, the header every C source includes (``edgematch/solvers/native/build_kernel.py``), so a
signature changed on one side only is a build error. The extension is optional: without a C compiler the
install still succeeds, the cpsat and sat backends work, and the native backend says it was not built and
what to install. -O3 only, never -march=native: a built wheel or install may move to another machine.
"""

from setuptools import setup
from setuptools.command.build_ext import build_ext


class OptionalBuildExt(build_ext):
    """Build the C loops if a compiler is there; else warn and go on (the install succeeds without them)."""

    def run(self) -> None:
        for ext in self.extensions:
            ext.optional = True  # setuptools then reports a failed compile as a warning, not an error
        super().run()


setup(
    cffi_modules=["edgematch/solvers/native/build_kernel.py:ffi"],
    cmdclass={"build_ext": OptionalBuildExt},
)
