"""Usage errors and help text (issue 22, items 8, 12 and 15): a click usage error is one ``edgematch:`` line
and exit 2 for every command, ``edgematch --help`` lists solve, count and best first, help texts keep their
``edgematch[EXTRA]`` words (rich markup ate them), and a mistyped backend gets the names it was close to."""

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from edgematch.cli.main import load_commands

ROOT = Path(__file__).resolve().parent.parent
INSECTS = str(ROOT / "examples" / "insects.arc")
runner = CliRunner()
app = load_commands()
COMMANDS = list(typer.main.get_command(app).commands)


def one_line(result) -> str:
    """The single line a usage error prints (asserts there is one, and no box of typer's)."""
    lines = result.output.strip().splitlines()
    assert result.exit_code == 2 and len(lines) == 1, (result.exit_code, result.output)
    assert not set("╭│╰") & set(result.output)
    return lines[0]


@pytest.mark.parametrize("command", COMMANDS)
def test_an_unknown_option_is_one_line_naming_the_command(command):
    line = one_line(runner.invoke(app, [command, "--no-such-option"]))
    assert line.startswith(f"edgematch: {command}: no such option: --no-such-option")  # click may add close ones
    assert line.endswith(f"; try 'edgematch {command} --help'")


@pytest.mark.parametrize(("args", "start"), [
    (["solve", INSECTS, "-t", "5s"], "edgematch: solve: invalid value for '--time-limit' / '-t': "),
    (["count", INSECTS, "--time-limit", "soon"], "edgematch: count: invalid value for '--time-limit'"),
    (["best", INSECTS, "-t", "1m"], "edgematch: best: invalid value for '--time-limit'"),
    (["bench", "smoke", "--jobs", "0"], "edgematch: bench: invalid value for '--jobs' / '-j'"),
    (["solve"], "edgematch: solve: missing argument"),
    (["check", INSECTS], "edgematch: check: missing argument"),
    (["solve", INSECTS, "extra"], "edgematch: solve: got unexpected extra argument"),
    (["solve", INSECTS, "--limit", "3"], "edgematch: solve: invalid value: --limit goes with --all"),
    (["sovle", INSECTS], "edgematch: no such command 'sovle'. Did you mean 'solve'?"),
    (["--bogus"], "edgematch: no such option: --bogus; try 'edgematch --help'"),
])
def test_usage_errors_are_one_line_and_exit_2(args, start):
    line = one_line(runner.invoke(app, args))
    assert line.startswith(start), line
    where = f"{args[0]} " if args[0] in COMMANDS else ""
    assert line.endswith(f"; try 'edgematch {where}--help'")


def test_the_console_script_prints_one_line_for_a_bad_value():
    proc = subprocess.run([sys.executable, "-m", "edgematch", "solve", INSECTS, "-t", "5s"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("edgematch: solve: invalid value for '--time-limit'"), proc.stderr


def test_no_command_still_prints_the_help():
    result = runner.invoke(app, [])
    assert "Usage" in result.output and "solve" in result.output


def test_help_lists_solve_count_and_best_first_and_bench_after():
    listed = re.findall(r"^│ (\w+) ", runner.invoke(app, ["--help"]).output, re.MULTILINE)
    assert listed[:3] == ["solve", "count", "best"], listed
    assert sorted(listed) == sorted(COMMANDS)
    assert listed.index("bench") > listed.index("check") and listed.index("report") > listed.index("bench")


@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_help_shows_flags_as_flags_without_a_bool_type(command):
    """Issue 39 item 11: typer showed ``--install-completion <bool>`` (and ``--all <bool>``, ``--json <bool>``),
    as if each flag took a value. Options that do take one keep their type (``<int>``, ``<float>``)."""
    output = runner.invoke(app, [*([command] if command else []), "--help"], env={"COLUMNS": "200"}).output
    assert "<bool>" not in output and "--help" in output
    if command is None:
        assert re.search(r"--install-completion +Install completion", output), output
    if command == "solve":
        assert re.search(r"--all +Find every solution", output) and re.search(r"--limit +-n +<int>", output)


def _help_texts(command) -> str:
    texts = [command.help or "", command.epilog or ""]
    texts.extend(getattr(p, "help", None) or "" for p in command.params)
    return "\n".join(texts)


def _rendered(args: list[str]) -> str:
    """The help page as text: box edges dropped and whitespace closed up (rich wraps long lines)."""
    result = runner.invoke(app, [*args, "--help"], env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    return " ".join(re.sub(r"[│╭╮╰╯─]", " ", result.output).split())


def test_every_extra_a_help_text_names_survives_rendering():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    group = typer.main.get_command(app)
    named = 0
    for args, command in [([], group), *(([name], group.commands[name]) for name in COMMANDS)]:
        source = _help_texts(command).replace("\\[", "[")
        page = _rendered(args)
        assert not re.search(r"needs edgematch(?!\[)", page), (args, page)
        for extra in extras:
            if f"edgematch[{extra}]" in source:
                named += 1
                assert f"edgematch[{extra}]" in page, (args, extra)
    assert named >= 3  # solve, count and bench --cluster say they need edgematch[dask]


@pytest.mark.parametrize(("backend", "close"), [
    ("natve", "did you mean native?"),
    ("nativ", "did you mean native?"),
    ("native:dsf", "did you mean native:dfs?"),
    ("cpsat:tabel", "did you mean cpsat:table?"),
    ("sat:cadical19", "did you mean sat:cadical195 or sat:cadical153?"),
    ("cadical195", "did you mean sat:cadical195"),
])
def test_a_mistyped_backend_gets_the_closest_names(backend, close):
    line = one_line(runner.invoke(app, ["solve", INSECTS, "-b", backend]))
    assert line.startswith("edgematch: unknown ") and close in line, line


def test_an_unknown_backend_lists_every_variant_and_nothing_close_is_not_guessed():
    line = one_line(runner.invoke(app, ["count", INSECTS, "-b", "xyzzy"]))
    for variant in ("native (native:restarts, native:dfs)", "cpsat (cpsat:bool, cpsat:table)",
                    "sat (sat:NAME, NAME one of glucose4,", "cadical195", "portfolio (portfolio:A+B+...)"):
        assert variant in line
    assert "did you mean" not in line


def test_the_library_and_the_bench_suggest_too(tmp_path):
    from edgematch.errors import UsageError
    from edgematch.solvers.base import get_backend

    with pytest.raises(UsageError, match=r"did you mean sat:minisat22\?"):
        get_backend("sat:minisat")
    bench = runner.invoke(app, ["bench", "smoke", "-b", "native,cpsta", "--db", str(tmp_path / "b.sqlite")])
    assert bench.exit_code == 2 and "did you mean cpsat?" in bench.output


@pytest.mark.parametrize(("args", "says"), [
    (["solve", INSECTS, "--order", "row", "-O", "order=spiral"], "--order and -O order: give each option once"),
    (["solve", INSECTS, "-O", "seed=1", "-O", "seed=2"], "-O seed twice"),
    (["bench", "list", "-b", "native"], "it does not take --backends"),
    (["bench", "smoke", "--no-report", "-o", "somewhere"], "--no-report writes no report"),
    (["convert", INSECTS, "--puzzle", INSECTS], "--puzzle gives a solution's puzzle"),
    (["best", INSECTS, "--url-site", "e2.bucas.name"], "give --url too"),
    (["best", INSECTS, "--save-format", "e2dev"], "give --save FILE too"),
])
def test_an_option_that_would_be_dropped_is_refused(args, says):
    """Each of these was taken and silently dropped (or one of two values silently won)."""
    assert says in one_line(runner.invoke(app, args))


def test_version_prints_the_installed_distributions_version_and_exits_0():
    from importlib.metadata import version

    result = runner.invoke(app, ["--version", "solve"])  # eager: no command runs, none is needed
    assert result.exit_code == 0, result.output
    assert result.output == f"edgematch {version('edgematch')}\n"
