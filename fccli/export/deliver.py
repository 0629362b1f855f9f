"""Where the spans go, and the POST that takes them there (OTLP/HTTP).

The address, in this order: `--endpoint URL` (or `fc run --otlp URL`) as given, `/v1/traces`
added when it has no path; `$OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as given;
`$OTEL_EXPORTER_OTLP_ENDPOINT` with `/v1/traces` appended, as the OTLP exporter specification
says of each. Headers come from `$OTEL_EXPORTER_OTLP_HEADERS` and
`$OTEL_EXPORTER_OTLP_TRACES_HEADERS` (`key=value,key2=value2`, values percent-encoded; the
traces one wins a key both set): Langfuse's Basic auth goes there. Their values are secrets:
never printed, and masked wherever an answer echoes them.

fc's transport sends (retries on 429 and 5xx with backoff, `Retry-After` honoured, every
failure one sentence); here its failure becomes exit 3 with the status and the first line of
what the collector said.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit

from fccli.core.errors import ProviderError, UsageError
from fccli.core.secrets import credential_forms
from fccli.i18n import Msg, localized
from fccli.providers.transport import Delivered, Transport, TransportSettings, mask, needs_tls
from fccli.providers.urls import shown_url

TRACES_PATH = "/v1/traces"
DEFAULT_TIMEOUT_S = 10.0
"""The OTLP exporter specification's default for OTEL_EXPORTER_OTLP_TIMEOUT."""
RETRIES = 3


@dataclass(frozen=True)
class Destination:
    url: str
    origin: str
    """Where the address came from: `--endpoint`, or the variable's name."""
    headers: dict[str, str] = field(default_factory=dict, repr=False)
    timeout: float = DEFAULT_TIMEOUT_S

    @property
    def shown(self) -> str:
        return shown_url(self.url)

    def secrets(self) -> list[str]:
        """Return what to mask in anything shown: each header value in every form a server may
        echo it (core/secrets.py, `credential_forms`)."""
        out = []
        try:
            password = urlsplit(self.url).password
        except ValueError:
            password = None
        if password:
            out.append(password)
        for value in self.headers.values():
            out.extend(credential_forms(value))
        return out


def destination(
    endpoint: str | None, env: Mapping[str, str] | None = None, *, option: str = "--endpoint"
) -> Destination | None:
    """Return the address to post to, with the headers and timeout of the environment; None when
    neither the option nor a variable names one."""
    env = os.environ if env is None else env
    if endpoint:
        url, origin = with_traces_path(endpoint, option), option
    elif env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"):
        origin = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
        url = _checked(env[origin], origin)
    elif env.get("OTEL_EXPORTER_OTLP_ENDPOINT"):
        origin = "OTEL_EXPORTER_OTLP_ENDPOINT"
        url = _checked(env[origin], origin).rstrip("/") + TRACES_PATH
    else:
        return None
    headers = {
        **parse_headers(env.get("OTEL_EXPORTER_OTLP_HEADERS", ""), "OTEL_EXPORTER_OTLP_HEADERS"),
        **parse_headers(
            env.get("OTEL_EXPORTER_OTLP_TRACES_HEADERS", ""), "OTEL_EXPORTER_OTLP_TRACES_HEADERS"
        ),
    }
    return Destination(url, origin, headers, _timeout(env))


def with_traces_path(url: str, origin: str) -> str:
    """Return a URL given on the command line: as it is, or with /v1/traces when it names only a
    server (`http://localhost:6006` is Phoenix's address, not its traces endpoint)."""
    url = _checked(url, origin)
    return url.rstrip("/") + TRACES_PATH if urlsplit(url).path in ("", "/") else url


def _checked(url: str, origin: str) -> str:
    try:
        parts = urlsplit(url.strip())
        parts.port  # noqa: B018  (a port that is not a number raises here)
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(
            Msg(
                "{origin}: not an http(s) URL: {url}",
                origin=origin,
                url=printable(shown_url(url)),
            ),
            hint=Msg(
                "e.g. http://localhost:6006/v1/traces (OTLP/HTTP; gRPC's port 4317 is not spoken)"
            ),
        )
    return url.strip()


def parse_headers(text: str, origin: str) -> dict[str, str]:
    """Parse `key=value,key2=value2` with percent-encoded values (W3C Baggage form, as the OTLP
    exporter specification says). A malformed entry is exit 2, named by its place: its value may be
    a secret and is never printed."""
    headers: dict[str, str] = {}
    for number, entry in enumerate(text.split(","), start=1):
        if not entry.strip():
            continue
        key, sep, value = entry.partition("=")
        key, value = key.strip(), unquote(value.strip())
        if not sep or not key or not key.isascii() or not key.isprintable() or " " in key:
            raise UsageError(
                Msg("{origin}: entry {number} is not key=value", origin=origin, number=number),
                hint=Msg("e.g. Authorization=Basic%20<base64 of public-key:secret-key>"),
            )
        if not value.isprintable():
            raise UsageError(
                Msg(
                    "{origin}: the value of {key} holds a character a header cannot",
                    origin=origin,
                    key=key,
                )
            )
        headers[key.lower()] = value
    return headers


def _timeout(env: Mapping[str, str]) -> float:
    for name in ("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "OTEL_EXPORTER_OTLP_TIMEOUT"):
        value = env.get(name)
        if value:
            try:
                ms = float(value)
            except ValueError:
                ms = -1.0
            if not 0 < ms < 3_600_000:
                raise UsageError(
                    Msg(
                        "{name}: not a timeout in milliseconds: {value}",
                        name=name,
                        value=printable(value),
                    )
                )
            return ms / 1000
    return DEFAULT_TIMEOUT_S


def printable(text: str, limit: int = 200) -> str:
    """Text from elsewhere, safe for one line of a terminal: control characters escaped."""
    out = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return out if len(out) <= limit else out[:limit] + "…"


@dataclass
class Posted:
    rejected: int
    """Spans the collector said it rejected (OTLP partial success)."""
    message: str
    """What the collector said along with a partial success ("" for none)."""


def post(target: Destination, body: bytes, content_type: str) -> Posted:
    """POST one export request; exit 3 (ProviderError) when it is not taken."""
    from fccli.export.otlp import read_response  # the `otel` extra: checked by require_otel

    secrets = target.secrets()
    transport = Transport(
        TransportSettings(
            connect_timeout=target.timeout,
            read_timeout=target.timeout,
            retries=RETRIES,
            tls=needs_tls(target.url),
        ),
        secrets=secrets,
    )
    headers = {**target.headers, "content-type": content_type}
    try:
        reply = transport.post(target.url, body, headers)
    finally:
        transport.close()
    if isinstance(reply, Delivered):
        rejected, message = read_response(reply.stored or reply.body, content_type)
        return Posted(rejected, printable(mask(message, secrets)))
    if reply.status is None:  # refused, timed out: the transport's sentence names the URL
        # Only printed (an export's error goes in no trace): said in the chosen language.
        said = printable(mask(localized(reply.message), secrets), 400)
        raise ProviderError(said, attempts=reply.attempts)
    said = first_line(reply.body or "")
    where = {"target": target.shown, "status": reply.status, "tries": len(reply.attempts)}
    if len(reply.attempts) > 1:
        message = (
            Msg(
                "{target} answered HTTP {status} (after {tries} attempts): {said}",
                **where,
                said=said,
            )
            if said
            else Msg("{target} answered HTTP {status} (after {tries} attempts)", **where)
        )
    else:
        message = (
            Msg("{target} answered HTTP {status}: {said}", **where, said=said)
            if said
            else Msg("{target} answered HTTP {status}", **where)
        )
    raise ProviderError(
        message,
        status=reply.status,
        body=reply.body,
        hint=_hint(reply.status, target),
        attempts=reply.attempts,
    )


def first_line(body: str) -> str:
    """Return the first line of an error body that says something. A protobuf body
    (google.rpc.Status, as OTLP/HTTP answers errors in protobuf) is mostly bytes: its readable runs
    are kept."""
    if any(not (c.isprintable() or c in "\r\n\t") for c in body):
        runs = "".join(c if c.isprintable() else "\0" for c in body).split("\0")
        body = " ".join(r.strip() for r in runs if len(r.strip()) >= 4)
    for line in body.splitlines():
        if line.strip():
            return printable(line.strip())
    return ""


def _hint(status: int, target: Destination) -> str | None:
    if status in (401, 403):
        if target.headers:
            return Msg("check the credentials in $OTEL_EXPORTER_OTLP_HEADERS")
        return Msg(
            "the collector wants credentials: set $OTEL_EXPORTER_OTLP_HEADERS (e.g. Authorization=...)"
        )
    if status == 404:
        return Msg(
            "fc posted to {target}; the OTLP/HTTP traces path is usually /v1/traces",
            target=target.shown,
        )
    if status == 415:
        return Msg("the collector refuses this encoding: leave --format at protobuf")
    return None
