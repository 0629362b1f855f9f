"""`fc run --ask`: the person at the terminal answers as the tool ("you are the tool")."""

from __future__ import annotations

import json
import sys

from fccli.core.models import ToolUseBlock
from fccli.tools.json_tools import ASKED_ERROR_PREFIX


def ask_at_terminal(call: ToolUseBlock) -> str:
    """Show the call on stderr and read one line from stdin: the result handed back."""
    arguments = json.dumps(call.input, ensure_ascii=False)
    sys.stderr.write(
        f"\nyou are the tool: {call.name} {arguments} (id {call.id})\n"
        f"type the result (one line; start with '{ASKED_ERROR_PREFIX}' for an error result): "
    )
    sys.stderr.flush()
    line = sys.stdin.readline()
    if not line:
        return f"{ASKED_ERROR_PREFIX} nobody answered (end of input)"
    return line.rstrip("\r\n")
