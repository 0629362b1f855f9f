"""Stream assembly throughput: fc's chat stream folder beside a plain accumulator and the openai SDK.

Usage: python benchmarks/stream_assembly.py [--chunks N] [--runs N] [--sdk-runs N]

(`pip install -e ".[bench]"` first for the openai SDK; without it the SDK rows are skipped.)
A full run takes a few minutes, nearly all of it the SDK's; `--chunks 5000` gives a quick look.

Two streams of chat-completions SSE, built deterministically, each N chunks (default 50,000
`data:` events, `[DONE]` not counted), written compactly as OpenAI writes them:

  (a) one call whose arguments arrive in ~50,000 fragments;
  (b) eight parallel calls whose fragments interleave (index 0, 1, ..., 7, 0, 1, ...).

Each assembler gets the same bytes and returns the calls it assembled; the table shows chunks
per second (best of --runs, time.perf_counter) and whether the calls are exactly the expected
ones. The assemblers:

  fc, whole body     ChatStreamFolder.feed(all bytes at once), then finish()
  fc, 16 KiB reads   the same bytes in 16 KiB pieces, as a network read delivers them
  plain              the floor: decode, split lines, json.loads per `data:` line, a dict of
                     calls by index, fragments in lists joined once (no quirk handled)
  SDK                what the openai SDK does when it streams: its SSEDecoder over 16 KiB
                     reads, `sse.json()`, `construct_type(ChatCompletionChunk, ...)` (its
                     non-strict default) and ChatCompletionStreamState.handle_chunk
  SDK, handle_chunk  the SDK's accumulator alone, the chunk objects built beforehand

Then the quirks of PROTOCOL.md ("Streaming") on small streams: which assembler gets each right.
(The SDK routes by index alone and concatenates every string it is sent again: it merges calls
whose heads reuse index 0, doubles a repeated id and name, and fails an assert on `"type": ""`.)
This is a measurement, not a test: it always exits 0.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fccli.wire.chat.stream import ChatStreamFolder

Calls = list[tuple[Any, Any, str]]
"""(id, name, arguments) of each call, in order."""

READ = 16 * 1024

try:
    from openai._models import construct_type
    from openai._streaming import SSEDecoder
    from openai.lib.streaming.chat import ChatCompletionStreamState
    from openai.types.chat import ChatCompletionChunk

    HAVE_SDK = True
except ImportError:
    HAVE_SDK = False


# ---------------------------------------------------------------------------------------------
# streams

META = {
    "id": "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT",
    "object": "chat.completion.chunk",
    "created": 1767225600,
    "model": "gpt-4o-mini-2024-07-18",
    "system_fingerprint": "fp_bench",
}
WORDS = [
    "the",
    " weather",
    " in",
    " 杭州",
    " is",
    " mild",
    ",",
    " 22",
    "°C",
    "\\n",
    " and",
    " 多云",
    ".",
]


def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        **META,
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
    }


def fragments(rng: random.Random, count: int) -> list[str]:
    """`count` pieces of a JSON object's text: `{"text": "`, words, `"}`."""
    middle = [
        "".join(rng.choice(WORDS) for _ in range(rng.randint(1, 2))) for _ in range(count - 2)
    ]
    return ['{"text": "', *middle, '"}']


def build(
    chunks: int, calls: int, *, seed: int = 0, quirk: str | None = None
) -> tuple[bytes, Calls]:
    """SSE bytes of `chunks` data events holding `calls` calls, and the calls they hold."""
    rng = random.Random(seed)
    budget = chunks - 2 - calls  # the role chunk, the finish chunk, one head per call
    per_call = [budget // calls + (1 if i < budget % calls else 0) for i in range(calls)]
    ids = [f"call_{i}_{rng.getrandbits(48):012x}" for i in range(calls)]
    names = [f"tool_{i}" for i in range(calls)]
    pieces = [fragments(rng, n) for n in per_call]
    out = [chunk({"role": "assistant", "content": None, "refusal": None})]

    def head(i: int) -> dict[str, Any]:
        index = 0 if quirk == "reuse_index0" else i
        return chunk(
            {
                "tool_calls": [
                    {
                        "index": index,
                        "id": ids[i],
                        "type": "function",
                        "function": {"name": names[i], "arguments": ""},
                    }
                ]
            }
        )

    def fragment(i: int, text: str) -> dict[str, Any]:
        call: dict[str, Any] = {"index": 0 if quirk == "reuse_index0" else i}
        function: dict[str, Any] = {"arguments": text}
        if quirk == "empty_id":
            call.update({"id": "", "type": ""})
        elif quirk == "repeated_id":
            call.update({"id": ids[i], "type": "function"})
            function = {"name": names[i], "arguments": text}
        call["function"] = function
        return chunk({"tool_calls": [call]})

    if quirk == "reuse_index0":
        for i in range(calls):  # one call after another, every one at index 0
            out.append(head(i))
            out.extend(fragment(i, text) for text in pieces[i])
    else:
        out.extend(head(i) for i in range(calls))
        for turn in range(max(per_call)):
            out.extend(fragment(i, pieces[i][turn]) for i in range(calls) if turn < per_call[i])
    out.append(chunk({}, "tool_calls"))
    assert len(out) == chunks
    lines = [f"data: {json.dumps(c, ensure_ascii=False, separators=(',', ':'))}\n\n" for c in out]
    if quirk == "keep_alive":
        lines = [line + (": keep-alive\n\n" if n % 5 == 0 else "") for n, line in enumerate(lines)]
    lines.append("data: [DONE]\n\n")
    expected = [(ids[i], names[i], "".join(pieces[i])) for i in range(calls)]
    return "".join(lines).encode(), expected


# ---------------------------------------------------------------------------------------------
# assemblers: bytes in, calls out


def calls_of_answer(answer: dict[str, Any]) -> Calls:
    calls = answer["choices"][0]["message"].get("tool_calls") or []
    return [(c["id"], c["function"]["name"], c["function"]["arguments"]) for c in calls]


def fc_whole(raw: bytes) -> Calls:
    folder = ChatStreamFolder()
    folder.feed(raw)
    return calls_of_answer(folder.finish())


def fc_reads(raw: bytes) -> Calls:
    folder = ChatStreamFolder()
    feed = folder.feed
    for start in range(0, len(raw), READ):
        feed(raw[start : start + READ])
    return calls_of_answer(folder.finish())


def plain(raw: bytes) -> Calls:
    calls: dict[Any, list[Any]] = {}
    loads = json.loads
    for line in raw.decode("utf-8").split("\n"):
        if not line.startswith("data: "):
            continue
        data = line[6:]
        if data == "[DONE]":
            break
        for choice in loads(data)["choices"]:
            for tc in choice["delta"].get("tool_calls") or ():
                call = calls.get(tc["index"])
                function = tc.get("function") or {}
                if call is None:
                    calls[tc["index"]] = call = [tc.get("id"), function.get("name"), []]
                arguments = function.get("arguments")
                if arguments:
                    call[2].append(arguments)
    return [(c[0], c[1], "".join(c[2])) for c in calls.values()]


def sdk_calls(state: Any) -> Calls:
    message = state.current_completion_snapshot.choices[0].message
    return [(t.id, t.function.name, t.function.arguments) for t in message.tool_calls or []]


def sdk_chunks(raw: bytes) -> list[Any]:
    """What the SDK's Stream does per event: decode SSE, sse.json(), construct_type."""
    reads = (raw[start : start + READ] for start in range(0, len(raw), READ))
    out = []
    for sse in SSEDecoder().iter_bytes(reads):
        if sse.data.startswith("[DONE]"):
            break
        out.append(construct_type(type_=ChatCompletionChunk, value=sse.json()))
    return out


def sdk(raw: bytes) -> Calls:
    state = ChatCompletionStreamState()
    reads = (raw[start : start + READ] for start in range(0, len(raw), READ))
    for sse in SSEDecoder().iter_bytes(reads):
        if sse.data.startswith("[DONE]"):
            break
        parsed: Any = construct_type(type_=ChatCompletionChunk, value=sse.json())
        state.handle_chunk(parsed)
    return sdk_calls(state)


def sdk_handle_only(chunks: list[Any]) -> Calls:
    state = ChatCompletionStreamState()
    for c in chunks:
        state.handle_chunk(c)
    return sdk_calls(state)


# ---------------------------------------------------------------------------------------------
# measuring


def measure(
    rows: list[tuple[str, Callable[[Any], Calls], Any, int]],
) -> dict[str, tuple[float, Calls]]:
    """Best time and result of each row, the rows taken round-robin (so drift on a busy machine
    hits all of them alike), each as many times as its count says."""
    best: dict[str, tuple[float, Calls]] = {}
    for turn in range(max(runs for *_, runs in rows)):
        for name, fn, arg, runs in rows:
            if turn >= runs:
                continue
            gc.collect()
            start = time.perf_counter()
            result = fn(arg)
            seconds = time.perf_counter() - start
            if name not in best or seconds < best[name][0]:
                best[name] = (seconds, result)
    return best


def describe(got: Calls, expected: Calls) -> str:
    if got == expected:
        return "yes"
    if len(got) != len(expected):
        return f"NO: {len(got)} call(s) for {len(expected)}"
    for (gid, gname, gargs), (eid, ename, eargs) in zip(got, expected, strict=True):
        if gid != eid:
            return f"NO: id {str(gid)[:24]!r}"
        if gname != ename:
            return f"NO: name {str(gname)[:24]!r}"
        if gargs != eargs:
            return "NO: arguments differ"
    return "NO"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--chunks", type=int, default=50_000, help="chunks per stream")
    parser.add_argument("--runs", type=int, default=9, help="best of N for fc and plain")
    parser.add_argument(
        "--sdk-runs", type=int, default=1, help="best of N for the SDK (slow: ~10-30 s a run)"
    )
    args = parser.parse_args()
    if not HAVE_SDK:
        print(
            "openai is not installed: the SDK rows are skipped.\n"
            '  pip install -e ".[bench]"   (or: pip install "openai>=1.40")\n'
        )

    scenarios = [
        (f"(a) one call, {args.chunks:,} chunks", build(args.chunks, 1, seed=1)),
        (f"(b) 8 interleaved calls, {args.chunks:,} chunks", build(args.chunks, 8, seed=2)),
    ]
    print(f"python {sys.version.split()[0]}, best of {args.runs} (SDK: {args.sdk_runs})\n")
    header = f"{'stream':<36} {'assembler':<20} {'chunks/s':>12}  correct"
    print(header)
    print("-" * len(header))
    for title, (raw, expected) in scenarios:
        rates: dict[str, float] = {}
        rows: list[tuple[str, Callable[[Any], Calls], Any, int]] = [
            ("fc, whole body", fc_whole, raw, args.runs),
            ("fc, 16 KiB reads", fc_reads, raw, args.runs),
            ("plain", plain, raw, args.runs),
        ]
        if HAVE_SDK:
            rows.append(("SDK", sdk, raw, args.sdk_runs))
            rows.append(("SDK, handle_chunk", sdk_handle_only, sdk_chunks(raw), args.sdk_runs))
        for name, (seconds, got) in measure(rows).items():
            rates[name] = args.chunks / seconds
            print(f"{title:<36} {name:<20} {rates[name]:>12,.0f}  {describe(got, expected)}")
            title = ""
        fc = rates["fc, 16 KiB reads"]
        ratios = [f"fc (16 KiB reads) / plain = {fc / rates['plain']:.2f}"]
        if HAVE_SDK:
            ratios.insert(0, f"fc (16 KiB reads) / SDK = {fc / rates['SDK']:.0f}x")
            ratios.insert(1, f"/ SDK handle_chunk alone = {fc / rates['SDK, handle_chunk']:.0f}x")
        print(f"{'':<36} " + ", ".join(ratios) + "\n")

    print("Quirks (PROTOCOL.md, Streaming): are the assembled calls exactly the expected ones?")
    quirks = [
        ("keep_alive", "`: keep-alive` comments"),
        ("empty_id", 'continuations with "id": "", "type": ""'),
        ("repeated_id", "the id and name repeated on every fragment"),
        ("reuse_index0", "every call's head at index 0 (DeepSeek)"),
    ]
    assemblers: list[tuple[str, Callable[[bytes], Calls]]] = [("fc", fc_reads), ("plain", plain)]
    if HAVE_SDK:
        assemblers.append(("SDK", sdk))
    header = f"{'quirk':<46}" + "".join(f"{name:<26}" for name, _ in assemblers)
    print(header)
    print("-" * len(header))
    for quirk, words in quirks:
        raw, expected = build(200, 3, seed=3, quirk=quirk)
        cells = []
        for _, fn in assemblers:
            try:
                cells.append(describe(fn(raw), expected))
            except Exception as e:  # an assembler that crashes on the quirk
                cells.append(f"NO: raised {type(e).__name__}")
        print(f"{words:<46}" + "".join(f"{cell:<26}" for cell in cells))


if __name__ == "__main__":
    main()
