"""MkDocs hooks for the docs site (``mkdocs.yml`` names this file under ``hooks``).

- The "Backends and options" page gets its reference generated from the backends' own declarations
  (:func:`edgematch.solvers.reference.fill`), so it cannot drift from ``edgematch backends``.
- ``benchmarks/README.md``, which stays beside the scripts it describes, is added to the site as
  ``benchmarks-notes.md`` so the Benchmarks page can link to the full notes.
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.structure.files import File

from edgematch.solvers.reference import fill

NOTES = Path(__file__).resolve().parent.parent / "benchmarks" / "README.md"


def on_files(files, config):
    files.append(File.generated(config, "benchmarks-notes.md", content=NOTES.read_text(encoding="utf-8")))
    return files


def on_page_markdown(markdown, page, config, files):
    return fill(markdown)
