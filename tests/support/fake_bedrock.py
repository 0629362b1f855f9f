"""AWS Bedrock's Converse API for the fake provider (tests/support/fake_provider.py).

`POST /model/{modelId}/converse` answers JSON; `/model/{modelId}/converse-stream` answers AWS's
binary event stream (`application/vnd.amazon.eventstream`), each message framed with its
prelude, headers and two CRC-32s, written here with the standard library only (the framing of
AWS's "Event Stream Encoding"; tests/wire/test_bedrock_eventstream.py holds these frames to
botocore's own parser). Auth: a Bedrock API key as a bearer token, or a SigV4 `Authorization`
header (its form checked here; the signature itself by the tests, with botocore). Errors are
AWS's REST JSON (`{"message": ...}`, the type in `x-amzn-ErrorType`); a broken history gets
Bedrock's own 400 sentences (fccli/wire/bedrock/format.py names where each was seen).

The model is the fake's: the request is read into the Anthropic shape for `_Model`, and its
reply written back as Converse. Stream faults follow the fake's `stream_quirks`: `cut` (the
connection drops halfway), `cut_clean` (the body ends halfway), `error_event` (an exception
message halfway: modelStreamErrorException), `bad_crc` (a message whose bytes changed); the
frames go out in pieces of random sizes, cut anywhere.
"""

from __future__ import annotations

import json
import random
import re
import struct
import time
import zlib
from typing import Any

from tests.support import fake_provider as fake

ROUTE = re.compile(r"^/model/([^/]+)/(converse|converse-stream)$")
NO_RESULT = (
    "The model returned the following errors: messages.{n}: `tool_use` ids were found without "
    "`tool_result` blocks immediately after: {ids}. Each `tool_use` block must have a "
    "corresponding `tool_result` block in the next message."
)
TOO_MANY_RESULTS = (
    "The number of toolResult blocks at messages.{n}.content exceeds the number of toolUse "
    "blocks of previous turn."
)
JSON_NOT_OBJECT = (
    "The format of the value at messages.{n}.content.{k}.toolResult.content.{j}.json is invalid. "
    "Provide a json object for the field and try again."
)
NO_TOOL_CONFIG = (
    "The toolConfig field must be defined when using toolUse and toolResult content blocks."
)
BAD_ID = (
    "1 validation error detected: Value '{value}' at 'toolUseId' failed to satisfy constraint: "
    "Member must satisfy regular expression pattern: [a-zA-Z0-9_.:-]+ and have length less "
    "than or equal to 64"
)
ID_PATTERN = re.compile(r"[a-zA-Z0-9_.:-]{1,64}")
TYPES = {
    400: "ValidationException",
    403: "AccessDeniedException",
    404: "ResourceNotFoundException",
    429: "ThrottlingException",
    500: "InternalServerException",
    503: "ServiceUnavailableException",
}


class _Error(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def serve(
    fp: fake.FakeProvider,
    h: Any,
    route: re.Match[str],
    headers: dict[str, str],
    request: Any,
    entry: Any,
) -> None:
    """Answer one Converse request (raises fake._HttpError for an error answer, as AWS sends
    one)."""
    try:
        _serve(fp, h, route, headers, request, entry)
    except _Error as e:
        raise _http_error(e.status, e.message) from None


def crashed(trace: str) -> dict[str, Any]:
    """The body of the 500 a crash of the fake answers."""
    return {"message": f"fake provider crashed: {trace}"}


def _http_error(status: int, message: str) -> fake._HttpError:
    kind = TYPES.get(status, "InternalServerException" if status >= 500 else "ValidationException")
    return fake._HttpError(
        status,
        {"message": message},
        {"x-amzn-ErrorType": f"{kind}:http://internal.amazon.com/coral/com.amazon.bedrock/"},
    )


def _serve(
    fp: fake.FakeProvider,
    h: Any,
    route: re.Match[str],
    headers: dict[str, str],
    request: Any,
    entry: Any,
) -> None:
    from urllib.parse import unquote

    model, method = unquote(route.group(1)), route.group(2)
    stream = method == "converse-stream"
    fault: str | None = None
    if isinstance(entry, dict) and entry.get("delay"):
        time.sleep(float(entry["delay"]))
    if isinstance(entry, dict) and "hostile" in entry:
        fp._hostile(h, "bedrock", headers, entry)
        return
    if isinstance(entry, dict) and "status" in entry:
        status = int(entry["status"])
        raise _Error(
            status, entry.get("message") or f"HTTP {status} (scripted by the fake provider)"
        )
    if entry == "close":
        h.close_connection = True
        return
    if isinstance(entry, str) and entry in fake.FAULTS:
        fault = entry
    _check_auth(fp, headers)
    if not isinstance(request, dict):
        raise _Error(400, "Malformed input request, please reformat your input and try again.")
    problem = problem_of(request)
    if problem is not None:
        raise _Error(400, problem)
    if isinstance(entry, dict) and "answer" in entry:
        response = entry["answer"]
    else:
        shaped = as_anthropic(request, model)
        fake_model = fake._Model(shaped, "anthropic")
        reply = fake_model.reply()
        if fault is not None:
            reply = fake._apply_fault(reply, fault, fake_model.offered_names)
        if isinstance(entry, dict) and entry.get("echo_auth"):
            reply = fake._echo_auth(reply, headers.get("authorization", ""), entry["echo_auth"])
        cached = fp._cache_hit("bedrock", {"model": model, "messages": request.get("messages")})
        response = converse_response(request, model, reply, cached)
    if stream and "ignore_stream" not in fp.stream_quirks:
        _write_frames(fp, h, frames(response, fp))
    else:
        fake._send_json(h, 200, response, {"x-amzn-RequestId": "fake-request-id"})


def _check_auth(fp: fake.FakeProvider, headers: dict[str, str]) -> None:
    if fp.key is None:
        return
    given = headers.get("authorization", "")
    if given.startswith("AWS4-HMAC-SHA256 Credential="):
        # SigV4: the scope names Bedrock's signing name; the signature is checked by the tests.
        if "/bedrock/aws4_request" not in given or "x-amz-date" not in headers:
            raise _Error(
                403,
                "The request signature we calculated does not match the signature you provided.",
            )
        return
    scheme, _, token = given.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise _Error(
            403,
            "Authorization header requires 'Credential' parameter. Authorization header requires 'Signature' parameter.",
        )
    if token.strip() != fp.key:
        message = "Invalid API Key format: Must start with pre-defined prefix"
        if fp.echo_key_in_401:
            message += f" (got {token.strip()})"
        raise _Error(403, message)


def problem_of(request: dict[str, Any]) -> str | None:
    """Bedrock's 400 for a broken history, or None."""
    messages = request.get("messages")
    if not isinstance(messages, list) or not messages:
        return "A conversation must start with a user message. Try again with a conversation that starts with a user message."
    has_tool_blocks = False
    for n, message in enumerate(messages):
        blocks = _blocks(message)
        uses = [b["toolUse"] for b in blocks if isinstance(b.get("toolUse"), dict)]
        results = [b["toolResult"] for b in blocks if isinstance(b.get("toolResult"), dict)]
        has_tool_blocks = has_tool_blocks or bool(uses or results)
        for ids in [u.get("toolUseId") for u in uses] + [r.get("toolUseId") for r in results]:
            if not isinstance(ids, str) or not ID_PATTERN.fullmatch(ids):
                return BAD_ID.format(value=ids)
        for k, block in enumerate(blocks):
            result = block.get("toolResult")
            parts = result.get("content") if isinstance(result, dict) else None
            for j, part in enumerate(parts if isinstance(parts, list) else []):
                if isinstance(part, dict) and "json" in part and not isinstance(part["json"], dict):
                    return JSON_NOT_OBJECT.format(n=n, k=k, j=j)
        if uses:
            after = _blocks(messages[n + 1]) if n + 1 < len(messages) else None
            if after is not None:
                answered = {
                    b["toolResult"].get("toolUseId")
                    for b in after
                    if isinstance(b.get("toolResult"), dict)
                }
                missing = [u.get("toolUseId") for u in uses if u.get("toolUseId") not in answered]
                if missing:
                    return NO_RESULT.format(n=n, ids=", ".join(str(i) for i in missing))
        if results:
            before = _blocks(messages[n - 1]) if n > 0 else []
            count = sum(isinstance(b.get("toolUse"), dict) for b in before)
            if len(results) > count:
                return TOO_MANY_RESULTS.format(n=n)
    if has_tool_blocks and not isinstance(request.get("toolConfig"), dict):
        return NO_TOOL_CONFIG
    return None


def _blocks(message: Any) -> list[dict[str, Any]]:
    content = message.get("content") if isinstance(message, dict) else None
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def as_anthropic(request: dict[str, Any], model: str) -> dict[str, Any]:
    """The request in the shape `_Model` reads."""
    messages = []
    for message in request.get("messages") or []:
        blocks: list[dict[str, Any]] = []
        for b in _blocks(message):
            if isinstance(b.get("text"), str):
                blocks.append({"type": "text", "text": b["text"]})
            elif isinstance(b.get("toolUse"), dict):
                use = b["toolUse"]
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": use.get("toolUseId"),
                        "name": use.get("name"),
                        "input": use.get("input"),
                    }
                )
            elif isinstance(b.get("toolResult"), dict):
                result = b["toolResult"]
                text = "".join(
                    p["text"] if "text" in p else json.dumps(p.get("json"), ensure_ascii=False)
                    for p in result.get("content") or []
                    if isinstance(p, dict)
                )
                blocks.append(
                    {
                        "type": "tool_result",
                        "tool_use_id": result.get("toolUseId"),
                        "content": text,
                        "is_error": result.get("status") == "error",
                    }
                )
        messages.append({"role": message.get("role"), "content": blocks})
    config = request.get("toolConfig") if isinstance(request.get("toolConfig"), dict) else {}
    tools = [
        {
            "name": t["toolSpec"].get("name"),
            "description": t["toolSpec"].get("description", ""),
            "input_schema": (t["toolSpec"].get("inputSchema") or {}).get("json") or {},
        }
        for t in config.get("tools") or []
        if isinstance(t, dict) and isinstance(t.get("toolSpec"), dict)
    ]
    out: dict[str, Any] = {"model": model, "messages": messages, "tools": tools}
    choice = config.get("toolChoice")
    if isinstance(choice, dict) and "any" in choice:
        out["tool_choice"] = {"type": "any"}
    elif isinstance(choice, dict) and isinstance(choice.get("tool"), dict):
        out["tool_choice"] = {"type": "tool", "name": choice["tool"].get("name")}
    return out


def converse_response(
    request: dict[str, Any], model: str, reply: Any, cached: int
) -> dict[str, Any]:
    seed = fake._seed({**request, "model": model})
    content: list[dict[str, Any]] = []
    text = reply.preface if reply.calls else reply.text
    if text:
        content.append({"text": text})
    for i, call in enumerate(reply.calls):
        content.append(
            {
                "toolUse": {
                    "toolUseId": f"tooluse_{fake._hid(seed, f'call{i}', 22)}",
                    "name": call.name,
                    "input": call.input,
                }
            }
        )
    prompt = max(1, fake._tokens(json.dumps(request.get("messages"), ensure_ascii=False)))
    output = max(1, sum(fake._tokens(json.dumps(b, ensure_ascii=False)) for b in content))
    read = min(cached, prompt)
    usage: dict[str, Any] = {
        "inputTokens": prompt - read,
        "outputTokens": output,
        "totalTokens": prompt + output,
    }
    if read:
        usage["cacheReadInputTokens"] = read
    return {
        "output": {"message": {"role": "assistant", "content": content}},
        "stopReason": "tool_use" if reply.calls else "end_turn",
        "usage": usage,
        "metrics": {"latencyMs": 120},
    }


# ---------------------------------------------------------------------------------------------
# the event stream


def frame(headers: dict[str, str], payload: bytes) -> bytes:
    """One message of AWS's event stream: string headers only, as Bedrock sends."""
    head = b""
    for name, value in headers.items():
        raw_name, raw_value = name.encode(), value.encode()
        head += (
            bytes([len(raw_name)])
            + raw_name
            + b"\x07"
            + struct.pack(">H", len(raw_value))
            + raw_value
        )
    total = 12 + len(head) + len(payload) + 4
    prelude = struct.pack(">II", total, len(head))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    message = prelude + head + payload
    return message + struct.pack(">I", zlib.crc32(message))


def event(name: str, data: dict[str, Any], pad: str = "") -> bytes:
    payload = json.dumps({**data, **({"p": pad} if pad else {})}, ensure_ascii=False).encode()
    return frame(
        {":event-type": name, ":content-type": "application/json", ":message-type": "event"},
        payload,
    )


def exception(kind: str, message: str) -> bytes:
    payload = json.dumps({"message": message}).encode()
    return frame(
        {
            ":exception-type": kind,
            ":content-type": "application/json",
            ":message-type": "exception",
        },
        payload,
    )


def frames(response: dict[str, Any], fp: fake.FakeProvider) -> list[Any]:
    """The answer as ConverseStream sends it: text and a call's input in pieces, each call's
    head in its contentBlockStart, messageStop, then the usage in metadata; `fake._CUT` where
    the cut quirks stop it."""
    message = response["output"]["message"]
    out: list[Any] = [event("messageStart", {"role": message.get("role", "assistant")}, "abcd")]
    for index, block in enumerate(message.get("content") or []):
        if "toolUse" in block:
            use = block["toolUse"]
            start = {"toolUseId": use["toolUseId"], "name": use["name"]}
            out.append(
                event(
                    "contentBlockStart", {"contentBlockIndex": index, "start": {"toolUse": start}}
                )
            )
            text = json.dumps(use.get("input", {}), ensure_ascii=False)
            for piece in fake._pieces(text, fp.fragment_size):
                out.append(
                    event(
                        "contentBlockDelta",
                        {"contentBlockIndex": index, "delta": {"toolUse": {"input": piece}}},
                        "xy",
                    )
                )
        elif "text" in block:
            for piece in fake._pieces(block["text"], fp.text_fragment_size) or [""]:
                out.append(
                    event(
                        "contentBlockDelta",
                        {"contentBlockIndex": index, "delta": {"text": piece}},
                        "pq",
                    )
                )
        elif "reasoningContent" in block:
            reasoning = block["reasoningContent"].get("reasoningText") or {}
            for piece in fake._pieces(reasoning.get("text", ""), fp.text_fragment_size) or [""]:
                out.append(
                    event(
                        "contentBlockDelta",
                        {
                            "contentBlockIndex": index,
                            "delta": {"reasoningContent": {"text": piece}},
                        },
                    )
                )
            if "signature" in reasoning:
                out.append(
                    event(
                        "contentBlockDelta",
                        {
                            "contentBlockIndex": index,
                            "delta": {"reasoningContent": {"signature": reasoning["signature"]}},
                        },
                    )
                )
        out.append(event("contentBlockStop", {"contentBlockIndex": index}))
    out.insert(max(1, len(out) // 2), fake._CUT)
    out.append(event("messageStop", {"stopReason": response["stopReason"]}))
    metadata = {k: response[k] for k in ("usage", "metrics") if k in response}
    out.append(event("metadata", metadata))
    return out


def _write_frames(fp: fake.FakeProvider, h: Any, events: list[Any]) -> None:
    h.send_response(200)
    h.send_header("Content-Type", "application/vnd.amazon.eventstream")
    h.send_header("Transfer-Encoding", "chunked")
    h.send_header("x-amzn-RequestId", "fake-request-id")
    h.end_headers()
    rng = random.Random(len(events))
    body = b""
    for item in events:
        if item is fake._CUT:
            if fp.stream_pause:
                fp.stalled.set()
                time.sleep(fp.stream_pause)
            if "cut" in fp.stream_quirks:
                _chunks(h, body, rng)
                h.close_connection = True
                h.wfile.flush()
                return
            if "cut_clean" in fp.stream_quirks:
                break
            if "error_event" in fp.stream_quirks:
                body += exception(
                    "modelStreamErrorException",
                    "The system encountered an unexpected error during processing. Try your request again.",
                )
                break
            if "bad_crc" in fp.stream_quirks:
                broken = bytearray(
                    event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "?"}})
                )
                broken[-5] ^= 0xFF  # a byte of the payload changed: the message CRC fails
                body += bytes(broken)
            continue
        body += item
    _chunks(h, body, rng)
    if fp.end_held is not None:
        fp.end_held.wait(15)
    h.wfile.write(b"0\r\n\r\n")
    h.wfile.flush()


def _chunks(h: Any, body: bytes, rng: random.Random) -> None:
    """Write `body` in HTTP chunks of random sizes: frames cut anywhere."""
    at = 0
    while at < len(body):
        size = rng.randint(1, 64)
        piece = body[at : at + size]
        h.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
        h.wfile.flush()
        at += size
