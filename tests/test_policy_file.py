"""The policy file ``auto`` reads (issue 22, items 22 and 6): a file that is not UTF-8 or has the wrong shape
is one line naming the file and the problem in every ``auto`` command, never a traceback (fuzzed with
hypothesis); and ``--explain`` with an option the measured rule's backend cannot take names that rule, that
backend and what runs instead, never "no measured rule"."""

import copy
import json
import os
import subprocess
import sys
import tomllib
from importlib import resources
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import edgematch
from edgematch.cli.main import load_commands
from edgematch.core.generator import GeneratorSpec, generate
from edgematch.errors import EdgematchError
from edgematch.solvers.base import Task
from edgematch.solvers.policy import Policy, PolicyError, load_policy, parse_policy

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
SHIPPED_BYTES = resources.files("edgematch.solvers").joinpath("policy.toml").read_bytes()
SHIPPED = tomllib.loads(SHIPPED_BYTES.decode())
WHERE = "/some/where/policy.toml"
runner = CliRunner()
app = load_commands()
PUZZLES = [edgematch.read_puzzle(EXAMPLES / "insects.em"), edgematch.read_puzzle(EXAMPLES / "framed4x4.puz"),
           generate(GeneratorSpec(8, 8, framed=True, border_colours=2, inner_colours=3, seed=1))[0]]


def toml_value(value) -> str:
    """``value`` as a TOML value (tables inline), for writing mutated policies."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # JSON's string escapes are TOML's (a lone surrogate is refused: also a test)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return "{" + ", ".join(f"{json.dumps(k)} = {toml_value(v)}" for k, v in value.items()) + "}"


def toml_text(data: dict) -> bytes:
    return "".join(f"{json.dumps(k)} = {toml_value(v)}\n" for k, v in data.items()).encode()


def assert_one_policy_line(data: bytes) -> Policy | None:
    """Either the policy (and ``auto`` can choose with it for every question and kind of task), or one
    PolicyError line naming the file: never another exception."""
    try:
        policy = parse_policy(data, WHERE)
    except PolicyError as exc:
        text = str(exc)
        assert text.startswith(WHERE + ":") and "\n" not in text and "not a policy file" in text, text
        event("refused: " + text.split("not a policy file: ", 1)[1].split(" ")[0])
        return None
    event("read")
    for puzzle in PUZZLES:
        for question in ("first", "count", "best"):
            for task in (None, Task(question), Task(question, options={"amo": "ladder"}), Task(question, workers=2)):
                try:
                    choice = policy.choose(puzzle, question, task)
                except EdgematchError:
                    continue
                assert isinstance(choice.backend, str) and choice.reason
    return policy


def test_the_shipped_policy_passes_its_own_check():
    policy = parse_policy(SHIPPED_BYTES, "policy.toml")
    assert len(policy.rules) == len(SHIPPED["rule"]) and policy.default == SHIPPED["default"]
    assert toml_text(SHIPPED) and parse_policy(toml_text(SHIPPED), WHERE).rules == policy.rules  # the writer


@pytest.mark.parametrize(("text", "problem"), [
    (b'default = "native"\n[source]\n# caf\xe9\n', f"{WHERE}:3: not a policy file: not UTF-8 text (byte 34 is "
                                                 "b'\\xe9')"),
    (b'default = "native"\n[source\n', "not a policy file: not TOML: "),
    (b'[source]\n', "not a policy file: no 'default' key"),
    (b'default = "native"\n', "not a policy file: no 'source' table"),
    (b'default = 5\n[source]\n', "default must be a string, got 5 (an integer)"),
    (b'default = "natve"\n[source]\n', "default: unknown backend 'natve'"),
    (b'default = "native"\nsource = 3\n', "source must be a table, got 3 (an integer)"),
    (b'default = "native"\nrule = 3\n[source]\n', "rule must be an array of [[rule]] tables"),
    (b'default = "native"\nrule = [1, 2]\n[source]\n', "rule 1: must be a [[rule]] table, got 1 (an integer)"),
    (b'default = "native"\nrules = []\n[source]\n', "unknown key(s) 'rules'"),
])
def test_a_broken_policy_is_one_line_naming_the_file_and_the_problem(text, problem):
    with pytest.raises(PolicyError) as caught:
        parse_policy(text, WHERE)
    assert problem in str(caught.value) and str(caught.value).startswith(WHERE) and "\n" not in str(caught.value)


RULE = {"question": "first", "framed": True, "rule": "same", "up_to_tiles": 36, "backend": "native"}


@pytest.mark.parametrize(("change", "problem"), [
    ({"up_to_tiles": "36"}, "rule 1: up_to_tiles must be a whole number, got '36' (a string)"),
    ({"up_to_tiles": 36.0}, "rule 1: up_to_tiles must be a whole number, got 36.0 (a number)"),
    ({"up_to_tiles": True}, "rule 1: up_to_tiles must be a whole number, got true (a boolean)"),
    ({"up_to_tiles": 0}, "rule 1: up_to_tiles must be at least 1"),
    ({"framed": "yes"}, "rule 1: framed must be true or false, got 'yes'"),
    ({"question": "all"}, "rule 1: question must be one of first, count, best, got 'all'"),
    ({"rule": "odd"}, "rule 1: rule must be one of same, signed"),
    ({"backend": "sat:cadical19"}, "rule 1: backend: unknown SAT solver 'cadical19'"),
    ({"backend": "portfolio:native+nope"}, "rule 1: backend: unknown backend 'nope'"),
    ({"confirm": 3}, "rule 1: confirm must be a string"),
    ({"evidence": ["x"]}, "rule 1: evidence must be a string"),
    ({"up_to_tile": 36}, "rule 1: unknown key(s) 'up_to_tile'"),
    ({"backend": None}, "rule 1: no 'backend' key"),
])
def test_every_rule_key_is_checked(change, problem):
    rule = {k: v for k, v in {**RULE, **change}.items() if v is not None}
    data = toml_text({"default": "native", "source": {"session": 1}, "rule": [rule]})
    with pytest.raises(PolicyError, match=None) as caught:
        parse_policy(data, WHERE)
    assert problem in str(caught.value), str(caught.value)


def test_a_rule_without_evidence_is_read_and_explained():
    policy = parse_policy(toml_text({"default": "native", "source": {}, "rule": [RULE]}), WHERE)
    assert policy.choose(PUZZLES[1], "first").backend == "native"


scalars = (st.booleans() | st.integers(-2, 10**6) | st.floats() | st.text(max_size=8)
           | st.sampled_from(["native", "natve", "sat:cadical195", "portfolio:native+nope", "first", "count",
                              "best", "same", "signed", "auto", "native:dfs", "cpsat:table", ""]))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=6)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_fuzzed_policy_shapes_give_a_policy_or_one_line(data):
    policy = copy.deepcopy(SHIPPED)
    for _ in range(data.draw(st.integers(1, 3))):
        where = data.draw(st.sampled_from(["top", "source", "rule", "rule item"]))
        if where == "rule item" and isinstance(policy.get("rule"), list) and policy["rule"]:
            at = data.draw(st.integers(0, len(policy["rule"]) - 1))
            target, keys = policy["rule"], [at]
            if isinstance(policy["rule"][at], dict) and data.draw(st.booleans()):
                target, keys = policy["rule"][at], [*policy["rule"][at], "up_to_tile", "extra"]
        elif where == "source" and isinstance(policy.get("source"), dict):
            target, keys = policy["source"], [*policy["source"], "new"]
        elif where == "rule":
            target, keys = policy, ["rule"]
        else:
            target, keys = policy, [*policy, "unknown"]
        key = data.draw(st.sampled_from(keys))
        if isinstance(target, dict) and data.draw(st.booleans()):
            target.pop(key, None)
        elif isinstance(target, dict) or key < len(target):
            target[key] = data.draw(values)
    assert_one_policy_line(toml_text(policy))


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_fuzzed_policy_bytes_give_a_policy_or_one_line(data):
    raw = bytearray(SHIPPED_BYTES)
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(raw)))
        action = data.draw(st.sampled_from(["insert", "replace", "truncate", "delete"]))
        if action == "insert":
            raw[at:at] = data.draw(st.binary(min_size=1, max_size=4) | st.sampled_from([b"\xff", b"\xc3", b"[", b"="]))
        elif action == "replace" and at < len(raw):
            raw[at] = data.draw(st.integers(0, 255))
        elif action == "truncate":
            del raw[at:]
        else:
            del raw[at:at + data.draw(st.integers(1, 40))]
    assert_one_policy_line(bytes(raw))


BROKEN = {
    "latin-1": 'default = "native"\n[source]\nsuite = "caf\xe9"\n'.encode("latin-1"),
    "rule of numbers": b'default = "native"\nrule = [1, 2]\n[source]\n',
    "default a number": b'default = 5\n[source]\n',
    "unknown backend": b'default = "native"\n[source]\n[[rule]]\nquestion = "first"\nframed = false\n'
                       b'rule = "same"\nup_to_tiles = 9\nbackend = "natve"\n',
}


@pytest.mark.parametrize("name", list(BROKEN))
def test_every_auto_command_says_one_line_for_a_broken_policy(name, tmp_path, monkeypatch):
    bad = tmp_path / "policy.toml"
    bad.write_bytes(BROKEN[name])
    monkeypatch.setenv("EDGEMATCH_POLICY", str(bad))
    for args in (["solve", str(EXAMPLES / "insects.arc")], ["solve", str(EXAMPLES / "insects.arc"), "--explain"],
                 ["count", str(EXAMPLES / "insects.em"), "--json"], ["best", str(EXAMPLES / "insects.em"), "-t", "1"]):
        result = runner.invoke(app, args)
        lines = result.output.strip().splitlines()
        assert result.exit_code == 2 and len(lines) == 1, (args, result.output)
        assert lines[0].startswith(f"edgematch: {bad}") and "not a policy file" in lines[0]
    with pytest.raises(PolicyError):
        edgematch.solve(PUZZLES[0])  # the library: the same error, an EdgematchError


def test_the_console_script_with_a_policy_that_is_not_utf8(tmp_path):
    bad = tmp_path / "policy.toml"
    bad.write_bytes(BROKEN["latin-1"])
    proc = subprocess.run([sys.executable, "-m", "edgematch", "solve", str(EXAMPLES / "insects.arc")],
                          capture_output=True, text=True, timeout=60, env={**os.environ, "EDGEMATCH_POLICY": str(bad)})
    assert proc.returncode == 2 and proc.stdout == "", proc.stdout
    assert proc.stderr.splitlines() == [f"edgematch: {bad}:3: not a policy file: not UTF-8 text (byte 41 is b'\\xe9')"]


def test_load_policy_reads_the_file_through_the_same_check(tmp_path):
    good = tmp_path / "good.toml"
    good.write_bytes(SHIPPED_BYTES)
    assert load_policy(good).origin == str(good) and load_policy(good).rules == parse_policy(SHIPPED_BYTES, "x").rules
    bad = tmp_path / "bad.toml"
    bad.write_bytes(b"\xff\xfe")
    with pytest.raises(PolicyError, match=rf"^{bad}:1: not a policy file: not UTF-8"):
        load_policy(bad)


# item 6: --explain with an option the measured rule's backend cannot take

def two_rules() -> Policy:
    return Policy({"session": 7, "suite": "s", "generated": "today", "cpu": "x"}, "native", [
        {"question": "first", "framed": True, "rule": "same", "up_to_tiles": 36, "backend": "native:restarts",
         "evidence": "e1"},
        {"question": "first", "framed": True, "rule": "same", "up_to_tiles": 64,
         "backend": "portfolio:native+native:restarts", "evidence": "e2"},
    ])


def test_explain_names_the_rule_its_backend_and_the_next_choice():
    reason = two_rules().choose(PUZZLES[1], "first", Task("first", options={"amo": "ladder"})).reason
    assert "no measured rule" not in reason
    assert "the measured rule for framed same boards up to 36 tiles -> native:restarts; e1" in reason
    assert "but native:restarts cannot take the options or workers asked for (native:restarts backend: unknown " \
           "option(s) amo" in reason
    assert "so auto passes to the next choice: sat, the first backend that can (the default, native, cannot " \
           "either)" in reason


def test_explain_names_the_rule_of_another_size_as_the_next_choice(monkeypatch):
    from edgematch.solvers.parallel import processes

    monkeypatch.setattr(processes, "usable_cores", lambda: 2)  # the portfolio rule races (not so under taskset -c 1)
    puzzle = PUZZLES[2]  # 8x8: the portfolio's rule, which takes no options; the 36-tile rule's backend does
    choice = two_rules().choose(puzzle, "first", Task("first", options={"order": "spiral"}))
    assert choice.backend == "native:restarts"
    assert "the measured rule for framed same boards up to 64 tiles -> portfolio:native+native:restarts" \
        in choice.reason
    assert "next choice: rule for framed same boards up to 36 tiles (the largest whose backend can) -> " \
           "native:restarts; e1" in choice.reason


def test_explain_on_the_shipped_policy_cites_the_same_rule_with_and_without_the_option():
    plain = runner.invoke(app, ["solve", str(EXAMPLES / "framed4x4.puz"), "--explain", "--json"])
    ladder = runner.invoke(app, ["solve", str(EXAMPLES / "framed4x4.puz"), "--explain", "--json", "-O", "amo=ladder"])
    assert plain.exit_code == 0 and ladder.exit_code == 0, ladder.output
    said, asked = json.loads(plain.stdout)["explain"], json.loads(ladder.stdout)["explain"]
    rule = said["reason"].split(": rule for ", 1)[1].split(";", 1)[0]  # "framed same boards up to 36 tiles -> native"
    assert "no measured rule" not in asked["reason"] and f"the measured rule for {rule};" in asked["reason"]
    assert f"so auto passes to the next choice: {asked['backend']}" in asked["reason"]
