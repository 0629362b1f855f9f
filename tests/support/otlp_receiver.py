"""A small OTLP/HTTP receiver for the export tests: a real HTTP server on 127.0.0.1.

It takes `POST /v1/traces` (any path, in fact: `requests` records each one with its path) and
answers as a collector does: 200 with an empty ExportTraceServiceResponse. Tests steer it with
`script`, one entry consumed per request: `{"status": 503, "retry_after": "0"}` (an error, with
`body` and `content_type` to say more), `{"rejected": 2, "message": "..."}` (a partial success).
Stdlib and opentelemetry-proto only.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


class OtlpReceiver:
    def __init__(self) -> None:
        self.requests: list[Received] = []
        self.script: list[dict[str, Any]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                body = self.rfile.read(length)
                receiver.requests.append(
                    Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                )
                entry = receiver.script.pop(0) if receiver.script else {}
                self._answer(entry, self.headers.get("content-type", ""))

            def _answer(self, entry: dict[str, Any], content_type: str) -> None:
                if "status" in entry:
                    data = entry.get("body", "").encode("utf-8")
                    self.send_response(int(entry["status"]))
                    self.send_header("content-type", entry.get("content_type", "text/plain"))
                    if "retry_after" in entry:
                        self.send_header("retry-after", entry["retry_after"])
                else:
                    data = _success(entry, content_type)
                    self.send_response(200)
                    self.send_header("content-type", content_type or "application/x-protobuf")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        # A short poll: shutdown() waits for it, once per test.
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> OtlpReceiver:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def spans(self, index: int = -1) -> list[Any]:
        """The spans of one received request, parsed back with opentelemetry-proto."""
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
            ExportTraceServiceRequest,
        )

        request = ExportTraceServiceRequest()
        request.ParseFromString(self.requests[index].body)
        return [s for rs in request.resource_spans for ss in rs.scope_spans for s in ss.spans]


def _success(entry: dict[str, Any], content_type: str) -> bytes:
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTracePartialSuccess,
        ExportTraceServiceResponse,
    )

    answer = ExportTraceServiceResponse()
    if "rejected" in entry or "message" in entry:
        answer.partial_success.CopyFrom(
            ExportTracePartialSuccess(
                rejected_spans=entry.get("rejected", 0), error_message=entry.get("message", "")
            )
        )
    if "json" in content_type:
        from google.protobuf.json_format import MessageToDict

        return json.dumps(MessageToDict(answer)).encode("utf-8")
    return answer.SerializeToString()
