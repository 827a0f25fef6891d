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


# ----- to_dimacs names the variables in linear time, the same words as before (issue 22 review) -----------


def reference_dimacs(enc, title: str) -> str:
    """The DIMACS text as the header promises it, written the plain way: each auxiliary variable looked up
    by scanning the runs (no bisect, no cache), every other variable by its pool key."""
    from edgematch.encodings.cnf import fingerprint

    def words(var: int) -> str:
        for run in enc.aux:
            if run.first <= var <= run.last:
                return f"aux #{var - run.first + 1} of {run.what}"
        key = enc.pool.obj(var)
        if key is None:
            return f"aux {var}"
        if key[0] == "x":
            _, cell, t, r = key
            return f"cell {cell} holds tile {','.join(str(tile) for tile, _ in enc.types.members[t])} turned {r}"
        seam = enc.domains.seams[key[1]]
        return f"seam {seam.a}/{seam.b} has label {key[2]}"

    lines = [f"c edgematch CNF: {title}", f"c options {enc.options.words()}",
             f"c puzzle {fingerprint(enc.domains.puzzle)}"]
    lines += [f"c var {var} = {words(var)}" for var in range(1, enc.variables + 1)]
    lines.append(f"p cnf {enc.variables} {len(enc.clauses)}")
    lines += [" ".join(map(str, clause)) + " 0" for clause in enc.clauses]
    return "\n".join(lines) + "\n"


def puzzles():
    from edgematch.core.generator import GeneratorSpec, generate

    return {"hunde": HUNDE, "insects": edgematch.read_puzzle("examples/insects.arc"),
            "e2-6x6": generate(GeneratorSpec(6, 6, like="e2", seed=3))[0],
            "5x4": generate(GeneratorSpec(5, 4, colours=3, seed=2))[0]}


@pytest.mark.parametrize("amo", ["ladder", "seqcounter", "pairwise", "totalizer"])
def test_to_dimacs_is_the_reference_text_byte_for_byte(amo):
    for name, puzzle in puzzles().items():
        enc = encode(puzzle, CnfOptions(amo=amo))
        assert to_dimacs(enc, name) == reference_dimacs(enc, name), name


class CountedRuns(list):
    """A list of runs that counts how often it is walked whole."""

    walks = 0

    def __iter__(self):
        CountedRuns.walks += 1
        return super().__iter__()


def test_to_dimacs_walks_the_auxiliary_runs_a_bounded_number_of_times():
    """Naming n auxiliary variables must not rebuild the list of runs once per variable (quadratic: 0.8 s
    on a 12x12 board with amo=ladder, more than the encoding itself)."""
    enc = encode(puzzles()["e2-6x6"], CnfOptions(amo="ladder"))
    aux_vars = sum(run.last - run.first + 1 for run in enc.aux)
    assert aux_vars > 500
    expected = reference_dimacs(enc, "e2")
    enc.aux = CountedRuns(enc.aux)
    CountedRuns.walks = 0
    assert to_dimacs(enc, "e2") == expected
    assert CountedRuns.walks <= 2, f"{CountedRuns.walks} walks over the runs for {aux_vars} auxiliary variables"
