"""The cffi build of the native engine's C loops: one extension module, ``edgematch.solvers.native._ckernel``.

setup.py names this file in ``cffi_modules``, so the module is generated and compiled at install (cffi's API
mode, out of line). ``em_api.h`` is the one list of the loops' signatures: every C source includes it (the
compiler checks each definition against it) and :data:`ffi` reads it for ``cdef`` (the binding is generated
from the same text), so a signature changed on one side only fails the build instead of crashing a run.

``python edgematch/solvers/native/build_kernel.py`` builds the module in place (a checkout without
``pip install``); ``-O3`` only, never ``-march=native``: a built wheel may move to another machine.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile

from cffi import FFI

HERE = os.path.dirname(os.path.abspath(__file__))
MODULE = "edgematch.solvers.native._ckernel"
SOURCES = ("ckernel.c", "best/dfs.c", "best/beam.c", "best/repair.c")
HEADERS = ("em_api.h", "em.h")
PRELUDE = '#include <stdint.h>\n#include "em_api.h"\n'  # what the generated wrapper module compiles against


def declarations(folder: str = HERE) -> str:
    """The text of ``em_api.h`` in ``folder``: the loops' prototypes, as cffi's cdef reads them."""
    with open(os.path.join(folder, "em_api.h"), encoding="utf-8") as f:
        return f.read()


def _path(path: str) -> str:
    """``path`` relative to the working directory when it lies below it (setuptools wants the sources relative
    to setup.py), else absolute."""
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


def make_ffi(folder: str = HERE, relative: bool = False) -> FFI:
    """The FFI of the C loops under ``folder`` (the package's by default; another one in the test that a
    mismatching prototype does not build), with paths relative to the working directory for setuptools
    (``relative``) or absolute for :meth:`FFI.compile`, which builds in a folder of its own."""
    where = _path if relative else os.path.abspath
    ffi = FFI()
    ffi.cdef(declarations(folder))
    ffi.set_source(
        MODULE,
        PRELUDE,
        sources=[where(os.path.join(folder, s)) for s in SOURCES if os.path.exists(os.path.join(folder, s))],
        include_dirs=[where(folder)],
        depends=[where(os.path.join(folder, h)) for h in HEADERS],
        extra_compile_args=["-O3"],
    )
    return ffi


ffi = make_ffi(relative=True)  # what setup.py's cffi_modules builds


def build_in_place() -> str:
    """Compile the module into this package's folder (a temporary folder for the objects); its path."""
    with tempfile.TemporaryDirectory(prefix="em-build-") as tmp:
        built = make_ffi(HERE).compile(tmpdir=tmp, verbose=False)
        target = os.path.join(HERE, os.path.basename(built))
        shutil.copyfile(built, target + ".tmp")
        os.replace(target + ".tmp", target)  # a process that has the old file mapped keeps it
    return target


if __name__ == "__main__":
    print(build_in_place(), file=sys.stderr)
