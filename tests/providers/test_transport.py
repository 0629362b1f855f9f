"""The transport's rules, unit by unit, through httpx.MockTransport (the end-to-end proof is in
tests/providers/test_providers_http.py, against a real server)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import httpx
import pytest

from fccli.providers.transport import (
    Delivered,
    HttpFailure,
    Transport,
    TransportSettings,
    _client,
    as_provider_error,
    needs_tls,
    provider_message,
    retry_after_seconds,
)

URL = "http://provider.test/chat/completions"
KEY = "sk-live-0123456789abcdef"


def make(
    answers: list[httpx.Response | Exception], retries: int = 3
) -> tuple[Transport, list[float], list[httpx.Request]]:
    waits: list[float] = []
    seen: list[httpx.Request] = []
    queue = list(answers)

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        answer = queue.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    client = httpx.Client(transport=httpx.MockTransport(handler))
    transport = Transport(
        TransportSettings(retries=retries), secrets=[KEY], sleep=waits.append, client=client
    )
    return transport, waits, seen


def ok(body: bytes = b'{"ok": true}') -> httpx.Response:
    return httpx.Response(200, content=body)


def error(status: int, message: str = "nope", **headers: str) -> httpx.Response:
    body = {"error": {"message": message, "type": "invalid_request_error"}}
    return httpx.Response(status, json=body, headers=headers)


def post(transport: Transport, body: bytes = b'{"model": "m"}') -> Delivered | HttpFailure:
    return transport.post(URL, body, {"content-type": "application/json"})


def test_the_body_goes_out_byte_for_byte_and_comes_back_byte_for_byte() -> None:
    sent = '{\n  "model": "m",\n  "q": "杭州"\n}\n'.encode()
    received = b'{"id":"x",  "choices":[]}'
    transport, _, seen = make([ok(received)])
    outcome = post(transport, sent)
    assert isinstance(outcome, Delivered)
    assert seen[0].content == sent
    assert outcome.body == received
    assert outcome.attempts == [
        {
            "attempt": 1,
            "waited_s": 0.0,
            "status": 200,
            "duration_ms": outcome.attempts[0]["duration_ms"],
        }
    ]


def test_429_waits_as_long_as_retry_after_says_then_succeeds() -> None:
    transport, waits, _ = make([error(429, "slow down", **{"retry-after": "7"}), ok()])
    outcome = post(transport)
    assert isinstance(outcome, Delivered)
    assert waits == [7.0]
    assert [a["status"] for a in outcome.attempts] == [429, 200]
    assert outcome.attempts[0]["retry_after"] == "7"
    assert outcome.attempts[1]["waited_s"] == 7.0


@pytest.mark.parametrize("status", [500, 502, 503, 504])
def test_server_errors_are_retried_with_growing_jittered_backoff(status: int) -> None:
    transport, waits, _ = make([error(status)] * 3 + [ok()])
    outcome = post(transport)
    assert isinstance(outcome, Delivered)
    assert len(outcome.attempts) == 4
    # equal jitter: each wait between half and all of 0.5, 1, 2 seconds
    for wait, ceiling in zip(waits, [0.5, 1.0, 2.0], strict=True):
        assert ceiling / 2 <= wait <= ceiling


def test_retries_stop_at_the_limit_and_the_failure_says_how_many_attempts() -> None:
    transport, waits, _ = make([error(500, "boom")] * 4, retries=3)
    outcome = post(transport)
    assert isinstance(outcome, HttpFailure)
    assert outcome.status == 500
    assert outcome.message == "HTTP 500: boom (after 4 attempts)"
    assert len(waits) == 3


def test_retries_zero_means_one_attempt() -> None:
    transport, waits, _ = make([error(503)], retries=0)
    assert isinstance(post(transport), HttpFailure)
    assert waits == []


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
def test_a_client_error_is_not_retried(status: int) -> None:
    transport, waits, seen = make([error(status, "bad request")])
    outcome = post(transport)
    assert isinstance(outcome, HttpFailure)
    assert len(seen) == 1 and waits == []
    assert outcome.message == f"HTTP {status}: bad request"


def test_connection_errors_are_retried() -> None:
    refused = httpx.ConnectError("[Errno 111] Connection refused")
    transport, waits, _ = make([refused, refused, ok()])
    outcome = post(transport)
    assert isinstance(outcome, Delivered)
    assert len(waits) == 2
    assert outcome.attempts[0]["error"].startswith("ConnectError")


def test_a_server_that_never_answers_is_said_plainly() -> None:
    refused = httpx.ConnectError("[Errno 111] Connection refused")
    transport, _, _ = make([refused] * 4)
    outcome = post(transport)
    assert isinstance(outcome, HttpFailure)
    assert outcome.status is None
    assert outcome.message.startswith(f"cannot reach {URL}: connection refused")


def test_a_read_timeout_is_not_retried() -> None:
    transport, waits, _ = make([httpx.ReadTimeout("timed out")])
    outcome = post(transport)
    assert isinstance(outcome, HttpFailure)
    assert waits == []
    assert "timed out after 600 s waiting for an answer" in outcome.message


def test_a_retry_after_longer_than_the_limit_is_not_waited_for() -> None:
    transport, waits, _ = make([error(429, "quota", **{"retry-after": "3600"})])
    outcome = post(transport)
    assert isinstance(outcome, HttpFailure)
    assert waits == []
    assert "it asks to retry after 3600 s, longer than fc waits" in outcome.message


def test_retry_after_as_an_http_date() -> None:
    now = datetime(2026, 11, 30, 12, 0, 0, tzinfo=timezone.utc)
    later = format_datetime(now + timedelta(seconds=30), usegmt=True)
    assert retry_after_seconds(later, now=now.timestamp()) == pytest.approx(30)
    assert retry_after_seconds("1.5") == 1.5
    assert retry_after_seconds("-4") == 0.0
    assert retry_after_seconds("soon") is None
    assert retry_after_seconds(None) is None


def test_a_key_echoed_by_the_server_is_masked_in_body_and_message() -> None:
    body = {"error": {"message": f"Incorrect API key provided: {KEY}.", "code": "invalid_api_key"}}
    transport, _, _ = make([httpx.Response(401, json=body)])
    outcome = post(transport)
    assert isinstance(outcome, HttpFailure)
    assert KEY not in outcome.message and KEY not in (outcome.body or "")
    assert "Incorrect API key provided: ***." in outcome.message
    error_ = as_provider_error(
        outcome, provider="deepseek", step=1, key_env="DEEPSEEK_API_KEY", url=URL
    )
    assert error_.exit_code == 3
    assert KEY not in str(error_)
    assert "$DEEPSEEK_API_KEY" in str(error_)


def test_a_key_echoed_in_a_success_body_is_masked_in_what_is_stored_not_in_what_is_read() -> None:
    received = f'{{"echo": "{KEY}"}}'.encode()
    transport, _, _ = make([ok(received)])
    outcome = post(transport)
    assert isinstance(outcome, Delivered)
    assert outcome.body == received  # what fc reads: the model's words untouched
    assert outcome.stored == b'{"echo": "***"}'  # what the trace keeps


def test_a_short_key_is_not_masked() -> None:
    waits: list[float] = []
    client = httpx.Client(transport=httpx.MockTransport(lambda r: ok(b'{"city": "x"}')))
    transport = Transport(TransportSettings(), secrets=["city"], sleep=waits.append, client=client)
    outcome = post(transport)
    assert isinstance(outcome, Delivered)
    assert outcome.stored is None


@pytest.mark.parametrize("status", [301, 307, 308])
def test_a_redirect_is_a_failure_that_says_where_to(status: int) -> None:
    moved = httpx.Response(status, headers={"location": "https://api.example.com/chat/completions"})
    transport, waits, seen = make([moved])
    outcome = post(transport)
    assert isinstance(outcome, HttpFailure)
    assert len(seen) == 1 and waits == []
    assert "redirected to https://api.example.com/chat/completions" in outcome.message
    assert "--base-url" in outcome.message


def test_a_request_that_cannot_go_out_is_not_retried() -> None:
    transport, waits, _ = make([httpx.LocalProtocolError(f"Illegal header value b'Bearer {KEY}'")])
    outcome = post(transport)
    assert isinstance(outcome, HttpFailure)
    assert waits == []
    assert KEY not in outcome.message


def test_an_answer_that_cannot_be_decoded_is_a_failure_not_a_crash() -> None:
    transport, _, _ = make([httpx.DecodingError("bad gzip")])
    outcome = post(transport)
    assert isinstance(outcome, HttpFailure)
    assert "cannot be read" in outcome.message


@pytest.mark.parametrize(
    ("body", "said"),
    [
        (
            '{"error": {"message": "The `reasoning_content` in the thinking mode must be passed back to the API."}}',
            "The `reasoning_content` in the thinking mode must be passed back to the API.",
        ),
        (
            '{"type": "error", "error": {"type": "invalid_request_error", "message": "max_tokens: Field required"}}',
            "max_tokens: Field required",
        ),
        ('{"detail": "model not found"}', "model not found"),
        ('{"error": "rate limited"}', "rate limited"),
        ("<html>Bad Gateway</html>", None),
        ("[1, 2]", None),
    ],
)
def test_the_providers_own_sentence_is_found_in_its_error_body(body: str, said: str | None) -> None:
    assert provider_message(body) == said


def test_a_non_json_error_body_is_shown_as_a_short_snippet() -> None:
    page = "<html><body>" + "Bad Gateway " * 40 + "</body></html>"
    transport, _, _ = make([httpx.Response(418, text=page)])
    outcome = post(transport)
    assert isinstance(outcome, HttpFailure)
    assert outcome.message.startswith("HTTP 418: <html><body>Bad Gateway")
    assert len(outcome.message) < 230


@pytest.mark.parametrize(
    ("status", "key_env", "words"),
    [
        (401, "OPENAI_API_KEY", ["$OPENAI_API_KEY"]),
        (403, None, ["needs no key in fc"]),
        (404, "DEEPSEEK_API_KEY", ["--base-url", URL]),
        (429, "DEEPSEEK_API_KEY", ["--retries"]),
    ],
)
def test_the_hint_says_what_to_check(status: int, key_env: str | None, words: list[str]) -> None:
    failure = HttpFailure(status, f"HTTP {status}: x", body="{}")
    error_ = as_provider_error(failure, provider="p", step=2, key_env=key_env, url=URL)
    assert str(error_).startswith(f"step 2: p answered HTTP {status}")
    assert error_.status == status
    for word in words:
        assert word in str(error_)


def test_anthropics_529_overloaded_is_retried() -> None:
    transport, waits, _ = make([error(529, "Overloaded"), ok()])
    outcome = post(transport)
    assert isinstance(outcome, Delivered)
    assert [a["status"] for a in outcome.attempts] == [529, 200]
    assert len(waits) == 1


def test_a_server_never_reached_says_how_many_attempts() -> None:
    refused = httpx.ConnectError("[Errno 111] Connection refused")
    transport, _, _ = make([refused] * 3, retries=2)
    outcome = post(transport)
    assert isinstance(outcome, HttpFailure)
    assert outcome.message.endswith("(after 3 attempts)")


# --- streams --------------------------------------------------------------------------------


class _Pieces(httpx.SyncByteStream):
    """A response body that yields these pieces, then fails with `then` (a cut connection)."""

    def __init__(self, pieces: list[bytes], then: Exception | None = None) -> None:
        self.pieces = pieces
        self.then = then

    def __iter__(self):  # type: ignore[no-untyped-def]
        yield from self.pieces
        if self.then is not None:
            raise self.then


def stream_post(transport: Transport) -> tuple[Delivered | HttpFailure, list[bytes]]:
    got: list[bytes] = []
    outcome = transport.post(URL, b"{}", {}, on_bytes=got.append)
    return outcome, got


def test_a_stream_hands_over_each_piece_as_it_comes_and_keeps_them_all() -> None:
    pieces = [b"data: {}\n\n", b"data: [DO", b"NE]\n\n"]
    transport, _, _ = make([httpx.Response(200, stream=_Pieces(pieces))])
    outcome, got = stream_post(transport)
    assert isinstance(outcome, Delivered)
    assert got == pieces
    assert outcome.body == b"".join(pieces)
    assert outcome.cut is None and not outcome.interrupted
    assert outcome.attempts[-1]["stream_bytes"] == len(outcome.body)


def test_a_stream_cut_mid_body_returns_what_came_with_the_reason() -> None:
    cut = httpx.RemoteProtocolError("peer closed connection without sending complete message body")
    transport, waits, seen = make([httpx.Response(200, stream=_Pieces([b"data: {"], cut))])
    outcome, got = stream_post(transport)
    assert isinstance(outcome, Delivered)
    assert outcome.body == b"data: {" and got == [b"data: {"]
    assert outcome.cut is not None and "closed mid-stream" in outcome.cut
    assert len(seen) == 1 and waits == []  # never retried once the model's words have come


def test_a_stream_retries_before_it_starts_but_not_after() -> None:
    transport, waits, seen = make(
        [error(429, "slow down"), httpx.Response(200, stream=_Pieces([b"data: [DONE]\n\n"]))]
    )
    outcome, _ = stream_post(transport)
    assert isinstance(outcome, Delivered) and outcome.cut is None
    assert [a.get("status") for a in outcome.attempts] == [429, 200]
    assert len(seen) == 2 and len(waits) == 1


def test_a_stream_that_answers_an_http_error_is_a_failure_with_the_providers_sentence() -> None:
    transport, _, _ = make([error(400, "bad tool_choice")])
    outcome, got = stream_post(transport)
    assert isinstance(outcome, HttpFailure)
    assert outcome.status == 400 and "bad tool_choice" in outcome.message
    assert got == []


def test_ctrl_c_mid_stream_returns_what_came_marked_interrupted() -> None:
    transport, _, _ = make(
        [httpx.Response(200, stream=_Pieces([b"data: 1\n\n"], KeyboardInterrupt()))]
    )
    outcome, _ = stream_post(transport)
    assert isinstance(outcome, Delivered)
    assert outcome.interrupted and outcome.body == b"data: 1\n\n"


def test_a_key_echoed_in_a_stream_is_masked_in_what_is_stored() -> None:
    body = f'data: {{"said": "{KEY}"}}\n\n'.encode()
    transport, _, _ = make([httpx.Response(200, stream=_Pieces([body]))])
    outcome, _ = stream_post(transport)
    assert isinstance(outcome, Delivered)
    assert outcome.stored is not None and KEY.encode() not in outcome.stored


def test_an_http_provider_gets_no_ca_bundle_and_a_tls_one_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """http:// never makes TLS, unless a proxy set in the environment stands between: the
    client skips the CA bundle (CPU at every client made), and a context that trusts no one
    would refuse any TLS all the same."""
    import ssl

    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    assert not needs_tls("http://127.0.0.1:9/v1") and not needs_tls("HTTP://localhost")
    assert needs_tls("https://api.deepseek.com") and needs_tls("ftp://x")

    def context(tls: bool) -> ssl.SSLContext:
        client = _client(TransportSettings(tls=tls))
        pool = client._transport._pool  # type: ignore[attr-defined]
        made: ssl.SSLContext = pool._ssl_context
        client.close()
        return made

    bare, full = context(False), context(True)
    assert bare.cert_store_stats()["x509_ca"] == 0 < full.cert_store_stats()["x509_ca"]
    assert bare.verify_mode == ssl.CERT_REQUIRED and bare.check_hostname
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:3128")
    assert needs_tls("http://127.0.0.1:9/v1")
