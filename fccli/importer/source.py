"""The file `fc import` reads: read within bounds, told apart, secrets masked, conversations.

- OTLP/JSON: one export request (`{"resourceSpans": ...}`), a JSON array of them, or JSON Lines
  (one a line: what `fc export otel` and the collector's file exporter write);
- OTLP protobuf: one `ExportTraceServiceRequest` (what `fc export otel --format protobuf`
  writes), read by opentelemetry-proto;
- `llm logs --json`: a JSON array of responses.

Only a regular file is read, and at most READ_LIMIT bytes of it (core/jsonio.py); JSON nested
past MAX_DEPTH is refused. Every value read is masked (core/secrets.py) before anything is
written or shown: the providers' keys set in this environment, the passwords and query values
of URLs the spans name, and the values of attributes named as credentials.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from fccli.core.errors import InputFileError
from fccli.core.jsonio import parse_json, read_bytes
from fccli.core.secrets import Secrets, credential_forms, url_secrets
from fccli.i18n import Msg
from fccli.importer import llm_logs, otlp, spans
from fccli.importer.model import Conversation, Span
from fccli.providers.profiles import PROFILES

_AWS_SECRETS = ("AWS_BEARER_TOKEN_BEDROCK", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN")
_CREDENTIAL = re.compile(r"authorization|api[_-]?key|secret|password|token(?!s)", re.IGNORECASE)
_URL = re.compile(r"url|api_base|endpoint|base_url", re.IGNORECASE)


@dataclass
class Imported:
    kind: str
    """otlp-json, otlp-protobuf or llm-logs."""
    conversations: list[Conversation]


def read(path: Path) -> Imported:
    data = read_bytes(path)
    source = str(path)
    head = data.lstrip()[:1]
    if head in (b"{", b"["):
        return _json(data, source)
    if not data.strip():
        raise InputFileError(source, Msg("empty file"))
    return _protobuf(data, source)


def _json(data: bytes, source: str) -> Imported:
    try:
        doc = parse_json(data, source)
        docs = doc if isinstance(doc, list) else [doc]
    except InputFileError:
        # JSON Lines: one export request a line
        lines = [line for line in data.splitlines() if line.strip()]
        if len(lines) < 2:
            raise
        docs = [parse_json(line, f"{source}:{n}") for n, line in enumerate(lines, start=1)]
    if llm_logs.is_llm_logs(docs):
        secrets = Secrets(_environment_keys())
        rows = secrets.json(docs)
        return Imported("llm-logs", _found(llm_logs.conversations(rows), source))
    if otlp.is_otlp(docs):
        return Imported("otlp-json", _from_spans(otlp.spans_of_json(docs), source))
    raise InputFileError(
        source,
        Msg(
            "is JSON but neither OTLP trace data (resourceSpans) nor `llm logs --json` output"
            " (an array of responses)"
        ),
    )


def _protobuf(data: bytes, source: str) -> Imported:
    return Imported("otlp-protobuf", _from_spans(otlp.spans_of_protobuf(data, source), source))


def _from_spans(found: list[Span], source: str) -> list[Conversation]:
    if not found:
        raise InputFileError(source, Msg("holds no spans"))
    secrets = Secrets(_environment_keys() + _span_secrets(found))
    if secrets:
        for span in found:
            span.attributes = secrets.json(span.attributes)
            span.events = [(name, secrets.json(a)) for name, a in span.events]
            span.name = secrets.text(span.name)
            if span.error:
                span.error = secrets.text(span.error)
    return _found(spans.conversations(found), source)


def _found(conversations: list[Conversation], source: str) -> list[Conversation]:
    if not conversations:
        raise InputFileError(
            source,
            Msg(
                "holds no model call fc can read (no span of a chat, with gen_ai.* or"
                " OpenInference attributes)"
            ),
        )
    return conversations


def _environment_keys() -> list[str]:
    """Return the values of the providers' key variables set in this environment."""
    names = {p.key_env for p in PROFILES.values() if p.key_env} | set(_AWS_SECRETS)
    return [value for name in sorted(names) if (value := os.environ.get(name))]


def _span_secrets(found: list[Span]) -> list[str]:
    """Return what the spans name as credentials, and the secrets of the URLs they name."""
    values: list[str] = []
    for span in found:
        for key, value in span.attributes.items():
            texts = value if isinstance(value, list) else [value]
            for text in texts:
                if not isinstance(text, str):
                    continue
                if _CREDENTIAL.search(key.rsplit(".", 1)[-1]):
                    values += credential_forms(text)
                elif _URL.search(key):
                    values += url_secrets(text)
    return values
