"""What `fc run` and `fc show` print is what happened, under every `--harness-bug` and
`--demo-fault`, plain and with `--strict --stream --no-thinking`.

The facts come from the trace the run wrote (its manifest and request files), never from the
words printed: whether the arguments were validated, how many results went back in how many
user messages, whether the model answered. The printed lines must say each, and nothing else.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fccli.core.models import Request
from fccli.options.harness_bugs import HARNESS_BUGS
from fccli.providers.demo.faults import DEMO_FAULTS
from fccli.render.history import handed_back
from tests.conftest import clean_env

# Two calls, one of which fails: the tool error (巴黎) gives raise-on-error and report-success
# something to do; the other (北京) an answer to give.
QUESTION = "北京和巴黎今天适合跑步吗？"
# Each flag changes how a step is asked or read (strict schemas, a stream to assemble, no
# reasoning): one run with all three covers them and their combination, at half the cost.
MODES = {"plain": [], "strict-stream-no-thinking": ["--strict", "--stream", "--no-thinking"]}
ALL_FLAGS = "strict-stream-no-thinking"
CASES = [
    *((["--harness-bug", bug], mode) for bug in HARNESS_BUGS for mode in MODES),
    # A fault plain is run by tests/providers; here with the flags that change how it comes out.
    *((["--demo-fault", fault], ALL_FLAGS) for fault in DEMO_FAULTS),
]


def _lines(text: str) -> str:
    """Join what Rich wrapped, so a sentence is found whole."""
    return " ".join(text.split())


def _request(out: Path, step: int) -> Request | None:
    file = out / f"{step}-request.json"
    if not file.exists():
        return None
    return Request.model_validate(json.loads(file.read_text("utf-8")))


@pytest.mark.parametrize(("kind", "mode"), CASES, ids=[f"{k[1]}-{m}" for k, m in CASES])
def test_run_and_show_say_what_happened(fc, tmp_path: Path, kind: list[str], mode: str) -> None:
    ran = fc("run", QUESTION, *kind, *MODES[mode], "-o", "t")
    assert ran.returncode in (0, 1, 3), ran.stderr  # done, the harness stopped, a 400
    said = _lines(ran.stdout)
    shown = _lines(fc("show", "t").stdout)
    out = tmp_path / "t"
    manifest: dict[str, Any] = json.loads((out / "manifest.json").read_text("utf-8"))
    bug = kind[1] if kind[0] == "--harness-bug" else None

    for record in manifest["steps"]:
        runs = record.get("tool_runs") or []
        if not runs:
            continue
        # validated or not
        if bug == "no-validation":
            assert "fc did NOT validate the arguments" in said, said
        else:
            assert "fc validated the arguments" in said, said
            assert "did NOT validate" not in said, said
        # how many results went back, in how many user messages
        after = _request(out, record["step"] + 1)
        results, held = handed_back(after.messages) if after is not None else ([], 0)
        if not results:
            # nothing went back: the harness stopped (raise-on-error), or dropped them
            assert "NO result goes back" in said or "NOT handed back" in said, said
            assert "paired with their calls by id" not in said, said
            continue
        n = len(results)
        if held > 1:
            assert f"{n} tool result(s) handed back in {held} user messages" in said, said
            assert f"{n} tool results handed back in {held} user messages" in shown, shown
        else:
            assert f"{n} tool result(s) handed back;" in said, said
            one = "1 tool result handed back" if n == 1 else f"{n} tool results handed back"
            assert one in shown and f"{one} in" not in shown, shown
        if bug == "report-success" and any(r["is_error"] for r in runs):
            assert "reported as a success" in said, said
            assert "failed, handed back as a success" in shown, shown
        if bug == "pack-results":
            assert "packed into ONE role:tool message" in said, said

    # answered or not
    final = out / f"{len(manifest['steps'])}-response.json"
    response = json.loads(final.read_text("utf-8")) if final.exists() else None
    answered = (
        manifest["status"] == "ok"
        and response is not None
        and response["stop_reason"] != "tool_use"
    )
    if answered:
        assert "done: the model answered at step" in shown, shown
        assert " answer: " in f" {said}", said
    else:
        assert "the model answered" not in shown, shown
        assert "the model answered" not in said, said
    if manifest["status"] == "error":
        assert "stopped at step" in shown, shown


ZH_SAID = {
    "raise-on-error": ("没有任何结果交回去", "raise-on-error：工具的错误被抛出"),
    "text-only-turn": ("只带回了文字", "text-only-turn：第 1 步的那一轮只带回了文字"),
    "pack-results": ("塞进一条 role:tool 消息", "pack-results：2 个结果被塞进一条 role:tool 消息"),
    "report-success": ("被报成成功", "report-success："),
}


@pytest.mark.parametrize("bug", ZH_SAID)
def test_the_new_harness_bugs_are_said_in_chinese(fc, bug: str) -> None:
    env = clean_env(LANG="zh_CN.UTF-8")
    said = _lines(fc("run", QUESTION, "--harness-bug", bug, "-o", "t", env=env).stdout)
    shown = _lines(fc("show", "t", env=env).stdout)
    in_run, in_show = ZH_SAID[bug]
    assert in_run in said, said
    assert in_show in shown, shown
