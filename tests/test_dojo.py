"""A dojo's commands, tried as a facilitator and a room of learners use them: topics
(`katas run TOPIC`, `katas next --topic`, `katas watch TOPIC`, the summary after `pytest -m`),
`katas show` for a projector, and the room's board (`katas progress --json`, `katas board`)
in the terminal and in a real headless browser."""

import json
import os
import pty
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_cli import Screen, checkout

from torch_katas import catalog, cli, status
from torch_katas.store import STATUS_KEY, Store

pytestmark = pytest.mark.timeout(600)

# q01 and q06: autograd; q02 and q35: tensors, which comes first in the suggested order.
MODULES = ["q01_fit_line", "q02_numpy_bridge", "q06_gradients", "q35_tensor_creation"]


def katas(*args: object) -> int:
    return cli.main([str(a) for a in args])


@pytest.fixture(scope="module")
def room(tmp_path_factory):
    return checkout(tmp_path_factory.mktemp("dojo") / "suite", MODULES, wrong_answers=False)


def pytest_in(root: Path, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:randomly", "--device", "cpu", *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return done.stdout + done.stderr


def test_a_run_of_one_topic_names_the_next_kata_within_it(room):
    Store.for_root(room).write(STATUS_KEY, {})
    whole = pytest_in(room)
    assert "Start here: q02 " in whole, whole[-2000:]  # tensors first
    Store.for_root(room).write(STATUS_KEY, {})
    topic = pytest_in(room, "-m", "autograd")
    assert "Start here: q01 " in topic, topic[-2000:]
    assert "q02" not in topic.split("torch-katas progress")[1]


def test_katas_run_takes_a_topic_and_goes_on_within_it(room):
    Store.for_root(room).write(STATUS_KEY, {})
    command = [sys.executable, "-m", "torch_katas", "run", "autograd", "--", "--device", "cpu"]
    done = subprocess.run(command, cwd=room, capture_output=True, text=True, timeout=300)
    output = done.stdout + done.stderr
    assert "autograd: 0 of 2 solved; not started: q01 q06" in output, output[-2000:]
    assert "q02" not in output and "q35" not in output  # the tensors katas did not run
    assert "Start here: q01 " in output  # not q02, first of all katas


def test_next_takes_a_topic(room, capsys):
    Store.for_root(room).write(STATUS_KEY, {"q01_fit_line": status.SOLVED})
    assert katas("--root", room, "next", "--topic", "autograd") == 0
    shown = capsys.readouterr().out
    assert shown.startswith("q06 ") and "katas watch 6 --topic autograd" in shown
    assert katas("--root", room, "next") == 0
    assert capsys.readouterr().out.startswith("q02 ")
    Store.for_root(room).write(
        STATUS_KEY, dict.fromkeys(["q01_fit_line", "q06_gradients"], status.SOLVED)
    )
    assert katas("--root", room, "next", "--topic", "autograd") == 0
    assert capsys.readouterr().out.strip() == "Every kata of autograd is solved."
    assert katas("--root", room, "next", "--topic", "autograde") == 2
    assert "no topic 'autograde'; topics: autograd, tensors" in capsys.readouterr().err


def watch_screen(root: Path, *args: str):
    terminal, child = pty.openpty()
    command = [sys.executable, "-m", "torch_katas", "watch", *args, "--", "--device", "cpu"]
    process = subprocess.Popen(
        command, cwd=root, stdin=child, stdout=child, stderr=child, start_new_session=True
    )
    os.close(child)
    return process, terminal, Screen(terminal)


@pytest.mark.parametrize(
    ("args", "first", "footer"),
    [
        # No number: the current kata, the one `katas next` names.
        ((), "q02", "n: q35 "),
        # A topic: its first unsolved kata, and `n` stays within it.
        (("autograd",), "q06", "(every other kata of autograd is solved)"),
        (("--topic", "tensors"), "q02", "(every other kata of tensors is solved)"),
    ],
)
def test_watch_without_a_number_takes_the_current_kata(room, args, first, footer):
    solved = dict.fromkeys(["q01_fit_line", "q35_tensor_creation"], status.SOLVED)
    Store.for_root(room).write(STATUS_KEY, {} if not args else solved)
    process, terminal, screen = watch_screen(room, *args)
    try:
        screen.wait_for(f"katas watch: {first} ")
        screen.wait_for(footer)
        os.write(terminal, b"q")
        assert process.wait(timeout=30) == 0
    finally:
        process.kill()
        process.wait()
        os.close(terminal)


def test_hint_without_a_number_takes_the_current_kata(room, capsys):
    kata = catalog.load(room)["q02_numpy_bridge"]
    Store.for_root(room).write(STATUS_KEY, {})
    assert katas("--root", room, "hint") == 0
    assert capsys.readouterr().out.startswith(f"q02 {kata.title}\n  hint 1/")
    Store.for_root(room).write(STATUS_KEY, dict.fromkeys(MODULES, status.SOLVED))
    assert katas("--root", room, "hint") == 2
    assert "every kata is solved: give a kata's number" in capsys.readouterr().err


# -- katas show -------------------------------------------------------------------------------


def test_show_puts_the_task_and_contract_without_the_stubs_code(room, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "72")
    assert katas("--root", room, "show", 6) == 0
    shown = capsys.readouterr().out
    lines = shown.splitlines()
    assert lines[0].startswith("q06  Gradients") and set(lines[1]) == {"="}
    assert "Task: write `grad_of(f, x)`" in " ".join(shown.split())
    assert "grad_of(f: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor)" in shown
    assert "  - Raises ValueError if f(x) is not a 0-dim tensor" in shown
    assert "  >>> grad_of(lambda t: (t**2).sum(), x)" in shown
    for code in ("NotImplementedError", "TODO", "import torch", "def "):
        assert code not in shown, code
    prose = [line for line in lines if not line.lstrip().startswith(">>>")]  # code as written
    assert all(len(line) <= 72 for line in prose), max(prose, key=len)
    page = room / "q06.html"
    assert katas("--root", room, "show", 6, "--html", page) == 0
    assert "font:28px" in page.read_text() and "hessian_vector_product" in page.read_text()


# -- the room's board ---------------------------------------------------------------------------


def progress_json(root: Path, name: str, statuses: dict[str, str], capsys) -> dict:
    Store.for_root(root).write(STATUS_KEY, statuses)
    assert katas("--root", root, "progress", "--json", "--name", name) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture
def exported(room, tmp_path, capsys):
    """Three laptops' `katas progress --json`, collected in one folder."""
    folder = tmp_path / "room"
    folder.mkdir()
    laptops = {
        "ana": {"q01_fit_line": status.SOLVED, "q06_gradients": status.PARTLY},
        "ben": {"q01_fit_line": status.SOLVED, "q06_gradients": status.SOLVED},
        "chi": {"q01_fit_line": status.NOT_STARTED},
    }
    for name, statuses in laptops.items():
        record = progress_json(room, name, statuses, capsys)
        (folder / f"{name}.json").write_text(json.dumps(record))
    return folder


def test_progress_json_is_what_the_board_reads(room, capsys):
    record = progress_json(room, "ana", {"q01_fit_line": status.SOLVED}, capsys)
    assert record["name"] == "ana" and record["solved"] == 1
    assert record["katas"]["q01_fit_line"]["status"] == status.SOLVED
    assert record["katas"]["q02_numpy_bridge"]["status"] == "not run"
    assert set(record["katas"]) == set(MODULES)


def test_board_shows_the_room_per_kata_and_per_person(room, exported, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    assert katas("--root", room, "board", exported, "--topic", "autograd") == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["ana", "ben", "chi", "solved"]
    q01 = next(line for line in lines if line.startswith("q01 "))
    q06 = next(line for line in lines if line.startswith("q06 "))
    assert q01.split()[-4:] == ["✓", "✓", "·", "2/3"]
    assert q06.split()[-3:] == ["~", "✓", "1/3"]
    assert lines[3].split() == ["1", "2", "0", "solved"]  # per person
    assert not any(line.startswith("q02") for line in lines)  # another topic
    assert all(len(line) <= 80 for line in lines)
    (exported / "bad.json").write_text("{}")
    assert katas("--root", room, "board", exported) == 2
    assert "bad.json is not the output of katas progress --json" in capsys.readouterr().err


CHROMIUM = next(
    (
        shutil.which(name)
        for name in ("chromium", "chromium-browser", "google-chrome")
        if shutil.which(name)
    ),
    None,
)


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH (apt-get install chromium)")
def test_board_page_in_a_headless_browser(room, exported, tmp_path, capsys):
    page = tmp_path / "board.html"
    assert katas("--root", room, "board", exported / "ana.json", exported, "--html", page) == 0
    assert f"wrote {page}" in capsys.readouterr().out
    browser = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        f"--user-data-dir={tmp_path / 'profile'}",
    ]
    done = subprocess.run(
        [*browser, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120
    )
    dom = done.stdout
    # ana's file, given and in the folder, counts once.
    assert "<h1>torch-katas: every topic, 3 people</h1>" in dom, done.stderr[-2000:]
    assert dom.count('class="person"') == 3
    row = dom.split('<tr id="q06_gradients">')[1].split("</tr>")[0]
    assert row.count('class="mark partly"') == 1 and row.count('class="mark solved"') == 1
    assert row.count('class="mark not-run"') == 1 and "<td>1/3</td>" in row
    assert '<meta http-equiv="refresh" content="30">' in dom
    shot = Path(os.environ.get("TORCH_KATAS_BOARD_SCREENSHOT", tmp_path / "board.png"))
    subprocess.run(
        [*browser, f"--screenshot={shot}", "--window-size=1200,800", page.as_uri()],
        capture_output=True,
        timeout=120,
        check=True,
    )
    assert shot.stat().st_size > 0
