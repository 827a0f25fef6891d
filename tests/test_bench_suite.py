"""Benchmark suites: the built-in ones load and expand; bad suite files are named with their line."""

import pytest

from edgematch.bench.suite import builtin_suites, load_suite, parse_suite
from edgematch.core.generator import generate
from edgematch.errors import FormatError


def test_builtin_suites_load_and_generate():
    assert {"smoke", "default", "scaling"} <= set(builtin_suites())
    for name in builtin_suites():
        suite = load_suite(name)
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
    with pytest.raises(FormatError, match="built-in suites: default, scaling, smoke"):
        load_suite("nope")


def test_an_instance_named_twice_is_refused():
    with pytest.raises(FormatError, match="framed/4x4/seed1 appears twice"):
        parse_suite('backends = ["native"]\nseeds = [1, 1]\n[[family]]\nname = "framed"\nsizes = [4]\n')


def test_families_override_keeps_only_those_named():
    from edgematch.bench.suite import Overrides
    from edgematch.errors import UsageError

    whole = load_suite("scaling")
    medium = load_suite("scaling", Overrides(families=("framed-medium",), seeds=(4, 5)))
    assert {i.family for i in medium.instances} == {"framed-medium"}
    assert len(medium.instances) == 2 * len({i.size for i in whole.instances if i.family == "framed-medium"})
    with pytest.raises(UsageError, match="no family framed-tiny in the suite"):
        load_suite("scaling", Overrides(families=("framed-tiny",)))
