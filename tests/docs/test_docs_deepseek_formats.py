"""docs/deepseek-formats.md, run as written: every command in it, against the fake provider
(as the page tells a reader without a key to do), and every claim it makes checked."""

from __future__ import annotations

import json
import re
import shlex
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, clean_env
from tests.support.fake_provider import DEFAULT_KEY, FakeProvider
from tests.support.inprocess import run_in_process

DOC = REPO / "docs" / "deepseek-formats.md"
TEXT = DOC.read_text("utf-8")


def commands() -> list[tuple[list[str], str]]:
    """Each command line of the page's bash blocks, split, with its comment."""
    out = []
    for block in re.findall(r"```bash\n(.*?)```", TEXT, re.S):
        for line in block.splitlines():
            code, _, comment = line.partition("  #")
            if code.strip():
                out.append((shlex.split(code), comment.strip()))
    return out


def resolve(data: Any, path: str) -> Any:
    """A JSON path of the page (`$.messages[1].tool_calls[0].id`) in `data`."""
    for key, index in re.findall(r"\.(\w+)|\[(\d+)\]", path.removeprefix("$")):
        data = data[key] if key else data[int(index)]
    return data


def table() -> dict[str, tuple[str, str]]:
    """The page's table: what -> (the chat path, the Anthropic path), first path of each cell."""
    rows = {}
    for line in TEXT.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[1].startswith("`$"):
            paths = [re.search(r"`(\$[^`]*)`", c) for c in cells[1:]]
            rows[cells[0]] = (paths[0][1], paths[1][1])  # type: ignore[index]
    return rows


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("deepseek-formats")


@pytest.fixture(scope="module")
def ran(workdir: Path) -> dict[str, Any]:
    """Run the page's fc commands in order, once for all the tests here; their results by
    command line."""
    results = {}
    with FakeProvider() as server:
        env = clean_env(FC_BASE_URL=server.url, DEEPSEEK_API_KEY=DEFAULT_KEY)
        for argv, comment in commands():
            if argv[0] != "fc":
                continue  # the exports and the fake provider itself: what `env` stands for
            # In-process (tests/support/inprocess.py), as a process would run it: the page's claims are
            # about what fc writes and says, not about start-up.
            result = run_in_process(argv[1:], cwd=workdir, env=env)
            expected = int(m[1]) if (m := re.search(r"exit (\d+)", comment)) else 0
            assert result.returncode == expected, (argv, result.stdout, result.stderr)
            results[shlex.join(argv)] = (result, comment)
    return results


def load(path: Path) -> Any:
    return json.loads(path.read_text("utf-8"))


def test_the_page_runs_and_its_files_are_where_it_says(ran, workdir: Path) -> None:
    tmp_path = workdir
    assert len(ran) == 7
    chat = load(tmp_path / "ds-chat/2-request.deepseek.json")
    anthropic = load(tmp_path / "ds-anthropic/2-request.anthropic.json")
    assert (tmp_path / "ds-chat/2-request.json").exists()
    assert (tmp_path / "ds-anthropic/2-request.json").exists()
    rows = table()
    assert len(rows) == 7
    cache_row = "the prompt cache (in `2-response.*.json`)"
    found = {
        what: (resolve(chat, a), resolve(anthropic, b))
        for what, (a, b) in rows.items()
        if what != cache_row
    }
    call, use = found["the call"]
    assert call["type"] == "function" and use["type"] == "tool_use"
    call_id, use_id = found["its id"]
    assert call_id.startswith("call_") and use_id.startswith("toolu_")
    arguments, given = found["the arguments"]
    assert json.loads(arguments) == given == {"city": "杭州"}  # a JSON string; an object
    tool_message, result = found["the result"]
    assert tool_message["role"] == "tool" and tool_message["tool_call_id"] == call_id
    assert isinstance(tool_message["content"], str)
    assert result["type"] == "tool_result" and result["tool_use_id"] == use_id
    assert resolve(anthropic, "$.messages[2].role") == "user"
    reasoning, thinking = found["the reasoning"]
    assert thinking["type"] == "thinking" and thinking["signature"]
    assert reasoning == thinking["thinking"]
    assert found["`--effort high`"] == ("high", "high")
    # the cache row is about the step-2 responses
    a, b = rows[cache_row]
    hits = (
        resolve(load(tmp_path / "ds-chat/2-response.deepseek.json"), a),
        resolve(load(tmp_path / "ds-anthropic/2-response.anthropic.json"), b),
    )
    assert all(h > 0 for h in hits)


def test_the_diffs_find_what_the_page_says_and_nothing_else(ran) -> None:
    (across, _), (internal, _) = (
        ran["fc diff ds-chat/2-request.deepseek.json ds-anthropic/2-request.anthropic.json"],
        ran["fc diff ds-chat/2-request.json ds-anthropic/2-request.json"],
    )
    assert "compared by meaning" in across.stdout
    for out in (across.stdout, internal.stdout):
        assert re.search(r'"call_\w+" → "toolu_\w+"', out)  # the ids
        assert "signature" in out
        assert "text block" in out or '"type": "text"' in out  # the words beside the call
    assert "+ B $.max_tokens: 4096" in across.stdout
    assert "max_tokens" not in internal.stdout
    assert "5 differences" in across.stdout and "4 differences" in internal.stdout


def test_show_says_the_cache_hit_the_page_quotes(ran) -> None:
    result, comment = ran["fc show ds-anthropic --step 2"]
    quoted = comment.removeprefix("the fake: ... · ")
    assert quoted.endswith("input tokens from the cache")
    assert quoted in result.stdout, result.stdout[-600:]


def test_deepseek_in_the_responses_format_is_laid_out_as_the_page_says(ran, workdir) -> None:
    line = ["fc", "run", "杭州今天适合跑步吗？", "-p", "deepseek", "--api", "responses"]
    line += ["--effort", "high", "-o", "ds-responses"]
    assert shlex.join(line) in ran
    sent = json.loads((workdir / "ds-responses" / "2-request.responses.json").read_text("utf-8"))
    assert sent["store"] is False and sent["reasoning"] == {"effort": "high"}
    kinds = [item.get("type") for item in sent["input"]]
    assert kinds == [None, "reasoning", "function_call", "function_call_output"], kinds
    reasoning, call, result = sent["input"][1:]
    assert reasoning["encrypted_content"]  # sent back whole, before the call it led to
    assert isinstance(call["arguments"], str) and result["call_id"] == call["call_id"]
    diffed, _ = ran["fc diff ds-chat/2-request.deepseek.json ds-responses/2-request.responses.json"]
    assert "compared by meaning" in diffed.stdout


def test_the_fake_provider_runs_by_hand_as_the_page_says(tmp_path: Path) -> None:
    assert ["python", "-m", "tests.support.fake_provider"] in [argv for argv, _ in commands()]
    export = next(
        argv for argv, _ in commands() if argv[0] == "export" and "FC_BASE_URL" in argv[1]
    )
    server = subprocess.Popen(
        [sys.executable, "-m", "tests.support.fake_provider"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        server.stdout.readline()
        said = server.stdout.readline().split()
        # the page's export line, with the port the server printed
        assert said[0] == "export" and said[2] == export[2]
        assert re.fullmatch(r"FC_BASE_URL=http://127\.0\.0\.1:\d+", said[1])
        assert export[1] == "FC_BASE_URL=http://127.0.0.1:PORT"
        url = said[1].split("=", 1)[1]
        env = clean_env(FC_BASE_URL=url, DEEPSEEK_API_KEY=DEFAULT_KEY)
        run = subprocess.run(
            [sys.executable, "-m", "fccli", "run", "杭州？", "-p", "deepseek", "-o", "t"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert run.returncode == 0, run.stderr
    finally:
        server.send_signal(signal.SIGINT)
        assert server.wait(timeout=10) == 0
