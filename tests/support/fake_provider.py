"""A fake LLM provider for end-to-end tests: a real HTTP server on 127.0.0.1.

It imitates two wire formats closely enough that `fc run --base-url http://127.0.0.1:PORT`
talks to it exactly as it would to the real service:

- OpenAI / DeepSeek chat completions: `POST /chat/completions`, `/v1/chat/completions`,
  `/beta/chat/completions`, `Authorization: Bearer KEY` (no auth when `key` is None, as
  Ollama), DeepSeek's thinking mode (`reasoning_content`, `reasoning_tokens`);
- Anthropic Messages: `POST /v1/messages`, `x-api-key` + `anthropic-version`, thinking blocks;
  also at `/anthropic/v1/messages` (DeepSeek's Anthropic format: deepseek models think unless told not to);
- OpenAI Responses: `POST /responses`, `/v1/responses`, OpenAI's auth and errors, reasoning items
  that must come back (tests/support/fake_responses.py);
- Ollama's native API: `POST /api/chat`, NDJSON streams (tests/support/fake_ollama.py).
- AWS Bedrock Converse: `POST /model/{modelId}/converse` and `/converse-stream`, AWS's binary
  event stream (tests/support/fake_bedrock.py).

Each as a JSON answer or, with `stream: true`, as a server-sent event stream whose assembled
content is identical to the JSON answer.

The "model" is deterministic. It picks the offered tool that speaks of weather (else the first),
finds the cities of fixtures/weather.json named in the last user text, and calls the tool once
per city (`{"city": NAME}`, NAME as written in the question), all at once unless the request
asks for one call at a time. Once every city has a result it answers with text quoting each
result. A *correct* call whose result is an error is not repeated (the answer quotes the error);
a faulty call (see `script`) does not count, so the model calls again, correctly. Same request
in, same bytes out, but for the cache counts: ids are hashes of the request (stream switches
left out, so a stream and a JSON answer to the same question carry the same ids), `created` is
fixed.

It has a prompt cache, as the real services do: a prompt that begins as an earlier one did
(step 2 repeats step 1's messages) reads that prefix from the cache, and the usage says so in
each service's own fields: DeepSeek's `prompt_cache_hit_tokens` / `prompt_cache_miss_tokens`
(chat with a deepseek model), OpenAI's `prompt_tokens_details.cached_tokens` (other chat
models), Anthropic's `cache_read_input_tokens` / `cache_creation_input_tokens`.

Like the real services, it answers 400 to a history that breaks their rules. The messages are
the providers' own, as collected in /work/shared/design/PROTOCOL.md ("What providers answer
when the history is wrong") and in public issue threads; the few that are not verbatim say so
in a comment beside them.

Tests steer it through attributes: `key`, `echo_key_in_401`, `script` (one entry consumed per
request: HTTP errors, faulty calls, a dropped connection, a delay), `fragment_size` and
`stream_quirks` (the stream traps of PROTOCOL.md, "Streaming"). Stdlib only.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import re
import socket
import threading
import time
import traceback
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

WEATHER_TABLE = Path(__file__).resolve().parent.parent.parent / "fixtures" / "weather.json"
DEFAULT_KEY = "sk-test-fake-key-123"
CREATED = 1767225600  # 2026-01-01T00:00:00Z, fixed so answers repeat byte for byte
ERROR_MARKER = "[tool error]"  # how fc marks an error result in chat (chat has no flag)
CHAT_PATHS = frozenset({"/chat/completions", "/v1/chat/completions", "/beta/chat/completions"})
ANTHROPIC_PATH = "/v1/messages"
# DeepSeek's Anthropic format: base URL https://api.deepseek.com/anthropic (guides/anthropic_api).
ANTHROPIC_PATHS = frozenset({ANTHROPIC_PATH, "/anthropic" + ANTHROPIC_PATH})
RESPONSES_PATHS = frozenset({"/responses", "/v1/responses"})  # tests/support/fake_responses.py
TOOL_ID_PATTERN = "^[a-zA-Z0-9_-]+$"
FAULTS = frozenset({"bad_json_args", "unknown_tool", "wrong_type"})
STREAM_QUIRKS = frozenset(
    {
        "keep_alive",
        "empty_id",
        "reuse_index0",
        "interleave",
        "no_done",
        "cut",
        "cut_clean",
        "error_event",
        # Where real servers differ (issue #14, item 5):
        "no_finish",  # `[DONE]` and whole arguments, never a finish_reason (Kimi K2 via OpenRouter)
        "null_arguments",  # a call's arguments sent as null, on the first step
        "heads_reversed",  # the calls' heads arrive in reverse index order
        "max_tokens_in_input",  # Anthropic: stopped at max_tokens inside a tool's input
    }
)
# What a provider sends when it fails mid-stream: Anthropic documents the `error` event
# (docs.claude.com, streaming: "Error events", e.g. overloaded_error); OpenAI-compatible servers
# send a data line holding an `error` object, then end the stream.
_STREAM_ERRORS = {
    "chat": 'data: {"error": {"message": "The server had an error while processing your request. Sorry about that!", "type": "server_error", "param": null, "code": null}}\n\n',
    "anthropic": 'event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}\n\n',
}

_TOOL_ID = re.compile(TOOL_ID_PATTERN)
_CJK = re.compile(r"[\u4e00-\u9fff]")
_WEATHER_WORDS = ("weather", "天气")
_CUT = object()  # marks the place in a stream where the "cut" quirks stop it


# ---------------------------------------------------------------------------------------------
# what a test sees


@dataclass(frozen=True)
class Received:
    """One request as it arrived."""

    path: str
    headers: dict[str, str]
    """Header names lower-cased."""
    body: bytes
    """Exactly the bytes received."""
    json: Any
    """The body parsed, or None when it is not JSON."""


class FakeProvider:
    """The server. `start()` / `stop()`, or `with FakeProvider() as fp:`; then use `fp.url`."""

    def __init__(self, key: str | None = DEFAULT_KEY) -> None:
        self.key: str | None = key
        """The API key to demand; None: no auth at all (chat, as Ollama)."""
        self.echo_key_in_401 = False
        """Put the FULL received key into a 401 message (to prove the client redacts it)."""
        self.escape_401 = False
        """Write a 401 body's key JSON-escaped (`\\u0073\\u006b...`), as byte masking misses it."""
        self.script: list[Any] = []
        """One entry consumed per request to a known route, FIFO; empty: normal behaviour.
        `{"answer": BODY}` answers with BODY as it is (a recorded real answer)."""
        self.fragment_size = 4
        """Characters per streamed `arguments` / `partial_json` fragment."""
        self.text_fragment_size = 8
        """Characters per streamed text or reasoning fragment."""
        self.stream_pause = 0.0
        """Seconds a stream stalls halfway (where the cut quirks cut it): time for a Ctrl-C."""
        self.stalled = threading.Event()
        """Set when a stream with `stream_pause` has sent its first half and stalls."""
        self.stream_quirks: set[str] = set()
        """Any of STREAM_QUIRKS."""
        self.end_held: threading.Event | None = None
        """While this is not set, each stream's end of body (its last chunk) waits for it: the
        client has every event, the end has not come (what a busy machine does now and then)."""
        self.received: list[Received] = []
        self.sent: list[bytes] = []
        """Every JSON body answered, exactly as written to the wire (streams not included)."""
        self.errors: list[str] = []
        """Tracebacks of the fake's own failures (answered 500); a test may assert it is empty."""
        self.ollama_ids = False
        """Ollama's calls carry ids (`call_...`), as newer servers send them; False: none."""
        self.cache: list[tuple[str, str, str]] = []
        """The prompt cache: (format, model, prompt text) of every request answered. A request
        whose prompt begins as an earlier one did reads that common prefix from the cache."""
        self._lock = threading.Lock()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # lifecycle

    def start(self) -> FakeProvider:
        if self._server is not None:
            raise RuntimeError("FakeProvider already started")
        server = _Server(("127.0.0.1", 0), _Handler)
        server.provider = self
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.002}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        server, thread = self._server, self._thread
        self._server = self._thread = None
        if server is not None:
            server.shutdown()
            server.server_close()
            server.close_open_connections()
        if thread is not None:
            thread.join(timeout=5)

    def __enter__(self) -> FakeProvider:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("FakeProvider not started")
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # one request

    def _record(self, received: Received) -> None:
        with self._lock:
            self.received.append(received)

    def _next_entry(self) -> Any:
        with self._lock:
            return self.script.pop(0) if self.script else None

    def _handle(self, h: _Handler) -> None:
        h.escape, h.duplicate_ids = None, False  # one handler serves a keep-alive connection
        if "chunked" in h.headers.get("Transfer-Encoding", "").lower():
            raw = _read_chunked(h)
        else:
            length = int(h.headers.get("Content-Length") or 0)
            raw = h.rfile.read(length) if length > 0 else b""
        headers: dict[str, str] = {}
        for name, value in h.headers.items():
            name = name.lower()
            headers[name] = f"{headers[name]}, {value}" if name in headers else value
        try:
            parsed: Any = json.loads(raw)
            is_json = True
        except ValueError:
            parsed, is_json = None, False
        self._record(Received(h.path, headers, raw, parsed))

        route = h.path.split("?", 1)[0]
        # OpenAI's Responses API (tests/support/fake_responses.py): OpenAI's auth and error bodies.
        h.responses_api = route in RESPONSES_PATHS
        bedrock = _bedrock_route(route)
        if bedrock is not None and h.command == "POST":
            from tests.support import fake_bedrock  # AWS Bedrock's Converse

            request = parsed if is_json else None
            self._serve_own_module(
                h,
                lambda entry: fake_bedrock.serve(self, h, bedrock, headers, request, entry),
                fake_bedrock.crashed,
            )
            return
        gemini = GEMINI_ROUTE.match(route)
        if gemini is not None and h.command == "POST":
            self._serve_gemini_safely(h, gemini, headers, parsed if is_json else _NOT_JSON)
            return
        if route == "/api/chat" and h.command == "POST":  # Ollama's native API
            self._serve_ollama(h, parsed if is_json else _NOT_JSON)
            return
        known = CHAT_PATHS | ANTHROPIC_PATHS | RESPONSES_PATHS
        if h.command != "POST" or route not in known:
            # OpenAI's own wording for an unknown route.
            message = f"Invalid URL ({h.command} {h.path})"
            if route == ANTHROPIC_PATH or route.startswith("/v1/messages"):
                body = _anthropic_error(message, "not_found_error")
            else:
                body = _chat_error(message, code=None)
            _send_json(h, 404, body)
            return

        fmt = "anthropic" if route in ANTHROPIC_PATHS else "chat"
        entry = self._next_entry()
        try:
            self._serve(h, fmt, headers, parsed if is_json else _NOT_JSON, entry)
        except _HttpError as e:
            _send_json(h, e.status, e.body, e.headers)
        except (BrokenPipeError, ConnectionResetError):
            h.close_connection = True  # the client went away mid-answer: nothing to say
        except Exception:
            trace = traceback.format_exc()
            with self._lock:
                self.errors.append(trace)
            _send_json(h, 500, _error_body(fmt, f"fake provider crashed: {trace}", 500))

    def _serve(
        self, h: _Handler, fmt: str, headers: dict[str, str], request: Any, entry: Any
    ) -> None:
        fault: str | None = None
        if isinstance(entry, dict):
            if entry.get("delay"):
                time.sleep(float(entry["delay"]))
            if "hostile" in entry:  # before "status": its `status` kind has one too
                self._hostile(h, fmt, headers, entry)
                return
            if "status" in entry:
                raise self._scripted_status(fmt, entry, headers, request)
        elif entry == "close":
            h.close_connection = True  # no answer at all: the client sees the connection close
            return
        elif entry in FAULTS:
            fault = entry
        elif entry is not None:
            raise ValueError(f"unknown script entry {entry!r}")

        self._check_auth(fmt, headers)
        if request is _NOT_JSON or not isinstance(request, dict):
            raise _HttpError(400, _error_body(fmt, _NOT_JSON_MESSAGE[fmt], 400))
        if h.responses_api:
            from tests.support import fake_responses

            problem = fake_responses.problem(request)
        elif fmt == "chat":
            problem = _chat_problem(request)
        else:
            problem = _anthropic_problem(request)
        if problem is not None:
            code = fake_responses.status(problem) if h.responses_api else 400
            raise _HttpError(code, _error_body(fmt, problem, code))

        if isinstance(entry, dict) and "answer" in entry:
            if request.get("stream") is True and h.responses_api:
                self._write_stream(h, fake_responses.events(entry["answer"], self), "")
            elif request.get("stream") is True and fmt == "anthropic":
                self._write_stream(h, _anthropic_events(entry["answer"], self), "")
            else:
                _send_json(h, 200, entry["answer"])
            return
        model = _Model(fake_responses.as_chat(request) if h.responses_api else request, fmt)
        reply = model.reply()
        if fault is not None:
            reply = _apply_fault(reply, fault, model.offered_names)
        inject = entry.get("inject") if isinstance(entry, dict) else None
        if inject:  # text that would drive a terminal, in every field a transcript shows
            calls = [_Call(c.name + inject, c.input, c.arguments) for c in reply.calls]
            reply = _Reply(reply.text + inject, calls, reply.reasoning + inject, reply.preface)
        echo = entry.get("echo_auth") if isinstance(entry, dict) else None
        if echo:
            reply = _echo_auth(reply, _auth_value(fmt, headers), echo)
        if isinstance(entry, dict) and entry.get("duplicate_ids") and len(reply.calls) >= 2:
            h.duplicate_ids = True
        if isinstance(entry, dict) and entry.get("escape"):
            h.escape = _auth_value(fmt, headers)
        if h.responses_api:
            cached = self._cache_hit("responses", fake_responses.as_chat(request))
            response = fake_responses.response(request, reply, cached)
        elif fmt == "chat":
            response = _chat_response(request, reply, self._cache_hit(fmt, request))
        else:
            response = _anthropic_response(request, reply, self._cache_hit(fmt, request))

        if request.get("stream") is True and "ignore_stream" not in self.stream_quirks:
            if h.responses_api:
                events = fake_responses.events(response, self)
                self._write_stream(h, events, fake_responses.STREAM_ERROR)
                return
            if fmt == "chat":
                opts = request.get("stream_options")
                usage = isinstance(opts, dict) and opts.get("include_usage") is True
                first_step = not any(
                    isinstance(m, dict) and m.get("role") == "tool"
                    for m in request.get("messages") or []
                )
                events = _chat_events(response, self, include_usage=usage, first_step=first_step)
            else:
                events = _anthropic_events(response, self)
            self._write_stream(h, events, _STREAM_ERRORS[fmt])
        else:
            extra = {"request-id": "req_" + response["id"][4:]} if fmt == "anthropic" else {}
            _send_json(h, 200, response, extra)

    def _serve_ollama(self, h: _Handler, request: Any) -> None:
        from tests.support import fake_ollama

        def crashed(trace: str) -> dict[str, Any]:
            return {"error": f"fake provider crashed: {trace}"}

        self._serve_own_module(h, lambda entry: fake_ollama.serve(self, h, request, entry), crashed)

    def _serve_own_module(self, h: _Handler, serve: Any, crashed: Any) -> None:
        """Answer with a format served by its own module (tests/support/fake_<format>.py):
        `serve(entry)` with the next scripted entry, its _HttpError or crash as `_safely` says."""
        entry = self._next_entry()
        self._safely(h, lambda: serve(entry), crashed)

    def _serve_gemini_safely(
        self, h: _Handler, route: re.Match[str], headers: dict[str, str], request: Any
    ) -> None:
        entry = self._next_entry()
        self._safely(
            h,
            lambda: self._serve_gemini(h, route, headers, request, entry),
            lambda trace: gemini_error(f"fake provider crashed: {trace}", 500),
        )

    def _safely(self, h: _Handler, serve: Any, crashed: Any) -> None:
        """Run `serve`: an _HttpError is its answer, a crash of the fake a 500 (`crashed(trace)`
        its body) kept in `errors`."""
        try:
            serve()
        except _HttpError as e:
            _send_json(h, e.status, e.body, e.headers)
        except (BrokenPipeError, ConnectionResetError):
            h.close_connection = True
        except Exception:
            trace = traceback.format_exc()
            with self._lock:
                self.errors.append(trace)
            _send_json(h, 500, crashed(trace))

    def _serve_gemini(
        self, h: _Handler, route: re.Match[str], headers: dict[str, str], request: Any, entry: Any
    ) -> None:
        model, method = route.group(1), route.group(2)
        stream = method == "streamGenerateContent"
        fault: str | None = None
        if isinstance(entry, dict) and "hostile" in entry:
            self._hostile(h, "gemini", headers, entry)
            return
        if isinstance(entry, dict) and "status" in entry:
            status = int(entry["status"])
            message = entry.get("message") or f"HTTP {status} (scripted by the fake provider)"
            raise _HttpError(status, gemini_error(message, status))
        if entry == "close":
            h.close_connection = True
            return
        if isinstance(entry, str) and entry in FAULTS:  # a dict entry is not hashable
            fault = entry
        if self.key is not None:
            given = headers.get("x-goog-api-key")
            if not given:
                raise _HttpError(403, gemini_error(GEMINI_NO_KEY, 403))
            if given != self.key:
                raise _HttpError(400, gemini_error(GEMINI_BAD_KEY, 400))
        if stream and "alt=sse" not in h.path:
            # Without alt=sse the stream is one JSON array, not server-sent events.
            raise _HttpError(400, gemini_error("the fake serves streams with alt=sse only", 400))
        if request is _NOT_JSON or not isinstance(request, dict):
            raise _HttpError(400, gemini_error("Invalid JSON payload received.", 400))
        with self._lock:
            issued = self.__dict__.setdefault("gemini_signatures", set())
        problem = gemini_problem(request, model, issued)
        if problem is not None:
            raise _HttpError(400, gemini_error(problem, 400))
        if isinstance(entry, dict) and "answer" in entry:
            response = entry["answer"]
        elif entry == "malformed_call":
            # What Gemini answers when the model wrote a call it cannot parse: no content.
            response = {
                "candidates": [
                    {
                        "finishReason": "MALFORMED_FUNCTION_CALL",
                        "finishMessage": "Malformed function call: call:get_weather{city:",
                        "index": 0,
                    }
                ],
                "usageMetadata": {"promptTokenCount": 10, "totalTokenCount": 10},
                "modelVersion": model,
            }
        else:
            fake = _Model(gemini_as_anthropic(request, model), "anthropic")
            reply = fake.reply()
            if fault is not None:
                reply = _apply_fault(reply, fault, fake.offered_names)
            echo = entry.get("echo_auth") if isinstance(entry, dict) else None
            if echo:
                reply = _echo_auth(reply, _auth_value("gemini", headers), echo)
            if isinstance(entry, dict) and entry.get("escape"):
                h.escape = _auth_value("gemini", headers)
            cached = self._cache_hit(
                "gemini", {"model": model, "messages": request.get("contents")}
            )
            response = gemini_response(request, model, reply, cached, issued)
        if stream and "ignore_stream" not in self.stream_quirks:
            self._write_stream(h, gemini_events(response, self), GEMINI_STREAM_ERROR)
        else:
            _send_json(h, 200, response)

    def _hostile(
        self, h: _Handler, fmt: str, headers: dict[str, str], entry: dict[str, Any]
    ) -> None:
        """Bodies no honest server sends (script entry `{"hostile": KIND, ...}`):

        - `huge`: a 200 answer of `size` bytes of JSON-ish padding, in 64 KiB pieces;
        - `gzip_bomb`: `size` bytes of zeros gzip-compressed (about 1/1000 on the wire);
        - `endless`: a 200 body that never ends (`piece` bytes at a time, as fast as read);
        - `keep_alive`: an SSE stream of `: keep-alive` comments that never ends;
        - `trickle`: one byte every `every` seconds, forever;
        - `status`: an answer with HTTP `status` and the raw `body` (bytes or str) given.
        The endless ones stop when the client goes away.
        """
        kind = entry["hostile"]
        if kind == "status":
            body = entry["body"]
            data = body.encode() if isinstance(body, str) else body
            h.send_response(int(entry["status"]))
            h.send_header("Content-Type", entry.get("content_type", "application/json"))
            h.send_header("Content-Length", str(len(data)))
            h.end_headers()
            h.wfile.write(data)
            return
        h.send_response(200)
        if kind == "gzip_bomb":
            import gzip

            data = gzip.compress(b"\0" * int(entry["size"]), compresslevel=9)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Encoding", "gzip")
            h.send_header("Content-Length", str(len(data)))
            h.end_headers()
            h.wfile.write(data)
            return
        if kind == "huge":
            size = int(entry["size"])
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", str(size))
            h.end_headers()
            piece = b" " * 65536
            while size > 0:
                h.wfile.write(piece[:size])
                size -= len(piece)
            return
        h.send_header(
            "Content-Type", "text/event-stream" if kind == "keep_alive" else "application/json"
        )
        h.send_header("Transfer-Encoding", "chunked")
        h.end_headers()
        piece = {
            "endless": b" " * int(entry.get("piece", 4096)),
            "keep_alive": b": keep-alive\n\n",
        }.get(kind, b" ")
        every = float(entry.get("every", 0.0 if kind == "endless" else 0.05))
        h.close_connection = True
        with contextlib.suppress(OSError):
            while True:
                h.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                h.wfile.flush()
                if every:
                    time.sleep(every)

    def _cache_hit(self, fmt: str, request: dict[str, Any]) -> int:
        """Tokens of this prompt found in the cache: the longest prefix it shares with an earlier
        prompt of the same format and model (DeepSeek's context cache works on prefixes; its
        64-token units are left out, so that the fake's short prompts hit too)."""
        model, text = str(request.get("model")), _prompt_text(request)
        with self._lock:
            earlier = [t for f, m, t in self.cache if (f, m) == (fmt, model)]
            self.cache.append((fmt, model, text))
        shared = max((_common_prefix(text, t) for t in earlier), default=0)
        return min(shared // 4, _prompt_tokens(request))

    def _check_auth(self, fmt: str, headers: dict[str, str]) -> None:
        if fmt == "chat":
            if self.key is None:
                return
            scheme, _, token = headers.get("authorization", "").partition(" ")
            token = token.strip()
            if scheme.lower() != "bearer" or not token:
                raise _HttpError(401, _chat_error(_OPENAI_NO_KEY, code=None))
            if token != self.key:
                raise _HttpError(401, self._chat_401(token))
            return
        if self.key is not None:
            given = headers.get("x-api-key")
            scheme, _, token = headers.get("authorization", "").partition(" ")
            if not given and scheme.lower() == "bearer":
                # The anthropic SDK from 2.x sends its api_key as a bearer token.
                given = token.strip()
            if not given:
                raise _HttpError(
                    401, _anthropic_error("x-api-key header is required", "authentication_error")
                )
            if given != self.key:
                raise _HttpError(401, self._anthropic_401(given))
        if not headers.get("anthropic-version"):
            raise _HttpError(400, _anthropic_error("anthropic-version: header is required"))

    def _chat_401(self, token: str) -> dict[str, Any]:
        shown = token if self.echo_key_in_401 else _mask(token)
        message = (
            f"Incorrect API key provided: {shown}. You can find your API key at "
            "https://platform.openai.com/account/api-keys."
        )
        return _chat_error(message, code="invalid_api_key")

    def _anthropic_401(self, token: str) -> dict[str, Any]:
        # The real message names no key; with echo_key_in_401 the fake adds it (a test device).
        message = f"invalid x-api-key: {token}" if self.echo_key_in_401 else "invalid x-api-key"
        return _anthropic_error(message, "authentication_error")

    def _scripted_status(
        self, fmt: str, entry: dict[str, Any], headers: dict[str, str], request: Any
    ) -> _HttpError:
        status = int(entry["status"])
        extra: dict[str, str] = {}
        if "retry_after" in entry:
            extra["Retry-After"] = str(entry["retry_after"])
        if status == 401 and "message" not in entry:
            if fmt == "chat":
                token = headers.get("authorization", "").partition(" ")[2].strip()
                return _HttpError(401, self._chat_401(token or "sk-none"), extra)
            return _HttpError(401, self._anthropic_401(headers.get("x-api-key", "")), extra)
        model = request.get("model", "") if isinstance(request, dict) else ""
        message = entry.get("message") or _default_status_message(fmt, status, model, entry)
        return _HttpError(status, _error_body(fmt, message, status), extra)

    def _write_stream(
        self,
        h: _Handler,
        events: list[Any],
        error_event: str,
        content_type: str = "text/event-stream; charset=utf-8",
    ) -> None:
        h.send_response(200)
        h.send_header("Content-Type", content_type)
        h.send_header("Cache-Control", "no-cache")
        h.send_header("Transfer-Encoding", "chunked")
        h.end_headers()
        for event in events:
            if event is _CUT:
                if self.stream_pause:
                    self.stalled.set()
                    time.sleep(self.stream_pause)
                if "cut" in self.stream_quirks:
                    # Drop the connection mid-body: no terminating chunk, so the client's HTTP
                    # layer reports an incomplete read.
                    h.close_connection = True
                    h.wfile.flush()
                    return
                if "cut_clean" in self.stream_quirks:
                    break  # the body ends cleanly, but the content is half there
                if "error_event" in self.stream_quirks:
                    data = error_event.encode()
                    h.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                    break
                continue
            data = str(event).encode()
            if getattr(h, "escape", None):
                data = _escaped(data, h.escape)
            h.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            h.wfile.flush()
        if self.end_held is not None:
            self.end_held.wait(15)
        h.wfile.write(b"0\r\n\r\n")
        h.wfile.flush()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 64  # the default 5 drops bursts of connects (1 s SYN retry)
    provider: FakeProvider

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler]) -> None:
        super().__init__(address, handler)
        self._open: set[socket.socket] = set()
        self._open_lock = threading.Lock()

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._open_lock:
            self._open.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._open_lock:
            self._open.discard(request)
        super().shutdown_request(request)

    def close_open_connections(self) -> None:
        """End idle keep-alive connections, so no client reuses one after `stop()`."""
        with self._open_lock:
            open_now = list(self._open)
        for sock in open_now:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive and chunked streams, as real APIs
    server_version = "fake-provider/1"
    timeout = 30  # an idle keep-alive connection frees its thread after this
    server: _Server
    escape: str | None = None
    """This answer writes the credential JSON-escaped (set per request by a script entry)."""
    responses_api = False
    """This request came to the Responses API (set per request from its path)."""
    duplicate_ids = False
    """This answer gives its calls one id (set per request by a script entry)."""

    def setup(self) -> None:
        super().setup()
        # Headers and body go out in separate writes: without this, Nagle's algorithm and the
        # client's delayed ACK add ~40 ms to every answer after the first on a connection.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_POST(self) -> None:
        self.server.provider._handle(self)

    do_GET = do_PUT = do_DELETE = do_PATCH = do_POST

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet test output


class _HttpError(Exception):
    def __init__(
        self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(status)
        self.status = status
        self.body = body
        self.headers = headers or {}


_NOT_JSON = object()


def _read_chunked(h: BaseHTTPRequestHandler) -> bytes:
    """A request body sent with `Transfer-Encoding: chunked` (httpx does, for streamed content)."""
    body = bytearray()
    while True:
        size = int(h.rfile.readline().split(b";")[0].strip() or b"0", 16)
        if size == 0:
            while h.rfile.readline() not in (b"\r\n", b"\n", b""):
                pass  # trailer headers
            return bytes(body)
        body += h.rfile.read(size)
        h.rfile.readline()


def _send_json(
    h: BaseHTTPRequestHandler,
    status: int,
    body: dict[str, Any],
    headers: dict[str, str] | None = None,
) -> None:
    if getattr(h, "duplicate_ids", False):
        body = _duplicate_ids(body)
    try:
        data = json.dumps(body, ensure_ascii=False).encode()
    except UnicodeEncodeError:  # a lone surrogate: written as JSON escapes, as a provider does
        data = json.dumps(body).encode()
    escape = getattr(h, "escape", None) or (
        getattr(h.server, "provider", None) and h.server.provider.escape_401 and status == 401
    )
    if escape:
        data = _escaped(data, escape if isinstance(escape, str) else None)
    provider = getattr(h.server, "provider", None)
    if provider is not None:
        provider.sent.append(data)
    h.send_response(status)
    h.send_header("Content-Type", "application/json")
    h.send_header("Content-Length", str(len(data)))
    for name, value in (headers or {}).items():
        h.send_header(name, value)
    h.end_headers()
    h.wfile.write(data)
    h.wfile.flush()


# ---------------------------------------------------------------------------------------------
# error bodies


# ---------------------------------------------------------------------------------------------
# hostile answers (script entries): a server that echoes the key, escapes it, breaks the protocol


def _auth_value(fmt: str, headers: dict[str, str]) -> str:
    """The credential as it arrived: the whole Authorization value (`Bearer sk-...`, `Basic
    dXNl...`), else the x-api-key (Gemini's x-goog-api-key)."""
    return (
        headers.get("authorization")
        or headers.get("x-api-key")
        or headers.get("x-goog-api-key")
        or ""
    )


def _echo_auth(reply: _Reply, value: str, places: list[str]) -> _Reply:
    """Put the credential into the content, the reasoning and the first call's arguments."""
    text = f"{reply.text} (you sent {value})" if "content" in places else reply.text
    preface = f"{reply.preface} {value}" if "content" in places and reply.preface else reply.preface
    if "content" in places and reply.calls and not reply.preface:
        preface = f"I was sent {value}."
    reasoning = (
        f"{reply.reasoning} The header said {value}." if "reasoning" in places else reply.reasoning
    )
    calls = list(reply.calls)
    if "arguments" in places and calls:
        first = calls[0]
        args = dict(first.input) if isinstance(first.input, dict) else {}
        key = next(iter(args), "city")
        args[key] = f"{args.get(key, '')} {value}"
        calls[0] = _call(first.name, args)
    return _Reply(text, calls, reasoning, preface)


def _escaped(data: bytes, value: str | None) -> bytes:
    """`data` with the credential (or, for None, every `sk-...` key) JSON-\\u-escaped."""
    text = data.decode()
    targets = [value] if value else re.findall(r"sk-[A-Za-z0-9-]+", text)
    for target in targets:
        for word in (target, *target.split(" ")):
            if len(word) >= 8:
                text = text.replace(word, "".join(f"\\u{ord(c):04x}" for c in word))
    return text.encode()


def _duplicate_ids(body: dict[str, Any]) -> dict[str, Any]:
    """Give every call of the answer the first call's id (chat and Anthropic)."""
    body = json.loads(json.dumps(body))
    for choice in body.get("choices") or []:
        calls = choice.get("message", {}).get("tool_calls") or []
        for call in calls[1:]:
            call["id"] = calls[0]["id"]
    blocks = [b for b in body.get("content") or [] if b.get("type") == "tool_use"]
    for block in blocks[1:]:
        block["id"] = blocks[0]["id"]
    return body


def _chat_error(
    message: str,
    *,
    type_: str = "invalid_request_error",
    code: str | None = "invalid_request_error",
) -> dict[str, Any]:
    return {"error": {"message": message, "type": type_, "param": None, "code": code}}


def _anthropic_error(message: str, type_: str = "invalid_request_error") -> dict[str, Any]:
    return {"type": "error", "error": {"type": type_, "message": message}}


_ANTHROPIC_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    503: "overloaded_error",
    529: "overloaded_error",
}
_CHAT_TYPES = {429: ("requests", "rate_limit_exceeded")}


def _error_body(fmt: str, message: str, status: int) -> dict[str, Any]:
    if fmt == "anthropic":
        kind = _ANTHROPIC_TYPES.get(
            status, "api_error" if status >= 500 else "invalid_request_error"
        )
        return _anthropic_error(message, kind)
    if status == 400:
        return _chat_error(message)
    type_, code = _CHAT_TYPES.get(
        status, ("server_error" if status >= 500 else "invalid_request_error", None)
    )
    return _chat_error(message, type_=type_, code=code)


def _default_status_message(fmt: str, status: int, model: Any, entry: dict[str, Any]) -> str:
    wait = entry.get("retry_after", "20")
    if fmt == "chat":
        return {
            # OpenAI's shape of a rate-limit message; the numbers are made up.
            429: f"Rate limit reached for {model or 'the model'} in organization org-fake on "
            f"requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in {wait}s. "
            "Visit https://platform.openai.com/account/rate-limits to learn more.",
            500: "The server had an error while processing your request. Sorry about that!",
            503: "The server is overloaded or not ready yet.",
            400: "Invalid request (scripted by the fake provider).",
        }.get(status, f"HTTP {status} (scripted by the fake provider)")
    return {
        429: "This request would exceed your organization's rate limit. Please try again later.",
        500: "Internal server error",
        503: "Overloaded",
        529: "Overloaded",
        400: "Invalid request (scripted by the fake provider).",
    }.get(status, f"HTTP {status} (scripted by the fake provider)")


# OpenAI's answer to a request without a key.
_OPENAI_NO_KEY = (
    "You didn't provide an API key. You need to provide your API key in an Authorization header "
    "using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with "
    "blank username) if you're accessing the API from your browser and are prompted for a "
    "username. You can obtain an API key from https://platform.openai.com/account/api-keys."
)
_NOT_JSON_MESSAGE = {
    # OpenAI's wording.
    "chat": "We could not parse the JSON body of your request. (HINT: This likely means you "
    "aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what "
    "was sent was not valid JSON. If you have trouble figuring out how to fix this, please "
    "contact us through our help center at help.openai.com.)",
    # Not verbatim: Anthropic's exact wording for a body that is not JSON was not collected.
    "anthropic": "There was an error parsing the body: the request body is not valid JSON.",
}


def _mask(key: str) -> str:
    """OpenAI's way of showing a wrong key: its head and tail only."""
    return f"{key[:5]}****{key[-3:]}" if len(key) > 8 else "****"


# ---------------------------------------------------------------------------------------------
# the providers' rules on a history (PROTOCOL.md, "What providers answer when the history is
# wrong"); each returns the 400 message, or None when the request is fine


def _chat_thinking(request: dict[str, Any]) -> bool:
    """DeepSeek's thinking mode: on by default for deepseek models and when `thinking` is sent.

    `deepseek-chat` is the exception: PROTOCOL.md says it maps to flash *without* thinking.
    """
    thinking = request.get("thinking")
    if isinstance(thinking, dict):
        return thinking.get("type") != "disabled"
    if thinking is not None:
        return bool(thinking)
    model = str(request.get("model", ""))
    return model.startswith("deepseek") and model != "deepseek-chat"


def _serde_type(value: Any) -> str:
    """How Rust's serde names a JSON value in "invalid type: ..." (DeepSeek is written in Rust)."""
    if isinstance(value, list):
        return "sequence"
    if isinstance(value, dict):
        return "map"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean `{'true' if value else 'false'}`"
    if isinstance(value, int):
        return f"integer `{value}`"
    if isinstance(value, float):
        return f"floating point `{value}`"
    return f"string {json.dumps(value)}"


def _chat_problem(request: dict[str, Any]) -> str | None:
    if "model" not in request:
        return "you must provide a model parameter"
    if "max_tokens" in request and re.match(r"o[1-9]|gpt-5", str(request["model"])):
        # OpenAI's answer to max_tokens on a reasoning model.
        return (
            "Unsupported parameter: 'max_tokens' is not supported with this model. "
            "Use 'max_completion_tokens' instead."
        )
    messages = request.get("messages")
    if not isinstance(messages, list):
        return "Missing required parameter: 'messages'."
    # Deserialization comes first: the body does not even parse into the server's types.
    for i, m in enumerate(messages):
        if not isinstance(m, dict):
            return (
                "Failed to deserialize the JSON body into the target type: "
                f"messages[{i}]: invalid type: {_serde_type(m)}, expected a message object"
            )  # not verbatim: the exact serde wording for this case was not collected
        if m.get("role") == "tool" and not isinstance(m.get("content"), str):
            return (
                "Failed to deserialize the JSON body into the target type: "
                f"messages[{i}]: invalid type: {_serde_type(m.get('content'))}, expected a string"
            )
    mistral = _mistral_id_problem(request, messages)
    if mistral is not None:
        return mistral
    thinking = _chat_thinking(request)
    choice = request.get("tool_choice")
    if thinking and choice not in (None, "auto", "none"):
        # Not verbatim: DeepSeek was seen rejecting this (PROTOCOL.md) but its words were not
        # collected.
        return "tool_choice must be 'auto' or 'none' in thinking mode"
    open_calls: list[str] = []
    for i, m in enumerate(messages):
        role = m.get("role")
        if role == "tool":
            if m.get("tool_call_id") not in open_calls:
                return (
                    "Messages with role 'tool' must be a response to a preceding message with "
                    "'tool_calls'"
                )
            open_calls.remove(m["tool_call_id"])
            continue
        if open_calls:
            return _unanswered_calls(open_calls)
        calls = m.get("tool_calls")
        if role == "assistant" and calls:
            if thinking and "reasoning_content" not in m:
                return (
                    "The `reasoning_content` in the thinking mode must be passed back to the API."
                )
            for k, call in enumerate(calls):
                function = call.get("function") if isinstance(call, dict) else None
                arguments = function.get("arguments") if isinstance(function, dict) else None
                try:
                    ok = isinstance(arguments, str) and isinstance(json.loads(arguments), dict)
                except ValueError:
                    ok = False
                if not ok:
                    return (
                        f"messages.{i}.tool_calls.{k}.function.arguments: arguments must be a "
                        "valid JSON object string"
                    )
            open_calls = [str(c.get("id")) for c in calls if isinstance(c, dict)]
    if open_calls:
        return _unanswered_calls(open_calls)
    return None


def _unanswered_calls(ids: list[str]) -> str:
    return (
        "An assistant message with 'tool_calls' must be followed by tool messages responding to "
        "each 'tool_call_id'. The following tool_call_ids did not have response messages: "
        + ", ".join(str(i) for i in ids)
    )


def _blocks(message: Any) -> list[dict[str, Any]]:
    content = message.get("content") if isinstance(message, dict) else None
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _tool_use_ids(message: Any) -> list[str]:
    if not isinstance(message, dict) or message.get("role") != "assistant":
        return []
    return [str(b.get("id")) for b in _blocks(message) if b.get("type") == "tool_use"]


def _anthropic_thinking(request: dict[str, Any]) -> bool:
    """Anthropic: thinking only when asked. DeepSeek's models in this format think unless
    `{"type": "disabled"}` says otherwise (guides/anthropic_api)."""
    thinking = request.get("thinking")
    if isinstance(thinking, dict):
        return thinking.get("type") in ("enabled", "adaptive")
    return str(request.get("model", "")).startswith("deepseek")


def _anthropic_problem(request: dict[str, Any]) -> str | None:
    # Missing fields: Anthropic answers in pydantic's words.
    for name in ("model", "max_tokens", "messages"):
        if name not in request:
            return f"{name}: Field required"
    messages = request["messages"]
    if not isinstance(messages, list):
        return "messages: Input should be a valid list"
    for i, m in enumerate(messages):
        for k, b in enumerate(_blocks(m)):
            if b.get("type") == "tool_use" and not _TOOL_ID.match(str(b.get("id", ""))):
                return f"messages.{i}.content.{k}.tool_use.id: String should match pattern '{TOOL_ID_PATTERN}'"
            if b.get("type") == "tool_result" and not _TOOL_ID.match(str(b.get("tool_use_id", ""))):
                # By analogy with the tool_use.id message (that one is verbatim).
                return f"messages.{i}.content.{k}.tool_result.tool_use_id: String should match pattern '{TOOL_ID_PATTERN}'"
    choice = request.get("tool_choice")
    if (
        _anthropic_thinking(request)
        and isinstance(choice, dict)
        and choice.get("type") in ("any", "tool")
    ):
        return "Thinking may not be enabled when tool_choice forces tool use."
    for i, m in enumerate(messages):
        role = m.get("role") if isinstance(m, dict) else None
        asked = _tool_use_ids(messages[i - 1]) if i > 0 else []
        if role == "user":
            for k, b in enumerate(_blocks(m)):
                if b.get("type") == "tool_result" and b.get("tool_use_id") not in asked:
                    return (
                        f"messages.{i}.content.{k}: unexpected `tool_use_id` found in "
                        f"`tool_result` blocks: {b.get('tool_use_id')}. Each `tool_result` block "
                        "must have a corresponding `tool_use` block in the previous message."
                    )
        if asked:
            # The results must LEAD this message: only the leading run of tool_result blocks counts.
            leading: set[str] = set()
            if role == "user":
                for b in _blocks(m):
                    if b.get("type") != "tool_result":
                        break
                    leading.add(str(b.get("tool_use_id")))
            missing = [a for a in asked if a not in leading]
            if missing:
                return _tool_use_without_result(i, missing)
    last = len(messages) - 1
    if last >= 0 and _tool_use_ids(messages[last]):
        # No next message at all. The index the real API names here was not seen; the fake
        # names the assistant message itself.
        return _tool_use_without_result(last, _tool_use_ids(messages[last]))
    return None


def _tool_use_without_result(index: int, ids: list[str]) -> str:
    # N is the message that should have held the results (seen in a Bedrock report: the
    # assistant turn at 1, a text turn at 2, "messages.2: ...").
    return (
        f"messages.{index}: `tool_use` ids were found without `tool_result` blocks immediately "
        f"after: {', '.join(ids)}. Each `tool_use` block must have a corresponding `tool_result` "
        "block in the next message."
    )


# ---------------------------------------------------------------------------------------------
# the model


def _load_cities() -> list[dict[str, Any]]:
    with open(WEATHER_TABLE, encoding="utf-8") as f:
        return list(json.load(f)["cities"])


CITIES = _load_cities()


def find_cities(text: str) -> list[str]:
    """The table's cities named in `text`, in order of appearance, each as written there."""
    found: list[tuple[int, str]] = []
    for row in CITIES:
        hits: list[tuple[int, str]] = []
        pos = text.find(row["zh"])
        if pos >= 0:
            hits.append((pos, row["zh"]))
        for name in (row["en"], *row.get("aliases", [])):
            m = re.search(rf"(?<![A-Za-z]){re.escape(name)}(?![A-Za-z])", text, re.IGNORECASE)
            if m:
                hits.append((m.start(), m.group(0)))
        if hits:
            found.append(min(hits))
    return [name for _, name in sorted(found)]


@dataclass
class _Call:
    name: str
    input: Any
    """What the model means to send: an object (or 42 etc. after a fault)."""
    arguments: str
    """The JSON text of `input` as chat sends it (possibly broken by a fault)."""


@dataclass
class _Reply:
    text: str
    calls: list[_Call] = field(default_factory=list)
    reasoning: str = ""
    preface: str = ""
    """Text before the calls (Anthropic models say what they are about to do; chat ones don't)."""


def _call(name: str, arguments: dict[str, Any]) -> _Call:
    return _Call(name, arguments, json.dumps(arguments, ensure_ascii=False))


class _Model:
    """Reads one request (either format) and decides the answer."""

    def __init__(self, request: dict[str, Any], fmt: str) -> None:
        self.request = request
        self.fmt = fmt
        messages = [m for m in request.get("messages", []) if isinstance(m, dict)]
        self.question = ""
        q = -1
        for i, m in enumerate(messages):
            text = self._question_text(m)
            if text is not None:
                self.question, q = text, i
        # Calls made since the question, and the results given back, by call id.
        self.calls: list[tuple[str, str, Any]] = []
        self.results: dict[str, tuple[str, bool]] = {}
        for m in messages[q + 1 :]:
            self._read_turn(m)
        self.tools: list[dict[str, Any]] = []  # {name, description, schema}
        for t in request.get("tools") or []:
            if not isinstance(t, dict):
                continue
            if fmt == "chat":
                f = t.get("function")
                if t.get("type") == "function" and isinstance(f, dict):
                    self.tools.append(
                        {
                            "name": f.get("name"),
                            "description": f.get("description") or "",
                            "schema": f.get("parameters") or {},
                        }
                    )
            elif "name" in t and t.get("type") in (None, "custom"):
                self.tools.append(
                    {
                        "name": t["name"],
                        "description": t.get("description") or "",
                        "schema": t.get("input_schema") or {},
                    }
                )
        self.offered_names = {str(t["name"]) for t in self.tools}
        self.choice, forced_name, self.parallel = self._tool_choice()
        self.tool = self._pick_tool(forced_name)
        self.zh = bool(_CJK.search(self.question))
        self.thinking = _chat_thinking(request) if fmt == "chat" else _anthropic_thinking(request)

    # reading the request

    def _question_text(self, m: dict[str, Any]) -> str | None:
        if m.get("role") != "user":
            return None
        content = m.get("content")
        if isinstance(content, str):
            return content
        if not isinstance(content, list):
            return None
        blocks = [b for b in content if isinstance(b, dict)]
        if any(b.get("type") == "tool_result" for b in blocks):
            return None
        texts = [str(b.get("text", "")) for b in blocks if b.get("type") == "text"]
        return "\n".join(texts) if texts else None

    def _read_turn(self, m: dict[str, Any]) -> None:
        role = m.get("role")
        if self.fmt == "chat":
            if role == "assistant":
                for c in m.get("tool_calls") or []:
                    if not isinstance(c, dict):
                        continue
                    f = c.get("function")
                    f = f if isinstance(f, dict) else {}
                    try:
                        args = json.loads(f.get("arguments", ""))
                    except (ValueError, TypeError):
                        args = None
                    self.calls.append((str(c.get("id")), str(f.get("name")), args))
            elif role == "tool":
                content = str(m.get("content"))
                is_error = content.startswith(ERROR_MARKER)
                self.results[str(m.get("tool_call_id"))] = (content, is_error)
            return
        for b in _blocks(m):
            if role == "assistant" and b.get("type") == "tool_use":
                self.calls.append((str(b.get("id")), str(b.get("name")), b.get("input")))
            elif role == "user" and b.get("type") == "tool_result":
                given = b.get("content")
                if isinstance(given, list):
                    text = "".join(str(x.get("text", "")) for x in given if isinstance(x, dict))
                else:
                    text = "" if given is None else str(given)
                self.results[str(b.get("tool_use_id"))] = (text, bool(b.get("is_error")))

    def _tool_choice(self) -> tuple[str, str | None, bool]:
        """(auto | none | required | tool, the forced tool's name, parallel calls allowed)."""
        choice = self.request.get("tool_choice")
        if self.fmt == "chat":
            parallel = self.request.get("parallel_tool_calls") is not False
            if choice in ("none", "required"):
                return str(choice), None, parallel
            if isinstance(choice, dict):
                name = (choice.get("function") or {}).get("name")
                return "tool", name, parallel
            return "auto", None, parallel
        if not isinstance(choice, dict):
            return "auto", None, True
        parallel = choice.get("disable_parallel_tool_use") is not True
        kind = choice.get("type")
        if kind == "any":
            return "required", None, parallel
        if kind == "tool":
            return "tool", choice.get("name"), parallel
        return ("none" if kind == "none" else "auto"), None, parallel

    def _pick_tool(self, forced_name: str | None) -> dict[str, Any] | None:
        if forced_name is not None:
            for t in self.tools:
                if t["name"] == forced_name:
                    return t
            return {"name": forced_name, "description": "", "schema": {}}
        for t in self.tools:
            said = f"{t['name']} {t['description']}".casefold()
            if any(w in said for w in _WEATHER_WORDS):
                return t
        return self.tools[0] if self.tools else None

    def _param(self) -> str:
        schema = self.tool["schema"] if self.tool else {}
        props = schema.get("properties") if isinstance(schema, dict) else None
        if not isinstance(props, dict) or "city" in props or not props:
            return "city"
        strings = [p for p, s in props.items() if isinstance(s, dict) and s.get("type") == "string"]
        required = [p for p in schema.get("required") or [] if p in strings]
        return str((required or strings or ["city"])[0])

    # deciding

    def reply(self) -> _Reply:
        cities = find_cities(self.question)
        tool, param = self.tool, self._param()
        done: dict[str, str] = {}
        failed: set[str] = set()
        for call_id, name, args in self.calls:
            if call_id not in self.results or tool is None or name != tool["name"]:
                continue
            for city in cities:
                if args == {param: city}:
                    content, is_error = self.results[call_id]
                    done[city] = content
                    if is_error:
                        failed.add(city)
                    else:
                        failed.discard(city)
        pending = [c for c in cities if c not in done]
        may_call = tool is not None and self.choice != "none"
        must_call = self.choice in ("required", "tool")
        if may_call and (pending or must_call):
            assert tool is not None
            # Forced with nothing left to ask, a model still calls: the first city again, or
            # (no city at all) its best guess, the question itself.
            targets = pending or cities[:1] or [self.question.strip()[:40] or "?"]
            if not self.parallel:
                targets = targets[:1]
            listed = ("、" if self.zh else ", ").join(targets)
            if self.zh:
                reasoning = (
                    f"用户问的是{('、'.join(cities)) or '天气'}。我用 {tool['name']} 查询{listed}。"
                )
                preface = f"我来查询{listed}的天气。"
            else:
                reasoning = (
                    f"The user asks about {', '.join(cities) or 'the weather'}. "
                    f"I will call {tool['name']} for {listed}."
                )
                preface = f"I'll look up the weather for {listed}."
            calls = [_call(str(tool["name"]), {param: t}) for t in targets]
            return _Reply("", calls, reasoning, preface)
        if done:
            lines = [f"{c}: {done[c]}" for c in cities if c in done]
            lines += [f"{c}: {'（没有查询）' if self.zh else '(not looked up)'}" for c in pending]
            if self.zh:
                end = "以上是工具返回的结果。" + (
                    "有的查询出错了，我不编造结果。" if failed else ""
                )
                reasoning = "结果都到了，我只根据工具结果回答。"
            else:
                end = "That is what the tool returned." + (
                    " Some lookups failed; I do not make up results." if failed else ""
                )
                reasoning = "All results are in; I answer from them alone."
            return _Reply("\n".join([*lines, end]), [], reasoning)
        if tool is None:
            text = (
                "这次没有可用的工具，所以我查不到天气。"
                if self.zh
                else "No tool was offered, so I cannot look up the weather."
            )
        elif not may_call:
            text = (
                "这次不能调用工具，所以我查不到天气。"
                if self.zh
                else "I may not call a tool this time, so I cannot look up the weather."
            )
        else:
            text = (
                "我没有在问题里找到天气表中的城市，所以没有调用工具。"
                if self.zh
                else "I found no city from the weather table in your question, so I called no tool."
            )
        reasoning = "不需要调用工具。" if self.zh else "No tool call is needed."
        return _Reply(text, [], reasoning)


def _apply_fault(reply: _Reply, fault: str, offered: set[str]) -> _Reply:
    """Spoil the reply's first call the way real models sometimes do (the rest stay correct)."""
    if not reply.calls:
        return reply
    first = reply.calls[0]
    if fault == "bad_json_args":
        # Chat: the arguments string ends mid-string, e.g. `{"city": "杭`. Anthropic cannot send
        # invalid JSON, so there the input misses its required field.
        text = first.arguments
        at = text.find('": "')
        cut = text[: at + 5] if at >= 0 else text[: max(1, len(text) // 2)]
        spoiled = _Call(first.name, {}, cut)
    elif fault == "unknown_tool":
        name = first.name.replace("weather", "wether") if "weather" in first.name else first.name
        while name in offered or name == first.name:
            name += "_x"
        spoiled = _Call(name, first.input, first.arguments)
    else:  # wrong_type
        args = dict(first.input) if isinstance(first.input, dict) else {}
        key = next(iter(args), "city")
        args[key] = 42
        spoiled = _call(first.name, args)
    return _Reply(reply.text, [spoiled, *reply.calls[1:]], reply.reasoning, reply.preface)


# ---------------------------------------------------------------------------------------------
# answers


def _seed(request: dict[str, Any]) -> str:
    """A hash of the request without its stream switches: same question, same ids."""
    rest = {k: v for k, v in request.items() if k not in ("stream", "stream_options")}
    canon = json.dumps(rest, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canon.encode("utf-8", "surrogatepass")).hexdigest()


def _hid(seed: str, label: str, n: int = 24) -> str:
    return hashlib.sha256(f"{seed}:{label}".encode()).hexdigest()[:n]


def _tokens(text: str) -> int:
    return (len(text) + 3) // 4


def _prompt_text(request: dict[str, Any]) -> str:
    return json.dumps(request.get("messages"), ensure_ascii=False)


def _prompt_tokens(request: dict[str, Any]) -> int:
    return max(1, _tokens(_prompt_text(request)))


def _common_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


# langchain-ai/langchain#24668 and others: Mistral's 400 for a call id of another provider's.
_MISTRAL_ID = re.compile(r"[a-zA-Z0-9]{9}")


def _is_mistral(request: dict[str, Any]) -> bool:
    return str(request.get("model", "")).startswith(("mistral", "magistral", "devstral"))


def _mistral_id_problem(request: dict[str, Any], messages: list[Any]) -> str | None:
    """Mistral's models (by name, on the chat route) refuse an id that is not 9 letters or digits."""
    if not _is_mistral(request):
        return None
    for m in messages:
        calls = m.get("tool_calls") if isinstance(m, dict) else None
        ids = [c.get("id") for c in calls or [] if isinstance(c, dict)]
        for given in [*ids, m.get("tool_call_id") if isinstance(m, dict) else None]:
            if given is not None and not _MISTRAL_ID.fullmatch(str(given)):
                return f"Tool call id was {given} but must be a-z, A-Z, 0-9, with a length of 9."
    return None


def _chat_response(request: dict[str, Any], reply: _Reply, cached: int = 0) -> dict[str, Any]:
    seed = _seed(request)
    thinking = _chat_thinking(request)
    deepseek = str(request.get("model", "")).startswith("deepseek") or "thinking" in request
    message: dict[str, Any] = {"role": "assistant"}
    if reply.calls:
        # DeepSeek sends "" beside its calls; OpenAI sends null.
        message["content"] = "" if deepseek else None
    else:
        message["content"] = reply.text
    if thinking:
        message["reasoning_content"] = reply.reasoning
    if reply.calls:
        message["tool_calls"] = [
            {
                # Mistral's ids: 9 letters or digits (hex here)
                "id": _hid(seed, f"call{i}", 9)
                if _is_mistral(request)
                else f"call_{i:02d}_{_hid(seed, f'call{i}')}",
                "type": "function",
                "function": {"name": c.name, "arguments": c.arguments},
            }
            for i, c in enumerate(reply.calls)
        ]
    prompt = _prompt_tokens(request)
    reasoning = _tokens(reply.reasoning) if thinking else 0
    completion = _tokens(reply.text) + sum(_tokens(c.arguments) for c in reply.calls) + reasoning
    usage: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }
    if thinking:
        usage["completion_tokens_details"] = {"reasoning_tokens": reasoning}
    if deepseek:
        # DeepSeek's own fields (guides/kv_cache): hits and misses add up to prompt_tokens.
        usage["prompt_cache_hit_tokens"] = cached
        usage["prompt_cache_miss_tokens"] = prompt - cached
    else:
        usage["prompt_tokens_details"] = {"cached_tokens": cached}  # OpenAI's
    return {
        "id": f"chatcmpl-{_hid(seed, 'id', 29)}",
        "object": "chat.completion",
        "created": CREATED,
        "model": request.get("model"),
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if reply.calls else "stop",
                "logprobs": None,
            }
        ],
        "usage": usage,
    }


def _anthropic_usage(request: dict[str, Any], cached: int) -> dict[str, int]:
    """Anthropic splits the input three ways. DeepSeek's models here cache every prefix on
    their own; Anthropic's only up to a `cache_control` breakpoint (the fake: a breakpoint
    anywhere caches the whole prompt), and say what they wrote to the cache."""
    prompt = _prompt_tokens(request)
    if str(request.get("model", "")).startswith("deepseek"):
        return {
            "input_tokens": prompt - cached,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": cached,
        }
    if '"cache_control"' not in json.dumps(request):
        return {
            "input_tokens": prompt,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        }
    return {
        "input_tokens": 0,
        "cache_creation_input_tokens": prompt - cached,
        "cache_read_input_tokens": cached,
    }


def _anthropic_response(request: dict[str, Any], reply: _Reply, cached: int = 0) -> dict[str, Any]:
    seed = _seed(request)
    content: list[dict[str, Any]] = []
    if _anthropic_thinking(request):
        digest = hashlib.sha256(f"{seed}:signature".encode()).digest()
        signature = base64.b64encode(digest + hashlib.sha256(digest).digest()).decode()
        content.append({"type": "thinking", "thinking": reply.reasoning, "signature": signature})
    text = reply.preface if reply.calls else reply.text
    if text:
        content.append({"type": "text", "text": text})
    for i, c in enumerate(reply.calls):
        content.append(
            {
                "type": "tool_use",
                "id": f"toolu_{_hid(seed, f'toolu{i}')}",
                "name": c.name,
                "input": c.input,
            }
        )
    output = sum(
        _tokens(b.get("text") or b.get("thinking") or json.dumps(b.get("input"))) for b in content
    )
    return {
        "id": f"msg_{_hid(seed, 'id')}",
        "type": "message",
        "role": "assistant",
        "model": request.get("model"),
        "content": content,
        "stop_reason": "tool_use" if reply.calls else "end_turn",
        "stop_sequence": None,
        "usage": {**_anthropic_usage(request, cached), "output_tokens": max(1, output)},
    }


# ---------------------------------------------------------------------------------------------
# streams: built from the JSON answer, so they assemble to exactly that


def _pieces(text: str, size: int) -> list[str]:
    size = max(1, size)
    return [text[i : i + size] for i in range(0, len(text), size)]


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False)


def _keep_alive(events: list[Any], quirks: set[str]) -> list[Any]:
    if "keep_alive" not in quirks:
        return events
    out: list[Any] = [": keep-alive\n\n"]
    for n, event in enumerate(events, 1):
        out.append(event)
        if n % 4 == 0:
            out.append(": keep-alive\n\n")
    return out


def _chat_events(
    response: dict[str, Any], fp: FakeProvider, *, include_usage: bool, first_step: bool = True
) -> list[Any]:
    quirks = fp.stream_quirks
    base = {k: response[k] for k in ("id", "created", "model")}
    base["object"] = "chat.completion.chunk"
    choice = response["choices"][0]
    message = choice["message"]
    thinking = "reasoning_content" in message

    def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
        data: dict[str, Any] = {
            "id": base["id"],
            "object": base["object"],
            "created": base["created"],
            "model": base["model"],
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        }
        if include_usage:
            data["usage"] = None
        return f"data: {_dumps(data)}\n\n"

    events: list[Any] = []
    first: dict[str, Any] = {
        "role": "assistant",
        "content": None if message["content"] is None else "",
    }
    if thinking:
        first["reasoning_content"] = ""
    events.append(chunk(first))
    for piece in _pieces(message.get("reasoning_content") or "", fp.text_fragment_size):
        events.append(chunk({"content": None, "reasoning_content": piece}))
    text_pieces = _pieces(message["content"] or "", fp.text_fragment_size)
    calls = message.get("tool_calls") or []
    for n, piece in enumerate(text_pieces):
        if not calls and n == max(1, len(text_pieces) // 2):
            events.append(_CUT)
        delta: dict[str, Any] = {"content": piece}
        if thinking:
            delta["reasoning_content"] = None
        events.append(chunk(delta))
    per_call: list[list[Any]] = []
    for i, call in enumerate(calls):
        index = 0 if "reuse_index0" in quirks else i
        null = "null_arguments" in quirks and first_step
        head = {
            "index": index,
            "id": call["id"],
            "type": "function",
            "function": {"name": call["function"]["name"], "arguments": None if null else ""},
        }
        own: list[Any] = [chunk({"tool_calls": [head]})]
        pieces = [] if null else _pieces(call["function"]["arguments"], fp.fragment_size)
        for n, piece in enumerate(pieces):
            if i == 0 and n == max(1, len(pieces) // 2):
                own.append(_CUT)
            more: dict[str, Any] = {"index": index}
            if "empty_id" in quirks:
                more.update({"id": "", "type": ""})
            more["function"] = {"arguments": piece}
            own.append(chunk({"tool_calls": [more]}))
        if i == 0 and len(pieces) <= 1:
            own.append(_CUT)
        per_call.append(own)
    if "heads_reversed" in quirks:
        per_call.reverse()
    if "interleave" in quirks:
        # Parallel calls written at once: one fragment of each call in turn (routed by index).
        for turn in range(max((len(own) for own in per_call), default=0)):
            events.extend(own[turn] for own in per_call if turn < len(own))
    else:
        for own in per_call:
            events.extend(own)
    if not calls and len(text_pieces) <= 1:
        events.append(_CUT)
    events.append(chunk({}, None if "no_finish" in quirks else choice["finish_reason"]))
    if include_usage:
        last = {
            "id": base["id"],
            "object": base["object"],
            "created": base["created"],
            "model": base["model"],
            "choices": [],
            "usage": response["usage"],
        }
        events.append(f"data: {_dumps(last)}\n\n")
    if "no_done" not in quirks:
        events.append("data: [DONE]\n\n")
    return _keep_alive(events, quirks)


def _anthropic_events(response: dict[str, Any], fp: FakeProvider) -> list[Any]:
    quirks = fp.stream_quirks

    def event(name: str, data: dict[str, Any]) -> str:
        return f"event: {name}\ndata: {_dumps({'type': name, **data})}\n\n"

    start = {
        **response,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {**response["usage"], "output_tokens": 1},
    }
    events: list[Any] = [event("message_start", {"message": start})]
    first_tool = next(
        (i for i, b in enumerate(response["content"]) if b["type"] == "tool_use"), None
    )
    cut_block = first_tool if first_tool is not None else len(response["content"]) - 1
    stop = response["stop_reason"]
    for index, block in enumerate(response["content"]):
        kind = block["type"]
        if kind == "thinking":
            opened: dict[str, Any] = {"type": "thinking", "thinking": "", "signature": ""}
            deltas = [
                {"type": "thinking_delta", "thinking": p}
                for p in _pieces(block["thinking"], fp.text_fragment_size)
            ]
            deltas.append({"type": "signature_delta", "signature": block["signature"]})
        elif kind == "text":
            opened = {"type": "text", "text": ""}
            deltas = [
                {"type": "text_delta", "text": p}
                for p in _pieces(block["text"], fp.text_fragment_size)
            ]
        elif kind in ("tool_use", "server_tool_use"):
            opened = {"type": kind, "id": block["id"], "name": block["name"], "input": {}}
            deltas = [
                {"type": "input_json_delta", "partial_json": p}
                for p in _pieces(_dumps(block["input"]), fp.fragment_size)
            ]
            if "max_tokens_in_input" in quirks and kind == "tool_use":
                # The budget ran out inside the input: half of it, then the stream ends as a
                # whole stream does, stop_reason max_tokens.
                deltas = deltas[: max(1, len(deltas) // 2)]
                stop = "max_tokens"
        elif kind == "compaction":
            # The summary arrives as one compaction_delta (the beta SDKs' BetaCompactionBlock).
            opened = {"type": "compaction", "content": None}
            deltas = [{"type": "compaction_delta", "content": block["content"]}]
        else:
            # redacted_thinking, web_search_tool_result, fallback...: whole in the start event.
            opened, deltas = block, []
        events.append(event("content_block_start", {"index": index, "content_block": opened}))
        if index == 0:
            events.append(event("ping", {}))
        for n, delta in enumerate(deltas):
            if index == cut_block and n == max(1, len(deltas) // 2):
                events.append(_CUT)
            events.append(event("content_block_delta", {"index": index, "delta": delta}))
        if index == cut_block and len(deltas) <= 1:
            events.append(_CUT)
        events.append(event("content_block_stop", {"index": index}))
        if stop != response["stop_reason"]:
            break  # out of tokens: nothing after the block it ran out in
    events.append(
        event(
            "message_delta",
            {
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": response["usage"]["output_tokens"]},
            },
        )
    )
    if "no_done" not in quirks:
        events.append(event("message_stop", {}))
    return _keep_alive(events, quirks)


# ---------------------------------------------------------------------------------------------
# by hand: `python -m tests.support.fake_provider` serves until Ctrl-C (docs/deepseek-formats.md)


FAKE_KEY_VARIABLES = (
    "DEEPSEEK_API_KEY",
    "OPENAI_API_KEY",
    "GEMINI_API_KEY",
    "ANTHROPIC_API_KEY",
    "MISTRAL_API_KEY",
    "AWS_BEARER_TOKEN_BEDROCK",
)
"""The keys the banner exports: one export line serves -p deepseek, -p openai (--api
responses too), -p gemini, -p anthropic, -p mistral and -p bedrock."""


def main() -> None:
    import sys

    with FakeProvider() as server:
        print(f"fake provider at {server.url} (key {DEFAULT_KEY}); Ctrl-C stops it", flush=True)
        keys = " ".join(f"{name}={DEFAULT_KEY}" for name in FAKE_KEY_VARIABLES)
        print(f"export FC_BASE_URL={server.url} {keys}", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            sys.exit(0)


# ---------------------------------------------------------------------------------------------
# Gemini (generateContent): `POST /v1beta/models/{model}:generateContent` and
# `:streamGenerateContent?alt=sse`, the key in `x-goog-api-key`. Read into the Anthropic shape
# for _Model, answered in Gemini's. A model named gemini-2... sends calls without ids (results
# are paired by name and order), any other with ids; every answer with calls carries a
# thoughtSignature on its first call, and a gemini-3 model refuses a history without it.

GEMINI_ROUTE = re.compile(r"^/v1beta/models/([^/:]+):(generateContent|streamGenerateContent)$")
# google-gemini/gemini-cli#4217 and many more: the wording of Gemini's 400s on a broken history.
GEMINI_COUNT_MISMATCH = (
    "Please ensure that the number of function response parts is equal to the number of "
    "function call parts of the function call turn."
)
GEMINI_NOT_AFTER_CALL = (
    "Please ensure that function response turn comes immediately after a function call turn."
)
GEMINI_NO_SIGNATURE = (
    "Function call is missing a thought_signature in functionCall parts. This is required for "
    "tools to work correctly, and missing thought_signature may lead to degraded model "
    "performance. Additional data, function call `default_api:{name}` , position {position}. "
    "Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details."
)
# What the Gemini API answers without a key, and with a wrong one.
GEMINI_NO_KEY = (
    "Method doesn't allow unregistered callers (callers without established identity). "
    "Please use API Key or other form of API consumer identity to call this API."
)
GEMINI_BAD_KEY = "API key not valid. Please pass a valid API key."
GEMINI_STATUSES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
}
GEMINI_STREAM_ERROR = (
    'data: {"error": {"code": 503, "message": "The model is overloaded. Please try again '
    'later.", "status": "UNAVAILABLE"}}\r\n\r\n'
)


def gemini_error(message: str, status: int) -> dict[str, Any]:
    return {
        "error": {
            "code": status,
            "message": message,
            "status": GEMINI_STATUSES.get(status, "UNKNOWN"),
        }
    }


def gemini_signature(seed: str) -> str:
    digest = hashlib.sha256(f"{seed}:thought".encode()).digest()
    return base64.b64encode(digest * 2).decode()


def _gemini_calls(content: dict[str, Any]) -> list[dict[str, Any]]:
    parts = content.get("parts") if isinstance(content, dict) else None
    return [
        p for p in parts or [] if isinstance(p, dict) and isinstance(p.get("functionCall"), dict)
    ]


def _gemini_results(content: dict[str, Any]) -> list[dict[str, Any]]:
    parts = content.get("parts") if isinstance(content, dict) else None
    return [
        p
        for p in parts or []
        if isinstance(p, dict) and isinstance(p.get("functionResponse"), dict)
    ]


def gemini_problem(request: dict[str, Any], model: str, issued: set[str]) -> str | None:
    """Gemini's own 400 for a broken history, or None."""
    contents = request.get("contents")
    if not isinstance(contents, list) or not contents:
        return "* GenerateContentRequest.contents: contents is not specified"
    for i, content in enumerate(contents):
        calls, results = _gemini_calls(content), _gemini_results(content)
        if results:
            before = contents[i - 1] if i > 0 else {}
            if not (
                isinstance(before, dict) and before.get("role") == "model" and _gemini_calls(before)
            ):
                return GEMINI_NOT_AFTER_CALL
        if calls:
            after = contents[i + 1] if i + 1 < len(contents) else None
            if after is not None and len(_gemini_results(after)) != len(calls):
                return GEMINI_COUNT_MISMATCH
            first = calls[0]
            signed = first.get("thoughtSignature")
            if model.startswith("gemini-3") and (
                not isinstance(signed, str) or signed not in issued
            ):
                name = first["functionCall"].get("name")
                return GEMINI_NO_SIGNATURE.format(name=name, position=i + 1)
    return None


def gemini_as_anthropic(request: dict[str, Any], model: str) -> dict[str, Any]:
    """The request in the shape _Model reads: calls and results as blocks, paired by id or, when
    a result has none, by name and order (as Gemini 2.x pairs them)."""
    messages: list[dict[str, Any]] = []
    previous: list[tuple[str, str]] = []
    for i, content in enumerate(request.get("contents") or []):
        if not isinstance(content, dict):
            continue
        blocks: list[dict[str, Any]] = []
        calls: list[tuple[str, str]] = []
        unpaired = list(previous)
        for k, part in enumerate(content.get("parts") or []):
            if not isinstance(part, dict):
                continue
            if isinstance(part.get("text"), str) and not part.get("thought"):
                blocks.append({"type": "text", "text": part["text"]})
            call = part.get("functionCall")
            if isinstance(call, dict):
                call_id = str(call.get("id") or f"c{i}-{k}")
                calls.append((call_id, str(call.get("name"))))
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": call_id,
                        "name": call.get("name"),
                        "input": call.get("args"),
                    }
                )
            result = part.get("functionResponse")
            if isinstance(result, dict):
                call_id = result.get("id")
                if call_id is None:
                    match = next((c for c in unpaired if c[1] == result.get("name")), None)
                    call_id = match[0] if match else "unpaired"
                    if match:
                        unpaired.remove(match)
                response = (
                    result.get("response") if isinstance(result.get("response"), dict) else {}
                )
                is_error = "error" in response
                value = response.get("error" if is_error else "output", response)
                text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
                blocks.append(
                    {
                        "type": "tool_result",
                        "tool_use_id": call_id,
                        "content": text,
                        "is_error": is_error,
                    }
                )
        role = "assistant" if content.get("role") == "model" else "user"
        messages.append({"role": role, "content": blocks})
        previous = calls if role == "assistant" else []
    tools = []
    for tool in request.get("tools") or []:
        for d in (tool.get("functionDeclarations") or []) if isinstance(tool, dict) else []:
            schema = d.get("parametersJsonSchema") or d.get("parameters") or {}
            tools.append(
                {
                    "name": d.get("name"),
                    "description": d.get("description", ""),
                    "input_schema": schema,
                }
            )
    out: dict[str, Any] = {"model": model, "messages": messages, "tools": tools}
    calling = (request.get("toolConfig") or {}).get("functionCallingConfig") or {}
    mode = calling.get("mode")
    if mode == "NONE":
        out["tool_choice"] = {"type": "none"}
    elif mode == "ANY":
        names = calling.get("allowedFunctionNames") or []
        out["tool_choice"] = (
            {"type": "tool", "name": names[0]} if len(names) == 1 else {"type": "any"}
        )
    return out


def gemini_response(
    request: dict[str, Any], model: str, reply: _Reply, cached: int, issued: set[str]
) -> dict[str, Any]:
    seed = _seed({**request, "model": model})
    config = request.get("generationConfig") or {}
    thinking = (config.get("thinkingConfig") or {}).get("includeThoughts") is True
    parts: list[dict[str, Any]] = []
    if thinking and reply.reasoning:
        parts.append({"text": reply.reasoning, "thought": True})
    ids = not model.startswith("gemini-2")
    for i, c in enumerate(reply.calls):
        call: dict[str, Any] = {"name": c.name, "args": c.input}
        if ids:
            call = {"id": _hid(seed, f"call{i}", 8), **call}
        part: dict[str, Any] = {"functionCall": call}
        if i == 0:
            signature = gemini_signature(seed)
            issued.add(signature)
            part["thoughtSignature"] = signature
        parts.append(part)
    if not reply.calls and reply.text:
        parts.append({"text": reply.text})
    prompt = max(1, _tokens(json.dumps(request.get("contents"), ensure_ascii=False)))
    thoughts = _tokens(reply.reasoning) if reply.reasoning else 0
    answer = max(
        1,
        sum(
            _tokens(p.get("text", "")) + _tokens(json.dumps(p.get("functionCall") or ""))
            for p in parts
            if not p.get("thought")
        ),
    )
    usage: dict[str, Any] = {
        "promptTokenCount": prompt,
        "candidatesTokenCount": answer,
        "totalTokenCount": prompt + answer + thoughts,
    }
    if thoughts:
        usage["thoughtsTokenCount"] = thoughts
    if cached:
        usage["cachedContentTokenCount"] = min(cached, prompt)
    usage["promptTokensDetails"] = [{"modality": "TEXT", "tokenCount": prompt}]
    return {
        "candidates": [
            {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": usage,
        "modelVersion": model,
        "responseId": _hid(seed, "id", 22),
    }


def gemini_events(response: dict[str, Any], fp: FakeProvider) -> list[Any]:
    """The answer as streamGenerateContent sends it: each event a whole response chunk with the
    new parts; text in pieces of random length (seeded by the answer), each call whole in a
    chunk of its own; the finishReason and the whole usage with the last chunk."""
    import random

    candidate = response["candidates"][0]
    parts = candidate.get("content", {}).get("parts", [])
    top = {k: v for k, v in response.items() if k not in ("candidates", "usageMetadata")}
    usage = response.get("usageMetadata") or {}
    early_usage = {
        k: v for k, v in usage.items() if k in ("promptTokenCount", "promptTokensDetails")
    }
    rng = random.Random(_dumps(response))
    chunks: list[list[dict[str, Any]]] = []
    for part in parts:
        text = part.get("text")
        if isinstance(text, str) and set(part) <= {"text", "thought"} and text:
            at = 0
            while at < len(text):
                size = rng.randint(1, max(1, fp.text_fragment_size * 2))
                chunks.append([{**part, "text": text[at : at + size]}])
                at += size
        else:
            chunks.append([part])
    if not chunks:
        chunks.append([])
    events: list[Any] = []
    cut_at = max(1, len(chunks) // 2) if len(chunks) > 1 else 1
    for n, new in enumerate(chunks):
        last = n == len(chunks) - 1
        cand: dict[str, Any] = {"content": {"role": "model", "parts": new}, "index": 0}
        if last:
            cand.update({k: v for k, v in candidate.items() if k != "content"})
        chunk: dict[str, Any] = {"candidates": [cand], **top}
        if usage if last else early_usage:
            chunk["usageMetadata"] = usage if last else early_usage
        if n == cut_at:
            events.append(_CUT)
        events.append(f"data: {_dumps(chunk)}\r\n\r\n")
    if len(chunks) == 1:
        events.append(_CUT)
    return _keep_alive(events, fp.stream_quirks)


def _bedrock_route(route: str) -> re.Match[str] | None:
    """`/model/{modelId}/converse[-stream]` (tests/support/fake_bedrock.py)."""
    from tests.support.fake_bedrock import ROUTE

    return ROUTE.match(route) if route.startswith("/model/") else None


if __name__ == "__main__":
    main()
