"""`fc run --ask`: the person at the terminal answers as the tool ("you are the tool")."""

from __future__ import annotations

import json
import sys

from fccli.core.models import ToolUseBlock
from fccli.i18n import _
from fccli.tools.json_tools import ASKED_ERROR_PREFIX


def ask_at_terminal(call: ToolUseBlock) -> str:
    """Show the call on stderr and read one line from stdin: the result handed back."""
    arguments = json.dumps(call.input, ensure_ascii=False)
    said = _(
        "you are the tool: {name} {arguments} (id {id})",
        name=call.name,
        arguments=arguments,
        id=call.id,
    )
    prompt = _(
        "type the result (one line; start with '{prefix}' for an error result): ",
        prefix=ASKED_ERROR_PREFIX,
    )
    sys.stderr.write(f"\n{said}\n{prompt}")
    sys.stderr.flush()
    line = sys.stdin.readline()
    if not line:
        # Handed to the model, as the result: in the language it is spoken to in.
        return f"{ASKED_ERROR_PREFIX} " + _("nobody answered (end of input)")
    return line.rstrip("\r\n")
