"""Where fc says what a trace cost: the run view, the manifest and `fc run --json`, `fc show`
(transcript, --json, --html), `fc replay`, the OpenTelemetry export; in both languages. Each
figure is held to the trace priced again from its manifest (test_price.py holds that pricing to
genai-prices' own)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from fccli.core.manifest import read_manifest
from fccli.cost.money import as_number, usd
from fccli.cost.price import StepCost
from fccli.cost.record import step_record
from fccli.cost.trace import price_trace
from fccli.export.spans import build
from fccli.trace.reader import read_trace
from tests.conftest import REPO

QUESTION = "北京、上海、深圳今天适合跑步吗？"
GEMINI = REPO / "traces" / "examples" / "hangzhou-gemini"


def _manifest(path: Path) -> dict[str, Any]:
    return json.loads((path / "manifest.json").read_bytes())


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """One demo run for the tests that read it: its trace and what the run view said."""
    from tests.conftest import clean_env
    from tests.support.inprocess import run_in_process

    where = tmp_path_factory.mktemp("cost-run")
    ran = run_in_process(["run", QUESTION, "-o", "t"], cwd=where, env=clean_env())
    assert ran.returncode == 0, ran.stderr
    return where / "t", ran.stdout


def test_the_run_says_each_step_and_the_total_as_the_manifest_keeps_them(run) -> None:
    trace, out = run
    data = _manifest(trace)
    cost = price_trace(read_manifest(data), again=True)
    for record in data["steps"]:
        price = cost.steps[record["step"]]
        assert isinstance(price, StepCost)
        assert record["cost"] == step_record(price).to_json_dict()
        assert f" out tokens, {usd(price.usd)})" in out
    assert data["cost"]["usd"] == as_number(cost.usd)
    assert (
        data["cost"]["basis"]
        == "the demo model priced as deepseek-flash, the model it stands in for"
    )
    said = re.search(r"^cost: (\$[\d.]+); the demo model priced as deepseek-flash", out, re.M)
    assert said is not None and said[1] == usd(cost.usd)


def test_run_json_is_the_manifest_with_its_cost(fc, run) -> None:
    trace, _ = run
    result = fc("show", str(trace), "--json")
    data = json.loads(result.stdout)
    assert data["cost"]["usd"] == data["manifest"]["cost"]["usd"]
    assert [s["cost"] for s in data["steps"]] == [s["cost"] for s in data["manifest"]["steps"]]


def test_an_unknown_model_is_said_unknown_never_zero(fc, tmp_path: Path) -> None:
    result = fc("run", QUESTION, "--price-model", "nonesuch-9", "-o", "t")
    assert result.returncode == 0, result.stderr
    assert "cost: price unknown for nonesuch-9\n" in result.stdout
    assert "$0" not in result.stdout
    data = _manifest(tmp_path / "t")
    assert data["options"]["price_model"] == "nonesuch-9"
    assert data["steps"][0]["cost"] == {
        "usd": None,
        "model": "nonesuch-9",
        "unknown": "price unknown for nonesuch-9",
    }
    assert data["cost"]["usd"] is None and data["cost"]["unpriced_steps"] == [1, 2]


def test_price_model_on_show_and_carried_by_replay(fc, tmp_path: Path) -> None:
    fc("run", QUESTION, "--price-model", "claude-haiku-4-5", "-o", "t")
    shown = fc("show", "t").stdout
    assert "priced as claude-haiku-4-5 (--price-model)" in shown
    other = fc("show", "t", "--price-model", "gpt-5-mini").stdout
    assert "priced as gpt-5-mini (--price-model)" in other
    replayed = fc("replay", "t", "--set", f"{_first_call(tmp_path / 't')}=晴", "-o", "r")
    assert replayed.returncode == 0, replayed.stderr
    assert _manifest(tmp_path / "r")["cost"]["priced_as"] == "claude-haiku-4-5"


def _first_call(trace: Path) -> str:
    return str(_manifest(trace)["steps"][0]["tool_runs"][0]["id"])


def test_show_the_page_and_json_say_the_cache_and_what_it_saved(fc, tmp_path: Path) -> None:
    cost = price_trace(read_manifest(_manifest(GEMINI)), again=True)
    step = cost.steps[2]
    assert isinstance(step, StepCost) and step.saved_usd
    saved = f"13 of 133 input tokens from the cache, saved {usd(step.saved_usd)}"
    shown = fc("show", str(GEMINI)).stdout
    assert f"· {usd(step.usd)} · prompt cache: {saved}\n" in shown
    assert f"\ncost: {usd(cost.usd)}; the prompt cache saved {usd(step.saved_usd)}\n" in shown
    fc("show", str(GEMINI), "--html", "page.html")
    page = (tmp_path / "page.html").read_text("utf-8")
    assert f"<dt>cost</dt><dd>{usd(cost.usd)}; the prompt cache saved" in page
    assert f"prompt cache: {saved}" in page
    data = json.loads(fc("show", str(GEMINI), "--json").stdout)
    assert data["steps"][1]["cost"]["cache_saved_usd"] == as_number(step.saved_usd)
    assert data["cost"]["priced_as"] == "gemini-3-pro-preview"


def test_the_export_carries_each_step_and_the_total() -> None:
    trace = read_trace(GEMINI)
    cost = price_trace(trace.record)
    spans = build(trace, content=False).spans
    root, chats = spans[0], [s for s in spans if s.name.startswith("chat")]
    assert root.attributes["fc.cost.usd"] == as_number(cost.usd)
    for n, chat in enumerate(chats, 1):
        price = cost.steps[n]
        assert isinstance(price, StepCost)
        assert chat.attributes["fc.cost.usd"] == as_number(price.usd)
        assert chat.attributes["fc.cost.model"] == "gemini-3-pro-preview"
    assert "fc.cost.cache_saved_usd" in chats[1].attributes


def test_narrated_in_chinese(fc) -> None:
    result = fc("--lang", "zh", "run", QUESTION, "-o", "t")
    assert "费用：$0.0" in result.stdout
    assert "演示模型按 deepseek-flash 计价，它替代的就是这个模型" in result.stdout
    shown = fc("--lang", "zh", "show", str(GEMINI)).stdout
    assert "提示缓存：133 个输入 token 中有 13 个来自缓存，省了 $" in shown


@pytest.mark.parametrize(
    "edit",
    [
        {"usd": "free"},
        {"usd": -1.0},
        {"input_usd": None},
        {"usd": float("nan")},
        {"cache_saved_usd": float("inf")},
    ],
    ids=["text", "negative", "a part missing", "nan", "infinite saving"],
)
def test_a_hand_edited_price_is_priced_anew_or_left_out(
    fc, tmp_path: Path, edit: dict[str, Any]
) -> None:
    trace = tmp_path / "t"
    shutil.copytree(GEMINI, trace)
    data = _manifest(trace)
    data["steps"][1]["cost"].update(edit)
    data["cost"]["usd"] = next(iter(edit.values()))
    (trace / "manifest.json").write_text(json.dumps(data), "utf-8")  # NaN as Python writes it
    fresh = price_trace(read_manifest(_manifest(GEMINI)), again=True)
    shown = fc("show", str(trace))
    assert shown.returncode == 0, shown.stderr
    assert f"\ncost: {usd(fresh.usd)}" in shown.stdout  # a saving that is no number: left out
    listed = fc("show", str(tmp_path))
    assert listed.returncode == 0 and "nan" not in listed.stdout.lower(), listed.stdout
