"""The docs site says what the code does: the backends page lists every option each backend declares (and no
option that does not exist), and every docs page the code cites is in the repository."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from edgematch.solvers.base import backend_class, backend_names
from edgematch.solvers.reference import MARKER, backends_markdown, declared_options, fill

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
BACKENDS_PAGE = DOCS / "backends.md"
PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]


def sections(markdown: str, level: str) -> dict[str, str]:
    """``markdown`` split at headings of ``level`` (``"##"``) naming a thing in backticks: name -> its text."""
    found: dict[str, str] = {}
    name = None
    for line in markdown.splitlines():
        heading = re.match(rf"{level} `([^`]+)`", line)
        if heading:
            name = heading.group(1)
            found[name] = ""
        elif re.match(rf"#{{1,{len(level)}}} ", line):
            name = None  # a heading of this level or above without a name ends the section
        elif name is not None:
            found[name] += line + "\n"
    return found


def test_the_generated_reference_lists_every_declared_option_with_its_default_and_meaning():
    generated = sections(backends_markdown(), "###")
    assert list(generated) == backend_names()
    for name, options in declared_options().items():
        cls = backend_class(name)
        rows = re.findall(r"^\| `([^`]+)` \|", generated[name], flags=re.MULTILINE)
        assert rows == list(options), f"{name}: the page lists {rows}, the backend declares {list(options)}"
        for key in options:
            row = next(line for line in generated[name].splitlines() if line.startswith(f"| `{key}` |"))
            assert cls.meanings.get(key, "") in row.replace("\\|", "|")
            assert cls.defaults.get(key, "") in row.replace("\\|", "|")


def test_the_backends_page_takes_the_generated_reference():
    source = BACKENDS_PAGE.read_text(encoding="utf-8")
    assert source.count(MARKER) == 1
    assert backends_markdown() in fill(source)
    assert "scripts/docs_hooks.py" in (ROOT / "mkdocs.yml").read_text(encoding="utf-8")


def test_the_site_hook_fills_the_backends_page():
    pytest.importorskip("mkdocs", reason="the docs extra is not installed: pip install -e '.[docs]'")
    import importlib.util

    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "scripts" / "docs_hooks.py")
    assert spec is not None and spec.loader is not None
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    page = hooks.on_page_markdown(BACKENDS_PAGE.read_text(encoding="utf-8"), None, None, None)
    assert MARKER not in page
    for name, options in declared_options().items():
        for key in options:
            assert f"| `{key}` |" in page, f"{name} option {key} is missing from the built page"


def named_options(text: str) -> set[str]:
    """The backend options ``text`` names in use: ``-O KEY=VALUE`` and a bench spelling ``name@KEY=VALUE``."""
    names = set(re.findall(r"-O ([a-z_]+)=", text))
    for spec in re.findall(r"\b(?:native|cpsat|sat|auto|portfolio)(?::[a-z0-9]+)?((?:@[a-z_]+=[^@\s`|,]+)+)", text):
        names |= set(re.findall(r"@([a-z_]+)=", spec))
    return names


def test_no_page_names_an_option_that_does_not_exist():
    every = {key for options in declared_options().values() for key in options}
    seen = set()
    for page in PAGES:
        named = named_options(page.read_text(encoding="utf-8"))
        assert named <= every, f"{page.relative_to(ROOT)} names option(s) no backend declares: {named - every}"
        seen |= named
    assert len(seen) >= 5  # the pages do name options: the scan finds them


def test_the_backends_page_describes_only_options_the_backend_declares():
    hand_written = BACKENDS_PAGE.read_text(encoding="utf-8").replace(MARKER, "")
    described = 0
    for title, text in sections(hand_written, "##").items():
        backend = title.partition(":")[0]
        assert backend in backend_names(), f"backends.md has a section for {title!r}, which is no backend"
        declared = set(backend_class(backend).options)
        for option in sections("## x\n" + text, "###"):
            assert option in declared, f"backends.md describes {backend} option {option!r}, which it does not declare"
            described += 1
    assert described >= 10


def test_a_made_up_option_would_be_caught():
    assert named_options("edgematch solve p.em -O colour=on; bench native@order=row@speed=max") == {
        "colour", "order", "speed"}


def test_every_docs_page_the_code_cites_exists():
    cited: dict[str, Path] = {}
    for path in [*ROOT.joinpath("edgematch").rglob("*.py"), *ROOT.joinpath("tests").rglob("*.py")]:
        if path.resolve() == Path(__file__).resolve():
            continue
        text = path.read_text(encoding="utf-8")
        assert "DESIGN.md" not in text, f"{path.relative_to(ROOT)} cites DESIGN.md, which is docs/architecture.md"
        for page in re.findall(r"docs/[a-z0-9_-]+\.md", text):
            cited.setdefault(page, path)
    assert "docs/architecture.md" in cited
    for page, path in cited.items():
        assert (ROOT / page).is_file(), f"{path.relative_to(ROOT)} cites {page}, which does not exist"
