"""`fc import`: other tools' traces read into fc's trace directory.

source.py     the file: read within bounds, told apart (OTLP/JSON, OTLP protobuf, llm logs)
otlp.py       OTLP spans as plain records (JSON by hand, protobuf by opentelemetry-proto)
messages.py   the conventions' message shapes into fc's internal messages
spans.py      GenAI spans into conversations: each exporter's attribute names read
llm_logs.py   `llm logs --json` (simonw/llm) into conversations
build.py      a conversation written as `fc run` writes a trace
"""
