"""The README's examples name katas, test files, tests and commands that exist."""

import ast
import re
from pathlib import Path

import pytest

from torch_katas import catalog, cli

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
KATAS = catalog.load(ROOT)
# What the README shows as code: fenced blocks and `inline` spans.
CODE = re.findall(r"```.*?```|`[^`\n]+`", README, flags=re.DOTALL)
# A kata file anywhere in it: katas/q06_gradients.py, solutions/..., q06_gradients__typo.py.
KATA_FILE = re.compile(r"(?:(katas|solutions)/)?\b(q\d\d_[a-z0-9_]+?)(_test)?(?:__\w+)?\.py\b")


def names_of_tests(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}


def test_the_readme_shows_code_to_check():
    assert KATA_FILE.search(README) and "katas watch" in README and " -k " in README


@pytest.mark.parametrize("name", sorted({match[0] for match in KATA_FILE.finditer(README)}))
def test_every_kata_file_it_names_exists(name):
    match = KATA_FILE.search(name)
    folder, module, test = match[1], match[2], match[3]
    assert module in KATAS, f"README names {match[0]}, but no kata is {module}"
    if folder:
        path = ROOT / folder / f"{module}{test or ''}.py"
        assert path.is_file(), f"README names {match[0]}, which does not exist"


def selections() -> list[tuple[str, str]]:
    """(test file, test name or -k expression) for each test the README selects."""
    found = []
    for code in CODE:
        found += re.findall(r"(katas/q\w+_test\.py)::(\w+)", code)
        found += re.findall(r"(katas/q\w+_test\.py) -k (\w+)", code)
    return found


@pytest.mark.parametrize(("path", "name"), selections())
def test_every_test_it_selects_exists(path, name):
    tests = names_of_tests(ROOT / path)
    # A node id names a test; -k matches part of a name.
    assert any(name in test for test in tests), f"no test in {path} matches {name!r}"


def test_it_selects_some_tests():
    assert len(selections()) >= 2


# `katas CMD` where a command starts: at the start of the code, a line, or after && ; | (
COMMAND = re.compile(r"(?:^|[\n`(;|]|&&)\s*(?:katas|python -m torch_katas) ([a-z]+)")
COMMANDS = sorted({name for code in CODE for name in COMMAND.findall(code)})


@pytest.mark.parametrize("command", COMMANDS)
def test_every_katas_command_it_names_exists(command, capsys):
    with pytest.raises(SystemExit) as exit:
        cli.main([command, "--help"])
    assert exit.value.code == 0, f"README names `katas {command}`, which does not exist"


def test_it_names_the_learner_commands():
    assert {"next", "watch", "hint", "solution", "reset", "restore"} <= set(COMMANDS)


def test_the_topics_it_lists_are_the_catalogues_in_order():
    line = re.search(r"Topics \(each is a pytest marker\): (.*?)\. ", README, re.DOTALL)
    assert line, "README lists no topics"
    assert re.findall(r"`(\w+)`", line[1]) == catalog.topics(ROOT)
