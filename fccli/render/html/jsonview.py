"""A JSON document as the page shows it: pretty-printed as `fc` writes its files (2-space indent,
UTF-8 kept), coloured by kind, and with the fields the page talks about wrapped in a span.

A field is wrapped when something marks its JSON path (`$.messages[1].content[0]`, as fc diff
and fc check write paths): a link to its counterpart in the other file of the pair, an anchor
a call's result points to, a finding of fc check. The span holds the key and the value, so
hovering either finds the field.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from fccli.diff.paths import Loc, path_str
from fccli.render.html.markup import attrs, esc


@dataclass
class Mark:
    """What the page says about one field of a file."""

    links: list[tuple[int, int]] = field(default_factory=list)
    """(link number, specificity): the mapping rows the field belongs to; the most specific
    (the deepest internal path) is the one hovering it shows."""
    anchor: str | None = None
    classes: set[str] = field(default_factory=set)
    notes: list[str] = field(default_factory=list)
    """Shown as the field's tooltip (works with scripts off)."""
    change: str | None = None
    """How the representation changes on the way to the wire (fc diff's note), for the caption
    under the pair when the field is pointed at."""

    def html_attrs(self, path: str) -> str:
        ordered = sorted(self.links, key=lambda link: (-link[1], link[0]))
        return attrs(
            id=self.anchor,
            class_=" ".join(sorted({"f", *self.classes})),
            data_p=path,
            data_l=" ".join(str(n) for n, _ in ordered) or None,
            title="\n".join(self.notes) or None,
            data_n=self.change,
        )


class Marks:
    """The marks of one file, by JSON path."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        """Makes the anchors of this file unique on the page."""
        self.by_path: dict[str, Mark] = {}
        self._anchors = 0

    def at(self, path: str) -> Mark:
        return self.by_path.setdefault(path, Mark())

    def anchor(self, path: str) -> str:
        mark = self.at(path)
        if mark.anchor is None:
            self._anchors += 1
            mark.anchor = f"{self.prefix}-{self._anchors}"
        return mark.anchor


_LAST_SEGMENT = re.compile(r"(\.[A-Za-z_][A-Za-z0-9_]*|\[[^\[\]]*\])$")


def nearest(path: str, known: set[str]) -> str | None:
    """PATH, or the closest field above it that the document has (a finding may point at a
    field that is missing: its parent is where it is missing from)."""
    while path not in known:
        shorter = _LAST_SEGMENT.sub("", path)
        if shorter == path:
            return None
        path = shorter
    return path


def paths(value: Any, loc: Loc = ()) -> set[str]:
    """Every JSON path in a document."""
    out = {path_str(loc)}
    if isinstance(value, dict):
        for key, v in value.items():
            out |= paths(v, (*loc, key))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out |= paths(v, (*loc, i))
    return out


def render_json(value: Any, marks: Marks) -> str:
    """The document as HTML for a `<pre>`: the same text `fc` writes, with spans."""
    return _node(value, (), 0, "", marks)


def _node(value: Any, loc: Loc, depth: int, key_html: str, marks: Marks) -> str:
    body = key_html + _value(value, loc, depth, marks)
    path = path_str(loc)
    mark = marks.by_path.get(path)
    if mark is None:
        return body
    return f"<span{mark.html_attrs(path)}>{body}</span>"


def _value(value: Any, loc: Loc, depth: int, marks: Marks) -> str:
    pad = "  " * (depth + 1)
    if isinstance(value, dict) and value:
        items = [
            pad + _node(v, (*loc, k), depth + 1, f'<b class="k">{_scalar(k)}</b>: ', marks)
            for k, v in value.items()
        ]
        return "{\n" + ",\n".join(items) + "\n" + "  " * depth + "}"
    if isinstance(value, list) and value:
        items = [pad + _node(v, (*loc, i), depth + 1, "", marks) for i, v in enumerate(value)]
        return "[\n" + ",\n".join(items) + "\n" + "  " * depth + "]"
    kind = (
        "s"
        if isinstance(value, str)
        else "z"
        if value is None
        else "b"
        if isinstance(value, bool)
        else "n"
        if isinstance(value, (int, float))
        else ""
    )
    text = _scalar(value)
    return f'<i class="{kind}">{text}</i>' if kind else text


def _scalar(value: Any) -> str:
    return esc(json.dumps(value, ensure_ascii=False))
