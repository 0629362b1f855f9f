"""`fc export otel`: a trace as OpenTelemetry GenAI spans, for the backends teams already run.

    genai.py    the GenAI semantic conventions followed (pinned version), content in their parts
    spans.py    an fc trace as plain span records: the tree, stable ids, times, attributes
    otlp.py     span records as opentelemetry-proto messages; OTLP protobuf and OTLP/JSON bytes
    deliver.py  where to send (flags, OTEL_EXPORTER_OTLP_* variables), the POST, the answer
    otel.py     what the command and `fc run --otlp` call: read, build, write or send, report

Nothing here imports at package level; opentelemetry-proto (the `otel` extra) only in otlp.py,
imported once fccli/core/extras.py's `require_otel` has found the extra installed.
"""
