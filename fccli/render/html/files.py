"""A step's four files side by side: the internal request beside the wire request as sent, the
internal response beside the wire response as received. Each pair is folded until opened.

Fields are linked across a pair by fc diff's mapping (which the translator itself marks, so the
page cannot drift from what fc sends): both ends of a mapping row carry the row's number in
`data-l`, and the page's script lights up every field with the number of the one under the
pointer. Without the script, each field's tooltip still says where it went.
"""

from __future__ import annotations

import re
from itertools import count
from typing import TYPE_CHECKING, Any

from fccli.i18n import _, localized
from fccli.render.html.jsonview import Marks, nearest, paths, render_json
from fccli.render.html.markup import esc, tag

if TYPE_CHECKING:
    from fccli.diff.compare import DiffResult

SHORT = {"request": "rq", "wire_request": "wrq", "response": "rs", "wire_response": "wrs"}
_SEGMENT = re.compile(r"\.[A-Za-z_][A-Za-z0-9_]*|\[[^\[\]]*\]")


def depth(path: str) -> int:
    return len(_SEGMENT.findall(path))


class StepFiles:
    """One step's files as stored, and what the page marks in them."""

    def __init__(self, step: int, stored: dict[str, dict[str, Any]]) -> None:
        self.step = step
        self.stored = stored
        """role (request, wire_request, response, wire_response) → the stored file."""
        self.marks = {role: Marks(f"s{step}{short}") for role, short in SHORT.items()}
        self._paths: dict[str, set[str]] = {}

    def json(self, role: str) -> Any:
        stored = self.stored.get(role)
        return stored.get("json") if stored else None

    def has(self, role: str, path: str) -> bool:
        stored = self.stored.get(role)
        if stored is None or "json" not in stored:
            return False
        if role not in self._paths:
            self._paths[role] = paths(stored["json"])
        return path in self._paths[role]

    def locate(self, role: str, path: str) -> str | None:
        """PATH if the file has it, else the closest field above it; None when the file is not
        JSON or not there."""
        if self.has(role, path):
            return path
        if role not in self._paths:
            return None
        return nearest(path, self._paths[role])

    def anchor(self, role: str, path: str) -> str | None:
        """An anchor at PATH of the file (or the closest field above it), None without one."""
        found = self.locate(role, path)
        return None if found is None else self.marks[role].anchor(found)

    def link(self, role: str, mapping: DiffResult, numbers: count[int]) -> None:
        """Mark both files of a pair with the mapping's rows (role: request or response)."""
        internal, wire = self.marks[role], self.marks[f"wire_{role}"]
        fmt = mapping.b.format if mapping.a.format == "internal" else mapping.a.format
        for row in mapping.links:
            here = internal.at(row.a)
            note = localized(row.note) if row.note else None
            said = _(": {note}", note=note) if note else ""
            if not row.b:
                here.classes.add("none")
                here.notes.append(_("no place in the {format} file", format=fmt) + said)
                continue
            n = next(numbers)
            here.links.append((n, depth(row.a)))
            here.change = note
            here.notes.append(f"{fmt}: {', '.join(row.b)}{said}")
            if row.status == "differs":
                here.classes.add("differs")
                here.notes.append(
                    _(
                        "the {format} file differs here: it is not what this field translates to",
                        format=fmt,
                    )
                )
            elif row.status == "missing":
                here.classes.add("differs")
                here.notes.append(
                    _(
                        "the {format} file missing here: it is not what this field translates to",
                        format=fmt,
                    )
                )
            for path in row.b:
                there = wire.at(path)
                there.links.append((n, depth(row.a)))
                there.notes.append(_("internal: {path}", path=row.a) + said)
        for path, _kind in mapping.wire_only:
            there = wire.at(path)
            there.classes.add("only")
            there.notes.append(_("only in the wire file: fc's internal format keeps nothing of it"))

    def html(self, wire_format: str | None, streamed: str | None) -> str:
        out = []
        for role in ("request", "response"):
            names = [self.stored[r]["file"] for r in (role, f"wire_{role}") if r in self.stored]
            title = " ⇄ ".join(names) or _("(no files)")
            extra = ""
            if role == "response" and streamed:
                extra = tag(
                    "p",
                    esc(
                        _(
                            "streamed: the raw events are in {file}; the wire file is the "
                            "answer assembled from them",
                            file=streamed,
                        )
                    ),
                    class_="note",
                )
            if role == "request":
                what = _("{format} format, as sent", format=wire_format or "wire")
                summary = _("request: {files}", files=tag("code", esc(title)))
            else:
                what = _("{format} format, as received", format=wire_format or "wire")
                summary = _("response: {files}", files=tag("code", esc(title)))
            pair = (
                self._figure(role, _("internal format"))
                + self._figure(f"wire_{role}", what)
                + tag("p", "", class_="cap")
            )
            out.append(
                tag(
                    "details",
                    tag("summary", summary) + extra + tag("div", pair, class_="pair"),
                    class_="files",
                    id=f"s{self.step}-{role}-files",
                )
            )
        return "".join(out)

    def _figure(self, role: str, what: str) -> str:
        stored = self.stored.get(role)
        if stored is None:
            body = tag("p", esc(_("(not in the trace)")), class_="missing")
            name = "—"
        elif "json" in stored:
            name = stored["file"]
            body = tag("pre", render_json(stored["json"], self.marks[role]), class_="json")
        else:
            name = stored["file"]
            body = tag("p", esc(_("not JSON: shown as stored")), class_="note") + tag(
                "pre", esc(stored.get("text", "")), class_="json"
            )
        caption = tag("figcaption", tag("code", esc(name)) + " " + tag("small", esc(what)))
        return tag("figure", caption + body, class_="file", data_role=role)
