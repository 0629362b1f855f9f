"""HTTP for the real providers: one client, timeouts, retries with backoff, errors said plainly.

- Retried: 429, 500, 502, 503, 504 and failures to connect, at most `retries` times, waiting
  `Retry-After` when the server says how long (seconds or an HTTP date), else exponential
  backoff with jitter (so many clients that failed together do not retry together).
- Not retried: other 4xx (the request itself is wrong; sending it again changes nothing) and a
  read timeout (the model may be working; the wait was already long).
- Every attempt is recorded (status or error, duration, wait before it) for the manifest.
- The body sent is exactly the bytes given; the body returned is exactly the bytes received,
  except that a key echoed back by the server is masked: secrets never reach a trace.

httpx errors are translated into FcError here, once (ARCHITECTURE.md, transport.py).
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from fccli import __version__
from fccli.core.errors import ProviderError, UsageError

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504, 529})
"""529 is Anthropic's "overloaded" (docs.claude.com, API errors); the rest are the usual ones."""
MASK = "***"


@dataclass(frozen=True)
class TransportSettings:
    connect_timeout: float = 10.0
    read_timeout: float = 600.0
    """Long: a thinking model may reason for minutes before the first byte (DeepSeek closes
    the connection itself if inference has not started after 10 minutes)."""
    retries: int = 3
    backoff_base: float = 0.5
    """The first wait; each retry doubles it, up to backoff_cap."""
    backoff_cap: float = 20.0
    max_retry_after: float = 120.0
    """A server asking for a longer wait than this gets no retry: fc says so and stops."""


@dataclass
class Delivered:
    body: bytes
    """The response body exactly as received: what the engine reads."""
    attempts: list[dict[str, Any]]
    stored: bytes | None = None
    """The body to write and show, when it differs: a key the server echoed, masked."""
    cut: str | None = None
    """A stream only: why it stopped before the server ended it (the bytes so far are in body)."""
    interrupted: bool = False
    """A stream only: Ctrl-C stopped it; the caller re-raises once the bytes are safe."""


@dataclass
class HttpFailure:
    """What the transport tells the provider about a failed exchange, before it becomes an error."""

    status: int | None
    message: str
    body: str | None = None
    attempts: list[dict[str, Any]] = field(default_factory=list)


MIN_SECRET = 8
"""Shorter values are not masked: a local server's placeholder key ("x", "city") would otherwise
be masked inside the model's own words, and is no secret anyway."""


def mask(text: str, secrets: list[str]) -> str:
    for secret in secrets:
        if len(secret) >= MIN_SECRET:
            # Also as an error message would quote it: repr() escapes what a header refuses.
            text = text.replace(secret, MASK).replace(repr(secret)[1:-1], MASK)
    return text


def provider_message(body: str) -> str | None:
    """The provider's own sentence from an error body: OpenAI, DeepSeek and Anthropic put it
    at `error.message`; FastAPI-based servers (vLLM) at `detail`; some at `message`."""
    try:
        data = json.loads(body)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    error = data.get("error")
    candidates = [
        error.get("message") if isinstance(error, dict) else error,
        data.get("message"),
        data.get("detail"),
    ]
    for value in candidates:
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """`Retry-After` as seconds: a number, or an HTTP date (RFC 9110 10.2.3)."""
    if value is None:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


class Transport:
    def __init__(
        self,
        settings: TransportSettings,
        *,
        secrets: list[str],
        sleep: Callable[[float], None] = time.sleep,
        client: httpx.Client | None = None,
    ) -> None:
        self.settings = settings
        self._secrets = [s for s in secrets if s]
        self._sleep = sleep
        self._client = client or _client(settings)

    def close(self) -> None:
        self._client.close()

    def mask(self, text: str) -> str:
        return mask(text, self._secrets)

    def post(
        self,
        url: str,
        body: bytes,
        headers: dict[str, str],
        *,
        on_bytes: Callable[[bytes], None] | None = None,
    ) -> Delivered | HttpFailure:
        """POST `body` to `url`; the reply, or why there is none, with every attempt made.

        With `on_bytes`, a successful answer is read as a stream: each piece goes to `on_bytes`
        as it arrives. Retries happen only before the first byte of a 2xx body: after that the
        model's words have been seen, and sending again would ask for different ones.
        """
        attempts: list[dict[str, Any]] = []
        wait = 0.0
        shown = mask(url, self._secrets)  # a password in the URL is never printed
        for number in range(1, self.settings.retries + 2):
            if wait:
                self._sleep(wait)
            record: dict[str, Any] = {"attempt": number, "waited_s": round(wait, 2)}
            attempts.append(record)
            start = time.perf_counter()
            try:
                if on_bytes is None:
                    response = self._client.post(url, content=body, headers=headers)
                else:
                    request = self._client.build_request("POST", url, content=body, headers=headers)
                    response = self._client.send(request, stream=True)
                    if not 200 <= response.status_code < 300:
                        try:
                            response.read()  # an error body is small: read it as a whole
                        finally:
                            response.close()
            except httpx.TimeoutException as e:
                record["error"] = type(e).__name__
                record["duration_ms"] = _ms(start)
                if isinstance(e, httpx.ConnectTimeout) and number <= self.settings.retries:
                    wait = self._backoff(number)
                    continue
                what = "to connect" if isinstance(e, httpx.ConnectTimeout) else "for an answer"
                limit = (
                    self.settings.connect_timeout
                    if isinstance(e, httpx.ConnectTimeout)
                    else self.settings.read_timeout
                )
                return HttpFailure(
                    None,
                    f"timed out after {limit:g} s waiting {what} from {shown}",
                    attempts=attempts,
                )
            except (httpx.LocalProtocolError, httpx.UnsupportedProtocol) as e:
                # fc's own request cannot go out (a bad header, a bad URL): retrying changes nothing.
                record["error"] = type(e).__name__
                return HttpFailure(
                    None,
                    f"cannot send to {shown}: {mask(str(e), self._secrets)}",
                    attempts=attempts,
                )
            except httpx.TransportError as e:
                # Refused, reset, closed before any answer: retried. (A server that read the
                # request and then dropped the connection may see it twice, as with any SDK.)
                record["error"] = f"{type(e).__name__}: {mask(str(e), self._secrets)}"
                record["duration_ms"] = _ms(start)
                if number <= self.settings.retries:
                    wait = self._backoff(number)
                    continue
                tries = f" (after {number} attempts)" if number > 1 else ""
                return HttpFailure(
                    None,
                    f"cannot reach {shown}: {mask(_reason(e), self._secrets)}{tries}",
                    attempts=attempts,
                )
            except httpx.RequestError as e:  # a body that cannot be decoded, ...
                record["error"] = type(e).__name__
                record["duration_ms"] = _ms(start)
                return HttpFailure(
                    None,
                    f"the answer from {shown} cannot be read: {mask(str(e), self._secrets)}",
                    attempts=attempts,
                )
            record["status"] = response.status_code
            record["duration_ms"] = _ms(start)
            if 200 <= response.status_code < 300 and on_bytes is not None:
                return self._receive_stream(response, on_bytes, attempts, record, start)
            if 200 <= response.status_code < 300:
                raw = response.content
                stored = self._masked(raw)
                return Delivered(raw, attempts, stored if stored != raw else None)
            if 300 <= response.status_code < 400:
                where = response.headers.get("location", "elsewhere")
                return HttpFailure(
                    response.status_code,
                    f"HTTP {response.status_code}: redirected to {mask(where, self._secrets)}; "
                    "fc does not follow a redirected POST: use that address as --base-url",
                    attempts=attempts,
                )
            text = self._masked(response.content).decode("utf-8", errors="replace")
            retry_after = response.headers.get("retry-after")
            if retry_after is not None:
                record["retry_after"] = retry_after
            if response.status_code in RETRY_STATUSES and number <= self.settings.retries:
                asked = retry_after_seconds(retry_after)
                if asked is not None and asked > self.settings.max_retry_after:
                    return self._failure(
                        response.status_code,
                        text,
                        attempts,
                        f"it asks to retry after {asked:g} s, longer than fc waits",
                    )
                wait = asked if asked is not None else self._backoff(number)
                continue
            return self._failure(response.status_code, text, attempts)
        raise AssertionError("unreachable: the loop returns on its last attempt")

    def _receive_stream(
        self,
        response: httpx.Response,
        on_bytes: Callable[[bytes], None],
        attempts: list[dict[str, Any]],
        record: dict[str, Any],
        start: float,
    ) -> Delivered:
        """Read a streamed body to its end, or to where it broke; keep every byte that came."""
        pieces: list[bytes] = []
        cut: str | None = None
        interrupted = False
        try:
            for piece in response.iter_bytes():
                pieces.append(piece)
                on_bytes(piece)
        except httpx.TimeoutException:
            cut = f"no data for {self.settings.read_timeout:g} s (--timeout), so fc stopped waiting"
        except httpx.TransportError as e:  # closed mid-body: h11's "incomplete chunked read", ...
            cut = f"the connection closed mid-stream ({mask(str(e) or type(e).__name__, self._secrets)})"
        except httpx.RequestError as e:  # a body that cannot be decoded (gzip cut short, ...)
            cut = f"the stream cannot be read further ({mask(str(e), self._secrets)})"
        except KeyboardInterrupt:
            # Caught here, not lost: what arrived so far is returned for the trace, and the
            # caller raises the interruption once it is written.
            cut, interrupted = "interrupted (Ctrl-C)", True
        finally:
            response.close()
        record["duration_ms"] = _ms(start)
        record["stream_bytes"] = sum(len(p) for p in pieces)
        if cut is not None:
            record["error"] = cut
        raw = b"".join(pieces)
        stored = self._masked(raw)
        return Delivered(
            raw, attempts, stored if stored != raw else None, cut=cut, interrupted=interrupted
        )

    def _failure(
        self, status: int, text: str, attempts: list[dict[str, Any]], extra: str | None = None
    ) -> HttpFailure:
        said = provider_message(text) or _snippet(text)
        message = f"HTTP {status}" + (f": {said}" if said else "")
        if len(attempts) > 1:
            message += f" (after {len(attempts)} attempts)"
        if extra:
            message = f"{message.rstrip('.')} ({extra})"
        return HttpFailure(status, message, body=text, attempts=attempts)

    def _masked(self, data: bytes) -> bytes:
        for secret in self._secrets:
            if len(secret) >= MIN_SECRET:
                data = data.replace(secret.encode("utf-8"), MASK.encode())
        return data

    def _backoff(self, number: int) -> float:
        ceiling = min(self.settings.backoff_cap, self.settings.backoff_base * 2.0 ** (number - 1))
        # "Equal jitter": at least half the step, so waits still grow, plus a random half.
        return ceiling / 2 + random.uniform(0, ceiling / 2)


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 1)


def _reason(error: httpx.TransportError) -> str:
    text = str(error) or type(error).__name__
    if "refused" in text.lower():
        return "connection refused (is the server running, and is the base URL right?)"
    return text


def _snippet(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= 200 else flat[:200] + "…"


def as_provider_error(
    failure: HttpFailure, *, provider: str, step: int, key_env: str | None, url: str
) -> ProviderError:
    """The failure as the one or two lines a user reads (CLI.md: exit 3)."""
    hint = None
    if failure.status in (401, 403):
        hint = (
            f"the key was read from ${key_env}; check that it is valid for {url}"
            if key_env
            else f"{provider} needs no key in fc; does the server at {url} expect one?"
        )
    elif failure.status == 404:
        hint = f"fc posted to {url}; check --base-url (or $FC_BASE_URL) and --model"
    elif failure.status == 429 and "longer than fc waits" in failure.message:
        hint = "rate limited for a while: wait as long as it asks, then run again"
    elif failure.status == 429:
        hint = "rate limited; wait, or raise --retries"
    return ProviderError(
        f"{provider} answered {failure.message}" if failure.status is not None else failure.message,
        status=failure.status,
        body=failure.body,
        step=step,
        hint=hint,
        attempts=failure.attempts,
    )


def _client(settings: TransportSettings) -> httpx.Client:
    try:
        return httpx.Client(
            timeout=httpx.Timeout(
                settings.read_timeout,
                connect=settings.connect_timeout,
                pool=settings.connect_timeout,
            ),
            headers={"user-agent": f"fc/{__version__}"},
            # A proxy set in the shell applies as it would to curl; redirects are not followed,
            # since a POST redirected is rarely what the user meant (see the 3xx answer below).
            follow_redirects=False,
        )
    except ImportError as e:  # a SOCKS proxy in ALL_PROXY needs an extra package
        raise UsageError(
            f"the proxy set in the environment needs a package fc does not install ({e})",
            hint="pip install 'httpx[socks]' into fc's environment, or unset ALL_PROXY",
        ) from None
