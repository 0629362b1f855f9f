"""The live part of `fc run --stream`: text, reasoning and each call's arguments as they arrive.

Shown on a terminal only, and transient: once the answer is whole, the run view prints it as it
prints any answer, so a streamed run and a plain one read the same afterwards.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.cells import cell_len
from rich.console import Console, Group
from rich.live import Live
from rich.text import Text

from fccli.core.stream import StreamDelta
from fccli.i18n import _

TAIL = 240
"""Characters of text or reasoning kept on screen: the tail, where the new words are."""


class _Call:
    __slots__ = ("id", "name", "parts")

    def __init__(self) -> None:
        self.id: str | None = None
        self.name: str | None = None
        self.parts: list[str] = []


class LiveStream:
    def __init__(self, console: Console, *, mask: Callable[[str], str] | None = None) -> None:
        self._mask = mask or (lambda text: text)
        self._thinking: list[str] = []
        self._text: list[str] = []
        self._calls: dict[int, _Call] = {}
        self._fragments = 0
        self._console = console
        self._live = Live(
            console=console, transient=True, refresh_per_second=12, get_renderable=self._render
        )
        self._live.start()

    def add(self, delta: StreamDelta) -> None:
        self._fragments += 1
        if delta.kind == "thinking":
            self._thinking.append(delta.text)
        elif delta.kind == "text":
            self._text.append(delta.text)
        else:
            call = self._calls.setdefault(delta.call, _Call())
            call.id = delta.id or call.id
            call.name = delta.name or call.name
            if delta.text:
                call.parts.append(delta.text)

    def stop(self) -> None:
        self._live.stop()

    def _render(self) -> Group:
        # Each line sized to the terminal, ending where the new fragments land: Rich crops a
        # line too long, and a cropped tail would hide exactly what is arriving.
        room = max(12, self._console.width - 1)
        lines: list[Text] = [
            Text(_("  streaming… {n} fragment(s)", n=self._fragments), style="dim")
        ]
        if self._thinking:
            label = _("  thinking: ")
            thought = _tail(self._mask("".join(self._thinking)), room - cell_len(label))
            lines.append(Text(label + thought, style="dim"))
        if self._text:
            label = _("  text: ")
            text = _tail(self._mask("".join(self._text)), room - cell_len(label))
            lines.append(Text(label + text))
        for position, call in sorted(self._calls.items()):
            lines.append(
                Text.assemble(
                    ("  ▶ ", "yellow"),
                    (call.name or "?", "bold"),
                    (f" id {call.id or '?'}", "magenta"),
                    (
                        _(
                            " (call {position}, {n} fragment(s))",
                            position=position,
                            n=len(call.parts),
                        ),
                        "dim",
                    ),
                )
            )
            arguments = _tail(self._mask("".join(call.parts)), room - 7)
            lines.append(Text.assemble("      ", (arguments, "cyan"), ("▌", "blink")))
        return Group(*lines)


def _tail(text: str, room: int) -> str:
    """The end of `text` on one line, in at most `room` cells (a CJK character takes two)."""
    flat = " ".join(text.split())[-TAIL:]
    room = max(4, room)
    if cell_len(flat) <= room:
        return flat
    while cell_len(flat) > room - 1:  # at most TAIL characters: cheap
        flat = flat[1:]
    return "…" + flat
