"""DeepSeek's provider: `deepseek-flash`, `--effort`, and one model in two
formats (`-p deepseek --api chat|anthropic`), end to end over real HTTP to the fake provider."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fccli.core.errors import UsageError
from fccli.core.models import Message, Request, TextBlock
from fccli.providers.profiles import PROFILES, profile_for
from fccli.providers.registry import describe_providers
from fccli.run.prepare import RunSettings, close_provider, prepare_run
from fccli.wire.anthropic import codec as anthropic
from fccli.wire.chat import codec as chat
from tests.conftest import clean_env
from tests.support.fake_provider import DEFAULT_KEY

QUESTION = "杭州今天适合跑步吗？"


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def deepseek_env(**extra: str) -> dict[str, str]:
    return clean_env(DEEPSEEK_API_KEY=DEFAULT_KEY, **extra)


# --- today's names ---------------------------------------------------------------------------


def test_deepseek_flash_is_the_default_and_v4_pro_the_other_choice() -> None:
    assert PROFILES["deepseek"].default_model == "deepseek-flash"
    row = next(r for r in describe_providers() if r["name"] == "deepseek")
    assert row["default_model"] == "deepseek-flash"
    assert row["other_models"] == ["deepseek-v4-pro"]


def test_fc_providers_shows_models_apis_and_effort(fc) -> None:
    result = fc("providers")
    assert result.returncode == 0, result.stderr
    text = " ".join(result.stdout.split())  # the table folds long cells
    assert "deepseek-flash (the default), deepseek-v4-pro" in text
    assert "anthropic (https://api.deepseek.com/anthropic)" in text
    assert "responses (https://api.deepseek.com)" in text
    assert (
        "reasoning_effort (--api chat), output_config.effort (--api anthropic), "
        "reasoning.effort (--api responses): low, high, max" in text
    )
    rows = json.loads(fc("providers", "--json").stdout)
    assert {r["name"]: r["effort"] for r in rows}["openai"] == (
        "reasoning_effort (reasoning models) (--api chat), reasoning.effort (--api responses): "
        "low, high"
    )


def test_run_sends_deepseek_flash_and_effort_max(fc, fake_provider, tmp_path: Path) -> None:
    result = fc(
        "run", "杭州？", "-p", "deepseek", "--effort", "max", "--base-url", fake_provider.url,
        "-o", "t", env=deepseek_env(),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    for received in fake_provider.received:
        assert received.json["model"] == "deepseek-flash"
        assert received.json["reasoning_effort"] == "max"
    manifest = load(tmp_path / "t/manifest.json")
    assert manifest["model"] == "deepseek-flash"
    assert manifest["options"]["effort"] == "max"
    assert "options: --effort max" in fc("show", "t").stdout


# --- --effort in each format's own field -----------------------------------------------------


def _request(effort: str | None) -> Request:
    return Request(
        model="deepseek-flash",
        messages=[Message(role="user", content=[TextBlock(text="hi")])],
        effort=effort,
    )


def test_effort_travels_in_each_formats_own_field_and_back() -> None:
    request = _request("high")
    wire_chat = chat.to_wire_request(request)
    assert wire_chat["reasoning_effort"] == "high"
    assert "output_config" not in wire_chat
    wire_anthropic = anthropic.to_wire_request(request)
    assert wire_anthropic["output_config"] == {"effort": "high"}
    assert "reasoning_effort" not in wire_anthropic
    assert chat.from_wire_request(wire_chat).effort == "high"
    assert anthropic.from_wire_request(wire_anthropic).effort == "high"
    # unset: no field at all, the provider's default
    assert "reasoning_effort" not in chat.to_wire_request(_request(None))
    assert "output_config" not in anthropic.to_wire_request(_request(None))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["-p", "deepseek", "--effort", "max", "--no-thinking"],
            "--effort max and --no-thinking contradict each other",
        ),
        (
            ["-p", "deepseek", "--api", "anthropic", "--effort", "low", "--no-thinking"],
            "--effort low and --no-thinking contradict each other",
        ),
        (["-p", "demo", "--effort", "high", "--no-thinking"], "contradict"),  # as DeepSeek
        (["-p", "openai", "--effort", "max"], "--effort max: openai takes low, high"),
        (["-p", "deepseek", "--effort", "medium"], "unknown --effort 'medium'"),
    ],
)
def test_effort_refusals_are_one_line_exit_2(fc, tmp_path: Path, args, message) -> None:
    stderr = _refused(fc, tmp_path, args, message)
    assert len(stderr.strip().splitlines()) == 1, stderr


def _refused(fc, tmp_path: Path, args: list[str], message: str) -> str:
    """fc run ARGS stops before anything is written, exit 2, saying `message`; its stderr."""
    env = clean_env(DEEPSEEK_API_KEY=DEFAULT_KEY, OPENAI_API_KEY=DEFAULT_KEY)
    result = fc("run", "杭州？", *args, "-o", "t", env=env)
    assert result.returncode == 2
    assert message in result.stderr
    assert not (tmp_path / "t").exists()
    return result.stderr


def test_effort_with_thinking_on_is_fine_and_anthropic_effort_needs_no_thinking(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", DEFAULT_KEY)
    for n, (provider, thinking) in enumerate([("demo", True), ("anthropic", False)]):
        settings = RunSettings(
            question="杭州？",
            provider=provider,
            effort="high",
            thinking=thinking,
            out=tmp_path / str(n),
        )
        prepared = prepare_run(settings)
        try:
            assert prepared.options.effort == "high"
        finally:
            close_provider(prepared.provider)


# --- one model, two formats ------------------------------------------------------------------


def test_api_anthropic_is_deepseeks_anthropic_endpoint() -> None:
    profile = profile_for("deepseek", "anthropic")
    assert profile.base_url == "https://api.deepseek.com/anthropic"
    assert profile.wire_format == "anthropic"
    assert profile.key_env == "DEEPSEEK_API_KEY"
    assert profile.default_model == "deepseek-flash"
    assert profile_for("deepseek", "chat") is PROFILES["deepseek"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["-p", "deepseek", "--api", "gemini"],
            "--api gemini: fc speaks to deepseek in chat or anthropic or responses only",
        ),
        (["-p", "openai", "--api", "anthropic"], "fc speaks to openai in chat or responses only"),
        (
            ["-p", "demo", "--api", "anthropic"],
            "the offline demo model speaks DeepSeek's chat format only",
        ),
        (["-p", "deepseek", "--api", "soap"], "unknown --api 'soap'"),
        (
            ["-p", "deepseek", "--api", "anthropic", "--tool-choice", "required"],
            "tool_choice 'required' is refused in deepseek's thinking mode (on by default)",
        ),
    ],
)
def test_api_refusals(fc, tmp_path: Path, args, message) -> None:
    _refused(fc, tmp_path, args, message)


def test_an_api_deepseek_does_not_speak_is_refused_before_the_key_is_read() -> None:
    with pytest.raises(UsageError, match="deepseek in chat or anthropic or responses only"):
        prepare_run(RunSettings(question="杭州？", provider="deepseek", api="gemini"))


def test_deepseek_in_the_responses_format(fc, fake_provider, tmp_path: Path) -> None:
    """Its models think unless told not to: reasoning items asked for, carried back whole."""
    profile = profile_for("deepseek", "responses")
    assert profile.base_url == "https://api.deepseek.com" and profile.path == "/responses"
    assert profile.key_env == "DEEPSEEK_API_KEY" and profile.default_model == "deepseek-flash"
    for extra, reasons in (([], True), (["--no-thinking"], False)):
        result = fc(
            "run", QUESTION, "-p", "deepseek", "--api", "responses", *extra, "--force",
            "--base-url", fake_provider.url, "-o", "t", env=deepseek_env(),
        )  # fmt: skip
        assert result.returncode == 0, result.stderr
        sent = json.loads((tmp_path / "t" / "2-request.responses.json").read_text("utf-8"))
        kinds = [item.get("type") for item in sent["input"]]
        assert ("reasoning" in kinds) is reasons, kinds
        assert ("include" in sent) is reasons
        assert sent.get("reasoning") == (None if reasons else {"effort": "none"})


def test_deepseek_in_the_anthropic_format_end_to_end(fc, fake_provider, tmp_path: Path) -> None:
    result = fc(
        "run", QUESTION, "-p", "deepseek", "--api", "anthropic", "--effort", "high",
        "--base-url", fake_provider.url + "/anthropic", "-o", "t", env=deepseek_env(),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    trace = tmp_path / "t"
    names = sorted(p.name for p in trace.iterdir())
    assert "1-request.anthropic.json" in names and "2-response.anthropic.json" in names
    assert not any("deepseek.json" in n for n in names)
    assert len(fake_provider.received) == 2
    for step, received in enumerate(fake_provider.received, start=1):
        assert received.path == "/anthropic/v1/messages"
        assert received.body == (trace / f"{step}-request.anthropic.json").read_bytes()
        # the Anthropic format's headers, with DeepSeek's key
        assert received.headers["x-api-key"] == DEFAULT_KEY
        assert "authorization" not in received.headers
        assert received.headers["anthropic-version"] == "2023-06-01"
        assert received.json["model"] == "deepseek-flash"
        assert received.json["output_config"] == {"effort": "high"}
        assert "reasoning_effort" not in received.json
    # thinking is on by default: the signed thinking block goes back with the call
    assistant = load(trace / "2-request.anthropic.json")["messages"][1]
    assert assistant["content"][0]["type"] == "thinking"
    assert assistant["content"][0]["signature"]
    manifest = load(trace / "manifest.json")
    assert (manifest["provider"], manifest["wire_format"]) == ("deepseek", "anthropic")
    assert manifest["options"]["api"] == "anthropic"
    assert manifest["status"] == "ok"
    assert "request to deepseek (anthropic format)" in result.stdout
    assert "2-request.json ↔ 2-request.anthropic.json" in result.stdout


def test_the_default_endpoint_of_api_anthropic_is_deepseeks(fc, tmp_path: Path) -> None:
    # Without a key the run stops before sending; the message names DeepSeek's variable.
    result = fc("run", "杭州？", "-p", "deepseek", "--api", "anthropic", env=clean_env())
    assert result.returncode == 2
    assert "$DEEPSEEK_API_KEY" in result.stderr


def test_a_deepseek_anthropic_trace_replays_in_the_anthropic_format(
    fc, fake_provider, tmp_path: Path
) -> None:
    url = fake_provider.url + "/anthropic"
    first = fc(
        "run", QUESTION, "-p", "deepseek", "--api", "anthropic", "--base-url", url, "-o", "t",
        env=deepseek_env(),
    )  # fmt: skip
    assert first.returncode == 0, first.stderr
    calls = load(tmp_path / "t/1-response.json")["content"]
    call_id = next(b["id"] for b in calls if b["type"] == "tool_use")
    replay = fc(
        "replay", "t", "--set", f'{call_id}={{"temp_c": 39}}', "--once", env=deepseek_env(),
    )  # fmt: skip
    assert replay.returncode == 0, replay.stderr
    assert (tmp_path / "t.replay-1/1-request.anthropic.json").exists()
    assert fake_provider.received[-1].path == "/anthropic/v1/messages"
    assert "39" in fake_provider.received[-1].body.decode()


# --- prompt-cache hits, in each provider's own fields ----------------------------------------

CACHE_SHAPES = [
    # provider args, base URL suffix, wire suffix, where the wire usage says the hits
    (["-p", "deepseek"], "", "deepseek", ("prompt_cache_hit_tokens",)),
    (["-p", "openai"], "", "openai", ("prompt_tokens_details", "cached_tokens")),
    (
        ["-p", "deepseek", "--api", "anthropic"],
        "/anthropic",
        "anthropic",
        ("cache_read_input_tokens",),
    ),
]


def _dig(data: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        data = data[key]
    return data


@pytest.mark.parametrize(("args", "suffix", "fmt", "field"), CACHE_SHAPES)
def test_cache_hits_reach_run_show_json_and_manifest(
    fc, fake_provider, tmp_path: Path, args, suffix, fmt, field
) -> None:
    env = clean_env(DEEPSEEK_API_KEY=DEFAULT_KEY, OPENAI_API_KEY=DEFAULT_KEY)
    url = fake_provider.url + suffix
    result = fc("run", QUESTION, *args, "--base-url", url, "-o", "t", "--json", env=env)
    assert result.returncode == 0, result.stderr
    trace = tmp_path / "t"
    wire = [load(trace / f"{n}-response.{fmt}.json")["usage"] for n in (1, 2)]
    # step 1 is new to the cache; step 2 repeats step 1's messages, so it hits
    assert _dig(wire[0], field) == 0
    hit = _dig(wire[1], field)
    assert hit > 0
    internal = load(trace / "2-response.json")["usage"]
    assert internal["cache_read_tokens"] == hit
    total = internal["input_tokens"]
    if fmt == "anthropic":  # Anthropic's input_tokens leave the cached ones out
        assert total == wire[1]["input_tokens"] + hit
    else:
        assert total == wire[1]["prompt_tokens"]
    summary = json.loads(result.stdout)
    assert summary["steps"][1]["usage"]["cache_read_tokens"] == hit
    assert load(trace / "manifest.json")["steps"][1]["usage"]["cache_read_tokens"] == hit
    line = f"{hit} of {total} input tokens from the cache"
    assert line in fc("show", "t").stdout
    shown = fc("run", QUESTION, *args, "--base-url", url, "-o", "again", env=env).stdout
    # the same question again: now step 1 hits too, and fc run says so under each step
    assert shown.count("prompt cache: ") == 2
    assert "prompt cache: 0 of" not in shown


def test_anthropic_cache_writes_are_read_from_the_wire(fc, fake_provider, tmp_path: Path) -> None:
    # fc run sends no cache_control; a hand-written request with a breakpoint shows the writes.
    body = {
        "model": "claude-haiku-4-5",
        "max_tokens": 1024,
        "system": [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}],
        "messages": [{"role": "user", "content": "杭州今天适合跑步吗？"}],
    }
    (tmp_path / "q.anthropic.json").write_text(json.dumps(body, ensure_ascii=False), "utf-8")
    env = clean_env(ANTHROPIC_API_KEY=DEFAULT_KEY)
    for out in ("a.json", "b.json"):
        sent = fc("send", "q.anthropic.json", "--base-url", fake_provider.url, "-o", out, env=env)
        assert sent.returncode == 0, sent.stderr
    first, second = (load(tmp_path / n)["usage"] for n in ("a.json", "b.json"))
    assert first["cache_creation_input_tokens"] > 0 and first["cache_read_input_tokens"] == 0
    assert second["cache_read_input_tokens"] > 0
    shown = fc("show", "a.json").stdout
    written = first["cache_creation_input_tokens"]
    assert f"0 of {written} input tokens from the cache, {written} written to it" in shown


def test_cache_fields_round_trip_through_each_format() -> None:
    from fccli.core.models import Response, Usage
    from fccli.wire.chat.dialects import DEEPSEEK

    usage = Usage(input_tokens=100, output_tokens=5, cache_read_tokens=64)
    response = Response(content=[TextBlock(text="ok")], stop_reason="end_turn", usage=usage)
    deepseek = chat.to_wire_response(response, DEEPSEEK)["usage"]
    assert deepseek["prompt_cache_hit_tokens"] == 64
    assert deepseek["prompt_cache_miss_tokens"] == 36
    assert chat.to_wire_response(response)["usage"]["prompt_tokens_details"] == {
        "cached_tokens": 64
    }
    wrote = usage.model_copy(update={"cache_write_tokens": 30})
    wire = anthropic.usage_to_wire(wrote)
    assert wire == {
        "input_tokens": 6,
        "cache_creation_input_tokens": 30,
        "cache_read_input_tokens": 64,
        "output_tokens": 5,
    }
    assert anthropic.usage_from_wire(wire) == wrote
    assert chat.usage_from_wire(deepseek) == usage
    assert usage.cache_line() == "64 of 100 input tokens from the cache"
    assert wrote.cache_line() == "64 of 100 input tokens from the cache, 30 written to it"
    assert Usage(input_tokens=100).cache_line() is None
    # a hostile count is dropped, not shown
    assert chat.usage_from_wire({"prompt_tokens": 5, "prompt_cache_hit_tokens": -3}) == Usage(
        input_tokens=5
    )


# --- fc check: where a hand-edited history breaks the prompt cache ---------------------------


def _edited_example(tmp_path: Path, edit) -> Path:
    import shutil

    from tests.conftest import REPO

    trace = tmp_path / "t"
    shutil.copytree(REPO / "traces/examples/hangzhou", trace)
    for name in ("2-request.deepseek.json", "2-request.json"):  # both alike: no FC120
        path = trace / name
        data = load(path)
        edit(data)
        path.write_text(json.dumps(data, ensure_ascii=False, indent=2), "utf-8")
    return trace


def test_an_untouched_trace_has_no_cache_note() -> None:
    from fccli.check.traces import check_trace
    from tests.conftest import REPO

    for example in ("hangzhou", "three-cities", "unknown-city"):
        rules = {f.rule for f in check_trace(REPO / "traces/examples" / example)}
        assert "FC122" not in rules


def test_fc_check_points_at_the_message_where_the_cache_breaks(fc, tmp_path: Path) -> None:
    def ask_about_beijing(data: dict[str, Any]) -> None:
        first = data["messages"][0]
        if isinstance(first["content"], str):
            first["content"] = "北京今天适合跑步吗？"
        else:
            first["content"][0]["text"] = "北京今天适合跑步吗？"

    trace = _edited_example(tmp_path, ask_about_beijing)
    result = fc("check", str(trace), "--strict", "--json")
    assert result.returncode == 0, result.stdout  # a note fails nothing, even with --strict
    report = json.loads(result.stdout)
    notes = [f for f in report["findings"] if f["rule"] == "FC122"]
    assert [(f["file"], f["path"], f["severity"]) for f in notes] == [
        ("2-request.deepseek.json", "$.messages[0].content", "note")
    ]
    assert "1-request.deepseek.json sent something else here" in notes[0]["message"]
    assert report["notes"] == 1
    text = fc("check", str(trace)).stdout
    assert "i note FC122 at $.messages[0].content" in text
    assert "0 errors, 0 warnings, 1 note" in text


def test_changed_tools_break_the_cache_before_any_message(tmp_path: Path) -> None:
    from fccli.check.traces import check_trace

    def describe_otherwise(data: dict[str, Any]) -> None:
        tool = data["tools"][0]
        (tool.get("function") or tool)["description"] = "获取信息"

    trace = _edited_example(tmp_path, describe_otherwise)
    notes = [(f.file, f.path) for f in check_trace(trace) if f.rule == "FC122"]
    assert notes == [("2-request.deepseek.json", "$.tools")]


# --- a demo trace taken to a real provider: that provider's model, said in one line ----------


@pytest.fixture
def demo_step2(fc, tmp_path: Path) -> Path:
    assert fc("run", QUESTION, "-o", "d").returncode == 0
    return tmp_path / "d/2-request.deepseek.json"


def _swapped(path: Path, model: str) -> bytes:
    return path.read_bytes().replace(b'"model": "fc-demo"', f'"model": "{model}"'.encode(), 1)


def test_send_takes_a_demo_file_to_deepseek_with_deepseeks_model(
    fc, demo_step2: Path, fake_provider
) -> None:
    result = fc("send", str(demo_step2), "--base-url", fake_provider.url, env=deepseek_env())
    assert result.returncode == 0, result.stderr
    (received,) = fake_provider.received
    assert received.body == _swapped(demo_step2, "deepseek-flash")  # only the model changed
    assert result.stderr.splitlines() == [
        f"fc: note: {demo_step2} names the demo's model fc-demo; sent to deepseek as "
        "deepseek-flash, its model"
    ]
    offline = fc("send", str(demo_step2), "-p", "demo")
    assert offline.returncode == 0 and offline.stderr == ""  # the demo serves its own model


@pytest.mark.skipif(__import__("shutil").which("curl") is None, reason="curl is not installed")
def test_curl_of_a_demo_file_runs_as_printed_with_deepseeks_model(
    fc, demo_step2: Path, fake_provider, tmp_path: Path
) -> None:
    import subprocess

    printed = fc("curl", "d/2-request.deepseek.json", "--base-url", fake_provider.url)
    assert printed.returncode == 0, printed.stderr
    assert printed.stdout.startswith(
        'sed \'s/"model": "fc-demo"/"model": "deepseek-flash"/\' d/2-request.deepseek.json |'
    )
    assert "--data-binary @-" in printed.stdout
    assert "sent to deepseek as deepseek-flash, its model" in printed.stderr
    ran = subprocess.run(
        ["bash", "-c", printed.stdout], cwd=tmp_path, env=deepseek_env(), capture_output=True
    )
    assert ran.returncode == 0, ran.stderr
    (received,) = fake_provider.received
    assert received.body == _swapped(demo_step2, "deepseek-flash")


def test_an_anthropic_file_goes_to_deepseeks_anthropic_endpoint(
    fc, demo_step2: Path, fake_provider, tmp_path: Path
) -> None:
    converted = fc("convert", "d/2-request.json", "--to", "anthropic", "-o", "a.anthropic.json")
    assert converted.returncode == 0, converted.stderr
    curl = fc("curl", "a.anthropic.json", "-p", "deepseek")
    assert "https://api.deepseek.com/anthropic/v1/messages" in curl.stdout
    assert '-H "x-api-key: $DEEPSEEK_API_KEY"' in curl.stdout
    url = fake_provider.url + "/anthropic"
    sent = fc("send", "a.anthropic.json", "-p", "deepseek", "--base-url", url, env=deepseek_env())
    assert sent.returncode == 0, sent.stderr
    (received,) = fake_provider.received
    assert received.path == "/anthropic/v1/messages"
    assert received.json["model"] == "deepseek-flash"
    assert json.loads(sent.stdout)["stop_reason"] == "end_turn"


def test_a_demo_file_whose_model_fc_cannot_find_alone_is_refused(fc, tmp_path: Path) -> None:
    body = {
        "model": "fc-demo",
        "messages": [{"role": "user", "content": '"model": "fc-demo" (quoted: not the model)'}],
        "metadata": {"model": "fc-demo"},  # a second place that says it: fc changes neither
    }
    (tmp_path / "odd.deepseek.json").write_text(json.dumps(body), "utf-8")
    result = fc("curl", "odd.deepseek.json")
    assert result.returncode == 2
    assert 'set "model": "deepseek-flash" in it' in result.stderr


def test_the_replay_page_s_curl_of_a_demo_trace_is_what_fc_prints(fc, tmp_path: Path) -> None:
    import re

    from tests.conftest import REPO

    page = (REPO / "docs" / "reference" / "replay.md").read_text("utf-8")
    shown = re.search(r"```\n(sed 's/.*?)```", page, re.S)
    assert shown is not None
    assert fc("run", QUESTION, "-o", "t").returncode == 0
    printed = fc("curl", "t/2-request.deepseek.json")
    assert printed.stdout == shown[1]
    note = re.search(r"\(`(fc: note: t/2-request.deepseek.json names[^`]*)`\)", page)
    assert note is not None
    assert note[1].split() == [w for w in printed.stderr.splitlines()[0].split()]


def test_the_otel_export_counts_anthropic_cache_hits_once(
    fc, fake_provider, tmp_path: Path
) -> None:
    args = ["-p", "deepseek", "--api", "anthropic", "--base-url", fake_provider.url + "/anthropic"]
    assert fc("run", QUESTION, *args, "-o", "t", env=deepseek_env()).returncode == 0
    exported = fc("export", "otel", "t", "-o", "spans.json")
    assert exported.returncode == 0, exported.stderr
    attributes: dict[str, list[int]] = {}

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if (
                "key" in node
                and isinstance(node.get("value"), dict)
                and "intValue" in node["value"]
            ):
                attributes.setdefault(node["key"], []).append(int(node["value"]["intValue"]))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    for line in (tmp_path / "spans.json").read_text("utf-8").splitlines():
        walk(json.loads(line))
    usage = load(tmp_path / "t/2-response.json")["usage"]
    assert usage["input_tokens"] in attributes["gen_ai.usage.input_tokens"]  # not + the hits
    assert usage["cache_read_tokens"] in attributes["gen_ai.usage.cache_read.input_tokens"]
