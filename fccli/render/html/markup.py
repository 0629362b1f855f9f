"""The page's only way to write HTML: every text and attribute value goes through `esc`.

A trace is hostile input (a tool result, a model's text, an id, a manifest field may hold
`<script>`), so nothing from it is ever put into the page unescaped, and nothing from it
becomes a URL except through `href_path`, which can only make a relative path.
"""

from __future__ import annotations

import html
from urllib.parse import quote

_CONTROL = {c: f"\\x{c:02x}" for c in [*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F]}
"""Control characters (tab and newlines stay) shown as `\\x1b`: a terminal escape in a trace is
seen, not passed on to whoever copies the text."""
_CONTROL.update({c: f"\\x{c:02x}" for c in range(0x80, 0xA0)})  # C1 controls (0x9b is a CSI)
_CONTROL.update({c: f"\\u{c:04x}" for c in range(0xD800, 0xE000)})
"""Lone surrogates (a JSON file may hold `"\\ud800"`) shown escaped too: UTF-8 cannot encode them."""


def esc(text: object) -> str:
    """Text for the inside of an element or a quoted attribute value."""
    return html.escape(str(text), quote=True).translate(_CONTROL)


def attrs(**values: object) -> str:
    """` name="value"` pairs, escaped; None and False leave the attribute out. A trailing `_`
    is dropped (`class_`), and `_` inside a name becomes `-` (`data_l`)."""
    out = []
    for name, value in values.items():
        if value is None or value is False:
            continue
        key = name.rstrip("_").replace("_", "-")
        out.append(f" {key}" if value is True else f' {key}="{esc(value)}"')
    return "".join(out)


def tag(name: str, body: str = "", **values: object) -> str:
    """`<name attrs>body</name>`; `body` must already be HTML (escape text with `esc`)."""
    return f"<{name}{attrs(**values)}>{body}</{name}>"


def href_path(path: str) -> str:
    """A link to a local path. Each segment is percent-encoded whole (`:` included), so no
    string from a trace can make a scheme, a host or a script of it: `javascript:x` stays a
    file name. Only an absolute path gets a scheme, and that one is ours: `file://`."""
    parts = [quote(part, safe="") for part in path.replace("\\", "/").split("/")]
    if len(parts) > 1 and parts[0] == "":
        return "file://" + "/".join(parts)
    return "/".join(parts) or "."
