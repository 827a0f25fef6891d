"""Bad input of every kind (issue 13, part 5): one line ``edgematch: FILE[:LINE]: problem`` and exit 2 on the
command line, an EdgematchError (UsageError for bad arguments) in the library, never a traceback.

Each case is tried in every place that reads the same kind of thing (all formats, solution files, suite
files, DIMACS), and a property test feeds random bytes and random format-like text to every reader.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import edgematch
from edgematch.bench.suite import Overrides, load_suite, parse_suite
from edgematch.cli.cnf import read_header, read_model
from edgematch.cli.main import load_commands
from edgematch.core.model import Puzzle, Tile, is_integer_word, parse_integer
from edgematch.errors import EdgematchError, FormatError, PuzzleError, UsageError, quoted, tidy
from edgematch.formats import formats, parse_puzzle, parse_solution, read_puzzle
from edgematch.formats.source import Source
from edgematch.solvers import get_backend
from edgematch.solvers.api import MAX_TIME_LIMIT, max_workers

runner = CliRunner()
app = load_commands()
EXAMPLES = Path(__file__).parent.parent / "examples"
INSECTS = EXAMPLES / "insects.em"
LONG = "9" * 4301


def cli(*args):
    return runner.invoke(app, [str(a) for a in args], catch_exceptions=False)


def one_line(result, where: str, fragment: str) -> str:
    """The command failed with exit 2 and one stderr line starting ``edgematch: WHERE`` holding ``fragment``."""
    assert result.exit_code == 2, (result.exit_code, result.output)
    text = result.stderr.strip()
    assert len(text.splitlines()) == 1, text
    assert text.startswith(f"edgematch: {where}"), text
    assert fragment in text, text
    assert "Traceback" not in result.output
    return text


def write(path: Path, text: str | bytes) -> Path:
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return path


# ----- 100,000 nested brackets ------------------------------------------------------------------------

def test_deeply_nested_json_puzzle_and_solution(tmp_path):
    puzzle = write(tmp_path / "deep.json", "[" * 100_000)
    one_line(cli("info", puzzle), f"{puzzle}:1: ", "nested more than 32 deep")
    solution = write(tmp_path / "deep-sol.json", '{"edgematch": "solution", "cells": ' + "[" * 100_000)
    one_line(cli("check", INSECTS, solution), f"{solution}:1: ", "nested more than 32 deep")
    with pytest.raises(FormatError, match="nested more than 32 deep"):
        parse_puzzle('{"edgematch": "puzzle",\n"tiles": ' + "[" * 100_000, "json")


def test_deeply_nested_brackets_inside_json_strings_do_not_count():
    text = json.dumps({"edgematch": "puzzle", "name": "[" * 1000, "width": 1, "height": 1, "tiles": [[1, 2, 3, 4]]})
    assert parse_puzzle(text, "json").name == "[" * 1000


@pytest.mark.parametrize("fmt", ["arc", "racket", None])
def test_deeply_nested_s_expressions(fmt):
    with pytest.raises(FormatError, match="nested more than 64 deep"):
        parse_puzzle("(" * 100_000, fmt or "arc")
    with pytest.raises(FormatError):
        parse_puzzle("(- " * 100_000 + "1" + ")" * 100_000, fmt)


def test_deeply_nested_toml_suite(tmp_path):
    suite = write(tmp_path / "deep.toml", "backends = " + "[" * 100_000)
    one_line(cli("bench", suite, "--db", tmp_path / "b.sqlite"), f"{suite}:1: ", "invalid TOML")


# ----- numbers: too long, or not ASCII digits -----------------------------------------------------------

def test_parse_integer_takes_ascii_digits_only():
    assert parse_integer("-12") == -12 and parse_integer("007") == 7
    assert parse_integer("9" * 18) == 10**18 - 1
    for word in ("2_0", "２", "٢", "+2", "1e3", " 2", "", "-", "9" * 19, LONG):
        with pytest.raises(ValueError):
            parse_integer(word)
    assert not is_integer_word("٢") and not is_integer_word("2_0") and is_integer_word("-3")


# (format, text with WORD where one number goes, line of that number)
NUMERIC = [
    ("puz", "1 1\nWORD 1 1 1\n", 2),
    ("puz", "WORD 1\n1 1 1 1\n", 1),
    ("heule", "0\nWORD 1 1 1\n", 2),
    ("heule", "1\n1 1 WORD 0\n1 1 1 1\n", 2),
    ("owen", "1 1\n1 1 WORD 1\n", 2),
    ("native", "edgematch puzzle\nsize 1 1\ntile WORD 1 1 1\n", 3),
    ("native", "edgematch puzzle\nsize WORD 1\ntile 1 1 1 1\n", 2),
    ("native", "edgematch puzzle\nsize 1 1\ntile 1 1 1 1\nhint 0 0 WORD\n", 4),
    ("native", "edgematch puzzle\nsize 1 1\nlabel WORD x\ntile 1 1 1 1\n", 3),
    ("arc", "(1 2\n WORD 4)\n", 2),
    ("arc", "(with (a WORD)\n (= t (list (list a a a a))))\n", 1),
]


@pytest.mark.parametrize(("fmt", "text", "line"), NUMERIC, ids=[f"{n[0]}-{i}" for i, n in enumerate(NUMERIC)])
@pytest.mark.parametrize("word", [LONG, "2_0", "２", "٢"], ids=["4301-digits", "underscore", "fullwidth", "arabic"])
def test_numbers_in_every_format(fmt, text, line, word):
    with pytest.raises(FormatError) as info:
        parse_puzzle(text.replace("WORD", word), fmt, path=f"p.{fmt}")
    error = info.value
    assert str(error).startswith(f"p.{fmt}:{line}: "), str(error)
    if word == LONG:
        assert "number too long (4,301 digits; numbers have at most 18)" in error.message, error.message
    assert len(str(error)) < 200


@pytest.mark.parametrize("word", [LONG, "2_0", "２", "٢"])
def test_numbers_in_solution_files(word):
    cases = [("puz", "0 0 0 0\nWORD 1 0 0\n", 2), ("native", "edgematch solution\nsize 1 1\nWORD:0\n", 3),
             ("native", "edgematch solution\nsize WORD 1\n0:0\n", 2)]
    for fmt, text, line in cases:
        with pytest.raises(FormatError) as info:
            parse_solution(text.replace("WORD", word), fmt, path="s")
        assert str(info.value).startswith(f"s:{line}: "), str(info.value)


def test_long_number_in_json_puzzle_and_label_keys(tmp_path):
    path = write(tmp_path / "p.json", '{"edgematch": "puzzle", "width": 1, "height": 1,\n'
                                      f'"tiles": [[1, 2, 3, {LONG}]]}}')
    one_line(cli("info", path), f"{path}:2: ", "invalid JSON: number too long (4,301 digits)")
    for key in ("٢", "2_0", "9" * 30):
        text = json.dumps({"edgematch": "puzzle", "width": 1, "height": 1, "tiles": [[2, 2, 2, 2]],
                           "labels": {key: "two"}})
        with pytest.raises(FormatError, match='"labels"'):
            parse_puzzle(text, "json")
    with pytest.raises(FormatError, match="at most 18 digits"):
        parse_puzzle(json.dumps({"edgematch": "puzzle", "width": 1, "height": 1, "tiles": [[10**30, 1, 1, 1]]}),
                     "json")


def test_library_labels_fit_64_bits():
    with pytest.raises(PuzzleError, match="at most 18 digits"):
        Tile((2**63, 1, 1, 1))
    assert Tile((10**18 - 1, 1, 1, 1)).edges[0] == 10**18 - 1


def test_full_width_digits_are_a_label_name_not_a_number():
    puzzle = parse_puzzle("edgematch puzzle\nsize 1 1\nlabel 2 ２\ntile ２ ２ ２ ２\n", "native")
    assert puzzle.tiles[0].edges == (2, 2, 2, 2) and puzzle.label_name(2) == "２"


def test_numbers_on_the_command_line(tmp_path):
    one_line(cli("generate", "٢x٢"), "size must look like 4x4", "'٢x٢'")
    one_line(cli("generate", "2_0"), "size must look like 4x4", "'2_0'")
    db = tmp_path / "b.sqlite"
    one_line(cli("bench", "smoke", "--seeds", "1,٢", "--db", db), "--seeds wants integers", "'1,٢'")
    one_line(cli("bench", "smoke", "--sizes", "²", "--db", db), "--sizes: family", "'²'")
    one_line(cli("bench", "smoke", "--sizes", LONG, "--db", db), "--sizes: family", "4,301 characters")


HUNDE = EXAMPLES / "hunde.hunde"
# (command, option) for every number option of -O, each where it applies (issue 39 item 11: memo took '１',
# '1_0' and '1e-300', since Python's float() and int() do; numbers here are as in files: ASCII digits, an
# optional minus, at most 18 digits, a decimal point where a fraction is meant, no exponent)
NUMBER_OPTIONS = [
    (["count", HUNDE], "memo"), (["solve", HUNDE], "unit"), (["solve", HUNDE], "seed"),
    (["best", HUNDE, "-t", "5", "-O", "search=dfs"], "start"),
    (["best", HUNDE, "-t", "5", "-O", "search=dfs"], "breaks"),
    (["best", HUNDE, "-t", "5", "--workers", "2"], "width"), (["best", HUNDE, "-t", "5", "--workers", "2"], "fanout"),
    (["best", HUNDE, "-t", "5"], "beam_share"), (["solve", HUNDE, "-j", "2"], "handover"),
    (["solve", HUNDE, "-b", "cpsat"], "seed"),
]


@pytest.mark.parametrize("value", ["１", "1_0", "1e-300", "٢", "+1", "inf", "nan", "0x10", "1" * 19, ""],
                         ids=["fullwidth", "underscore", "exponent", "arabic", "plus", "inf", "nan", "hex", "19-digits",
                              "empty"])
@pytest.mark.parametrize(("args", "option"), NUMBER_OPTIONS, ids=[f"{a[0]}-{o}" for a, o in NUMBER_OPTIONS])
def test_number_options_take_plain_ascii_numbers_only(args, option, value):
    one_line(cli(*args, "-O", f"{option}={value}"), f"option {option}: ", repr(value))


def test_number_options_still_take_plain_numbers_and_a_python_number_a_flag_could_write():
    assert cli("count", HUNDE, "-O", "memo=0.0005").exit_code == 0
    assert cli("best", HUNDE, "-t", "5", "-O", "start=.5", "-O", "breaks=2").exit_code == 0
    assert cli("solve", HUNDE, "-O", "seed=7", "-O", "unit=1000").exit_code == 0
    from edgematch.solvers.base import fraction, plain_number, seconds, whole

    assert (whole("12", "x"), fraction("0.25", "x"), seconds(" 3.5 ", "x")) == (12, 0.25, 3.5)
    assert plain_number(1e-300) is None and plain_number(True) is None and plain_number(2.5, integer=True) is None
    with pytest.raises(UsageError, match="option memo: "):
        edgematch.count(HUNDE, backend="native", memo=1e-300)
    with pytest.raises(UsageError, match="option seed: "):
        edgematch.solve(HUNDE, backend="native", seed=True)


def test_an_empty_order_is_refused_with_the_orders():
    for args in (["solve", HUNDE], ["count", HUNDE]):
        one_line(cli(*args, "--order", ""), "native backend: unknown order ''",
                 "choose one of: auto, row, column, spiral")
    one_line(cli("count", HUNDE, "--estimate", "--order", ""), "the estimate follows a static fill order",
             "auto, row, column, spiral")


# ----- DIMACS: decode ---------------------------------------------------------------------------------

@pytest.fixture
def cnf_files(tmp_path):
    from edgematch.encodings.cnf import encode, to_dimacs

    puzzle = read_puzzle(INSECTS)
    enc = encode(puzzle)
    cnf = write(tmp_path / "p.cnf", to_dimacs(enc, "insects"))
    solution = edgematch.solve(puzzle, backend="sat")
    assert solution.status == "solved"
    return puzzle, enc, cnf, tmp_path


def _placement_vars(enc, cell):
    return [v for v, (c, _, _) in enc.placements.items() if c == cell]


def test_decode_a_model_with_two_tiles_on_a_cell(cnf_files):
    puzzle, enc, cnf, tmp = cnf_files
    first, second = _placement_vars(enc, 0)[:2]
    model = write(tmp / "model.txt", f"s SATISFIABLE\nc the solver's comment\nv {first} -5\nv {second} 0\n")
    one_line(cli("decode", INSECTS, cnf, model), f"{model}:4: ",
             f"variables {first} and {second} are both true, but a cell holds one tile")
    everything = write(tmp / "all.txt", "v " + " ".join(map(str, range(1, enc.variables + 1))) + " 0\n")
    one_line(cli("decode", INSECTS, cnf, everything), f"{everything}:1: ", "are both true")


def test_decode_a_model_using_a_tile_twice():
    from edgematch.encodings.cnf import ModelError, encode

    enc = encode(read_puzzle(INSECTS))
    (cell_a, t, r), var_a = next((p, v) for v, p in enc.placements.items())
    var_b = next(v for v, (c, t2, _) in enc.placements.items() if c != cell_a and t2 == t)
    with pytest.raises(ModelError, match="places that tile on 2 cells; the puzzle has 1 of it") as info:
        enc.decode([var_a, var_b])
    assert info.value.literal == var_b
    assert enc.decode([var_a, var_a])[cell_a] == (t, r)  # the same literal twice is one placement


def test_decode_header_and_model_problems(cnf_files):
    _, _, cnf, tmp = cnf_files
    bad = write(tmp / "bad.cnf", cnf.read_text().replace("c options ", "c options bogus=1 ", 1))
    one_line(cli("decode", INSECTS, bad, bad), f"{bad}:2: ", "unknown CNF option 'bogus'")
    for word in ("2_0", "٢", LONG):
        model = write(tmp / "m.txt", f"v 1 {word} 0\n")
        one_line(cli("decode", INSECTS, cnf, model), f"{model}:1: ", "a literal")
    model = write(tmp / "binary.txt", b"v 1 \xff\xfe 0\n")
    one_line(cli("decode", INSECTS, cnf, model), f"{model}:1: ", "not UTF-8 text")


# ----- encodings of files -------------------------------------------------------------------------------

def test_non_utf8_suite_and_puzzles(tmp_path):
    suite = write(tmp_path / "s.toml", b'backends = ["native"]\nname = "\xe9t\xe9"\n')
    one_line(cli("bench", suite, "--db", tmp_path / "b.sqlite"), f"{suite}:2: ", "not UTF-8 text (byte 0xe9)")
    for name in ("p.em", "p.puz", "p.json", "p.heule", "p.owen", "p.arc", "p.rkt", "p.hunde", "p"):
        path = write(tmp_path / name, b"1 1\n\xff 1 1 1\n")
        one_line(cli("info", path), f"{path}:2: ", "not UTF-8 text (byte 0xff)")
    solution = write(tmp_path / "s.emsol", b"edgematch solution\x00")
    one_line(cli("check", INSECTS, solution), f"{solution}:1: ", "binary data (NUL byte), not a text solution file")


# ----- suite values ------------------------------------------------------------------------------------

SUITE = 'name = "x"\nbackends = ["native"]\ntimeout = VALUE\n[[family]]\nname = "f"\nsizes = [2]\n'


@pytest.mark.parametrize(("value", "fragment"), [
    ("1e308", "must be at most 10,000,000 seconds"),
    ("inf", "must be at most 10,000,000 seconds"),
    ("nan", "must be a positive number of seconds, got nan"),
    ("-1.5", "must be a positive number of seconds"),
    ("0", "must be a positive number of seconds"),
    ('"20"', "must be a number of seconds, got '20'"),
    ("true", "must be a number of seconds, got True"),
])
def test_suite_timeouts_are_checked_at_load_time(tmp_path, value, fragment):
    from edgematch.bench.store import Store

    suite = write(tmp_path / "s.toml", SUITE.replace("VALUE", value))
    db = tmp_path / "b.sqlite"
    one_line(cli("bench", suite, "--db", db), f"{suite}:3: timeout: ", fragment)
    with Store(db) as store:
        assert store.sessions() == []  # no session left behind, interrupted or otherwise


@pytest.mark.parametrize("value", ["nan", "inf", "1e308", "-1"])
def test_timeout_option_is_checked(tmp_path, value):
    one_line(cli("bench", "smoke", "-t", value, "--db", tmp_path / "b.sqlite"), "--timeout ", "seconds")
    with pytest.raises(UsageError):
        Overrides(timeout=float(value))


def test_unknown_backend_in_a_suite_names_file_and_line(tmp_path):
    suite = write(tmp_path / "s.toml", 'timeout = 5\nbackends = [\n  "native",\n  "nativ",\n]\n'
                                       '[[family]]\nname = "f"\nsizes = [2]\n')
    one_line(cli("bench", suite, "--db", tmp_path / "b.sqlite"), f"{suite}:4: backends: ",
             "unknown backend 'nativ'; valid backends: auto, native")
    one_line(cli("bench", "smoke", "-b", "native,nope", "--db", tmp_path / "b.sqlite"),
             "--backends: ", "unknown backend 'nope'")
    with pytest.raises(FormatError, match=r"s.toml:2: backends: unknown backend"):
        load_suite(write(tmp_path / "s.toml", 'timeout = 5\nbackends = ["zzz"]\n[[family]]\nname = "f"\nsizes = [2]\n'))


@pytest.mark.parametrize(("family", "line", "fragment"), [
    ('sizes = ["2x٢"]', 10, "sizes: family g: sizes are positive integers"),
    (f'sizes = ["{LONG}x2"]', 10, "4,303 characters"),
    ('sizes = [2]\ncolours = "size-٢"', 11, "colours: family g"),
    ('sizes = [2]\nframed = "yes"', 11, "framed: family g: true or false"),
    ('sizes = [2]\nrotations = 1', 11, "rotations: family g: true or false"),
    ('sizes = [2]\nrule = "equal"', 11, "rule: family g: one of same, signed"),
    (f"sizes = [{LONG}]", 10, "invalid TOML: number too long"),
])
def test_family_values_name_their_own_table(family, line, fragment):
    text = ('backends = ["native"]\nseeds = [1]\n[[family]]\nname = "f"\nsizes = [2]\nframed = false\n\n'
            f'[[family]]\nname = "g"\n{family}\n')  # family g's settings start on line 10
    with pytest.raises(FormatError) as info:
        parse_suite(text, "s.toml")
    assert str(info.value).startswith(f"s.toml:{line}: "), str(info.value)
    assert fragment in str(info.value)


def test_seeds_must_be_integers_not_booleans():
    with pytest.raises(FormatError, match="seeds: must be a non-empty list of integers"):
        parse_suite('backends = ["native"]\nseeds = [true]\n[[family]]\nname = "f"\nsizes = [2]\n', "s.toml")


def test_jobs_are_capped(tmp_path):
    one_line(cli("bench", "smoke", "--jobs", "100000", "--db", tmp_path / "b.sqlite"),
             f"--jobs must be at most {max_workers()}", "got 100000")


# ----- the library's arguments ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def tiny() -> Puzzle:
    return Puzzle(2, 1, (Tile((1, 2, 3, 4)), Tile((5, 6, 7, 2))))


@pytest.mark.parametrize(("kwargs", "fragment"), [
    ({"time_limit": math.nan}, "time limit must be a positive number of seconds, got nan"),
    ({"time_limit": math.inf}, "time limit must be at most 10,000,000 seconds"),
    ({"time_limit": 1e308}, "time limit must be at most 10,000,000 seconds"),
    ({"time_limit": "5"}, "time limit must be a number of seconds, got '5'"),
    ({"time_limit": True}, "time limit must be a number of seconds, got True"),
    ({"time_limit": -1}, "time limit must be a positive number"),
    ({"workers": 1.5}, "workers must be a whole number, got 1.5"),
    ({"workers": "2"}, "workers must be a whole number, got '2'"),
    ({"workers": True}, "workers must be a whole number, got True"),
    ({"workers": 0}, "workers must be from 1 to"),
    ({"workers": 10_000}, "the larger of 16 and 4 x the"),
    ({"backend": None}, "backend must be a name such as 'auto'"),
])
def test_bad_arguments_are_usage_errors(tiny, kwargs, fragment):
    for call in (edgematch.solve, edgematch.count, edgematch.solve_all):
        with pytest.raises(UsageError) as info:
            call(tiny, **kwargs)
        assert fragment in str(info.value)


def test_the_workers_cap_is_said(tiny):
    cap = max_workers()
    assert cap >= 16
    with pytest.raises(UsageError, match=f"workers must be from 1 to {cap:,} here"):
        edgematch.count(tiny, workers=cap + 1, backend="native")
    with pytest.raises(UsageError, match="workers"):
        edgematch.choose_backend(tiny, workers=cap + 1)
    assert MAX_TIME_LIMIT == 10_000_000


@pytest.mark.parametrize(("limit", "fragment"), [
    (1.5, "solution limit must be a whole number, got 1.5"), ("3", "whole number, got '3'"),
    (0, "solution limit must be from 1 to"), (10**30, "solution limit must be from 1 to"), (False, "whole number"),
])
def test_bad_limits(tiny, limit, fragment):
    with pytest.raises(UsageError, match=re.escape(fragment)):
        edgematch.solve_all(tiny, limit=limit)
    with pytest.raises(UsageError, match=re.escape(fragment)):
        edgematch.solutions(tiny, limit=limit)  # at the call, not at the first next()


def test_a_path_is_read_as_the_puzzle():
    hunde = EXAMPLES / "hunde.hunde"
    assert edgematch.count(str(hunde), distinct=True, backend="native").distinct == 2
    assert edgematch.count(hunde, backend="native").count == 16
    assert edgematch.solve(INSECTS, backend="native").status == "solved"
    assert edgematch.solve_all(str(INSECTS), backend="native").count == 4
    assert len(list(edgematch.solutions(hunde, backend="native", limit=3))) == 3
    assert edgematch.choose_backend(str(hunde), "count")
    assert "session" in edgematch.explain(hunde, "first") or edgematch.explain(hunde, "first")
    with pytest.raises(FormatError, match="no-such.em: no such file"):
        edgematch.solve("no-such.em")


def test_a_missing_file_is_a_file_not_found_error_and_one_line(tmp_path):
    """Issue 22 item 11: Python code catches FileNotFoundError (an OSError, errno ENOENT, filename set); the
    command line still says one line."""
    missing = tmp_path / "nope.em"
    for call in (edgematch.read_puzzle, edgematch.solve, lambda path: edgematch.read_solution(path)):
        with pytest.raises(FileNotFoundError) as caught:
            call(missing)
        assert isinstance(caught.value, OSError) and isinstance(caught.value, FormatError)
        assert caught.value.errno == 2 and caught.value.filename == str(missing)
        assert str(caught.value) == f"{missing}: no such file"
    one_line(cli("solve", missing), f"{missing}: ", "no such file")


@pytest.mark.parametrize("bad", [None, 3, b"p.em", ["p.em"]])
def test_read_puzzle_of_something_not_a_path_is_a_usage_error(bad):
    """Issue 22 item 26: read_puzzle(None) was a TypeError."""
    for call in (edgematch.read_puzzle, edgematch.read_solution):
        with pytest.raises(UsageError, match="must be a str or a Path, got "):
            call(bad)


@pytest.mark.parametrize("bad", [None, {"width": 2}, 3, b"p.em", [1, 2]])
def test_other_puzzle_types_are_usage_errors(bad):
    expected = "puzzle must be an edgematch.Puzzle or the path of a puzzle file"
    for call in (edgematch.solve, edgematch.count, edgematch.solve_all, edgematch.solutions,
                 edgematch.choose_backend, edgematch.explain):
        with pytest.raises(UsageError, match=expected):
            call(bad)
    with pytest.raises(UsageError, match="question must be one of first, all, count"):
        edgematch.explain(INSECTS, "fastest")


# ----- long tokens ---------------------------------------------------------------------------------------

def test_an_echoed_token_is_cut(tmp_path):
    token = "x" * 100_000
    path = write(tmp_path / "long.em", f"edgematch puzzle\nsize 1 1\n{token} 1\n")
    text = one_line(cli("info", path), f"{path}:3: ", "unknown keyword 'xxxxxxxxxx")
    assert len(text) < 200 and "… (100,000 characters)" in text
    for fmt, body in (("puz", f"1 1\n1 1 1 {token}\n"), ("owen", f"1 1 {token}\n"), ("arc", f"({token} 1 2 3)\n"),
                      ("hunde", f"{token}, a head, b tail, c head\n"), ("racket", f'\'("{token}")\n'),
                      ("json", json.dumps({"edgematch": "puzzle", "version": token}))):
        with pytest.raises(FormatError) as info:
            parse_puzzle(body, fmt)
        assert len(str(info.value)) < 200, (fmt, str(info.value)[:300])


def test_messages_are_tidied_centrally():
    assert quoted("abc") == "'abc'"
    assert quoted("y" * 50) == f"'{'y' * 40}'… (50 characters)"
    error = FormatError(f"bad {'z' * 100_000} and more", "f", 3)
    assert len(str(error)) < 120 and str(error).startswith("f:3: bad zzz") and "and more" in str(error)
    assert len(str(PuzzleError("w " * 100_000))) < 1100
    assert tidy("short message") == "short message"


# ----- input size, devices and pipes ----------------------------------------------------------------------

def _run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "edgematch", *args], capture_output=True, text=True,
                          timeout=timeout)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_info_dev_zero_stops_at_the_size_cap():
    proc = _run("info", "/dev/zero")
    assert proc.returncode == 2
    assert proc.stderr.strip() == ("edgematch: /dev/zero: larger than 64 MiB, too large for a puzzle file "
                                   "(edgematch reads at most that)")


def test_the_size_cap_without_a_device(tmp_path, monkeypatch):
    from edgematch.formats import source

    monkeypatch.setattr(source, "MAX_INPUT_BYTES", 1000)
    path = write(tmp_path / "big.puz", "1 1\n" + "1 1 1 1\n" * 200)
    with pytest.raises(FormatError, match="larger than 0 MiB|too large for a puzzle file"):
        read_puzzle(path)
    write(path, "1 1\n1 1 1 1\n")
    assert read_puzzle(path).size == 1


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_named_pipe_nobody_writes_to_does_not_hang(tmp_path):
    fifo = tmp_path / "pipe.em"
    os.mkfifo(fifo)
    proc = _run("info", str(fifo))
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"edgematch: {fifo}:1: nothing to read: a pipe that nothing writes to"


def test_a_directory_is_named(tmp_path):
    one_line(cli("info", tmp_path), f"{tmp_path}: ", "is a directory, not a puzzle file")


# ----- writing onto a full disk ---------------------------------------------------------------------------

FULL = Path("/dev/full")
needs_full = pytest.mark.skipif(not FULL.exists(), reason="needs /dev/full")


@pytest.fixture(scope="module")
def tiny_db(tmp_path_factory):
    """A results database with one finished session: native on two 2x2 boards."""
    from edgematch.bench.environment import environment
    from edgematch.bench.session import run_session
    from edgematch.bench.store import Store

    path = tmp_path_factory.mktemp("bench") / "tiny.sqlite"
    suite = parse_suite('backends = ["native"]\ntimeout = 10\n[[family]]\nname = "t"\nsizes = [2]\n', "tiny.toml")
    with Store(path) as store:
        assert run_session(store, store.new_session(suite, "tiny", 1, environment()), suite)
    return path


def test_export_and_report_onto_a_full_disk(tiny_db, tmp_path, full_disk):
    target = tmp_path / "runs.csv"
    one_line(cli("export", "--db", tiny_db, "-o", target, "--to", "csv"), f"{target}: ",
             "cannot write: No space left on device")
    folder = tmp_path / "report"
    folder.mkdir()
    one_line(cli("report", "--db", tiny_db, "-o", folder), f"{folder}{os.sep}",  # the file it was writing
             "cannot write: No space left on device")
    a_file = write(tmp_path / "notes.txt", "kept\n")
    one_line(cli("report", "--db", tiny_db, "-o", a_file), f"{a_file}: ", "not a folder")
    policy = tmp_path / "policy.toml"
    one_line(cli("policy", "--db", tiny_db, "-o", policy), f"{policy}: ", "cannot write: No space left")
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["notes.txt", "report"]  # no temporary file left


def test_every_file_output_onto_a_full_disk(tmp_path, full_disk):
    puzzle, solution, svg, cnf = (tmp_path / name for name in ("p.em", "p.emsol", "p.svg", "p.cnf"))
    one_line(cli("generate", "3", "-o", puzzle), f"{puzzle}: ", "cannot write: No space left")
    one_line(cli("convert", INSECTS, puzzle, "--to", "json"), f"{puzzle}: ", "cannot write: No space left")
    one_line(cli("render", INSECTS, "-o", svg, "--as", "svg"), f"{svg}: ", "cannot write: No space left")
    one_line(cli("encode", INSECTS, "--cnf", cnf), f"{cnf}: ", "cannot write: No space left")
    one_line(cli("solve", INSECTS, "--save", solution), f"{solution}: ", "cannot write: No space left")
    with pytest.raises(FormatError, match="p.em: cannot write: No space left"):
        edgematch.write_puzzle(read_puzzle(INSECTS), puzzle, format="native")
    assert list(tmp_path.iterdir()) == []  # nothing written, no temporary file left


@needs_full
def test_a_device_is_never_written_to(tmp_path):
    """/dev/full (or any device node, FIFO or link) is refused before anything is written, never replaced."""
    refused = "cannot write: it is a character device, and edgematch only replaces regular files"
    one_line(cli("generate", "3", "-o", FULL), f"{FULL}: ", refused)
    one_line(cli("generate", "3", "-o", tmp_path / "p.em", "--solution", FULL), f"{FULL}: ", refused)
    one_line(cli("convert", INSECTS, FULL, "--to", "json"), f"{FULL}: ", refused)
    one_line(cli("render", INSECTS, "-o", FULL, "--as", "svg"), f"{FULL}: ", refused)
    one_line(cli("encode", INSECTS, "--cnf", FULL), f"{FULL}: ", refused)
    with pytest.raises(FormatError, match="/dev/full: cannot write: it is a character device"):
        edgematch.write_puzzle(read_puzzle(INSECTS), FULL, format="native")
    assert FULL.is_char_device()


# ----- where the results database lives (issue 22 item 26) ---------------------------------------------------

def test_a_database_in_a_missing_folder_is_refused_and_no_folder_made(tmp_path):
    missing = tmp_path / "nonexistent" / "x" / "db"
    one_line(cli("bench", "smoke", "--db", missing, "--no-report"), f"{missing}: ",
             f"there is no folder '{missing.parent}' for the results database (make it first)")
    assert list(tmp_path.iterdir()) == []


def test_a_database_that_cannot_be_opened_or_written_names_its_file(tmp_path):
    from edgematch.bench.environment import environment
    from edgematch.bench.store import Store

    if Path("/proc").is_dir():  # a place nobody can create files in, root included
        where = Path("/proc/edgematch-test.sqlite")
        one_line(cli("bench", "smoke", "--db", where, "--no-report"), f"{where}: ",
                 "cannot open the results database: unable to open database file")
    one_line(cli("bench", "smoke", "--db", os.devnull, "--no-report"), f"{os.devnull}: ", "not a regular file")
    path = tmp_path / "b.sqlite"
    Store(path).close()
    store = Store(path)
    store.db.close()
    store.db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)  # as a read-only file opens for a user
    suite = parse_suite('backends = ["native"]\n[[family]]\nname = "t"\nsizes = [2]\n', "t.toml")
    with pytest.raises(FormatError) as caught:
        store.new_session(suite, "t", 1, environment())
    assert str(caught.value) == f"{path}: cannot write the results database: attempt to write a readonly database"
    store.close()


# ----- names that cannot be shown ---------------------------------------------------------------------------

def test_names_must_be_printable_text():
    with pytest.raises(FormatError, match="printable text"):
        parse_puzzle('{"edgematch": "puzzle", "width": 1, "height": 1, "tiles": [[1, 1, 1, 1]], '
                     '"name": "\\ud800"}', "json")
    with pytest.raises(FormatError, match="printable text"):
        parse_puzzle('{"edgematch": "puzzle", "width": 1, "height": 1, "tiles": [[1, 1, 1, 1]], '
                     '"labels": {"1": "\\u001b[2J"}}', "json")


# ----- any bytes, any reader: only EdgematchError ------------------------------------------------------------

_PIECES = ["edgematch puzzle\n", "edgematch solution\n", "size 2 2\n", "tile ", "hint ", "label ", "frame ",
           "rule signed\n", "c ", "(", ")", "[", "]", "{", "}", "'", '"', ";", "#", ",", ":", "-", "x", "head",
           "tail", "Tile (", "with", "list", "=", "0", "1", "2", "3", "-1", "٢", "２", "2_0", LONG[:30], " ", "\n",
           '"edgematch": "puzzle"', '"tiles": ', "\x00", "\ud800", "\r", "\f", "v ", "p cnf "]
_texts = st.lists(st.sampled_from(_PIECES), max_size=40).map("".join)


def _every_reader(data: bytes) -> None:
    for fmt in [None, *formats()]:
        f = formats().get(fmt) if fmt else None
        for solution in (False, True):
            if f is not None and (f.read_solution if solution else f.read) is None:
                continue
            try:
                source = Source.from_bytes(data, f"x.{fmt}")
                if solution:
                    parse_solution(source.text, fmt, path="x")
                else:
                    parse_puzzle(source.text, fmt, path="x")
            except EdgematchError:
                pass
    for read in (read_header, read_model):
        with contextlib.suppress(EdgematchError):
            read(Source.from_bytes(data, "x.cnf"))
    with contextlib.suppress(EdgematchError):
        parse_suite(data.decode("utf-8", "replace"), "x.toml", check_backends=True)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=200))
def test_random_bytes_raise_only_edgematch_errors(data):
    _every_reader(data)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_texts)
def test_random_format_like_text_raises_only_edgematch_errors(text):
    _every_reader(text.encode("utf-8", "surrogatepass"))


_SUITE_PIECES = ["backends = ", "timeout = ", "seeds = ", "task = ", "\n[[family]]\n", "name = ", "sizes = ",
                 "colours = ", "inner_colours = ", "framed = ", "rule = ", "rotations = ", '"native"', '"nope"',
                 '"size-2"', '"size+٢"', '"2x3"', '"٢x2"', "[", "]", ", ", "1", "-1", "0", "2", "1e308", "nan",
                 "-inf", "true", '"first"', '"count"', '"signed"', '"x"', "\n", " ", "{", "}", "3.5", "1_0", LONG[:25]]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_SUITE_PIECES), max_size=40).map("".join),
       st.sampled_from([None, Overrides(sizes=("٢",)), Overrides(colours="size-1"), Overrides(backends=("zz",))]))
def test_random_suites_raise_only_edgematch_errors(text, overrides):
    with contextlib.suppress(EdgematchError):
        parse_suite(text, "x.toml", overrides, check_backends=True)


# ----- found by fuzzing mutated example files ------------------------------------------------------------

def test_a_far_placement_in_a_sol_file_is_not_enumerated():
    huge = "1000000000000000000x1000000000000000000"
    with pytest.raises(FormatError, match=rf"s.sol:3: [0-9,]+ cell\(s\) of the {huge} board have no tile"):
        parse_solution("0 0 0 0\n1 1 0 0\n2 999999999999999999 999999999999999999 0\n", "puz", path="s.sol")
    with pytest.raises(FormatError, match=r"have no tile: \(col 2, row 0\)"):
        parse_solution("0 0 0 0\n1 1 0 0\n2 31000000 1 0\n", path="s.sol")  # detection reads it too


def test_text_given_by_a_program_is_held_to_the_rules_of_a_file():
    with pytest.raises(FormatError, match="<input>:2: not valid Unicode text"):
        parse_puzzle("1 1\n\ud800 1 1 1\n", "puz")
    with pytest.raises(UsageError, match="must be a str, got bytes"):
        parse_puzzle(b"1 1\n1 1 1 1\n", "puz")
    with pytest.raises(FormatError, match="binary data"):
        parse_solution("0 0 0 0\x00", "puz")


def test_unknown_cnf_options_on_the_command_line_are_one_line():
    one_line(cli("encode", INSECTS, "-O", "zz=1"), "unknown CNF option(s) zz; known: one_to_one", "symmetry")


@pytest.mark.parametrize(("backend", "message"), [
    ("sat:nope", "unknown SAT solver 'nope'"), ("cpsat:mip", "unknown CP-SAT formulation 'mip'"),
])
def test_an_unknown_backend_variant_is_refused_by_name_before_any_run(backend, message, tmp_path):
    with pytest.raises(edgematch.UsageError, match=message):
        get_backend(backend)
    suite = tmp_path / "s.toml"
    suite.write_text(f'timeout = 1\nseeds = [1]\nbackends = ["native",\n  "{backend}"]\n'
                     '[[family]]\nname = "a"\nsizes = [3]\n')
    with pytest.raises(edgematch.EdgematchError, match=rf"s.toml:4: backends: {message}"):
        load_suite(str(suite))
