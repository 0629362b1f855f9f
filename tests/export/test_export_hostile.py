"""`fc export otel` with hostile values: a lone surrogate in a trace (which UTF-8 cannot carry)
is exported as U+FFFD, to a file and over OTLP/HTTP; a collector that echoes Basic-auth
credentials, decoded or percent-encoded, has them masked."""

from __future__ import annotations

import base64
import json
import shutil
from pathlib import Path
from urllib.parse import quote

import pytest

pytest.importorskip(
    "opentelemetry.proto", reason="the otel extra is not installed: pip install -e '.[otel]'"
)

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from tests.export.test_export_otel import THREE_CITIES, fc, parse_json_lines
from tests.support.otlp_receiver import OtlpReceiver

pytestmark = pytest.mark.server

LONE = "\ud800"


@pytest.fixture(scope="module")
def lone_surrogates(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The three-cities trace with a lone surrogate in its question and in an answer, each
    written as JSON writes it (`\\ud800`)."""
    trace = tmp_path_factory.mktemp("lone") / "trace"
    shutil.copytree(THREE_CITIES, trace)
    for name in ("manifest.json", "1-request.json", "2-response.json"):
        path = trace / name
        text = path.read_text(encoding="utf-8").replace("今天", "\\ud800今天")
        text = text.replace("适合", "\\udfff适合")
        path.write_text(text, encoding="utf-8")
    assert LONE in json.loads((trace / "manifest.json").read_text(encoding="utf-8"))["question"]
    return trace


def _strings(request: ExportTraceServiceRequest) -> str:
    spans = [s for r in request.resource_spans for ss in r.scope_spans for s in ss.spans]
    return " ".join(f"{s.name} {a.value.string_value}" for s in spans for a in s.attributes)


def test_a_lone_surrogate_is_exported_as_a_replacement_character(
    monkeypatch, capsys, lone_surrogates: Path, tmp_path: Path
) -> None:
    out = tmp_path / "spans.json"
    code, _, err = fc(
        monkeypatch, capsys, "export", "otel", "--content", str(lone_surrogates), "-o", str(out)
    )
    assert code == 0, err
    [request] = parse_json_lines(out.read_bytes())
    said = _strings(request)
    assert "\ufffd今天" in said and "\ufffd适合" in said


def test_a_lone_surrogate_goes_over_otlp_http(monkeypatch, capsys, lone_surrogates) -> None:
    with OtlpReceiver() as receiver:
        code, _, err = fc(
            monkeypatch,
            capsys,
            "export",
            "otel",
            "--content",
            str(lone_surrogates),
            "--endpoint",
            receiver.url + "/v1/traces",
        )
    assert code == 0, err
    request = ExportTraceServiceRequest.FromString(receiver.requests[0].body)
    assert "\ufffd今天" in _strings(request)


PUBLIC, SECRET = "pk-lf-1234abcd", "sk-lf-secret-5678efgh"
TOKEN = base64.b64encode(f"{PUBLIC}:{SECRET}".encode()).decode()
ECHOES = {
    "decoded": f"bad credentials for {PUBLIC}:{SECRET}",
    "secret-alone": f"unknown secret key {SECRET}",
    "percent-encoded": "got Authorization=" + quote(f"Basic {TOKEN}", safe=""),
    "pair-percent-encoded": "got " + quote(f"{PUBLIC}:{SECRET}", safe=""),
}


@pytest.mark.parametrize("echo", list(ECHOES))
def test_basic_auth_echoed_in_any_form_is_masked(monkeypatch, capsys, echo: str) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", f"Authorization=Basic%20{TOKEN}")
    with OtlpReceiver() as receiver:
        receiver.script = [{"status": 401, "body": ECHOES[echo]}]
        code, out, err = fc(
            monkeypatch,
            capsys,
            "export",
            "otel",
            str(THREE_CITIES),
            "--endpoint",
            receiver.url + "/v1/traces",
        )
    assert code == 3
    assert "answered HTTP 401" in err
    for form in (SECRET, quote(SECRET), TOKEN, quote(TOKEN, safe="")):
        assert form not in out + err, echo
    assert "***" in err
