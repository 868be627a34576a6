"""The notebook path: `katas notebook` writes a notebook, and its %%kata cells, run on a real
Jupyter kernel, save the learner's code and run the kata's tests as `pytest` runs them."""

import json
import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from test_cli import CATALOG, ROOT, checkout, katas

from torch_katas import catalog, status
from torch_katas.catalog import UsageError
from torch_katas.cli import commands
from torch_katas.notebook import run, stub
from torch_katas.runtime import mistakes
from torch_katas.store import PASSED_KEY, STATUS_KEY, Store

KATA = CATALOG["q02_numpy_bridge"]
OTHER = CATALOG["q13_cross_entropy"]
WRONG = mistakes.Mistake(
    ROOT / mistakes.WRONG_ANSWERS / f"q02_numpy_bridge__casts_to_float32{mistakes.SUFFIX}"
)
WRONG_MESSAGE = "to_tensor should have dtype torch.float64, got torch.float32"
BROKEN = "def to_tensor(array:\n    return array\n"  # a syntax error on line 1
EXTRA = 'pip install -e ".[notebook]"'


@pytest.fixture
def suite(tmp_path):
    """A git checkout of the suite holding katas 2 and 13, where cells may write."""
    return checkout(tmp_path / "suite", [KATA.module, OTHER.module])


def read_notebook(path: Path):
    nbformat = pytest.importorskip("nbformat", reason=f"the notebook extra: {EXTRA}")
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    return notebook


def module_docstring(code: str) -> str:
    return code.split('"""')[1]


def test_katas_notebook_writes_the_task_and_the_stub_of_each_kata(suite, tmp_path, capsys):
    pytest.importorskip("nbformat", reason=f"the notebook extra: {EXTRA}")
    out = tmp_path / "two.ipynb"
    assert katas("--root", suite, "notebook", 13, 2, "--out", out) == 0
    assert str(out) in capsys.readouterr().out
    notebook = read_notebook(out)
    assert [cell.cell_type for cell in notebook.cells] == [
        "markdown",
        "code",
        *["markdown", "code"] * 2,
    ]
    assert notebook.cells[1].source == "%load_ext torch_katas"
    sections = zip(notebook.cells[2::2], notebook.cells[3::2], strict=True)
    for (task, code), kata in zip(sections, [OTHER, KATA], strict=True):
        stub_text = kata.stub_path(suite).read_text(encoding="utf-8")
        assert task.source.startswith(f"## {kata.label} {kata.title}\n")
        # The task in Markdown: the stub's module docstring, which holds it.
        assert module_docstring(stub_text).strip() in task.source
        # Running the cell saves its text below the first line as the stub: the stub as it is.
        assert code.source == f"%%kata {kata.number}\n{stub_text}"


def test_katas_notebook_takes_every_kata_and_keeps_an_existing_notebook(suite, capsys):
    pytest.importorskip("nbformat", reason=f"the notebook extra: {EXTRA}")
    assert katas("--root", suite, "notebook") == 0
    out = suite / "katas.ipynb"
    stubs = [cell.source for cell in read_notebook(out).cells if cell.cell_type == "code"][1:]
    # Every kata, in the suggested order (topic by topic): tensors (q02) before losses (q13).
    assert [source.splitlines()[0] for source in stubs] == ["%%kata 2", "%%kata 13"]
    out.write_text("my work", encoding="utf-8")
    capsys.readouterr()
    assert katas("--root", suite, "notebook") == 2
    assert "--force" in capsys.readouterr().err
    assert out.read_text(encoding="utf-8") == "my work"
    assert katas("--root", suite, "notebook", "--force") == 0
    assert len(read_notebook(out).cells) == 6


def test_katas_notebook_has_help(capsys):
    with pytest.raises(SystemExit) as exit:
        katas("notebook", "--help")
    assert exit.value.code == 0
    assert "%%kata N" in capsys.readouterr().out


def test_saving_a_cell_keeps_the_stub_it_replaces_as_reset_does(suite, capsys):
    original = KATA.stub_path(suite).read_text(encoding="utf-8")
    assert stub.save(suite, KATA, "# first try")
    assert KATA.stub_path(suite).read_text(encoding="utf-8") == "# first try\n"
    assert commands.backups(suite, KATA) == []  # the untouched stub needs no backup
    assert not stub.save(suite, KATA, "# first try\n")  # unchanged: nothing written
    assert stub.save(suite, KATA, "# second try\n")
    assert [p.read_text(encoding="utf-8") for p in commands.backups(suite, KATA)] == [
        "# first try\n"
    ]
    assert "your attempt is saved as .katas-backups/" in capsys.readouterr().out
    with pytest.raises(UsageError, match="no code"):
        stub.save(suite, KATA, "\n  \n")
    assert katas("--root", suite, "reset", 2) == 0
    assert KATA.stub_path(suite).read_text(encoding="utf-8") == original


def test_the_extension_imports_neither_torch_nor_pytest_nor_a_kata():
    pytest.importorskip("IPython", reason=f"the notebook extra: {EXTRA}")
    code = (
        "import sys, torch_katas.notebook.magics, torch_katas.cli.notebook;"
        "print(sorted({m.split('.')[0] for m in sys.modules} & "
        "{'torch', 'pytest', '_pytest', 'katas', 'solutions', 'numpy'}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"


OUTPUT = """\x1b[1m=== test session starts ===\x1b[0m
platform linux -- Python 3.11.7, pytest-9.2.0, pluggy-1.7.0
torch-katas: testing your answers (katas/)
torch-katas: devices cpu, sim (simulated); not found: cuda, mps
rootdir: /suite
collected 66 items

katas/q02_numpy_bridge_test.py \x1b[31mF\x1b[0m.....    [100%]

=== what to fix ===
1 test: to_tensor should have dtype torch.float64, got torch.float32
=== torch-katas progress ===
Solved 0 of 1 katas (1 partly solved, 0 not started)
=== 1 failed, 65 passed in 1.50s ===
"""


def outcome(output: str, exit_code: int = 1) -> run.Outcome:
    test_file = "katas/q02_numpy_bridge_test.py"
    return run.Outcome(
        KATA,
        test_file,
        ["python", "-m", "pytest", test_file],
        exit_code,
        output,
        1.5,
        "partly solved",
    )


def test_the_cell_shows_the_verdict_then_what_pytest_printed_after_its_header():
    lines = run.report(outcome(OUTPUT)).splitlines()
    assert lines[:3] == [
        f"{KATA.label} {KATA.title}: some tests fail; partly solved",
        "torch-katas: devices cpu, sim (simulated); not found: cuda, mps",
        "",
    ]
    assert lines[3:] == OUTPUT.rstrip().splitlines()[7:]  # colours and all


def test_the_cell_shows_pytests_whole_output_when_pytest_did_not_run_the_tests():
    text = run.report(outcome("/usr/bin/python: No module named pytest\n"))
    assert "pytest did not run the tests (exit code 1)" in text
    assert text.endswith("\n\n/usr/bin/python: No module named pytest")


@pytest.mark.skipif(os.name != "posix", reason="elsewhere the run is killed: no process groups")
def test_interrupting_the_kernel_stops_the_run_and_its_processes(suite, monkeypatch):
    looping = "import time\n\n\ndef to_tensor(array, device=None):\n    while True:\n"
    KATA.stub_path(suite).write_text(f"{looping}        time.sleep(0.01)\n", encoding="utf-8")
    started = []

    class Recorded(subprocess.Popen):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            started.append(self)

    monkeypatch.setattr(run.subprocess, "Popen", Recorded)
    # What the kernel does on an interrupt: raise KeyboardInterrupt in the running cell.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # also in xdist workers
    interrupt = threading.Timer(3, os.kill, (os.getpid(), signal.SIGINT))
    interrupt.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            run.run_tests(suite, KATA, [])
    finally:
        interrupt.cancel()
        signal.signal(signal.SIGINT, previous)
    (process,) = started
    assert process.returncode is not None
    with pytest.raises(ProcessLookupError):  # nothing of its process group is left
        os.killpg(process.pid, 0)


# -- a real kernel ---------------------------------------------------------------------------


def run_pytest(root: Path) -> str:
    """The kata's tests as a learner runs them in a terminal, in `root`."""
    test_file = KATA.test_path(root).relative_to(root).as_posix()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", test_file], cwd=root, capture_output=True, text=True
    )
    return done.stdout


def recorded(root: Path) -> tuple[object, object]:
    store = Store.for_root(root)
    return store.read(STATUS_KEY), store.read(PASSED_KEY)


def results(text: str) -> list[str]:
    """What pytest printed from its first line of test results on (after its session header),
    without colours, rulers and the run's duration."""
    lines = [re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", line) for line in text.rstrip().splitlines()]
    test_file = KATA.test_path(ROOT).relative_to(ROOT).as_posix()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{test_file} "))
    return [
        re.sub(r" in [\d.]+s$", "", line.strip("= ")) if line.startswith("=") else line
        for line in lines[start:]
    ]


def text_of(cell) -> str:
    """What the cell printed and displayed, as plain text."""
    parts = []
    for output in cell.outputs:
        if output.output_type == "stream":
            parts.append(output.text)
        elif output.output_type in ("display_data", "execute_result"):
            parts.append(output.data.get("text/plain", ""))
        elif output.output_type == "error":
            parts.append(f"{output.ename}: {output.evalue}")
    return "\n".join(parts)


# A kernel start, then three runs of the kata's tests in the kernel and three with pytest for
# comparison: 15-25 s on an idle 2-core machine, several times that on a busy one.
@pytest.mark.slow  # end to end, in processes of its own: the full tier's
@pytest.mark.timeout(600)
def test_a_generated_notebook_runs_on_a_real_kernel_as_pytest_runs(suite, tmp_path):
    nbclient = pytest.importorskip("nbclient", reason=f"the notebook extra: {EXTRA}")
    v4 = pytest.importorskip("nbformat.v4")
    terminal = checkout(tmp_path / "terminal", [KATA.module, OTHER.module])
    assert katas("--root", suite, "notebook", 2) == 0
    notebook = read_notebook(suite / "katas.ipynb")
    generated = next(cell for cell in notebook.cells if cell.source.startswith("%%kata 2\n"))
    original = KATA.stub_path(suite).read_text(encoding="utf-8")
    answers = {
        "wrong": WRONG.source(ROOT),
        "right": KATA.solution_path(suite).read_text(encoding="utf-8"),
        "broken": BROKEN,
    }
    generated.source = f"%%kata 2\n{answers['wrong']}"  # the learner's first attempt
    cells = {
        "show": v4.new_code_cell("%kata 2"),
        "wrong": generated,
        "hint": v4.new_code_cell("%kata hint 2"),
        "right": v4.new_code_cell(f"%%kata 2\n{answers['right']}"),
        "list": v4.new_code_cell("%kata list"),
        "solution": v4.new_code_cell("%kata solution 2"),
        "broken": v4.new_code_cell(f"%%kata 2\n{answers['broken']}"),
        "watch": v4.new_code_cell("%kata watch 2"),
        "modules": v4.new_code_cell(
            "import sys\nprint(sorted({m.split('.')[0] for m in sys.modules} & "
            "{'torch', 'pytest', 'katas', 'solutions'}))"
        ),
    }
    load = next(cell for cell in notebook.cells if cell.source == "%load_ext torch_katas")
    notebook.cells = [load, *cells.values()]
    replies = {}
    client = nbclient.NotebookClient(
        notebook,
        timeout=300,
        kernel_name="python3",
        allow_errors=True,
        resources={"metadata": {"path": str(suite)}},  # the kernel's working folder
        on_cell_executed=lambda cell, cell_index, execute_reply: replies.update(
            {cell_index: execute_reply}
        ),
    )
    kernel_records, terminal_records, terminal_output = {}, {}, {}
    with client.setup_kernel():
        for index, cell in enumerate(notebook.cells):
            client.execute_cell(cell, index)
            name = next((n for n, c in cells.items() if c is cell), "load")
            if name in answers:
                kernel_records[name] = recorded(suite)
                # The same code, run with pytest in a terminal, in a suite of its own.
                KATA.stub_path(terminal).write_text(answers[name], encoding="utf-8")
                terminal_output[name] = run_pytest(terminal)
                terminal_records[name] = recorded(terminal)
    text = {name: text_of(cell) for name, cell in cells.items()}

    def reply_of(cell):
        return replies[notebook.cells.index(cell)]["content"]

    # The same progress as pytest's, recorded and shown, for each version of the stub: the
    # cell shows what pytest prints in a terminal, failures, progress and counts.
    assert kernel_records == terminal_records
    for name in answers:
        assert results(text[name]) == results(terminal_output[name])
        # On the default devices: every one the machine has.
        devices = re.search(r"^torch-katas: (devices .*)$", terminal_output[name], re.M)[1]
        assert devices in text[name]
    statuses = {name: records[0][KATA.module] for name, records in kernel_records.items()}
    assert statuses == {"wrong": status.PARTLY, "right": status.SOLVED, "broken": status.PARTLY}

    # %kata 2: the stub, and the same in a new cell below.
    cell_text = f"%%kata 2\n{original}"
    assert cell_text.rstrip() in text["show"]  # the stub, shown as code
    payload = reply_of(cells["show"])["payload"]
    assert [p["text"] for p in payload if p["source"] == "set_next_input"] == [cell_text]
    # The wrong answer: the verdict and its failure message.
    assert f"{KATA.label} {KATA.title}: some tests fail; partly solved\n" in text["wrong"]
    assert WRONG_MESSAGE in text["wrong"]
    # The right one: solved, no failure; its previous version kept as reset keeps it.
    assert f"{KATA.label} {KATA.title}: all tests pass; solved\n" in text["right"]
    assert not re.search(r"\bfail", results(text["right"])[-1])
    assert "your attempt is saved as .katas-backups/" in text["right"]
    # The broken one: its tests fail with the line that does not import; the kernel goes on.
    assert "katas/q02_numpy_bridge.py line 1 does not import: SyntaxError" in text["broken"]
    assert text["modules"].strip() == "[]"  # neither torch nor pytest nor the learner's code
    kept = [path.read_text(encoding="utf-8") for path in commands.backups(suite, KATA)]
    assert kept == [answers["wrong"], answers["right"]]
    assert KATA.stub_path(suite).read_text(encoding="utf-8") == BROKEN

    # The CLI's commands, as the CLI gives them.
    assert " ".join(KATA.hints[0].split()) in " ".join(text["hint"].split())  # wrapped
    assert re.search(r"q02 .* solved", text["list"])
    assert "Your code is the reference's, line for line" in text["solution"]
    assert "UsageError: %kata: watch is for a terminal" in text["watch"]
    failed = [name for name, cell in cells.items() if reply_of(cell)["status"] != "ok"]
    assert failed == ["watch"]


def colab_notebook():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    link = re.search(
        r"\(https://colab\.research\.google\.com/github/[^/]+/[^/]+/blob/main/(\S+)\)", readme
    )
    assert link, "README has no Open in Colab link"
    return read_notebook(ROOT / link[1])


def test_open_in_colab_opens_a_notebook_that_installs_the_suite_then_loads_the_magics():
    notebook = colab_notebook()
    repository, install, *rest = [
        cell.source for cell in notebook.cells if cell.cell_type == "code"
    ]
    # The repository is named in one place: REPO, in the first cell.
    assert len(re.findall(r"^REPO = ", repository, re.MULTILINE)) == 1
    assert "github.com/OWNER" not in json.dumps(notebook)
    steps = [line for line in install.splitlines() if not line.startswith("#")]
    assert steps == ["!pip install -q -e .", "%load_ext torch_katas"]
    # Every later cell is a %kata command that exists.
    for source in rest:
        command = source.removeprefix("%kata ").split()[0]
        assert command in magics_commands(), source


def test_colabs_first_cell_says_in_one_line_to_set_repo_then_clones_it(tmp_path):
    nbclient = pytest.importorskip("nbclient", reason=f"the notebook extra: {EXTRA}")
    nbformat = pytest.importorskip("nbformat", reason=f"the notebook extra: {EXTRA}")
    notebook = colab_notebook()
    # A repository to clone, as GitHub would serve it.
    origin = tmp_path / "origin"
    origin.mkdir()
    (origin / "README.md").write_text("torch-katas\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    for command in (["init", "-q"], ["add", "."], ["commit", "-qm", "suite"]):
        subprocess.run([*git, *command], cwd=origin, check=True)
    runtime = tmp_path / "content"  # where the runtime starts, /content on Colab
    runtime.mkdir()
    cell = next(cell for cell in notebook.cells if cell.cell_type == "code")
    client = nbclient.NotebookClient(
        notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(runtime)}}
    )
    with client.setup_kernel():
        # Unset: the cell fails, in one line that says what to do.
        with pytest.raises(nbclient.exceptions.CellExecutionError):
            client.execute_cell(cell, 0)
        (error,) = [out for out in cell.outputs if out.output_type == "error"]
        assert error.traceback == [
            "RepositoryNotSet: set REPO in this cell to the torch-katas repository to clone, "
            "such as https://github.com/ACCOUNT/torch-katas, then run the cell again"
        ]
        assert not (runtime / "torch-katas").exists()
        # Set, as the learner sets it in the cell: it clones, and a second run clones no more.
        cell.source = re.sub(r'^REPO = ""', f'REPO = "{origin.as_uri()}"', cell.source, flags=re.M)
        for _ in range(2):
            client.execute_cell(cell, 0)
            assert not [out for out in cell.outputs if out.output_type == "error"]
        assert (runtime / "torch-katas" / "README.md").read_text() == "torch-katas\n"
        assert not (runtime / "torch-katas" / "torch-katas").exists()
        # The next cell (the install) runs in the clone.
        where = nbformat.v4.new_code_cell("import os; print(os.getcwd())")
        client.execute_cell(where, 1)
        assert where.outputs[0].text.strip() == str(runtime / "torch-katas")


def test_katas_notebook_names_a_front_end_that_is_installed(suite, capsys):
    pytest.importorskip("nbformat", reason=f"the notebook extra: {EXTRA}")
    assert katas("--root", suite, "notebook", 2) == 0
    said = capsys.readouterr().out
    if "open it: jupyter lab " in said:
        done = subprocess.run(
            [Path(sys.executable).parent / "jupyter", "lab", "--version"], capture_output=True
        )
        assert done.returncode == 0, done.stderr
    else:
        assert "no Jupyter front end is installed here: pip install jupyterlab" in said
    # The extra installs the front end that it names.
    project = catalog.tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert any(
        r.startswith("jupyterlab") for r in project["project"]["optional-dependencies"]["notebook"]
    )


def magics_commands() -> tuple[str, ...]:
    magics = pytest.importorskip("torch_katas.notebook.magics", reason=f"the extra: {EXTRA}")
    return magics.SHARED_COMMANDS
