"""A trace made of hostile strings: the three-cities example with markup, an event handler and a
`javascript:` URL appended to every string of every file (ids, tool names, arguments, model
text, results, error bodies, manifest fields), consistently, so the trace still reads and
links as before. A page that runs any of it sets `window.__pwned`.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from tests.conftest import REPO

PAYLOAD = (
    '"\'><script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">'
    '<a href="javascript:window.__pwned=3">javascript:window.__pwned=4</a><!--\x1b[31m'
)
KEEP = frozenset({"type", "role", "finish_reason", "stop_reason", "wire_format", "object"})
"""Fields the trace could not be read without: the page shows them, but they are fc's words."""


def _hostile(value: Any, key: str | None = None) -> Any:
    if isinstance(value, dict):
        inside = key in ("input", "arguments_object", "properties")
        return {
            (k + PAYLOAD if inside else k): _hostile(
                v, "arguments_object" if k == "arguments" else k
            )
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_hostile(v, key) for v in value]
    if isinstance(value, str) and key not in KEEP:
        if key == "arguments_object":  # a chat call's arguments: a JSON string, kept JSON
            try:
                return json.dumps(_hostile(json.loads(value), "input"), ensure_ascii=False)
            except ValueError:
                return value + PAYLOAD
        return value + PAYLOAD
    return value


def hostile_trace(target: Path) -> Path:
    shutil.copytree(REPO / "traces" / "examples" / "three-cities", target)
    manifest = json.loads((target / "manifest.json").read_text("utf-8"))
    manifest["options"]["demo_fault"] = "bad-json"
    manifest["harness_bug"] = {"kind": "pair-by-order", "detail": "x"}
    manifest["steps"][0]["harness_bug"] = "pair-by-order"
    manifest["notes"] = ["a note"]
    manifest["error"] = {
        "step": 2,
        "kind": "http_error",
        "message": "step 2: HTTP 503",
        "http_status": 503,
        "body_excerpt": "<html>503</html>",
        "attempts": [{"status": 503}, {"error": "timeout: slow"}],
    }
    manifest["replayed_from"] = {
        "trace": "javascript:window.__pwned=5",
        "step": 1,
        "status": "ok",
        "final_answer": "before",
    }
    manifest["edits"] = [{"kind": "set", "id": "call_x", "text": "hot"}]
    manifest["steps"][0]["tool_runs"][0].update(is_error=True, error="bad", error_kind="boom")
    for path in target.iterdir():
        data = manifest if path.name == "manifest.json" else json.loads(path.read_text("utf-8"))
        path.write_text(json.dumps(_hostile(data), ensure_ascii=False, indent=2), "utf-8")
    return target
