"""The chat-completions stream folder: any stream of an answer, split anywhere, assembles to
exactly the JSON the non-streamed call returns; a stream that ended early never does. Where real
servers differ, also as a whole `fc run --stream` over HTTP against the fake provider."""

from __future__ import annotations

import json
import string
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fccli.core.errors import ProtocolError, ProviderError, StreamCut
from fccli.core.stream import StreamDelta
from fccli.wire.chat import codec as chat
from fccli.wire.chat import stream as chat_stream
from fccli.wire.chat.dialects import OPENAI, ChatDialect
from fccli.wire.chat.stream import ChatStreamFolder
from fccli.wire.shape import parse_arguments
from tests.providers.test_providers_http import TWO_CITIES, load, run_fc
from tests.support import fake_provider
from tests.support.builders import call_ids, json_objects
from tests.support.fake_provider import FakeProvider

DEEPSEEK = ChatDialect(name="deepseek", reasoning_field="reasoning_content")

# ---------------------------------------------------------------------------------------------
# answers, and streams of them (written here from the answer, independently of fc's folder)


@st.composite
def chat_answers(draw: st.DrawFn) -> dict[str, Any]:
    """A non-streamed chat answer: text, maybe reasoning, 0-4 calls with JSON object arguments."""
    calls = [
        {
            "id": f"call_{i}_{draw(call_ids)}",
            "type": "function",
            "function": {
                "name": draw(st.text(min_size=1, max_size=12)),
                "arguments": json.dumps(draw(json_objects), ensure_ascii=draw(st.booleans())),
            },
        }
        for i in range(draw(st.integers(min_value=0, max_value=4)))
    ]
    text = draw(st.text(max_size=30))
    message: dict[str, Any] = {
        "role": "assistant",
        # OpenAI sends null beside calls, DeepSeek "".
        "content": text if text or not calls else draw(st.sampled_from([None, ""])),
    }
    if draw(st.booleans()):
        message["reasoning_content"] = draw(st.text(max_size=30))
    if calls:
        message["tool_calls"] = calls
    finish = "tool_calls" if calls else draw(st.sampled_from(["stop", "length"]))
    answer: dict[str, Any] = {
        "id": "chatcmpl-" + draw(st.text(string.ascii_letters + string.digits, max_size=12)),
        "object": "chat.completion",
        "created": draw(st.integers(min_value=0, max_value=2**31)),
        "model": draw(st.sampled_from(["deepseek-chat", "gpt-4o-mini", "qwen3:8b"])),
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
    }
    if draw(st.booleans()):
        p, c = draw(st.integers(0, 10**6)), draw(st.integers(0, 10**6))
        answer["usage"] = {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}
    return answer


def dialect_for(answer: dict[str, Any]) -> ChatDialect:
    return DEEPSEEK if "reasoning_content" in answer["choices"][0]["message"] else OPENAI


def pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


@st.composite
def stream_options(draw: st.DrawFn) -> dict[str, Any]:
    return {
        "text_size": draw(st.integers(1, 9)),
        "args_size": draw(st.integers(1, 9)),
        # How continuation deltas carry the id: not at all, `"id": ""` (and `"type": ""`), or
        # the full id and name again on every delta.
        "ids": draw(st.sampled_from(["head", "empty", "repeat"])),
        # Calls one after another, their fragments interleaved, or every head at index 0.
        "layout": draw(st.sampled_from(["sequential", "interleave", "reuse0"])),
        "keep_alive": draw(st.booleans()),
        "eol": draw(st.sampled_from(["\n", "\r\n", "\r"])),
        "multiline": draw(st.booleans()),
        "usage_in_finish": draw(st.booleans()),
    }


def chat_chunks(answer: dict[str, Any], o: dict[str, Any]) -> list[dict[str, Any]]:
    """The chunk objects a server streams for `answer`, the way `o` says."""
    meta = {k: answer[k] for k in ("id", "created", "model")}
    choice = answer["choices"][0]
    message = choice["message"]
    usage = answer.get("usage")

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {
            **meta,
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        }
        if usage is not None:
            out["usage"] = None  # OpenAI, with include_usage: null on every chunk but the last
        return out

    first: dict[str, Any] = {
        "role": "assistant",
        "content": None if message["content"] is None else "",
    }
    if "reasoning_content" in message:
        first["reasoning_content"] = ""
    chunks = [chunk(first)]
    for piece in pieces(message.get("reasoning_content") or "", o["text_size"]):
        chunks.append(chunk({"content": None, "reasoning_content": piece}))
    for piece in pieces(message["content"] or "", o["text_size"]):
        chunks.append(chunk({"content": piece}))
    per_call = []
    for i, call in enumerate(message.get("tool_calls") or []):
        index = 0 if o["layout"] == "reuse0" else i
        name = call["function"]["name"]
        head = {
            "index": index,
            "id": call["id"],
            "type": "function",
            "function": {"name": name, "arguments": ""},
        }
        own = [chunk({"tool_calls": [head]})]
        for piece in pieces(call["function"]["arguments"], o["args_size"]):
            frag: dict[str, Any] = {"index": index}
            function: dict[str, Any] = {"arguments": piece}
            if o["ids"] == "empty":
                frag.update({"id": "", "type": ""})
            elif o["ids"] == "repeat":
                frag.update({"id": call["id"], "type": "function"})
                function = {"name": name, "arguments": piece}
            frag["function"] = function
            own.append(chunk({"tool_calls": [frag]}))
        per_call.append(own)
    if o["layout"] == "interleave":
        for turn in range(max((len(own) for own in per_call), default=0)):
            chunks.extend(own[turn] for own in per_call if turn < len(own))
    else:
        for own in per_call:
            chunks.extend(own)
    last = chunk({}, choice["finish_reason"])
    if usage is not None and o["usage_in_finish"]:
        last["usage"] = usage  # DeepSeek: usage on the finish_reason chunk
        chunks.append(last)
    elif usage is not None:
        chunks.append(last)
        chunks.append({**meta, "object": "chat.completion.chunk", "choices": [], "usage": usage})
    else:
        chunks.append(last)
    return chunks


def chat_sse(answer: dict[str, Any], o: dict[str, Any], *, done: bool = True) -> bytes:
    eol = o["eol"]
    out = []
    for n, obj in enumerate(chat_chunks(answer, o)):
        if o["keep_alive"] and n % 3 == 0:
            out.append(": keep-alive" + eol + eol)
        if o["multiline"] and n % 2 == 0:
            # The same JSON over several data: lines; the standard joins them with \n.
            lines = json.dumps(obj, indent=1, ensure_ascii=False).split("\n")
        else:
            lines = [json.dumps(obj, ensure_ascii=False)]
        out.append("".join(f"data: {line}{eol}" for line in lines) + eol)
    if done:
        out.append("data: [DONE]" + eol + eol)
    return "".join(out).encode()


DEFAULT = {
    "text_size": 4,
    "args_size": 3,
    "ids": "head",
    "layout": "sequential",
    "keep_alive": False,
    "eol": "\n",
    "multiline": False,
    "usage_in_finish": False,
}


def fold(
    raw: bytes,
    sizes: list[int] | None = None,
    dialect: ChatDialect = OPENAI,
    on_delta: Any = None,
    cut: str | None = None,
) -> tuple[dict[str, Any], ChatStreamFolder]:
    folder = ChatStreamFolder(dialect, on_delta)
    sizes = sizes or [len(raw) or 1]
    at = n = 0
    while at < len(raw):
        size = sizes[n % len(sizes)]
        folder.feed(raw[at : at + size])
        at += size
        n += 1
    return folder.finish(cut), folder


split_sizes = st.lists(st.integers(min_value=1, max_value=97), min_size=1, max_size=6)


ANSWER: dict[str, Any] = {
    "id": "chatcmpl-abc",
    "object": "chat.completion",
    "created": 1767225600,
    "model": "deepseek-chat",
    "choices": [
        {
            "index": 0,
            "message": {
                "role": "assistant",
                "content": "",
                "reasoning_content": "Two cities, two calls.",
                "tool_calls": [
                    {
                        "id": "call_abc",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "杭州"}'},
                    },
                    {
                        "id": "call_def",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                    },
                ],
            },
            "logprobs": None,
            "finish_reason": "tool_calls",
        }
    ],
    "usage": {"prompt_tokens": 20, "completion_tokens": 12, "total_tokens": 32},
}


# ---------------------------------------------------------------------------------------------
# whole streams


@given(chat_answers(), stream_options(), split_sizes)
def test_any_stream_of_an_answer_assembles_to_exactly_that_answer(
    answer: dict[str, Any], o: dict[str, Any], sizes: list[int]
) -> None:
    raw = chat_sse(answer, o)
    dialect = dialect_for(answer)
    out, folder = fold(raw, sizes, dialect)
    assert out == answer
    assert folder.notes == []
    assert folder.bytes_received == len(raw)
    # And what fc reads from it is what it reads from the non-streamed answer.
    assert chat.from_wire_response(out, dialect) == chat.from_wire_response(answer, dialect)


def fake_stream(
    answer: dict[str, Any], quirks: set[str], include_usage: bool, size: int = 4, text: int = 8
) -> list[Any]:
    fp = SimpleNamespace(stream_quirks=quirks, fragment_size=size, text_fragment_size=text)
    return fake_provider._chat_events(answer, fp, include_usage=include_usage)  # type: ignore[arg-type]


def joined(events: list[Any], *, stop_at_cut: bool = False) -> bytes:
    out = []
    for event in events:
        if event is fake_provider._CUT:
            if stop_at_cut:
                break
            continue
        out.append(str(event))
    return "".join(out).encode()


def without_usage(answer: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in answer.items() if k != "usage"}


QUIRK_SETS = [
    set(),
    {"keep_alive"},
    {"empty_id"},
    {"reuse_index0"},
    {"reuse_index0", "empty_id", "keep_alive"},
    {"interleave"},
    {"interleave", "empty_id"},
]


@given(
    chat_answers(),
    st.sampled_from(QUIRK_SETS),
    st.integers(1, 7),
    st.integers(1, 9),
    split_sizes,
)
def test_the_fake_servers_streams_assemble_to_its_json_answers(
    answer: dict[str, Any], quirks: set[str], size: int, text: int, sizes: list[int]
) -> None:
    # A second, independent writer of streams: the one the end-to-end tests talk to.
    include_usage = "usage" in answer
    raw = joined(fake_stream(answer, quirks, include_usage, size, text))
    out, folder = fold(raw, sizes, dialect_for(answer))
    assert out == answer
    assert folder.notes == []


@pytest.mark.parametrize("quirks", QUIRK_SETS, ids=lambda q: "+".join(sorted(q)) or "plain")
def test_the_fake_servers_quirks_one_by_one(quirks: set[str]) -> None:
    raw = joined(fake_stream(ANSWER, quirks, include_usage=True, size=2))
    out, _ = fold(raw, [13], DEEPSEEK)
    assert out == ANSWER
    out, _ = fold(joined(fake_stream(ANSWER, quirks, include_usage=False)), [5], DEEPSEEK)
    assert out == without_usage(ANSWER)


# ---------------------------------------------------------------------------------------------
# routing rules, one at a time


def sse(*chunks: Any, done: bool = True) -> bytes:
    lines = [f"data: {c if isinstance(c, str) else json.dumps(c)}\n\n" for c in chunks]
    return ("".join(lines) + ("data: [DONE]\n\n" if done else "")).encode()


def delta_chunk(delta: dict[str, Any], finish: str | None = None, index: int = 0) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [{"index": index, "delta": delta, "finish_reason": finish}],
    }


def calls_of(out: dict[str, Any]) -> list[tuple[Any, Any, str]]:
    return [
        (c["id"], c["function"]["name"], c["function"]["arguments"])
        for c in out["choices"][0]["message"].get("tool_calls", [])
    ]


def test_a_second_head_reusing_index_0_starts_a_new_call() -> None:
    # agno-agi/agno PR 8880: DeepSeek sent the second call's head with index 0 again.
    raw = sse(
        delta_chunk(
            {"tool_calls": [{"index": 0, "id": "a", "function": {"name": "f", "arguments": ""}}]}
        ),
        delta_chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"x":'}}]}),
        delta_chunk({"tool_calls": [{"index": 0, "function": {"arguments": " 1}"}}]}),
        delta_chunk(
            {"tool_calls": [{"index": 0, "id": "b", "function": {"name": "g", "arguments": ""}}]}
        ),
        delta_chunk({"tool_calls": [{"index": 0, "function": {"arguments": "{}"}}]}),
        delta_chunk({}, "tool_calls"),
    )
    out, _ = fold(raw)
    assert calls_of(out) == [("a", "f", '{"x": 1}'), ("b", "g", "{}")]


def reuseindex_chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    """A chunk as DeepSeek's OpenAI-compatible API sends it."""
    return {
        "id": "5f0b6c4e-2d1a-4a8e-9c3b-7e21d5a0c9f1",
        "object": "chat.completion.chunk",
        "created": 1764653000,
        "model": "deepseek-chat",
        "system_fingerprint": "fp_feb633d1f5_prod0820_fp8_kvcache",
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
    }


def reuseindex_head(call_id: str) -> dict[str, Any]:
    head = {"index": 0, "id": call_id, "type": "function"}
    return reuseindex_chunk(
        {"tool_calls": [{**head, "function": {"name": "get_weather", "arguments": ""}}]}
    )


def reuseindex_pieces(index: int, city: str) -> list[dict[str, Any]]:
    pieces = ['{"', "city", '":"', city, '"}']
    return [
        reuseindex_chunk({"tool_calls": [{"index": index, "function": {"arguments": p}}]})
        for p in pieces
    ]


REUSEINDEX_CALLS = [
    ("call_0_8c1f2d3e-4b5a-4c6d-9e7f-0a1b2c3d4e5f", "get_weather", '{"city":"杭州"}'),
    ("call_1_1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", "get_weather", '{"city":"北京"}'),
    ("call_2_9f8e7d6c-5b4a-4c3d-8e2f-1a0b9c8d7e6f", "get_weather", '{"city":"深圳"}'),
]


def test_the_reuseindex_stream_heads_on_index_0_and_pieces_on_their_own() -> None:
    # Each head on index 0 with its id, its argument pieces on the call's own index.
    role = reuseindex_chunk({"role": "assistant", "content": ""})
    chunks: list[Any] = [role]
    for n, (call_id, _, args) in enumerate(REUSEINDEX_CALLS):
        city = json.loads(args)["city"]
        chunks += [reuseindex_head(call_id), *reuseindex_pieces(n, city)]
    chunks.append(reuseindex_chunk({"content": ""}, "tool_calls"))
    out, _ = fold(sse(*chunks))
    assert calls_of(out) == REUSEINDEX_CALLS
    assert out["choices"][0]["finish_reason"] == "tool_calls"


def test_reuseindex_heads_first_then_pieces_go_in_the_order_the_heads_came() -> None:
    # Every head first (all on index 0), then the pieces interleaved on indexes 0, 1, 2: nothing
    # but the order says which call index 0's pieces belong to; the first head's.
    chunks: list[Any] = [reuseindex_head(i) for i, _, _ in REUSEINDEX_CALLS]
    pieces = [
        reuseindex_pieces(n, json.loads(a)["city"]) for n, (_, _, a) in enumerate(REUSEINDEX_CALLS)
    ]
    for together in zip(*pieces, strict=True):
        chunks += together
    chunks.append(reuseindex_chunk({}, "tool_calls"))
    out, _ = fold(sse(*chunks))
    assert calls_of(out) == REUSEINDEX_CALLS


def test_a_piece_carrying_its_id_on_another_index_joins_that_call() -> None:
    a, b = REUSEINDEX_CALLS[0][0], REUSEINDEX_CALLS[1][0]
    piece = {"index": 1, "id": b, "function": {"arguments": '{"city":'}}
    raw = sse(
        reuseindex_head(a),
        reuseindex_head(b),
        reuseindex_chunk({"tool_calls": [piece]}),
        reuseindex_chunk({"tool_calls": [{"index": 1, "function": {"arguments": '"北京"}'}}]}),
        reuseindex_chunk({"tool_calls": [{"index": 0, "function": {"arguments": "{}"}}]}),
        reuseindex_chunk({}, "tool_calls"),
    )
    out, _ = fold(raw)
    assert calls_of(out) == [(a, "get_weather", "{}"), (b, "get_weather", '{"city":"北京"}')]


def test_an_empty_id_or_name_never_overwrites_a_known_one() -> None:
    raw = sse(
        delta_chunk(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "a",
                        "type": "function",
                        "function": {"name": "f", "arguments": ""},
                    }
                ]
            }
        ),
        delta_chunk(
            {
                "tool_calls": [
                    {"index": 0, "id": "", "type": "", "function": {"name": "", "arguments": "{}"}}
                ]
            }
        ),
        delta_chunk(
            {"tool_calls": [{"index": 0, "id": None, "function": {"name": None, "arguments": ""}}]}
        ),
        delta_chunk({}, "tool_calls"),
    )
    out, _ = fold(raw)
    assert out["choices"][0]["message"]["tool_calls"] == [
        {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    ]


def test_a_repeated_id_and_name_are_the_same_call_not_concatenated() -> None:
    # The openai SDK's accumulator concatenates every string it sees: "aa", "ff".
    raw = sse(
        delta_chunk(
            {"tool_calls": [{"index": 0, "id": "a", "function": {"name": "f", "arguments": "{"}}]}
        ),
        delta_chunk(
            {"tool_calls": [{"index": 0, "id": "a", "function": {"name": "f", "arguments": "}"}}]}
        ),
        delta_chunk({}, "tool_calls"),
    )
    out, _ = fold(raw)
    assert calls_of(out) == [("a", "f", "{}")]


def test_an_id_that_comes_after_its_head_belongs_to_it() -> None:
    raw = sse(
        delta_chunk({"tool_calls": [{"index": 0, "function": {"name": "f", "arguments": ""}}]}),
        delta_chunk({"tool_calls": [{"index": 0, "id": "late", "function": {"arguments": "{}"}}]}),
        delta_chunk({}, "tool_calls"),
    )
    out, _ = fold(raw)
    assert calls_of(out) == [("late", "f", "{}")]


def test_interleaved_calls_route_by_index() -> None:
    raw = sse(
        delta_chunk(
            {"tool_calls": [{"index": 0, "id": "a", "function": {"name": "f", "arguments": ""}}]}
        ),
        delta_chunk(
            {"tool_calls": [{"index": 1, "id": "b", "function": {"name": "g", "arguments": ""}}]}
        ),
        delta_chunk({"tool_calls": [{"index": 1, "function": {"arguments": '{"n":'}}]}),
        delta_chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"m":'}}]}),
        delta_chunk(
            {
                "tool_calls": [
                    {"index": 0, "function": {"arguments": " 0}"}},
                    {"index": 1, "function": {"arguments": " 1}"}},
                ]
            }
        ),
        delta_chunk({}, "tool_calls"),
    )
    out, _ = fold(raw)
    assert calls_of(out) == [("a", "f", '{"m": 0}'), ("b", "g", '{"n": 1}')]


def test_reasoning_is_kept_only_where_the_dialect_has_a_field_for_it() -> None:
    raw = sse(
        delta_chunk({"role": "assistant", "content": "", "reasoning_content": ""}),
        delta_chunk({"content": None, "reasoning_content": "think"}),
        delta_chunk({"content": "hi", "reasoning_content": None}),
        delta_chunk({}, "stop"),
    )
    out, folder = fold(raw, dialect=DEEPSEEK)
    assert out["choices"][0]["message"] == {
        "role": "assistant",
        "content": "hi",
        "reasoning_content": "think",
    }
    assert folder.notes == []
    out, folder = fold(raw, dialect=OPENAI)
    assert out["choices"][0]["message"] == {"role": "assistant", "content": "hi"}
    assert folder.notes == [
        "`reasoning_content` deltas arrived, but the openai format has no reasoning field: not kept"
    ]


def test_only_the_first_choice_is_assembled() -> None:
    raw = sse(
        delta_chunk({"content": "a"}),
        delta_chunk({"content": "b"}, index=1),
        delta_chunk({"content": "c"}, index=1),
        delta_chunk({}, "stop"),
        delta_chunk({}, "stop", index=1),
    )
    out, folder = fold(raw)
    assert out["choices"] == [
        {"index": 0, "message": {"role": "assistant", "content": "a"}, "finish_reason": "stop"}
    ]
    assert folder.notes == ["the stream carries choice 1; fc assembles the first choice only"]


def test_azure_s_empty_first_chunk_gives_way_to_the_real_ids() -> None:
    # Azure OpenAI opens with a content-filter chunk: empty id and model, no choices.
    azure_first = {
        "id": "",
        "object": "",
        "created": 0,
        "model": "",
        "choices": [],
        "prompt_filter_results": [],
    }
    raw = sse(azure_first, delta_chunk({"content": "hi"}), delta_chunk({}, "stop"))
    out, _ = fold(raw)
    assert (out["id"], out["created"], out["model"]) == ("chatcmpl-1", 1, "m")
    assert "prompt_filter_results" not in out


def test_openai_s_obfuscation_padding_is_not_part_of_the_answer() -> None:
    chunk = {
        **delta_chunk({"content": "hi"}, "stop"),
        "system_fingerprint": "fp_1",
        "obfuscation": "x7Q",
    }
    out, _ = fold(sse(chunk))
    assert out["system_fingerprint"] == "fp_1"
    assert "obfuscation" not in out


def test_arguments_sent_as_an_object_become_json_text() -> None:
    # The format says string; a server that sends an object still meant those arguments.
    raw = sse(
        delta_chunk(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "c",
                        "function": {"name": "f", "arguments": {"city": "杭州"}},
                    }
                ]
            }
        ),
        delta_chunk({}, "tool_calls"),
    )
    out, _ = fold(raw)
    assert calls_of(out) == [("c", "f", '{"city": "杭州"}')]


def test_a_refusal_arrives_in_pieces() -> None:
    raw = sse(
        delta_chunk({"role": "assistant", "content": None, "refusal": ""}),
        delta_chunk({"refusal": "I can't "}),
        delta_chunk({"refusal": "help."}),
        delta_chunk({}, "stop"),
    )
    out, _ = fold(raw)
    assert out["choices"][0]["message"] == {
        "role": "assistant",
        "content": None,
        "refusal": "I can't help.",
    }


def test_logprobs_are_merged_as_the_non_streamed_answer_lists_them() -> None:
    def with_logprobs(token: str, finish: str | None = None) -> dict[str, Any]:
        c = delta_chunk({"content": token}, finish)
        c["choices"][0]["logprobs"] = {
            "content": [{"token": token, "logprob": -0.5}],
            "refusal": None,
        }
        return c

    out, _ = fold(sse(with_logprobs("a"), with_logprobs("b", "stop")))
    assert out["choices"][0]["logprobs"] == {
        "content": [{"token": "a", "logprob": -0.5}, {"token": "b", "logprob": -0.5}],
        "refusal": None,
    }


def test_events_after_done_are_ignored_and_said() -> None:
    raw = sse(delta_chunk({"content": "a"}, "stop")) + sse(
        delta_chunk({"content": "b"}), done=False
    )
    out, folder = fold(raw)
    assert out["choices"][0]["message"]["content"] == "a"
    assert folder.notes == ["1 event(s) after `data: [DONE]` ignored"]


# ---------------------------------------------------------------------------------------------
# streams that ended early


def incomplete(call: dict[str, Any]) -> bool:
    return parse_arguments(call["function"]["arguments"])[1] is not None


def boundaries(raw: bytes, step: int = 0) -> list[int]:
    """Every event boundary and line end, and every `step`-th byte (mid-line) before the end."""
    ends = [i + 1 for i in range(len(raw)) if raw[i : i + 1] == b"\n"]
    return sorted({0, *ends, *(range(0, len(raw), step) if step else ())} - {len(raw)})


@pytest.mark.parametrize("layout", ["sequential", "interleave"])
def test_a_stream_cut_anywhere_never_gives_half_arguments(layout: str) -> None:
    raw = chat_sse(ANSWER, {**DEFAULT, "layout": layout})
    # The end of the line that carries finish_reason: from there on, every call is whole.
    finish_line_end = raw.index(b"\n", raw.index(b'"finish_reason": "tool_calls"')) + 1
    passed = 0
    for at in boundaries(raw, 7):
        head = raw[:at]
        # Passes: ended after finish_reason at a line end (or in the very [DONE] line, whose
        # missing line end is forgiven); a line cut mid-way is a cut connection, whatever it held.
        should_pass = at >= finish_line_end and (
            head.endswith(b"\n") or head.endswith(b"data: [DONE]")
        )
        try:
            out, folder = fold(head, [61], DEEPSEEK)
        except StreamCut as e:
            assert not should_pass, at
            assert e.bytes_received == at
            assert e.message.startswith(f"the stream ended early after {at:,} bytes: ")
            partial = e.partial
            assert partial is not None
            for call in partial["choices"][0]["message"].get("tool_calls", []):
                args = call["function"]["arguments"]
                if incomplete(call):
                    assert (
                        f"call {call['id']} (get_weather) has incomplete arguments: " in e.message
                    )
                    assert repr(args[-60:]) in e.message
            if at < finish_line_end:
                assert "no `data: [DONE]`, no finish_reason" in e.message
            else:
                assert "the last line was cut off" in e.message
        else:
            assert should_pass, at
            passed += 1
            assert not any(incomplete(c) for c in out["choices"][0]["message"]["tool_calls"])
            assert out["choices"] == ANSWER["choices"]
            if not head.endswith(b"data: [DONE]\n"):
                assert folder.notes, at  # what was missing is said
    assert passed >= 4
    # Told the connection was cut, the folder never passes the stream, even a whole one.
    for at in [*boundaries(raw), len(raw)]:
        with pytest.raises(StreamCut, match="the connection closed mid-stream"):
            fold(raw[:at], [61], DEEPSEEK, cut="the connection closed mid-stream")


def test_the_message_says_bytes_what_is_missing_and_the_fragment() -> None:
    raw = sse(
        delta_chunk(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "call_abc",
                        "function": {"name": "get_weather", "arguments": ""},
                    }
                ]
            }
        ),
        delta_chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"city": "杭'}}]}),
        done=False,
    )
    with pytest.raises(StreamCut) as e:
        fold(raw)
    assert e.value.message == (
        f"the stream ended early after {len(raw):,} bytes: no `data: [DONE]`, no finish_reason; "
        'call call_abc (get_weather) has incomplete arguments: \'{"city": "杭\''
    )
    assert e.value.exit_code == 3
    assert e.value.partial is not None
    assert e.value.partial["choices"][0]["finish_reason"] is None
    assert calls_of(e.value.partial) == [("call_abc", "get_weather", '{"city": "杭')]


def test_a_long_fragment_shows_its_last_60_characters() -> None:
    args = '{"text": "' + "x" * 100
    raw = sse(
        delta_chunk(
            {"tool_calls": [{"index": 0, "id": "c", "function": {"name": "f", "arguments": args}}]}
        ),
        done=False,
    )
    with pytest.raises(StreamCut) as e:
        fold(raw)
    assert e.value.message.endswith("call c (f) has incomplete arguments: …" + repr(args[-60:]))


@pytest.mark.parametrize("quirk", ["cut", "cut_clean"])
def test_the_fake_servers_cut_streams(quirk: str) -> None:
    events = fake_stream(ANSWER, {quirk}, include_usage=True)
    raw = joined(events, stop_at_cut=True)
    with pytest.raises(StreamCut) as e:
        fold(raw, [9], DEEPSEEK, cut="the connection closed mid-stream" if quirk == "cut" else None)
    message = e.value.message
    assert f"after {len(raw):,} bytes" in message
    assert "call call_abc (get_weather) has incomplete arguments: '{\"city\":'" in message


def test_the_last_line_cut_mid_way_is_a_cut_stream() -> None:
    whole = sse(delta_chunk({"content": "hi"}, "stop"), done=False)
    raw = whole + b'data: {"id": "chatcmpl-1", "choi'
    with pytest.raises(StreamCut, match="the last line was cut off"):
        fold(raw)


def test_finish_reason_without_done_passes_with_a_note() -> None:
    # Ollama and older vLLM end so; finish_reason is the real end marker.
    raw = sse(delta_chunk({"content": "hi"}), delta_chunk({}, "stop"), done=False)
    out, folder = fold(raw)
    assert out["choices"][0]["finish_reason"] == "stop"
    assert folder.notes == ["no `data: [DONE]` line; the stream ended after finish_reason"]


def test_done_without_its_line_end_or_blank_line_still_counts() -> None:
    raw = sse(delta_chunk({"content": "hi"}, "stop"), done=False)
    out, folder = fold(raw + b"data: [DONE]")
    assert folder.notes == ["the `data: [DONE]` line had no line end"]
    out, folder = fold(raw + b"data: [DONE]\n")
    assert folder.notes == ["the last event had no closing blank line"]
    assert out["choices"][0]["message"]["content"] == "hi"


def test_done_without_finish_reason_is_complete_with_a_note() -> None:
    # Kimi K2 through OpenRouter: `[DONE]` and whole arguments, never a finish_reason.
    out, folder = fold(sse(delta_chunk({"content": "hi"})))
    assert out["choices"][0]["finish_reason"] == "stop"
    assert folder.notes == ["no finish_reason came before `data: [DONE]`; taken as stop"]
    call = {"index": 0, "id": "c", "function": {"name": "f", "arguments": '{"a": 1}'}}
    out, folder = fold(sse(delta_chunk({"tool_calls": [call]})))
    assert out["choices"][0]["finish_reason"] == "tool_calls"


def test_no_finish_reason_and_no_done_is_a_cut_stream() -> None:
    with pytest.raises(StreamCut, match=r"no `data: \[DONE\]`, no finish_reason$"):
        fold(sse(delta_chunk({"content": "hi"}), done=False))


def test_done_without_finish_reason_but_cut_arguments_is_a_cut_stream() -> None:
    call = {"index": 0, "id": "c", "function": {"name": "f", "arguments": '{"a": '}}
    with pytest.raises(StreamCut, match="no finish_reason; call c"):
        fold(sse(delta_chunk({"tool_calls": [call]})))


def test_null_arguments_stay_null_in_the_answer_and_read_as_an_empty_object() -> None:
    call = {"index": 0, "id": "c", "type": "function", "function": {"name": "f", "arguments": None}}
    out, _ = fold(sse(delta_chunk({"tool_calls": [call]}, "tool_calls")))
    assert out["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] is None
    response = chat.from_wire_response(out)
    assert response.tool_uses()[0].input == {}
    assert response.tool_uses()[0].raw_arguments is None


def test_calls_assemble_in_index_order_whatever_order_their_heads_came_in() -> None:
    second = {"index": 1, "id": "b", "function": {"name": "f", "arguments": '{"n": 2}'}}
    first = {"index": 0, "id": "a", "function": {"name": "f", "arguments": '{"n": 1}'}}
    out, folder = fold(
        sse(
            delta_chunk({"tool_calls": [second]}),
            delta_chunk({"tool_calls": [first]}, "tool_calls"),
        )
    )
    assert [c["id"] for c in out["choices"][0]["message"]["tool_calls"]] == ["a", "b"]
    assert "call heads arrived out of index order; assembled by index" in folder.notes


def test_a_whole_stream_with_invalid_arguments_is_the_model_s_mistake() -> None:
    # As in a non-streamed answer (fake server fault bad_json_args): returned as sent, and
    # chat.from_wire_response keeps the text as raw_arguments, which fc never executes.
    raw = sse(
        delta_chunk(
            {
                "tool_calls": [
                    {"index": 0, "id": "c", "function": {"name": "f", "arguments": '{"city": "杭'}}
                ]
            }
        ),
        delta_chunk({}, "tool_calls"),
    )
    out, _ = fold(raw)
    assert calls_of(out) == [("c", "f", '{"city": "杭')]
    assert chat.from_wire_response(out).content[0].raw_arguments == '{"city": "杭'  # type: ignore[union-attr]
    # Without [DONE], the same is a cut stream: nothing says the arguments were finished.
    with pytest.raises(StreamCut, match="call c \\(f\\) has incomplete arguments"):
        fold(raw[: raw.index(b"data: [DONE]")])


# ---------------------------------------------------------------------------------------------
# errors in the stream


def test_an_error_object_in_the_stream_is_the_provider_s_error() -> None:
    error = '{"error": {"message": "The server had an error", "type": "server_error", "param": null, "code": null}}'
    raw = sse(delta_chunk({"content": "hi"}), error, done=False)
    with pytest.raises(ProviderError) as e:
        fold(raw, [11])
    assert type(e.value) is ProviderError
    assert (
        e.value.message
        == "the provider reported an error in the stream: server_error: The server had an error"
    )
    assert e.value.body == error


def test_an_error_beside_choices_openrouter() -> None:
    # OpenRouter, mid-stream errors: the error object rides on a chunk with finish_reason "error".
    chunk = delta_chunk({"content": ""}, "error")
    chunk["error"] = {"code": "server_error", "message": "Provider disconnected"}
    with pytest.raises(ProviderError, match="in the stream: server_error: Provider disconnected"):
        fold(sse(chunk))


def test_a_top_level_error_vllm() -> None:
    raw = sse(
        '{"object": "error", "message": "max_tokens is too large", "type": "BadRequestError", "code": 400}'
    )
    with pytest.raises(
        ProviderError, match="in the stream: BadRequestError: max_tokens is too large"
    ):
        fold(raw)


def test_the_fake_servers_error_event() -> None:
    events = fake_stream(ANSWER, set(), include_usage=True)
    at = events.index(fake_provider._CUT)
    text = "".join(str(e) for e in events[:at]) + fake_provider._STREAM_ERRORS["chat"]
    with pytest.raises(ProviderError, match="in the stream: server_error: The server had an error"):
        fold(text.encode(), [10], DEEPSEEK)


def test_keep_alives_and_nothing_else_are_a_stream_that_never_got_going() -> None:
    with pytest.raises(StreamCut, match="no `data: \\[DONE\\]`, no finish_reason"):
        fold(b": keep-alive\n\n" * 3)


def test_a_chunk_of_the_wrong_shape_is_a_protocol_error() -> None:
    raw = sse(delta_chunk({"content": "hi"}), {"choices": 5})
    with pytest.raises(ProtocolError, match=r"^event 2 of the stream has an unexpected shape"):
        fold(raw)


# ---------------------------------------------------------------------------------------------
# what a live view receives


@given(chat_answers(), stream_options(), split_sizes)
def test_the_deltas_add_up_to_the_answer(
    answer: dict[str, Any], o: dict[str, Any], sizes: list[int]
) -> None:
    seen: list[StreamDelta] = []
    dialect = dialect_for(answer)
    fold(chat_sse(answer, o), sizes, dialect, seen.append)
    message = answer["choices"][0]["message"]
    assert "".join(d.text for d in seen if d.kind == "text") == (message["content"] or "")
    thinking = "".join(d.text for d in seen if d.kind == "thinking")
    assert thinking == (message.get("reasoning_content") or "")
    calls = message.get("tool_calls", [])
    for position, call in enumerate(calls):
        mine = [d for d in seen if d.kind == "call" and d.call == position]
        assert mine, position
        assert mine[0].text == ""  # the head comes first, once: a repeated name is no news
        assert [d.text for d in mine].count("") == 1
        assert "".join(d.text for d in mine) == call["function"]["arguments"]
        assert {(d.id, d.name) for d in mine} == {(call["id"], call["function"]["name"])}
    assert {d.call for d in seen if d.kind == "call"} == set(range(len(calls)))
    assert all(d.text for d in seen if d.kind != "call")  # no empty text fragments


def test_no_delta_is_built_when_nobody_listens(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> StreamDelta:
        raise AssertionError("a StreamDelta was built")

    monkeypatch.setattr(chat_stream, "StreamDelta", refuse)
    raw = chat_sse(ANSWER, {**DEFAULT, "layout": "interleave"})
    out, _ = fold(raw, [50], DEEPSEEK)
    assert out == ANSWER
    with pytest.raises(AssertionError, match="a StreamDelta was built"):
        fold(raw, [50], DEEPSEEK, on_delta=lambda d: None)


def test_an_error_in_the_listener_is_its_own_not_the_stream_s() -> None:
    def broken(delta: StreamDelta) -> None:
        raise KeyError("renderer bug")

    with pytest.raises(KeyError, match="renderer bug"):
        fold(chat_sse(ANSWER, DEFAULT), dialect=DEEPSEEK, on_delta=broken)


def test_events_after_done_in_a_later_read_are_ignored_too() -> None:
    folder = ChatStreamFolder()
    folder.feed(sse(delta_chunk({"content": "hi"}), delta_chunk({}, "stop")))
    folder.feed(sse(delta_chunk({"content": " and more"}), done=False))
    out = folder.finish()
    assert out["choices"][0]["message"]["content"] == "hi"
    assert "1 event(s) after `data: [DONE]` ignored" in folder.notes


def test_done_without_a_finish_reason_is_complete_with_a_note(
    fc, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.stream_quirks = {"no_finish"}
    result = run_fc(fc, fake_provider, "openai", "--stream")
    assert result.returncode == 0, result.stderr
    trace = tmp_path / "t"
    manifest = load(trace / "manifest.json")
    assert manifest["status"] == "ok"
    assert manifest["steps"][0]["stop_reason"] == "tool_use"
    assert (
        "step 1: no finish_reason came before `data: [DONE]`; taken as tool_calls"
        in (manifest["notes"])
    )
    assembled = load(trace / "1-response.openai.json")
    assert assembled["choices"][0]["finish_reason"] == "tool_calls"


def test_null_arguments_stay_null_in_the_wire_file_and_run_as_an_empty_object(
    fc, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.stream_quirks = {"null_arguments"}
    result = run_fc(fc, fake_provider, "openai", "--stream")
    trace = tmp_path / "t"
    assembled = load(trace / "1-response.openai.json")
    call = assembled["choices"][0]["message"]["tool_calls"][0]
    assert call["function"]["arguments"] is None
    internal = load(trace / "1-response.json")
    assert internal["content"][-1]["input"] == {}
    assert "raw_arguments" not in internal["content"][-1]
    # Run as `{}`: the tool says what is missing, and the model reads that in step 2.
    run = load(trace / "manifest.json")["steps"][0]["tool_runs"][0]
    assert run["error_kind"] == "invalid_arguments", run
    second = json.loads(fake_provider.received[1].body)
    assert second["messages"][1]["tool_calls"][0]["function"]["arguments"] == "{}"
    assert result.returncode == 0, result.stderr


def test_calls_assemble_in_index_order_whatever_order_their_heads_arrive_in(
    fc, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.stream_quirks = {"heads_reversed"}
    result = run_fc(fc, fake_provider, "openai", "--stream", question=TWO_CITIES)
    assert result.returncode == 0, result.stderr
    assembled = load(tmp_path / "t" / "1-response.openai.json")
    calls = assembled["choices"][0]["message"]["tool_calls"]
    assert [json.loads(c["function"]["arguments"])["city"] for c in calls] == ["北京", "上海"]
    # The same answer, not streamed, has the same calls in the same order.
    fake_provider.stream_quirks = set()
    plain = run_fc(fc, fake_provider, "openai", "--force", question=TWO_CITIES)
    assert plain.returncode == 0, plain.stderr
    answer = load(tmp_path / "t" / "1-response.openai.json")
    assert [c["id"] for c in answer["choices"][0]["message"]["tool_calls"]] == [
        c["id"] for c in calls
    ]
