"""The README and the pages it sends readers to (docs/, CONTRIBUTING.md): the katas, test files,
tests, commands, links and counts they name exist and agree with the catalogue."""

import ast
import re
import sys
from pathlib import Path

import pytest

from torch_katas import catalog, cli

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
KATAS = catalog.load(ROOT)
README = "README.md"
PAGES = {
    path.relative_to(ROOT).as_posix(): path.read_text(encoding="utf-8")
    for path in [ROOT / README, ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]
}
# What the pages show as code: fenced blocks and `inline` spans.
CODE = {
    page: re.findall(r"```.*?```|`[^`\n]+`", text, flags=re.DOTALL) for page, text in PAGES.items()
}
# A kata file anywhere in them: katas/q06_gradients.py, solutions/..., q06_gradients__typo.py.
KATA_FILE = re.compile(r"(?:(katas|solutions)/)?\b(q\d\d_[a-z0-9_]+?)(_test)?(?:__\w+)?\.py\b")
# The kata CONTRIBUTING.md's walkthrough adds: named there, in no catalogue.
NEW_KATA = re.search(r'^module = "(q\d\d_\w+)"$', PAGES["CONTRIBUTING.md"], re.MULTILINE)[1]


def names_of_tests(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}


def test_the_readme_is_read_in_two_minutes_and_sends_readers_to_every_page():
    readme = PAGES[README]
    assert len(readme.encode()) < 10_000, "the README is for a learner's first two minutes"
    linked = set(re.findall(r"\]\(([^)#]+\.md)\)", readme))
    assert linked == set(PAGES) - {README}, "the README links every page of docs/"


def test_the_pages_show_code_to_check():
    text = "".join(PAGES.values())
    assert KATA_FILE.search(text) and "katas watch" in text and " -k " in text


def kata_files() -> list[tuple[str, str]]:
    return sorted({(page, m[0]) for page, text in PAGES.items() for m in KATA_FILE.finditer(text)})


@pytest.mark.parametrize(("page", "name"), kata_files())
def test_every_kata_file_named_exists(page, name):
    match = KATA_FILE.search(name)
    folder, module, test = match[1], match[2], match[3]
    if module == NEW_KATA and module not in KATAS:
        return  # the walkthrough's kata, which its reader is about to add
    assert module in KATAS, f"{page} names {match[0]}, but no kata is {module}"
    if folder:
        path = ROOT / folder / f"{module}{test or ''}.py"
        assert path.is_file(), f"{page} names {match[0]}, which does not exist"


def selections() -> list[tuple[str, str, str]]:
    """(page, test file, test name or -k expression) for each test a page selects."""
    found = []
    for page, codes in CODE.items():
        for code in codes:
            found += [(page, *pair) for pair in re.findall(r"(katas/q\w+_test\.py)::(\w+)", code)]
            found += [(page, *pair) for pair in re.findall(r"(katas/q\w+_test\.py) -k (\w+)", code)]
    return [selection for selection in found if catalog.module_of(Path(selection[1])) in KATAS]


@pytest.mark.parametrize(("page", "path", "name"), selections())
def test_every_test_selected_exists(page, path, name):
    tests = names_of_tests(ROOT / path)
    # A node id names a test; -k matches part of a name.
    assert any(name in test for test in tests), f"{page}: no test in {path} matches {name!r}"


def test_they_select_some_tests():
    assert len(selections()) >= 2


# `katas CMD` where a command starts: at the start of the code, a line, or after && ; | (
COMMAND = re.compile(r"(?:^|[\n`(;|]|&&)\s*(?:katas|python -m torch_katas) ([a-z]+)")
COMMANDS = {
    page: {name for code in codes for name in COMMAND.findall(code)} for page, codes in CODE.items()
}


@pytest.mark.parametrize(
    ("page", "command"), sorted((page, name) for page, names in COMMANDS.items() for name in names)
)
def test_every_katas_command_named_exists(page, command, capsys):
    with pytest.raises(SystemExit) as exit:
        cli.main([command, "--help"])
    assert exit.value.code == 0, f"{page} names `katas {command}`, which does not exist"


def test_the_readme_names_the_learner_commands():
    assert {"next", "watch", "hint", "solution", "reset", "restore"} <= COMMANDS[README]


def test_the_topics_listed_are_the_catalogues_in_order():
    lines = [
        line[1]
        for text in PAGES.values()
        for line in re.finditer(r"Topics \(each is a pytest marker\): (.*?)\. ", text, re.DOTALL)
    ]
    assert lines, "no page lists the topics"
    for line in lines:
        assert re.findall(r"`(\w+)`", line) == catalog.topics(ROOT)


# A count of katas: "48 katas", "48 pytest katas", "katas out of 48", "k/48".
COUNT = re.compile(r"\b(\d+) (?:pytest )?katas\b|\bkatas out of (\d+)\b|\bk/(\d+)\b")


@pytest.mark.parametrize("page", PAGES)
def test_every_count_of_katas_is_the_catalogues(page):
    counts = {int(next(filter(None, m.groups()))) for m in COUNT.finditer(PAGES[page])}
    assert counts <= {len(KATAS)}, (
        f"{page} counts {sorted(counts)} katas; the catalogue has {len(KATAS)}: "
        "say it without the number, or as the catalogue does"
    )


@pytest.mark.parametrize("page", PAGES)
def test_every_link_to_a_file_leads_to_one(page):
    base = (ROOT / page).parent
    targets = re.findall(r"\]\((?!https?://)([^)#\s]+)[^)]*\)", PAGES[page])
    missing = [target for target in targets if not (base / target).exists()]
    assert not missing, f"{page} links to files that do not exist: {missing}"


def test_the_readmes_test_command_is_the_one_ci_runs():
    workflow = (ROOT / ".github" / "workflows" / "ci.yml").read_text(encoding="utf-8")
    assert "run: bash .ci/run" in workflow, "GitHub's Linux job runs .ci/run, not a copy of it"
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    (command,) = re.findall(r"^pytest .*$", ci, re.MULTILINE)
    assert any(command in code for code in CODE[README]), (
        f".ci/run runs `{command}`, which is not the README's test command"
    )


def test_every_kata_number_and_topic_in_a_command_exists():
    numbers = {kata.number for kata in KATAS.values()}
    markers = {*catalog.topics(ROOT), "slow", "cuda"}
    for page, codes in CODE.items():
        for code in codes:
            for args in re.findall(r"katas (?:[a-z]+ )+((?:\d+ ?)+)", code):
                unknown = {int(n) for n in args.split()} - numbers
                assert not unknown, f"{page}: `{code}` names katas {sorted(unknown)}: none is"
            for marker in re.findall(r"pytest [^\n`]*?-m \"?(?:not )?(\w+)", code):
                assert marker in markers, f"{page}: `{code}` selects {marker!r}: no such marker"


def test_every_extra_named_exists():
    with (ROOT / "pyproject.toml").open("rb") as file:
        extras = set(tomllib.load(file)["project"]["optional-dependencies"])
    named = {
        (page, extra)
        for page, codes in CODE.items()
        for code in codes
        for extra in re.findall(r"\.\[(\w+)\]", code)
    }
    assert named, "no page names an extra"
    unknown = sorted((page, extra) for page, extra in named if extra not in extras)
    assert not unknown, f"extras named but not in pyproject.toml: {unknown}"


@pytest.mark.parametrize("page", PAGES)
def test_every_kata_named_by_number_exists(page):
    """ "kata 23", "kata 37's", "katas 2 and 35": the numbers of katas the catalogue has (or of
    the walkthrough's new kata)."""
    text = PAGES[page]
    named = {int(n) for n in re.findall(r"\b[Kk]ata (\d+)\b", text)}
    named |= {int(n) for pair in re.findall(r"\b[Kk]atas (\d+) and (\d+)\b", text) for n in pair}
    known = {kata.number for kata in KATAS.values()} | {int(NEW_KATA[1:3])}
    assert named <= known, f"{page} names katas {sorted(named - known)}, which do not exist"
