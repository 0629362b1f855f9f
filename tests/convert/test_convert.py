"""`fc convert`: agrees exactly with the trace's own files, reports on stderr what the target
cannot hold (never drops it silently), and refuses bad input with exit 2 and one line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fccli.convert.translate import convert
from fccli.core.errors import FcError
from fccli.core.jsonio import dumps
from fccli.core.models import Request
from fccli.trace.reader import document_from
from fccli.wire.registry import get_format
from tests.conftest import REPO

EXAMPLES = REPO / "traces" / "examples"
NAMES = sorted(
    p.name
    for p in EXAMPLES.iterdir()
    if (p / "manifest.json").is_file()
    # The examples the demo model made, in its DeepSeek format (the Gemini one has its own tests).
    and json.loads((p / "manifest.json").read_text("utf-8"))["wire_format"] == "deepseek"
)
STEPS = [(name, step) for name in NAMES for step in (1, 2)]


def load(path: Path) -> Any:
    return json.loads(path.read_text("utf-8"))


# ---------------------------------------------------------------------------------------------
# the trace's own files


@pytest.mark.parametrize(("name", "step"), STEPS)
def test_internal_to_deepseek_gives_the_traces_wire_request_exactly(
    fc, tmp_path: Path, name: str, step: int
) -> None:
    here = EXAMPLES / name
    out = tmp_path / "out.json"
    result = fc("convert", str(here / f"{step}-request.json"), "--to", "deepseek", "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    assert out.read_bytes() == (here / f"{step}-request.deepseek.json").read_bytes()
    # On stdout too, byte for byte.
    piped = fc("convert", str(here / f"{step}-request.json"), "--to", "deepseek")
    assert piped.stdout.encode("utf-8") == (here / f"{step}-request.deepseek.json").read_bytes()


@pytest.mark.parametrize(("name", "step"), STEPS)
def test_deepseek_to_internal_gives_back_the_traces_request(fc, name: str, step: int) -> None:
    here = EXAMPLES / name
    result = fc("convert", str(here / f"{step}-request.deepseek.json"), "--to", "internal")
    assert result.returncode == 0, result.stderr
    converted = json.loads(result.stdout)
    original = load(here / f"{step}-request.json")
    assert converted["messages"] == original["messages"]
    assert converted == original
    assert "fc: lost:" not in result.stderr


@pytest.mark.parametrize(("name", "step"), STEPS)
def test_deepseek_response_to_internal_gives_back_the_traces_response(
    fc, name: str, step: int
) -> None:
    here = EXAMPLES / name
    result = fc("convert", str(here / f"{step}-response.deepseek.json"), "--to", "internal")
    assert json.loads(result.stdout) == load(here / f"{step}-response.json")
    # What the internal format keeps nothing of is said, a line each.
    lost = [line for line in result.stderr.splitlines() if line.startswith("fc: lost: ")]
    assert lost == [
        "fc: lost: $.created: 1767225600 dropped: the internal format has no place for deepseek's `created`",
        "fc: lost: $.choices[0].logprobs: null dropped: the internal format has no place for deepseek's `logprobs`",
        'fc: lost: $.system_fingerprint: "fc-demo" dropped: the internal format has no place for deepseek\'s `system_fingerprint`',
    ]


@pytest.mark.parametrize(("name", "step"), STEPS)
def test_internal_to_anthropic_and_back_is_lossless(
    fc, tmp_path: Path, name: str, step: int
) -> None:
    here = EXAMPLES / name
    there = fc(
        "convert",
        str(here / f"{step}-request.json"),
        "--to",
        "anthropic",
        "-o",
        str(tmp_path / "a.json"),
    )
    assert there.returncode == 0, there.stderr
    back = fc("convert", str(tmp_path / "a.json"), "--to", "internal", "--from", "anthropic")
    original = load(here / f"{step}-request.json")
    returned = json.loads(back.stdout)
    # Anthropic requires max_tokens; the trace set none, so 4096 was sent, and that is said,
    # as a value set, not as a loss.
    assert returned.pop("max_tokens") == 4096
    assert returned == original
    # DeepSeek's reasoning has no signature: Anthropic would refuse it, and that is said too.
    unsigned = [
        f"fc: warning: $.messages[{i}].content[{j}]: a thinking block without its signature, "
        f"which Anthropic refuses (HTTP 400: messages.{i}.content.{j}.thinking.signature: "
        "Field required)"
        for i, m in enumerate(original["messages"])
        for j, b in enumerate(m["content"])
        if b["type"] == "thinking"
    ]
    assert unsigned or step == 1
    assert there.stderr.splitlines() == [
        "fc: note: $.max_tokens: set to 4096 (Anthropic requires max_tokens; the source sets none)",
        *unsigned,
        f"wrote {tmp_path / 'a.json'} (anthropic request)",
    ]
    assert back.stderr == ""


@pytest.mark.parametrize(("name", "step"), STEPS)
def test_responses_to_anthropic_and_back_lose_only_what_they_say(name: str, step: int) -> None:
    doc = document_from(load(EXAMPLES / name / f"{step}-response.json"), "r.json")
    converted = convert(doc, "anthropic")
    back = document_from(converted.output, "r.anthropic.json")
    original = doc.internal_json()
    lost = original["usage"].pop("reasoning_tokens")
    assert back.internal_json() == original
    assert converted.losses == [
        f"$.usage.reasoning_tokens: reasoning_tokens ({lost}) dropped: anthropic's usage has no such count"
    ]


# ---------------------------------------------------------------------------------------------
# what the target cannot hold


def test_thinking_into_openai_is_reported_and_is_error_into_chat_is_noted(fc) -> None:
    result = fc("convert", str(EXAMPLES / "unknown-city" / "2-request.json"), "--to", "openai")
    assert result.returncode == 0
    assert result.stderr.splitlines() == [
        "fc: note: $.messages[2].content[0].is_error: is_error has no place in chat: marked in "
        "the text as '[tool error] ' (read back as is_error: true)",
        "fc: lost: $.messages[1].content[0]: a thinking block dropped: openai chat has no reasoning field",
    ]
    wire = json.loads(result.stdout)
    assert "reasoning_content" not in wire["messages"][1]
    assert wire["messages"][2]["content"].startswith("[tool error] get_weather failed")


def test_the_rest_of_what_chat_cannot_hold(tmp_path: Path) -> None:
    request = {
        "model": "m",
        "messages": [
            {"role": "user", "content": "q"},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "hm", "signature": "sig=="},
                    {"type": "text", "text": "a"},
                    {"type": "text", "text": "b"},
                    {
                        "type": "tool_use",
                        "id": "c1",
                        "name": "t",
                        "input": {},
                        "raw_arguments": "{cut",
                    },
                ],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "c1", "content": "x"}],
            },
        ],
        "thinking": True,
    }
    losses = convert(document_from(request, "r.json"), "deepseek").losses
    assert losses == [
        "$.messages[1].content[0].signature: the thinking block's signature dropped: deepseek chat has no place for it",
        '$.messages[1].content[1].text: joined with the next text block(s) into "ab": deepseek chat has one text string per message',
        '$.messages[1].content[2]: a text block ("b") merged into the one before, or dropped if empty: deepseek chat has one content string per message',
        '$.messages[1].content[3].raw_arguments: raw_arguments "{cut" dropped: deepseek chat carries the parsed arguments (here {}), not the text the model sent',
    ]
    openai = convert(document_from(request, "r.json"), "openai").losses
    assert "$.thinking: thinking on dropped: openai chat has no thinking switch" in openai


def test_a_messages_array_converts_with_its_own_paths(fc, tmp_path: Path) -> None:
    wire = load(EXAMPLES / "unknown-city" / "2-request.deepseek.json")
    messages = [{"role": "system", "content": "be brief"}, *wire["messages"]]
    result = fc("convert", "-", "--to", "internal", input=json.dumps(messages))
    assert result.returncode == 0, result.stderr
    assert (
        json.loads(result.stdout) == load(EXAMPLES / "unknown-city" / "2-request.json")["messages"]
    )
    assert result.stderr.splitlines() == [
        "fc: note: $[3].content: read as an error result (is_error: true), since the text starts with '[tool error] '",
        'fc: lost: $[0]: the system message ("be brief") has no place in a messages array of the '
        "internal format: convert the whole request to keep it",
    ]
    back = fc("convert", "-", "--to", "deepseek", input=result.stdout)
    assert json.loads(back.stdout) == wire["messages"]


def test_a_compact_provider_body_from_stdin(fc) -> None:
    body = load(EXAMPLES / "hangzhou" / "1-response.deepseek.json")
    result = fc("convert", "-", "--to", "anthropic", input=json.dumps(body, separators=(",", ":")))
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith('{\n  "id": ')  # pretty, whatever came in
    assert json.loads(result.stdout)["stop_reason"] == "tool_use"


def test_from_forces_the_source_format(fc, tmp_path: Path) -> None:
    wire = convert(
        document_from(load(EXAMPLES / "hangzhou" / "1-request.json"), "r.json"), "anthropic"
    )
    path = tmp_path / "no-hint.json"
    path.write_text(dumps(wire.output))
    forced = fc("convert", str(path), "--to", "deepseek", "--from", "anthropic")
    assert forced.returncode == 0, forced.stderr
    assert json.loads(forced.stdout)["max_tokens"] == 4096
    bad = fc("convert", str(path), "--to", "deepseek", "--from", "cohere")
    assert bad.returncode == 2 and "unknown format 'cohere'" in bad.stderr


# ---------------------------------------------------------------------------------------------
# bad input


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["bad.json", "--to", "openai"], "bad.json: not valid JSON"),
        (["other.json", "--to", "openai"], "not a request or response fc can read"),
        (["missing.json", "--to", "openai"], "missing.json: no such file"),
        (["1-request.json", "--to", "cohere"], "unknown target format 'cohere'"),
        (
            ["1-request.json", "--to", "openai", "-o", "1-request.json"],
            "is the file being converted",
        ),
        (
            ["wrong.json", "--to", "openai"],
            "wrong.json, at $.messages[0].content[0]: cannot be written as openai: a tool_use block cannot stand in a user message",
        ),
        (
            ["1-request.deepseek.json", "--to", "internal", "--from", "anthropic"],
            "cannot be read as anthropic request",
        ),
    ],
)
def test_bad_input_is_exit_2_with_one_clear_line(
    fc, tmp_path: Path, args: list[str], says: str
) -> None:
    for name in ("1-request.json", "1-request.deepseek.json"):
        shutil.copy(EXAMPLES / "hangzhou" / name, tmp_path / name)
    (tmp_path / "bad.json").write_text('{"model": "m",')
    (tmp_path / "other.json").write_text("[1, 2]")
    (tmp_path / "wrong.json").write_text(
        json.dumps(
            {
                "model": "m",
                "messages": [
                    {
                        "role": "user",
                        "content": [{"type": "tool_use", "id": "c", "name": "t", "input": {}}],
                    }
                ],
            }
        )
    )
    result = fc("convert", *args)
    assert result.returncode == 2, result.stderr
    assert says in result.stderr.splitlines()[0]
    assert "Traceback" not in result.stderr and len(result.stderr.splitlines()) <= 2
    assert result.stdout == ""


# ---------------------------------------------------------------------------------------------
# the report is honest: when it says nothing is lost, nothing is


_text = st.text(alphabet='ab杭州 {}"', min_size=0, max_size=6)
_id = st.sampled_from(["c1", "c2", "call_x"])
_blocks_assistant = st.lists(
    st.one_of(
        st.builds(lambda t: {"type": "text", "text": t}, _text),
        st.builds(
            lambda t, s: {"type": "thinking", "thinking": t, **({"signature": s} if s else {})},
            _text,
            st.sampled_from([None, "sig"]),
        ),
        st.builds(
            lambda i, raw: {
                "type": "tool_use",
                "id": i,
                "name": "get_weather",
                "input": {} if raw else {"city": "杭州"},
                **({"raw_arguments": raw} if raw else {}),
            },
            _id,
            st.sampled_from([None, "{cut"]),
        ),
    ),
    min_size=1,
    max_size=4,
)
_blocks_user = st.lists(
    st.one_of(
        st.builds(lambda t: {"type": "text", "text": t}, _text),
        st.builds(
            lambda i, c, e: {"type": "tool_result", "tool_use_id": i, "content": c, "is_error": e},
            _id,
            _text,
            st.booleans(),
        ),
    ),
    min_size=1,
    max_size=3,
)
_requests = st.builds(
    lambda turns, thinking, max_tokens, choice, parallel: {
        "model": "m",
        "messages": [
            {"role": "user" if i % 2 == 0 else "assistant", "content": blocks}
            for i, blocks in enumerate(turns)
        ],
        **({"thinking": thinking} if thinking is not None else {}),
        **({"max_tokens": max_tokens} if max_tokens else {}),
        **({"tool_choice": {"type": choice}} if choice else {}),
        **({"parallel_tool_calls": parallel} if parallel is not None else {}),
    },
    st.lists(st.tuples(_blocks_user, _blocks_assistant), min_size=1, max_size=2).map(
        lambda pairs: [blocks for pair in pairs for blocks in pair]
    ),
    st.sampled_from([None, True, False]),
    st.sampled_from([None, 2048]),
    st.sampled_from([None, "auto", "none", "required"]),
    st.sampled_from([None, False, True]),
)


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(request=_requests, target=st.sampled_from(["deepseek", "openai", "anthropic"]))
def test_no_loss_reported_means_the_round_trip_gives_it_back(
    request: dict[str, Any], target: str
) -> None:
    doc = document_from(request, "r.json", forced="internal")
    try:
        converted = convert(doc, target)
    except FcError:
        return  # a history the format refuses is refused loudly, which is honest too
    fmt = get_format(target)
    back = fmt.from_wire_request(converted.output).to_json_dict()
    original = Request.model_validate(request).to_json_dict()
    for path in converted.added:  # a value the target requires, set and said in a note
        assert path.startswith("$.") and "." not in path[2:] and "[" not in path
        assert path[2:] not in original
        back.pop(path[2:])
    if not converted.losses:
        assert back == original
    else:
        assert back != original


def test_a_system_message_a_messages_array_cannot_hold_is_reported(fc) -> None:
    messages = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]
    result = fc("convert", "-", "--to", "anthropic", input=json.dumps(messages))
    assert result.returncode == 0
    assert json.loads(result.stdout) == [
        {"role": "user", "content": [{"type": "text", "text": "hi"}]}
    ]
    assert "has no place in a messages array of anthropic" in result.stderr
    kept = fc("convert", "-", "--to", "openai", input=json.dumps(messages))
    assert json.loads(kept.stdout) == messages and kept.stderr == ""


# ---------------------------------------------------------------------------------------------
# what a tester tried from a fresh clone


def test_a_manifest_is_named_as_one(fc) -> None:
    result = fc("convert", "hangzhou/manifest.json", "--to", "anthropic", cwd=EXAMPLES)
    assert result.returncode == 2
    assert result.stderr == (
        "fc: error: hangzhou/manifest.json: this is a trace's manifest; give a request or "
        "response file (or `fc show hangzhou`)\n"
    )
    assert result.stdout == ""


def test_a_value_set_for_the_target_is_a_note_not_a_loss(fc) -> None:
    result = fc("convert", str(EXAMPLES / "hangzhou" / "1-request.json"), "--to", "anthropic")
    assert result.returncode == 0, result.stderr
    assert result.stderr == (
        "fc: note: $.max_tokens: set to 4096 (Anthropic requires max_tokens; the source sets none)\n"
    )
    request = load(EXAMPLES / "hangzhou" / "1-request.json")
    converted = convert(
        document_from({**request, "parallel_tool_calls": False}, "r.json"), "anthropic"
    )
    assert converted.losses == []
    assert converted.added == ["$.tool_choice", "$.max_tokens"]
    assert converted.notes[0] == (
        '$.tool_choice: set to {"type": "auto"} (Anthropic says \'one call at a time\' inside '
        "tool_choice; auto is what no choice means)"
    )


@pytest.mark.parametrize(
    "path",
    [
        "hangzhou/1-response.deepseek.json",
        "unknown-city/2-request.deepseek.json",
        "three-cities/2-request.deepseek.json",
    ],
)
def test_into_its_own_format_a_file_comes_back_whole_and_nothing_is_said_lost(
    fc, path: str
) -> None:
    result = fc("convert", str(EXAMPLES / path), "--to", "deepseek")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert json.loads(result.stdout) == load(EXAMPLES / path)


def test_out_says_what_it_wrote(fc, tmp_path: Path) -> None:
    source = EXAMPLES / "hangzhou" / "1-response.deepseek.json"
    result = fc("convert", str(source), "--to", "internal", "-o", "r.json")
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    assert result.stderr.splitlines()[-1] == "wrote r.json (internal response)"
    messages = json.dumps(load(EXAMPLES / "hangzhou" / "1-request.deepseek.json")["messages"])
    piped = fc("convert", "-", "--to", "anthropic", "-o", "m.json", input=messages)
    assert piped.stderr.splitlines()[-1] == "wrote m.json (anthropic messages array)"


def test_thinking_without_a_signature_into_anthropic_is_warned_about(fc) -> None:
    result = fc(
        "convert", str(EXAMPLES / "hangzhou" / "2-request.deepseek.json"), "--to", "anthropic"
    )
    assert result.returncode == 0, result.stderr
    wire = json.loads(result.stdout)
    assert wire["messages"][1]["content"][0]["type"] == "thinking"
    assert "signature" not in wire["messages"][1]["content"][0]
    assert (
        "fc: warning: $.messages[1].content[0]: a thinking block without its signature, which "
        "Anthropic refuses (HTTP 400: messages.1.content.0.thinking.signature: Field required)"
    ) in result.stderr.splitlines()
    # Anthropic's own thinking, with its signature, goes back without a word.
    request = load(EXAMPLES / "hangzhou" / "2-request.json")
    request["messages"][1]["content"][0]["signature"] = "EqQBCkgIAhABGAIiQ=="
    assert convert(document_from(request, "r.json"), "anthropic").warnings == []
    assert convert(document_from(request, "r.json"), "openai").warnings == []
