"""The CNF header names every variable (issue 22, item 9): one ``c var`` line per variable ``1..n`` of the
``p cnf`` line, the cardinality encodings' auxiliary variables by the constraint they serve."""

import re

import pytest

import edgematch
from edgematch.encodings.cnf import AMO_ENCODINGS, CnfOptions, encode, to_dimacs

pytest.importorskip("pysat")

HUNDE = edgematch.read_puzzle("examples/hunde.hunde")  # two identical tiles: at-most-2 / at-least-2 too
VAR = re.compile(r"^c var (\d+) = (.+)$")


def header(text: str) -> tuple[int, dict[int, list[str]]]:
    """The ``p cnf`` variable count and each variable's ``c var`` lines."""
    named: dict[int, list[str]] = {}
    count = 0
    for line in text.splitlines():
        if match := VAR.match(line):
            named.setdefault(int(match[1]), []).append(match[2])
        elif line.startswith("p cnf "):
            count = int(line.split()[2])
    return count, named


@pytest.mark.parametrize("one_to_one", [True, False])
@pytest.mark.parametrize("amo", AMO_ENCODINGS)
def test_every_variable_is_named_once(amo, one_to_one):
    enc = encode(HUNDE, CnfOptions(amo=amo, one_to_one=one_to_one))
    count, named = header(to_dimacs(enc, "hunde"))
    assert count == enc.variables and sorted(named) == list(range(1, count + 1))
    assert all(len(lines) == 1 for lines in named.values())
    aux = [lines[0] for lines in named.values() if lines[0].startswith("aux")]
    assert all(re.fullmatch(r"aux #\d+ of \w+ at-(most|least)-\d+ over .+'s placements", a) for a in aux), aux[:3]
    if amo != "pairwise":  # pairwise adds no variables; every other encoding does
        assert any(f"of {amo} at-most-1 over cell 0's placements" in a for a in aux)


def test_identical_tiles_name_their_bound_and_both_tiles():
    enc = encode(HUNDE, CnfOptions(amo="ladder"))
    _, named = header(to_dimacs(enc, "hunde"))
    text = [lines[0] for lines in named.values()]
    # the copies' bound: at least and at most 2 of the placements of both tiles, by the sequential counter
    assert any(re.search(r"seqcounter at-least-2 over tiles \d+,\d+'s placements", t) for t in text)
    assert any(re.search(r"seqcounter at-most-2 over tiles \d+,\d+'s placements", t) for t in text)
