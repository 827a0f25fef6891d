"""The backends and their ``-O`` options as Markdown, from the backends' own declarations.

The docs site's "Backends and options" page is built from this (``scripts/docs_hooks.py`` puts it where the
page says ``<!-- backends -->``), so the page lists exactly what ``edgematch backends`` prints: every backend
in registry order, its variants, and each option with its default and meaning (``Backend.options``,
``defaults``, ``meanings``). Nothing here imports a solver library."""

from __future__ import annotations

from edgematch.solvers.base import backend_class, backend_names

MARKER = "<!-- backends -->"  # where the docs page wants the generated reference

# what a backend that takes no -O options of its own says instead (as `edgematch backends` does)
NO_OPTIONS = {"auto": "those of the backend it picks", "portfolio": "none (name a single backend for them)"}


def declared_options() -> dict[str, tuple[str, ...]]:
    """Every registered backend's name -> the ``-O`` options it declares, in registry order."""
    return {name: tuple(backend_class(name).options) for name in backend_names()}


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ")


def backends_markdown() -> str:
    """One section per backend: its description, variants, extra, questions, and a table of its options."""
    parts: list[str] = []
    for name in backend_names():
        cls = backend_class(name)
        parts.append(f"\n### `{name}`\n\n")
        if cls.description:
            parts.append(f"{cls.description}\n\n")
        facts = [f"answers: {', '.join(f'`{q}`' for q in cls.questions)}"]
        if cls.variants:
            facts.append("variants: " + ", ".join(f"`{name}:{sub}`" for sub in cls.variants))
        elif name == "portfolio":
            facts.append("variants: `portfolio:A+B+...`")
        if cls.extra:
            facts.append(f"needs `pip install 'edgematch[{cls.extra}]'`")
        if cls.on_cluster:
            facts.append("runs on a cluster (`--cluster`)")
        parts.append("".join(f"- {fact}\n" for fact in facts))
        if not cls.options:
            parts.append(f"\n`-O` options: {NO_OPTIONS.get(name, 'none')}.\n")
            continue
        parts.append("\n| option | default | what it does |\n|---|---|---|\n")
        for key in cls.options:
            default = cls.defaults.get(key, "")
            parts.append(f"| `{key}` | {_cell(default)} | {_cell(cls.meanings.get(key, ''))} |\n")
    return "".join(parts).lstrip("\n")


def fill(markdown: str) -> str:
    """``markdown`` with the generated reference in place of :data:`MARKER` (unchanged without it)."""
    return markdown.replace(MARKER, backends_markdown()) if MARKER in markdown else markdown
