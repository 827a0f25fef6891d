"""The package's layers (docs/architecture.md): imports point down only, and no two modules import each other.

Every ``import`` in every module counts, also the lazy ones inside functions and those under ``if
TYPE_CHECKING:`` (a lazy or annotation-only import still ties the modules together)."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import edgematch

ROOT = Path(edgematch.__file__).parent

# lowest first; a module may import its own layer and the ones below it
LAYERS = {
    "errors": 0,
    "clock": 0,
    "core": 1,
    "formats": 2,
    "render": 2,
    "encodings": 3,
    "solvers": 4,
    "bench": 5,
    "cli": 6,
}
FACADE = {"edgematch", "edgematch.__main__"}  # the package's own front door may import anything


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path) -> set[str]:
    """The edgematch modules ``path`` imports (``from edgematch.x import y`` counts y when it is a module)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("edgematch")}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("edgematch"):
            named = {f"{node.module}.{a.name}" for a in node.names}
            if not named <= MODULES.keys():  # ``from edgematch import clock`` imports the module, not the package
                found.add(node.module)
            found |= named
    return {name for name in found if name in MODULES}


MODULES = {module_name(p): p for p in ROOT.rglob("*.py")}


@functools.cache
def import_graph() -> dict[str, set[str]]:
    """Each module's edgematch imports (read once, when a test asks: at import time every test process paid the
    3.5 s of parsing while collecting)."""
    return {name: imports_of(path) - {name} for name, path in MODULES.items()}


def layer(name: str) -> int | None:
    parts = name.split(".")
    return LAYERS.get(parts[1]) if len(parts) > 1 else None


def test_every_module_has_a_layer():
    assert sorted(n for n in MODULES if n not in FACADE and layer(n) is None) == []


def test_imports_point_down():
    upward = [f"{a} -> {b}" for a, targets in import_graph().items() if a not in FACADE for b in sorted(targets)
              if b not in FACADE and layer(b) > layer(a)]
    assert upward == []


def test_no_import_circles():
    """Tarjan's strongly connected components over the import graph: every one must be a single module.
    A package importing its own submodules (``formats/__init__`` loading its formats) is its registry, not
    a circle, so package -> own submodule arrows are left out."""
    graph = {a: {b for b in targets if not b.startswith(a + ".")} for a, targets in import_graph().items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    assert circles == []


def test_the_graph_is_read():
    """The checks above would pass on an empty graph: make sure the parser sees real arrows."""
    assert "edgematch.core.model" in import_graph()["edgematch.formats.puz"]
    assert "edgematch.cli.app" in import_graph()["edgematch.cli.solve"]


QUESTIONS = ("first", "count", "best")  # the native engine's question packages: siblings
NATIVE = "edgematch.solvers.native"
PARALLEL = "edgematch.solvers.parallel"
BELOW_PARALLEL = ("edgematch.errors", "edgematch.clock", "edgematch.core", "edgematch.solvers.base", PARALLEL)
FLOOR_OF_SOLVERS = ("edgematch.solvers.base", "edgematch.solvers.boards")  # the ground of solvers/: imports none of it


def question_of(name: str) -> str | None:
    for question in QUESTIONS:
        if name == f"{NATIVE}.{question}" or name.startswith(f"{NATIVE}.{question}."):
            return question
    return None


def test_question_packages_import_nothing_of_each_other():
    """first, count and best share only what sits below them (the engine's floor, the parallel layer)."""
    across = [f"{a} -> {b}" for a, targets in import_graph().items() if question_of(a) for b in sorted(targets)
              if question_of(b) and question_of(b) != question_of(a)]
    assert across == []


def test_the_native_floor_imports_no_question():
    """The engine's shared modules (tables, search, the compiled library) sit below every question package."""
    floor = [n for n in import_graph() if n.startswith(NATIVE + ".") and n.count(".") == 3 and question_of(n) is None]
    assert f"{NATIVE}.tables" in floor
    upward = [f"{a} -> {b}" for a in floor for b in sorted(import_graph()[a]) if question_of(b)]
    assert upward == []


def test_the_parallel_layer_sits_below_every_backend():
    """solvers.parallel (processes, Dask, chains) imports no backend and no question: every backend, the bench and
    the native questions share it, so it can know none of them."""
    layer_modules = [n for n in import_graph() if n == PARALLEL or n.startswith(PARALLEL + ".")]
    assert f"{PARALLEL}.tasks" in layer_modules and f"{PARALLEL}.chains" in layer_modules
    upward = [f"{a} -> {b}" for a in layer_modules for b in sorted(import_graph()[a])
              if not any(b == low or b.startswith(low + ".") for low in BELOW_PARALLEL)]
    assert upward == []


def test_the_ground_of_solvers_imports_nothing_above_it():
    """base.py (Task, Result, the registry) is what every backend and the parallel layer stand on: it imports
    nothing of solvers/ (it took two words from the parallel layer, which stands on it: a circle of floors)."""
    upward = [f"{a} -> {b}" for a in FLOOR_OF_SOLVERS for b in sorted(import_graph()[a])
              if b.startswith("edgematch.solvers") and b not in FLOOR_OF_SOLVERS]
    assert upward == []


def test_one_clock():
    """Every layer keeps time by edgematch.clock (a deadline computed on one clock is compared on the same one):
    no other module reads time.monotonic or time.perf_counter, nor keeps a wall-clock deadline of its own."""
    readers = []
    for name, path in MODULES.items():
        if name == "edgematch.clock":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "time"
                    and node.attr in ("monotonic", "perf_counter")):
                readers.append(f"{name}: time.{node.attr}")
    assert readers == []
