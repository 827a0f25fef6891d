"""Benchmark suites: the built-in ones load and expand; bad suite files are named with their line."""

import pytest

from edgematch.bench.suite import builtin_suites, load_suite, parse_suite
from edgematch.core.analysis import facts
from edgematch.core.generator import generate, peak_colours
from edgematch.errors import FormatError


def test_the_hard_suite_holds_peak_boards_of_every_rim_count():
    """Each board's colours as its own analysis counts them: the rim the family names, the inside at the peak."""
    hard = load_suite("hard")
    assert hard.timeout >= 600 and hard.task == "first"
    rims = set()
    for instance in hard.instances:
        got = facts(instance.puzzle())
        side = got.width
        assert 8 <= side <= 10 and got.frame is not None
        assert got.inner_colours == peak_colours(side, side, got.rim_colours)
        assert abs(got.log10_expected_solutions) < 3  # within a factor of 1,000 of one solution
        rims.add(got.rim_colours)
    assert rims == {2, 3, 4, 5}


def test_builtin_suites_load_and_generate(scaling_suite):
    assert {"smoke", "default", "scaling"} <= set(builtin_suites())
    for name in builtin_suites():
        suite = scaling_suite if name == "scaling" else load_suite(name)
        assert suite.instances and suite.backends
        keys = [i.key for i in suite.instances]
        assert len(keys) == len(set(keys))
    smoke = load_suite("smoke")
    assert len(smoke.runs()) == len(smoke.instances) * len(smoke.backends)
    tiles = [instance.tiles for instance, _ in smoke.runs()]
    assert tiles == sorted(tiles)  # small boards first
    puzzle, _ = generate(smoke.instances[0].spec)
    assert puzzle.size == smoke.instances[0].tiles


def test_colours_follow_the_size():
    suite = parse_suite('backends = ["native"]\nseeds = [1]\n[[family]]\nname = "f"\nsizes = [5, 7]\n'
                        'framed = true\nborder_colours = 3\ninner_colours = "size-2"\n')
    assert [i.spec.inner_colours for i in suite.instances] == [3, 5]


@pytest.mark.parametrize(("text", "line", "fragment"), [
    ('backends = ["native"]\ntask = "all"\n[[family]]\nname = "f"\nsizes = [3]\n', 2, "task: must be one of"),
    ('backends = ["native"]\ntimeout = -1\n[[family]]\nname = "f"\nsizes = [3]\n', 2, "positive number"),
    ('backends = []\n[[family]]\nname = "f"\nsizes = [3]\n', 1, "backends: must be a non-empty list"),
    ('backends = ["native"]\n[[family]]\nname = "f"\nsizes = [3]\ncolors = 4\n', 5, "colors: unknown family"),
    ('backends = ["native"]\n[[family]]\nname = "f"\nsizes = ["3y3"]\n', 4, "sizes: family f"),
    ('backends = ["native"]\n[[family]]\nname = "f"\nsizes = [3]\ncolours = "size-5"\n', 5, "-2 colours"),
    ('backends = ["native"\n', 1, "invalid TOML"),
])
def test_bad_suites_name_the_line(text, line, fragment):
    with pytest.raises(FormatError) as info:
        parse_suite(text, "mine.toml")
    assert str(info.value).startswith(f"mine.toml:{line}: ") and fragment in str(info.value)


def test_unknown_suite_lists_the_builtin_ones():
    with pytest.raises(FormatError, match="built-in suites: default, families, hard, scaling, smoke"):
        load_suite("nope")


def test_an_instance_named_twice_is_refused():
    with pytest.raises(FormatError, match="framed/4x4/seed1 appears twice"):
        parse_suite('backends = ["native"]\nseeds = [1, 1]\n[[family]]\nname = "framed"\nsizes = [4]\n')


def test_families_override_keeps_only_those_named(scaling_suite):
    from edgematch.bench.suite import Overrides
    from edgematch.errors import UsageError

    whole = scaling_suite
    medium = load_suite("scaling", Overrides(families=("framed-medium",), seeds=(4, 5)))
    assert {i.family for i in medium.instances} == {"framed-medium"}
    assert len(medium.instances) == 2 * len({i.size for i in whole.instances if i.family == "framed-medium"})
    with pytest.raises(UsageError, match="no family framed-tiny in the suite"):
        load_suite("scaling", Overrides(families=("framed-tiny",)))


# -- families like real puzzles --------------------------------------------------------------------------

LIKE = ('backends = ["native"]\nseeds = [1, 2]\n'
        '[[family]]\nname = "clue"\nlike = "clue"\nsizes = [6, "12x6"]\n'
        '[[family]]\nname = "e2"\nlike = "e2"\nsizes = [6]\nhint = true\n'
        '[[family]]\nname = "cards-unique"\nlike = "cards"\nsizes = [3]\nunique = true\n')


def test_like_families_expand_with_the_family_settings():
    from edgematch.core.checker import check

    suite = parse_suite(LIKE, "like.toml")
    keys = [i.key for i in suite.instances]
    assert keys[:4] == ["clue/6x6/seed1", "clue/6x6/seed2", "clue/12x6/seed1", "clue/12x6/seed2"]
    clue = suite.instances[0]
    assert (clue.spec.like, clue.spec.framed, clue.spec.border_colours, clue.spec.inner_colours) == ("clue", True, 4, 3)
    e2 = next(i for i in suite.instances if i.family == "e2")
    puzzle, planted = generate(e2.spec)
    assert puzzle.hints and puzzle.hints[0].cell == 3 * 6 + 2 and check(puzzle, planted).ok
    assert puzzle == e2.puzzle()  # regenerated the same every time


def test_a_unique_family_stores_the_attempt_found_so_the_bench_regenerates_it():
    from edgematch.bench.suite import Instance
    from edgematch.solvers.api import count

    suite = parse_suite(LIKE, "like.toml")
    unique = [i for i in suite.instances if i.family == "cards-unique"]
    assert [i.key for i in unique] == ["cards-unique/3x3/seed1", "cards-unique/3x3/seed2"]
    for instance in unique:
        assert instance.unique and instance.planted
        assert count(instance.puzzle(), distinct=True, backend="cpsat", time_limit=60).distinct == 1
        again = Instance.from_dict(instance.as_dict())
        assert again == instance and again.puzzle() == instance.puzzle()
    # a stored instance from before these keys still loads
    old = {k: v for k, v in unique[0].as_dict().items() if k != "unique"}
    assert not Instance.from_dict(old).unique


def test_colours_override_sets_the_inner_colours_of_a_family_framed_by_its_like():
    from edgematch.bench.suite import Overrides

    suite = parse_suite(LIKE.replace("unique = true", "unique = false"), "like.toml", Overrides(colours="5"))
    clue = next(i for i in suite.instances if i.family == "clue")
    cards = next(i for i in suite.instances if i.family == "cards-unique")
    assert (clue.spec.border_colours, clue.spec.inner_colours) == (4, 5)
    assert cards.spec.colours == 5


@pytest.mark.parametrize(("family", "line", "fragment"), [
    ('like = "tetra"', 5, "like: family f: one of clue, e2, tetravex, cards, peak, got 'tetra'"),
    ('like = "tetravex"\nframed = true', 6, "framed: family f: tetravex puzzles are unframed"),
    ('like = "clue"\nframed = false', 6, "framed: family f: clue puzzles are framed"),
    ('like = "cards"\ninner_colours = 3', 6, "inner_colours: family f: cards puzzles are unframed"),
    ('like = "tetravex"\nrule = "signed"', 6, "rule: family f: tetravex puzzles carry the digits"),
    ('like = "clue"\nunique = "yes"', 6, "unique: family f: true or false"),
    ('like = "e2"\nhint = 1', 6, "hint: family f: true or false"),
])
def test_bad_like_settings_name_their_line(family, line, fragment):
    text = f'backends = ["native"]\n[[family]]\nname = "f"\nsizes = [4]\n{family}\n'
    with pytest.raises(FormatError) as info:
        parse_suite(text, "mine.toml")
    assert str(info.value).startswith(f"mine.toml:{line}: ") and fragment in str(info.value)


def test_a_unique_family_with_no_unique_puzzle_names_its_line(monkeypatch):
    from edgematch.errors import UsageError
    from edgematch.solvers import unique

    def none_found(spec):
        raise UsageError(f"no puzzle with exactly one distinct solution from {spec.name} in 3 tries")

    monkeypatch.setattr(unique, "unique_puzzle", none_found)
    text = 'backends = ["native"]\n[[family]]\nname = "f"\nlike = "clue"\nsizes = [6]\nunique = true\n'
    with pytest.raises(FormatError, match=r"^mine.toml:6: unique: family f: no puzzle .* clue 6x6 seed 1 in 3 tries"):
        parse_suite(text, "mine.toml")


def test_the_builtin_suites_hold_the_new_families():
    from edgematch.bench.suite import Overrides

    named = Overrides(families=("clue", "e2", "tetravex", "cards"))  # (not the unique ones: no search)
    for name in ("default", "scaling"):
        likes = {i.spec.like for i in load_suite(name, named).instances}
        assert likes == {"clue", "e2", "tetravex", "cards"}
    default = load_suite("default")
    per_family = {}
    for instance in default.instances:
        if instance.spec.like:
            per_family[instance.spec.like] = per_family.get(instance.spec.like, 0) + 1
    assert max(per_family.values()) <= 6  # the default suite stays cheap
