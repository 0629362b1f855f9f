"""docs/bedrock.md, run as written against the fake provider (as the page tells a reader without
a key to do): every fc command in it, its table's paths, and what its comments say they show."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, clean_env
from tests.support.fake_provider import DEFAULT_KEY, FakeProvider
from tests.support.inprocess import run_in_process

TEXT = (REPO / "docs" / "bedrock.md").read_text("utf-8")


def commands() -> list[tuple[list[str], str]]:
    """Each fc line of the page's bash blocks, split, with its comment."""
    out = []
    for block in re.findall(r"```bash\n(.*?)```", TEXT, re.S):
        for line in block.splitlines():
            code, _, comment = line.partition("  #")
            if code.startswith("fc "):
                out.append((shlex.split(code), comment.strip()))
    return out


def resolve(data: Any, path: str) -> Any:
    for key, index in re.findall(r"\.(\w+)|\[(\d+)\]", path.removeprefix("$")):
        data = data[key] if key else data[int(index)]
    return data


def table() -> dict[str, tuple[str, str | None]]:
    """The table: what -> (DeepSeek's path, Bedrock's path or None where it has none)."""
    rows = {}
    for line in TEXT.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[1].startswith("`$"):
            ours = re.search(r"`(\$[^`]*)`", cells[1])
            theirs = re.search(r"`(\$[^`]*)`", cells[2])
            assert ours is not None
            rows[cells[0]] = (ours[1], theirs[1] if theirs else None)
    return rows


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    workdir = tmp_path_factory.mktemp("bedrock-doc")
    results = {}
    with FakeProvider() as server:
        env = clean_env(
            FC_BASE_URL=server.url,
            DEEPSEEK_API_KEY=DEFAULT_KEY,
            AWS_BEARER_TOKEN_BEDROCK=DEFAULT_KEY,
            AWS_REGION="us-east-1",
        )
        for argv, comment in commands():
            result = run_in_process(argv[1:], cwd=workdir, env=env)
            assert result.returncode == 0, (argv, result.stdout, result.stderr)
            results[shlex.join(argv)] = (result, comment)
        paths = [r.path for r in server.received]
    assert "/model/amazon.nova-lite-v1%3A0/converse" in paths  # the model the comment names
    return workdir, results


@pytest.mark.server
def test_the_table_s_paths_are_where_the_page_says(ran: tuple[Path, dict[str, Any]]) -> None:
    workdir, _ = ran
    ds = json.loads((workdir / "ds/2-request.deepseek.json").read_text("utf-8"))
    br = json.loads((workdir / "br/2-request.bedrock.json").read_text("utf-8"))
    rows = table()
    assert len(rows) == 9
    assert rows["the model"][1] is None and "model" not in br and ds["model"]
    found = {
        what: (resolve(ds, a), resolve(br, b))
        for what, (a, b) in rows.items()
        if b and "response" not in what
    }
    assert found["the tool"][0]["name"] == found["the tool"][1]["name"] == "get_weather"
    assert found["its schema"][0] == found["its schema"][1]
    call_id, use_id = found["its id"]
    arguments, given = found["the arguments"]
    assert isinstance(arguments, str) and json.loads(arguments) == given  # a string; an object
    tool_message, result = found["the result"]
    assert tool_message["role"] == "tool" and resolve(br, "$.messages[2].role") == "user"
    assert len(br["messages"][2]["content"]) == 2  # every result in one user message
    assert result["toolUseId"] == use_id and tool_message["tool_call_id"] == call_id
    text, blocks = found["its text"]
    assert isinstance(text, str) and blocks == json.loads(json.dumps(blocks))
    assert list(found["the call"][1]) == ["toolUseId", "name", "input"]
    stop = rows["the stop reason (in `2-response.*.json`)"]
    ds_answer = json.loads((workdir / "ds/2-response.deepseek.json").read_text("utf-8"))
    br_answer = json.loads((workdir / "br/2-response.bedrock.json").read_text("utf-8"))
    assert (resolve(ds_answer, stop[0]), resolve(br_answer, stop[1])) == ("stop", "end_turn")


@pytest.mark.server
def test_each_command_shows_what_its_comment_says(ran: tuple[Path, dict[str, Any]]) -> None:
    _, results = ran
    for line, (result, comment) in results.items():
        if line.startswith("fc run") or not comment:
            continue
        for said in comment.split(", "):
            assert said in result.stdout, (line, said, result.stdout[-800:])
