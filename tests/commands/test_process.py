"""The real process, for what only it shows, and the proof that in-process runs are faithful.

The suite runs `fc` in-process (tests/support/inprocess.py) to be fast. Each command below runs both
ways and must give the same exit status, stdout and stderr: if the harness ever drifts from what
`python -m fccli` does (a stream, the environment, the working directory, an exit code), this
fails. Signals, start-up imports and broken pipes are tested with real processes where they are
guarded (test_startup.py, the Ctrl-C tests of test_cli_run.py and test_providers_http.py).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fccli.trace.writer import without_times
from tests.conftest import REPO, clean_env

QUESTION = "杭州今天适合跑步吗？"

CASES = {
    "round-trip": ["run", QUESTION, "-o", "t"],
    "json": ["run", "北京、上海、深圳今天适合跑步吗？", "-o", "t", "--json"],
    "show": ["show", "traces/examples/hangzhou"],
    "show-stdin": ["show", "-"],
    "no-key-exit-2": ["run", QUESTION, "-p", "deepseek", "-o", "t"],
    "unknown-option-exit-2": ["run", QUESTION, "--no-such-option"],
    "no-command": [],
    "version": ["--version"],
    "providers": ["providers"],
    "unknown-trace-exit-2": ["show", "no/such/trace"],
}

# Times differ from one run to the next; nothing else may.
_TIMES = re.compile(r"\d+(\.\d+)? m?s\b")


def _same(text: str) -> object:
    try:
        return without_times(json.loads(text))
    except ValueError:
        return _TIMES.sub("T", text)


@pytest.mark.parametrize("args", CASES.values(), ids=CASES.keys())
def test_in_process_runs_say_what_the_process_says(fc, tmp_path: Path, args: list[str]) -> None:
    shutil.copytree(REPO / "traces/examples/hangzhou", tmp_path / "traces/examples/hangzhou")
    stdin = (REPO / "traces/examples/hangzhou/1-response.json").read_text("utf-8")
    runs = []
    for process in (True, False):
        shutil.rmtree(tmp_path / "t", ignore_errors=True)
        runs.append(fc(*args, input=stdin, process=process))
    real, inside = runs
    assert not getattr(real, "in_process", False) and inside.in_process
    assert inside.returncode == real.returncode, (real.stderr, inside.stderr)
    assert _same(inside.stdout) == _same(real.stdout)
    assert _same(inside.stderr) == _same(real.stderr)


def test_the_console_script_is_installed_and_answers() -> None:
    script = Path(sys.executable).parent / "fc"
    if not script.exists():
        pytest.skip("fc is not installed as a console script beside this Python")
    done = subprocess.run(
        [str(script), "--version"], capture_output=True, text=True, env=clean_env(), timeout=60
    )
    assert done.returncode == 0
    assert re.fullmatch(r"fc \S+\n", done.stdout)


def test_each_in_process_run_starts_afresh(fc, tmp_path: Path) -> None:
    """What one run changes of the process (environment, directory, a tools file's modules)
    is not there for the next, as with two processes."""
    import os

    (tmp_path / "helper.py").write_text("TEMP = 30\n", encoding="utf-8")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "hot.py").write_text(
        "import os\nimport helper\nos.environ['FC_LEFT_BEHIND'] = '1'\nos.chdir('elsewhere')\n\n"
        "def get_weather(city: str) -> dict:\n"
        '    """The weather."""\n'
        "    return {'city': city, 'temp_c': helper.TEMP}\n",
        encoding="utf-8",
    )
    before = (os.getcwd(), dict(os.environ))
    first = fc("run", QUESTION, "--tools", "hot.py", "-o", "a", "--json")
    assert first.returncode == 0, first.stderr
    assert (os.getcwd(), dict(os.environ)) == before
    (tmp_path / "helper.py").write_text("TEMP = 5\n", encoding="utf-8")
    second = fc("run", QUESTION, "--tools", "hot.py", "-o", "b", "--json")
    assert second.returncode == 0, second.stderr
    answers = [json.loads(r.stdout)["final_answer"] for r in (first, second)]
    # the demo answers from the result's fields: "temp_c 为 30"
    assert "temp_c 为 30" in answers[0] and "temp_c 为 5" in answers[1]
