"""Where things go on the page: a colour per call id, anchors of calls and results, where each
result went back, and where each `fc check` finding points.

Anchors are made from numbers, never from ids or names out of the trace, so no trace string
ends up in an `id`, an `href` or a selector.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import count
from typing import TYPE_CHECKING, Any

from fccli.i18n import _
from fccli.render.html.files import StepFiles

if TYPE_CHECKING:
    from fccli.check.findings import Finding
    from fccli.render.html.trace_page import PageData

COLOURS = 10
_FILE = re.compile(r"(\d+)-(request|response)(?:\.([a-z][a-z-]*))?\.json")
_BLOCK = re.compile(r"^\$\.messages\[(\d+)\]\.content\[(\d+)\]")


@dataclass
class Placed:
    """A finding and the anchor of the field it points to (None: not on the page)."""

    finding: Finding
    anchor: str | None
    step: int | None


@dataclass
class Places:
    data: PageData
    shown: set[int]
    """The steps on the page (all, or the one `--step` asks for)."""
    files: dict[int, StepFiles] = field(default_factory=dict)
    colours: dict[str, int] = field(default_factory=dict)
    back: dict[str, tuple[int, str]] = field(default_factory=dict)
    """Call id → (step, anchor) of the first later request that handed its result back."""
    findings: dict[tuple[str, Any], list[Placed]] = field(default_factory=dict)
    """("call" | "result", id), ("step", n) or ("trace", None) → the findings shown there."""

    def build(self) -> Places:
        numbers = count(1)
        for step in self.data.trace.steps:
            stored = {
                role: f
                for (n, role), f in self.data.files.items()
                if n == step.number and step.number in self.shown
            }
            files = StepFiles(step.number, stored)
            self.files[step.number] = files
            for role in ("request", "response"):
                mapping = self.data.mappings.get((step.number, role))
                if mapping is not None and step.number in self.shown:
                    files.link(role, mapping, numbers)
        self._results_back()
        for finding in self.data.findings or []:
            self._place(finding)
        return self

    def colour(self, call_id: str) -> str:
        """`c3`: the same class wherever the id appears, so a call and its result pair by eye."""
        if call_id not in self.colours:
            self.colours[call_id] = len(self.colours) % COLOURS
        return f"c{self.colours[call_id]}"

    def _results_back(self) -> None:
        for step in self.data.trace.steps:
            request = self.files[step.number].json("request")
            messages = request.get("messages") if isinstance(request, dict) else None
            for i, message in enumerate(messages if isinstance(messages, list) else []):
                blocks = message.get("content") if isinstance(message, dict) else None
                for j, block in enumerate(blocks if isinstance(blocks, list) else []):
                    if not isinstance(block, dict) or block.get("type") != "tool_result":
                        continue
                    call_id = block.get("tool_use_id")
                    if isinstance(call_id, str) and call_id not in self.back:
                        path = f"$.messages[{i}].content[{j}]"
                        anchor = self.files[step.number].anchor("request", path)
                        if anchor is not None:
                            self.back[call_id] = (step.number, anchor)

    def _place(self, finding: Finding) -> None:
        m = _FILE.fullmatch(finding.file or "")
        if m is None:
            self.findings.setdefault(("trace", None), []).append(Placed(finding, None, None))
            return
        step, kind, fmt = int(m[1]), m[2], m[3]
        role = kind if fmt is None else f"wire_{kind}"
        files = self.files.get(step)
        found = files.locate(role, finding.path) if files is not None else None
        anchor = None
        if files is not None and found is not None:
            anchor = files.marks[role].anchor(found)
            mark = files.marks[role].at(found)
            mark.classes.add("flag")
            if finding.severity == "error":
                said = _("{rule} error: {message}", rule=finding.rule, message=finding.message)
            else:
                said = _("{rule} warning: {message}", rule=finding.rule, message=finding.message)
            mark.notes.append(said)
        placed = Placed(finding, anchor, step)
        self.findings.setdefault(self._where(step, role, finding.path), []).append(placed)

    def _where(self, step: int, role: str, path: str) -> tuple[str, Any]:
        """The call or result a finding is about, read through the mapping for a wire file."""
        internal = (
            path if role in ("request", "response") else self._internal_path(step, role, path)
        )
        data = self.files[step].json(role.removeprefix("wire_")) if step in self.files else None
        m = _BLOCK.match(internal or "")
        if m is None or not isinstance(data, dict):
            return ("step", step)
        try:
            block = data["messages"][int(m[1])]["content"][int(m[2])]
        except (KeyError, IndexError, TypeError):
            return ("step", step)
        if not isinstance(block, dict):
            return ("step", step)
        if block.get("type") == "tool_result" and isinstance(block.get("tool_use_id"), str):
            return ("result", block["tool_use_id"])
        if block.get("type") == "tool_use" and isinstance(block.get("id"), str):
            return ("call", block["id"])
        return ("step", step)

    def _internal_path(self, step: int, role: str, path: str) -> str | None:
        mapping = self.data.mappings.get((step, role.removeprefix("wire_")))
        if mapping is None:
            return None
        best: tuple[int, str] | None = None
        for row in mapping.links:
            for b in row.b:
                if (path == b or path.startswith((b + ".", b + "["))) and (
                    best is None
                    or len(b) > best[0]
                    or (len(b) == best[0] and len(row.a) > len(best[1]))
                ):
                    best = (len(b), row.a)
        return best[1] if best else None
