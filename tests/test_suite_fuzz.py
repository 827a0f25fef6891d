"""Suite values of the wrong type: each value of a valid suite replaced by values of other types is either a
suite that still holds (the key takes that type too) or one clean FormatError / UsageError naming the file and
the key, never another exception, and the bench stores nothing for it."""

import datetime
import json
import math
import sqlite3

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from edgematch.bench.suite import TASKS, Overrides, parse_suite
from edgematch.cli.main import load_commands
from edgematch.errors import FormatError, UsageError

runner = CliRunner()
app = load_commands()

VALID = {
    "name": "fuzz",
    "description": "every key a suite takes",
    "task": "first",
    "timeout": 2.0,
    "seeds": [1],
    "backends": ["native", "cpsat"],
    "repeat": 1,
    "family": [
        {"name": "plain", "sizes": [3], "colours": 3, "rule": "same", "rotations": True, "hint": False,
         "unique": False, "task": "first", "timeout": 1.0, "backends": ["native"]},
        {"name": "framed", "sizes": ["4x4"], "framed": True, "border_colours": 2, "inner_colours": "size-2"},
        {"name": "liked", "like": "tetravex", "sizes": [3]},
    ],
}


def toml_value(value) -> str:
    """``value`` written as TOML (inline tables for dicts)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, float):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf") if math.isinf(value) else repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {toml_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(value)


def toml(data: dict) -> str:
    """The suite ``data`` as a TOML file: top-level keys, then each family an ``[[family]]`` table (or, when
    ``family`` is not a list of tables, the key itself)."""
    families = data.get("family")
    tables = isinstance(families, list) and all(isinstance(f, dict) for f in families)
    lines = [f"{k} = {toml_value(v)}" for k, v in data.items() if k != "family" or not tables]
    for family in families if tables else []:
        lines += ["", "[[family]]", *(f"{k} = {toml_value(v)}" for k, v in family.items())]
    return "\n".join(lines) + "\n"


# -- values of every TOML type ----------------------------------------------------------------------------

_text = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=12)
_scalars = {
    "str": _text,
    "int": st.integers(-3, 5),
    "float": st.floats(allow_nan=True, allow_infinity=True, width=32),
    "bool": st.booleans(),
    "date": st.one_of(st.dates(), st.datetimes(), st.times()),
}
_any_scalar = st.one_of(*_scalars.values())
_kinds = {
    **_scalars,
    # lists of wrong elements too (a list where a list belongs is the same type, its elements are not)
    "list": st.lists(st.one_of(_text, st.booleans(), st.floats(width=32), st.integers(-3, 5),
                               st.lists(_any_scalar, max_size=2)), max_size=3),
    "dict": st.dictionaries(st.sampled_from(["a", "name", "x"]), _any_scalar, max_size=2),
}


def kind(value) -> str:
    for name, cls in (("bool", bool), ("str", str), ("int", int), ("float", float), ("list", list),
                      ("dict", dict)):
        if isinstance(value, cls):
            return name
    return "date"


def other_type(value) -> st.SearchStrategy:
    """Values of every TOML type but ``value``'s (a list's elements may be of any type)."""
    mine = kind(value)
    return st.one_of(*(s for name, s in _kinds.items() if name != mine or name == "list"))


PLACES = [(None, key) for key in VALID] + [(i, key) for i, family in enumerate(VALID["family"]) for key in family]
OVERRIDES = [None, Overrides(sizes=("3",)), Overrides(families=("plain",)), Overrides(colours="2", task="count"),
             Overrides(backends=("native",), timeout=1.0)]


@st.composite
def broken_suites(draw):
    """(suite text, the key replaced, whether the value's type changed, the overrides): one value of VALID
    replaced by a value of another type (or a list by a list of other elements)."""
    family, key = draw(st.sampled_from(PLACES))
    data = json.loads(json.dumps(VALID))
    where = data if family is None else data["family"][family]
    new = draw(other_type(where[key]))
    changed = kind(new) != kind(where[key])
    where[key] = new
    return toml(data), key, changed, draw(st.sampled_from(OVERRIDES))


def check(text: str, key: str, overrides):
    """Parse as the bench does; a suite that loads must hold values of the right types."""
    try:
        suite = parse_suite(text, "fuzz.toml", overrides, check_backends=True)
    except (FormatError, UsageError) as exc:
        message = str(exc)
        assert "\n" not in message, message
        if isinstance(exc, FormatError):
            assert message.startswith("fuzz.toml:"), message
        return exc
    assert isinstance(suite.name, str) and isinstance(suite.description, str)
    assert suite.task in TASKS and all(i.task in ("", *TASKS) for i in suite.instances)
    assert all(isinstance(b, str) for i in suite.instances for b in i.backends)
    assert all(isinstance(i.timeout, (float, type(None))) for i in suite.instances)
    return None


def test_the_valid_suite_is_valid():
    assert check(toml(VALID), "", None) is None


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(broken_suites())
def test_a_value_of_another_type_is_a_clean_error_naming_its_key(case):
    text, key, changed, overrides = case
    error = check(text, key, overrides)
    if isinstance(error, FormatError) and changed:  # (other elements in a list may break a related key)
        assert f"{key}:" in str(error), (key, str(error))


@pytest.mark.parametrize(("line", "key"), [
    ('like = ["e2"]', "like"), ("task = []", "task"), ("task = 0", "task"), ("task = false", "task"),
    ("rule = {a = 1}", "rule"), ("name = 5", "name"), ("sizes = 4", "sizes"), ("backends = [1]", "backends"),
])
def test_the_reported_family_values_are_refused(line, key):
    family = {"name": '"f"', "sizes": "[3]", key: line.partition(" = ")[2]}  # the key's line last
    text = 'name = "s"\nbackends = ["native"]\n\n[[family]]\n' + "".join(
        f"{k} = {v}\n" for k, v in family.items() if k != key) + f"{line}\n"
    with pytest.raises(FormatError, match=rf"^s\.toml:{text.count(chr(10))}: {key}: "):
        parse_suite(text, "s.toml", check_backends=True)


@pytest.mark.parametrize("line", ["family = 5", 'family = "x"', "task = 0", "task = false", "name = 5",
                                  "description = [1]", "seeds = 1"])
def test_the_reported_suite_values_are_refused(line):
    key = line.split()[0]
    text = f'{line}\nbackends = ["native"]\n' + ('\n[[family]]\nname = "f"\nsizes = [3]\n' if key != "family" else "")
    with pytest.raises(FormatError, match=rf"^s\.toml:1: {key}: "):
        parse_suite(text, "s.toml", Overrides(families=("f",)), check_backends=True)


def sessions(db) -> int:
    if not db.exists():
        return 0
    with sqlite3.connect(db) as con:
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        return con.execute("SELECT COUNT(*) FROM sessions").fetchone()[0] if "sessions" in tables else 0


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(broken_suites())
def test_the_bench_command_stores_nothing_for_a_refused_suite(tmp_path, case):
    text, key, _, _ = case
    assume(check(text, key, None) is not None)  # a suite that loads would run a bench
    path = tmp_path / "fuzz.toml"
    path.write_text(text)
    db = tmp_path / "fuzz.sqlite"
    result = runner.invoke(app, ["bench", str(path), "--db", str(db), "--no-report"])
    assert result.exit_code == 2, result.output
    assert result.output.startswith("edgematch: ") and result.output.count("\n") == 1, result.output
    assert "Traceback" not in result.output and sessions(db) == 0


def test_a_family_task_of_the_wrong_type_leaves_no_session(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text('name = "s"\nbackends = ["native"]\n\n[[family]]\nname = "f"\nsizes = [3]\ntask = []\n')
    db = tmp_path / "b.sqlite"
    result = runner.invoke(app, ["bench", str(path), "--db", str(db)])
    assert result.exit_code == 2
    assert result.output == f"edgematch: {path}:7: task: family f: one of first, count, best, got [] (a list)\n"
    assert sessions(db) == 0
