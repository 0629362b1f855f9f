"""The Gemini format end to end: `fc run -p gemini` against the fake provider over real HTTP
(streamed and not, Gemini 3 with call ids and thought signatures, Gemini 2.x without ids), the
codec's choices (ids, signatures, error results, finish reasons, usage), and every reader:
check, convert, show, send, curl."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fccli.core.models import (
    Message,
    ProviderBlock,
    Request,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from fccli.wire.gemini import codec
from fccli.wire.registry import FORMATS
from tests.conftest import clean_env
from tests.support import local_http
from tests.support.fake_provider import DEFAULT_KEY, FakeProvider
from tests.support.inprocess import run_in_process

QUESTION = "北京、上海今天适合跑步吗？"
GEMINI = FORMATS["gemini"]


def _env() -> dict[str, str]:
    return clean_env(GEMINI_API_KEY=DEFAULT_KEY)


def _run(fc: Any, fp: FakeProvider, tmp_path: Path, *extra: str, model: str) -> tuple[Any, Path]:
    out = tmp_path / f"trace-{model}-{len(fp.received)}"
    ran = fc(
        "run", QUESTION, "-p", "gemini", "-m", model, "--base-url", fp.url, "-o", str(out),
        *extra, env=_env(),
    )  # fmt: skip
    return ran, out


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


# ---------------------------------------------------------------------------------------------
# end to end over HTTP


@pytest.mark.parametrize("stream", [False, True])
def test_gemini_3_runs_parallel_calls_and_carries_the_signature_back(
    fc: Any, fake_provider: FakeProvider, tmp_path: Path, stream: bool
) -> None:
    ran, trace = _run(
        fc, fake_provider, tmp_path, "--thinking", *(["--stream"] if stream else []),
        model="gemini-3-pro-preview",
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert "北京" in ran.stdout and "上海" in ran.stdout
    assert fake_provider.errors == []
    paths = [r.path for r in fake_provider.received]
    action = "streamGenerateContent?alt=sse" if stream else "generateContent"
    assert paths == [f"/v1beta/models/gemini-3-pro-preview:{action}"] * 2
    # The key travels in its header, never in the URL; the trace holds neither.
    assert all(r.headers["x-goog-api-key"] == DEFAULT_KEY for r in fake_provider.received)
    assert all(DEFAULT_KEY not in p.read_text("utf-8") for p in trace.iterdir())
    answer = _json(trace / "1-response.gemini.json")
    calls = [p for p in answer["candidates"][0]["content"]["parts"] if "functionCall" in p]
    assert len(calls) == 2 and "thoughtSignature" in calls[0]
    # Step 2 sends the model's turn back exactly as it came, signature and ids included.
    request = _json(trace / "2-request.gemini.json")
    model_turn = request["contents"][1]
    assert model_turn["role"] == "model"
    assert [p for p in model_turn["parts"] if "functionCall" in p] == calls
    results = request["contents"][2]["parts"]
    assert [r["functionResponse"]["id"] for r in results] == [
        c["functionCall"]["id"] for c in calls
    ]
    assert all("output" in r["functionResponse"]["response"] for r in results)
    internal = _json(trace / "1-response.json")
    assert internal["stop_reason"] == "tool_use"
    assert internal["usage"]["reasoning_tokens"] > 0
    if stream:
        assert (trace / "1-response.gemini.sse").read_bytes().startswith(b"data: ")


def test_gemini_2_pairs_results_without_ids_by_name_and_order(
    fc: Any, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    ran, trace = _run(fc, fake_provider, tmp_path, model="gemini-2.5-flash")
    assert ran.returncode == 0, ran.stderr
    answer = _json(trace / "1-response.gemini.json")
    calls = [
        p["functionCall"]
        for p in answer["candidates"][0]["content"]["parts"]
        if "functionCall" in p
    ]
    assert len(calls) == 2 and all("id" not in c for c in calls)
    internal = _json(trace / "1-response.json")
    ids = [b["id"] for b in internal["content"] if b["type"] == "tool_use"]
    assert all(i.startswith(codec.INVENTED_PREFIX) for i in ids) and len(set(ids)) == 2
    # The invented ids pair the results internally, and never go out.
    request = _json(trace / "2-request.gemini.json")
    assert "fcgem_" not in json.dumps(request)
    assert [p["functionResponse"]["name"] for p in request["contents"][2]["parts"]] == [
        c["name"] for c in calls
    ]
    assert [
        b["tool_use_id"] for b in _json(trace / "2-request.json")["messages"][2]["content"]
    ] == ids


@pytest.mark.parametrize(
    ("quirk", "said"),
    [
        ("cut", "the stream ended early"),  # the connection dropped after the first call's chunk
        ("cut_clean", "no finishReason"),  # the body ended cleanly, half the chunks sent
        ("error_event", "The model is overloaded"),  # Gemini's error inside the stream
    ],
)
def test_a_stream_cut_mid_answer_exits_3_with_nothing_executed(
    fc: Any, fake_provider: FakeProvider, tmp_path: Path, quirk: str, said: str
) -> None:
    fake_provider.stream_quirks = {quirk}
    ran, trace = _run(fc, fake_provider, tmp_path, "--stream", model="gemini-3-pro-preview")
    assert ran.returncode == 3, ran.stderr
    assert said in ran.stderr
    assert len(fake_provider.received) == 1
    manifest = _json(trace / "manifest.json")
    assert not any(s.get("tool_runs") for s in manifest["steps"])


@pytest.mark.parametrize("stream", [False, True])
def test_a_malformed_function_call_stops_the_run_with_nothing_executed(
    fc: Any, fake_provider: FakeProvider, tmp_path: Path, stream: bool
) -> None:
    fake_provider.script = ["malformed_call"]
    ran, trace = _run(
        fc, fake_provider, tmp_path, *(["--stream"] if stream else []), model="gemini-2.5-flash"
    )
    assert ran.returncode == 3, ran.stderr
    assert "MALFORMED_FUNCTION_CALL" in ran.stderr
    assert not any(s.get("tool_runs") for s in _json(trace / "manifest.json")["steps"])


def test_a_wrong_key_is_gemini_s_own_sentence_and_not_shown(
    fc: Any, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    ran = fc(
        "run", QUESTION, "-p", "gemini", "--base-url", fake_provider.url, "-o", str(tmp_path / "t"),
        env=clean_env(GEMINI_API_KEY="AIza-wrong-key-0000"),
    )  # fmt: skip
    assert ran.returncode == 3
    assert "API key not valid" in ran.stderr
    assert "AIza-wrong-key-0000" not in ran.stderr + ran.stdout


@pytest.mark.server
def test_the_fake_refuses_a_dropped_signature_and_a_missing_result() -> None:
    with FakeProvider() as fp:
        url = f"{fp.url}/v1beta/models/gemini-3-pro-preview:generateContent"
        headers = {"x-goog-api-key": DEFAULT_KEY}
        call = {"functionCall": {"id": "a1", "name": "get_weather", "args": {"city": "北京"}}}
        result = {
            "functionResponse": {"id": "a1", "name": "get_weather", "response": {"output": "晴"}}
        }
        body = {
            "contents": [
                {"role": "user", "parts": [{"text": QUESTION}]},
                {"role": "model", "parts": [call]},
                {"role": "user", "parts": [result]},
            ]
        }
        said = local_http.post(url, json=body, headers=headers).json()["error"]["message"]
        assert said.startswith("Function call is missing a thought_signature")
        assert "position 2" in said
        body["contents"][2]["parts"] = []
        said = local_http.post(url, json=body, headers=headers).json()["error"]["message"]
        assert "number of function response parts" in said


# ---------------------------------------------------------------------------------------------
# the codec's choices


def test_an_error_result_travels_as_error_in_response_and_comes_back_flagged() -> None:
    request = Request(
        model="m",
        messages=[
            Message(role="user", content=[TextBlock(text="q")]),
            Message(role="assistant", content=[ToolUseBlock(id="c1", name="f", input={})]),
            Message(
                role="user",
                content=[ToolResultBlock(tool_use_id="c1", content="boom", is_error=True)],
            ),
        ],
    )
    wire = GEMINI.to_wire_request(request)
    assert wire["contents"][2]["parts"][0]["functionResponse"] == {
        "id": "c1",
        "name": "f",
        "response": {"error": "boom"},
    }
    assert GEMINI.from_wire_request(wire).messages == request.messages


def test_a_signature_is_a_provider_block_that_goes_back_onto_its_part() -> None:
    part = {"functionCall": {"name": "f", "args": {"x": 1}}, "thoughtSignature": "c2ln"}
    body = {"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP"}]}
    response = GEMINI.from_wire_response(body)
    assert response.stop_reason == "tool_use"
    signature, call = response.content
    assert signature == ProviderBlock(format="gemini", block={"thoughtSignature": "c2ln"})
    assert isinstance(call, ToolUseBlock) and call.id.startswith(codec.INVENTED_PREFIX)
    assert GEMINI.to_wire_response(response)["candidates"][0]["content"]["parts"] == [part]


def test_words_and_a_call_in_one_part_are_both_kept() -> None:
    """One kind per part, says the API; a server that sends both in one must not lose the words."""
    part = {"text": "我查一下天气。", "functionCall": {"name": "f", "args": {"x": 1}}}
    body = {"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP"}]}
    response = GEMINI.from_wire_response(body)
    text, call = response.content
    assert isinstance(text, TextBlock) and text.text == "我查一下天气。"
    assert isinstance(call, ToolUseBlock) and call.name == "f" and call.input == {"x": 1}
    parts = GEMINI.to_wire_response(response)["candidates"][0]["content"]["parts"]
    assert parts == [{"text": "我查一下天气。"}, {"functionCall": {"name": "f", "args": {"x": 1}}}]


@pytest.mark.parametrize(
    ("reason", "calls", "stop"),
    [
        ("STOP", True, "tool_use"),
        ("STOP", False, "end_turn"),
        ("MAX_TOKENS", False, "max_tokens"),
        ("MALFORMED_FUNCTION_CALL", False, "MALFORMED_FUNCTION_CALL"),
        ("SAFETY", False, "SAFETY"),
    ],
)
def test_finish_reasons(reason: str, calls: bool, stop: str) -> None:
    assert codec.stop_from_wire(reason, calls) == stop


def test_usage_counts_thoughts_as_output_and_the_cache_as_read() -> None:
    usage = codec.usage_from_wire(
        {
            "promptTokenCount": 100,
            "candidatesTokenCount": 20,
            "thoughtsTokenCount": 30,
            "cachedContentTokenCount": 64,
        }
    )
    assert (usage.input_tokens, usage.output_tokens, usage.reasoning_tokens) == (100, 50, 30)
    assert usage.cache_read_tokens == 64
    assert codec.usage_to_wire(usage)["candidatesTokenCount"] == 20


# ---------------------------------------------------------------------------------------------
# check, convert, show, curl, send on the files of a real run


@pytest.fixture(scope="module")
def trace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One `fc run -p gemini --thinking` on Gemini 3, which the tests below only read."""
    out = tmp_path_factory.mktemp("gemini") / "trace"
    with FakeProvider() as fp:
        ran = run_in_process(
            ["run", QUESTION, "-p", "gemini", "-m", "gemini-3-pro-preview", "--thinking",
             "--base-url", fp.url, "-o", str(out)],
            cwd=out.parent, env=_env(),
        )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    return out


def _edited(trace: Path, tmp_path: Path, edit: Any) -> Path:
    body = _json(trace / "2-request.gemini.json")
    edit(body)
    path = tmp_path / "edited.gemini.json"
    path.write_text(json.dumps(body, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.mark.server
def test_check_passes_fc_s_own_request(fc: Any, trace: Path) -> None:
    ran = fc("check", str(trace / "2-request.gemini.json"))
    assert ran.returncode == 0, ran.stdout + ran.stderr


@pytest.mark.server
@pytest.mark.parametrize(
    ("edit", "rule", "said"),
    [
        (lambda b: b["contents"][2]["parts"].pop(), "FC101", "number of function response parts"),
        (lambda b: b["contents"].pop(1), "FC102", "function response turn comes immediately"),
        (
            lambda b: b["contents"][1]["parts"][1].pop("thoughtSignature"),
            "FC121",
            "missing a thought_signature",
        ),
    ],
    ids=["call-without-output", "output-without-call", "no-signature"],
)
def test_check_catches_with_gemini_s_sentence(
    fc: Any, trace: Path, tmp_path: Path, edit: Any, rule: str, said: str
) -> None:
    path = _edited(trace, tmp_path, edit)
    ran = fc("check", str(path))
    assert rule in ran.stdout, ran.stdout
    assert said in ran.stdout.replace("\n", " ").replace("  ", " ") or said in ran.stdout


@pytest.mark.server
@pytest.mark.parametrize("target", ["anthropic", "openai", "internal"])
def test_convert_keeps_every_call_id_argument_result_and_error_flag(
    fc: Any, trace: Path, tmp_path: Path, target: str
) -> None:
    def spoil(body: dict[str, Any]) -> None:
        response = body["contents"][2]["parts"][1]["functionResponse"]["response"]
        response["error"] = response.pop("output")

    source = _edited(trace, tmp_path, spoil)
    out = tmp_path / f"out.{target}.json"
    ran = fc("convert", str(source), "--to", target, "-o", str(out))
    assert ran.returncode == 0, ran.stderr
    back_path = tmp_path / "back.gemini.json"
    ran = fc("convert", str(out), "--to", "gemini", "-o", str(back_path))
    assert ran.returncode == 0, ran.stderr
    back, original = _json(back_path), _json(source)

    # Every call, id, argument and result comes back; the signature only within Gemini.
    def calls_and_results(body: dict[str, Any]) -> list[Any]:
        return [
            {k: v for k, v in p.items() if k != "thoughtSignature"}
            for c in body["contents"]
            for p in c["parts"]
            if "functionCall" in p or "functionResponse" in p
        ]

    assert calls_and_results(back) == calls_and_results(original)
    if target != "internal":
        assert (
            "thoughtSignature" in ran.stderr
            or "thoughtSignature" in fc("convert", str(source), "--to", target).stderr
        )


@pytest.mark.server
def test_show_reads_a_gemini_trace(fc: Any, trace: Path) -> None:
    ran = fc("show", str(trace))
    assert ran.returncode == 0, ran.stderr
    assert "get_weather" in ran.stdout and "(on the wire: STOP)" in ran.stdout
    assert "gemini thoughtSignature" in ran.stdout


@pytest.mark.server
def test_curl_puts_the_model_in_the_url_and_the_key_in_its_header(fc: Any, trace: Path) -> None:
    ran = fc("curl", str(trace / "2-request.gemini.json"), "--base-url", "http://127.0.0.1:9")
    assert ran.returncode == 0, ran.stderr
    assert "/v1beta/models/gemini-3-pro-preview:generateContent" in ran.stdout
    assert '-H "x-goog-api-key: $GEMINI_API_KEY"' in ran.stdout
    assert "key=" not in ran.stdout


def test_send_posts_the_file_to_the_model_its_trace_asked(
    fc: Any, trace: Path, fake_provider: FakeProvider
) -> None:
    ran = fc(
        "send", str(trace / "1-request.gemini.json"), "--base-url", fake_provider.url, env=_env()
    )
    assert ran.returncode == 0, ran.stderr
    assert fake_provider.received[-1].path == "/v1beta/models/gemini-3-pro-preview:generateContent"
    assert json.loads(ran.stdout)["candidates"][0]["finishReason"] == "STOP"


def test_tools_in_gemini_form(fc: Any) -> None:
    ran = fc("tools", "-f", "gemini")
    assert ran.returncode == 0, ran.stderr
    declaration = json.loads(ran.stdout)[0]["functionDeclarations"][0]
    assert declaration["name"] == "get_weather" and "parametersJsonSchema" in declaration


# ---------------------------------------------------------------------------------------------
# docs/reference/providers.md's command, options that do not apply, the OTel provider name


def test_the_providers_page_s_gemini_command_does_what_its_comment_says(
    fc: Any, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    import re
    import shlex

    from tests.conftest import REPO

    page = (REPO / "docs" / "reference" / "providers.md").read_text("utf-8")
    line = re.search(r"^(fc run \S+ -p gemini[^#\n]*)# (.*)$", page, re.M)
    assert line is not None
    command, comment = shlex.split(line[1]), line[2]
    assert "GEMINI_API_KEY" in comment and "N-request.gemini.json" in comment
    ran = fc(*command[1:], "--base-url", fake_provider.url, "-o", "t", env=_env())
    assert ran.returncode == 0, ran.stderr
    assert (tmp_path / "t" / "1-request.gemini.json").is_file()
    default = re.search(r"gemini-[\w.-]+", comment)
    assert default is not None
    assert fake_provider.received[0].path == f"/v1beta/models/{default[0]}:generateContent"


@pytest.mark.parametrize("flag", ["--strict", "--no-parallel"])
def test_options_gemini_has_no_place_for_are_refused(fc: Any, flag: str) -> None:
    ran = fc("run", QUESTION, "-p", "gemini", flag, env=_env())
    assert ran.returncode == 2
    assert f"{flag} has no meaning for gemini" in ran.stderr


@pytest.mark.server
def test_the_otel_export_names_the_provider_gcp_gemini(fc: Any, trace: Path) -> None:
    # The conventions' well-known name, from the provider's profile (not a format name in export/).
    ran = fc("export", "otel", str(trace), "-o", "spans.json", "--format", "json", cwd=trace.parent)
    assert ran.returncode == 0, ran.stderr
    assert '"gcp.gemini"' in (trace.parent / "spans.json").read_text("utf-8")


@pytest.mark.server
def test_diff_maps_the_internal_request_onto_gemini_s_field_by_field(fc: Any, trace: Path) -> None:
    ran = fc("diff", "2-request.json", "2-request.gemini.json", "--exit-code", cwd=trace)
    assert ran.returncode == 0, ran.stderr
    out = ran.stdout
    assert "`input` → `args`" in out and "`tool_use_id` → `id`" in out
    assert "`content` → `output`" in out and "$.contents[2].parts[0].functionResponse" in out


# ---------------------------------------------------------------------------------------------
# convert, over generated histories (as tests/convert/test_convert.py does for the other formats)


def test_replay_sends_an_edited_result_to_the_model_the_trace_asked(
    fc: Any, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    # A trace of its own: the fake accepts back only the thought signatures it issued.
    ran, trace = _run(fc, fake_provider, tmp_path, "--thinking", model="gemini-3-pro-preview")
    assert ran.returncode == 0, ran.stderr
    internal = _json(trace / "1-response.json")
    first = next(b["id"] for b in internal["content"] if b["type"] == "tool_use")
    before = len(fake_provider.received)
    ran = fc(
        "replay", str(trace), "--set", f"{first}=暴雨，不适合跑步", "--error", first,
        "--base-url", fake_provider.url, "-o", str(tmp_path / "replayed"), env=_env(),
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    sent = fake_provider.received[before]
    assert sent.path == "/v1beta/models/gemini-3-pro-preview:generateContent"
    results = sent.json["contents"][2]["parts"]
    assert results[0]["functionResponse"]["response"] == {"error": "暴雨，不适合跑步"}
    # The model's turn went back whole, thought summary and signature, and nothing was lost.
    kinds = [next(iter(p)) for p in sent.json["contents"][1]["parts"]]
    assert kinds == ["text", "functionCall", "functionCall"]
    assert "thoughtSignature" in sent.json["contents"][1]["parts"][1]
    assert "left out" not in ran.stdout + ran.stderr and "comes back as" not in ran.stdout


@pytest.mark.server
def test_a_gemini_request_into_a_format_that_names_the_model_is_warned(
    fc: Any, trace: Path
) -> None:
    ran = fc("convert", str(trace / "2-request.gemini.json"), "--to", "anthropic")
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout)["model"] == ""
    assert 'fc: warning: $.model: "" (gemini names the model in the URL' in ran.stderr
