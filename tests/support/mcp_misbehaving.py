"""An MCP server over stdio that misbehaves on `tools/call`, written by hand (stdlib only: a
start costs no SDK import). `python mcp_misbehaving.py MODE`, MODE one of:

crash    writes to stderr and exits mid-call
hang     never answers the call (and exits when its stdin closes)
garbage  writes a line that is not JSON, then answers
invalid  answers with a message that is not JSON-RPC (neither result nor error)
huge     answers with a text of 2 MB
echo     answers with the token it was given (`echo --token T`), raw and JSON-escaped
deep     answers with a result nested 100,000 levels deep
pages    answers every `tools/list` with one more page (a `nextCursor` without end)
silent   never answers at all, not even `initialize` (and exits when its stdin closes)
"""

from __future__ import annotations

import json
import sys

MODE = sys.argv[1]


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    message = json.loads(line)
    method, ident = message.get("method"), message.get("id")
    if MODE == "silent":
        continue
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": ident, "result": {
            "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
            "serverInfo": {"name": f"bad-{MODE}", "version": "1"}}})  # fmt: skip
    elif method == "tools/list":
        # minLength: a keyword strict mode refuses (fc tools --strict reports it)
        city = {"type": "string", "minLength": 1}
        schema = {"type": "object", "properties": {"city": city}, "required": ["city"]}
        page = {"tools": [
            {"name": "get_weather", "description": "weather of a city", "inputSchema": schema}]}  # fmt: skip
        if MODE == "pages":
            page["nextCursor"] = f"page-{ident}"
        send({"jsonrpc": "2.0", "id": ident, "result": page})
    elif method == "tools/call":
        print(f"tools/call in mode {MODE}", file=sys.stderr, flush=True)
        if MODE == "crash":
            sys.exit(1)
        if MODE == "hang":
            continue
        if MODE == "garbage":
            sys.stdout.write("Loading weather model... done\n")
        if MODE == "invalid":
            send({"jsonrpc": "2.0", "id": ident, "oops": True})
            continue
        if MODE == "deep":
            nested = "[" * 100_000 + "]" * 100_000
            sys.stdout.write(
                f'{{"jsonrpc": "2.0", "id": {json.dumps(ident)}, "result": {{"content": [], '
                f'"structuredContent": {{"a": {nested}}}}}}}\n'
            )
            sys.stdout.flush()
            continue
        if MODE == "echo":
            token = sys.argv[-1]
            escaped = "".join(f"\\u{ord(c):04x}" for c in token)
            sys.stdout.write(
                f'{{"jsonrpc": "2.0", "id": {json.dumps(ident)}, "result": {{"content": '
                f'[{{"type": "text", "text": "{escaped}"}}, {{"type": "text", "text": "{token}"}}]}}}}\n'
            )
            sys.stdout.flush()
            continue
        text = "x" * 2_000_000 if MODE == "huge" else '{"temp_c": 21}'
        send(
            {"jsonrpc": "2.0", "id": ident, "result": {"content": [{"type": "text", "text": text}]}}
        )
