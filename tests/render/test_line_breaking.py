"""Lines break where Chinese and English allow, at 60, 80 and 120 columns, on every screen of
the course: between Chinese characters, never before closing punctuation or after opening
punctuation, never between a number and what it counts, never inside a word that fits a line,
and a wrapped line goes on at its own indentation."""

from __future__ import annotations

import importlib
import io
import json
import pkgutil
import re
import shutil
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len
from rich.text import Text

from fccli import render
from fccli.render import console as console_module
from fccli.render.console import make_console
from fccli.render.linebreak import break_offsets
from tests.conftest import REPO, clean_env
from tests.docs.test_course import EXAMPLES, EXAMPLES_ZH, PAGES
from tests.support import doc_claims
from tests.support.doc_claims import Example
from tests.support.inprocess import run_in_process

WIDTHS = (60, 80, 120)
COURSE_WIDTHS = (60, 80)
"""The course's screens at 80 columns (a terminal's default) and a narrow 60. At 120 only the
table below: a course screen at 120 breaks fewer of its lines, by the same rules, at other
places, and walking it cost a third of this file's time."""
CLOSING = "。，、；：？！）」』》"
OPENING = "（「『《"
_WIDE = re.compile(r"[\u3000-\u9fff\uff00-\uffef]")
_NUMBER = re.compile(r"[-+]?[$¥€£]?\d[\d,.]*")
_CONTROL = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\r")


def _is_json(output: str) -> bool:
    """Say whether a command printed a JSON document: data, which the terminal wraps, not fc."""
    try:
        json.loads(output)
    except ValueError:
        return False
    return True


def _lines(text: str, width: int) -> list[str]:
    pieces = []
    start = 0
    for end in [*break_offsets(text, width), len(text)]:
        pieces.append(text[start:end].rstrip())
        start = end
    return pieces


def _broken_wrongly(text: str, width: int, at: int) -> str | None:
    """What rule a break of `text` at `at`, in lines of `width` cells, breaks; None if none."""
    before, after = text[:at].rstrip(), text[at:]
    if after[:1] in CLOSING:
        return f"a line starts with {after[0]!r}"
    if before[-1:] in OPENING:
        return f"a line ends with {before[-1]!r}"
    counted = re.match(r"[^\W\d_]", after)
    number = re.search(
        r"(?:^|[\s\u3000-\u9fff\uff00-\uffef])"
        r"([-+]?[$¥€£]?\d[\d,.]*(?::\d+)*(?:[-–~]\d[\d,.]*(?::\d+)*)?)$",
        before,
    )
    if counted and number and not number.group(1).endswith((",", ";")):  # `21, "aqi"`
        return f"{number.group(1)!r} cut from what it counts ({after.split()[0]!r})"
    if (
        at
        and not text[at - 1].isspace()
        and not _WIDE.match(text[at - 1])
        and not (_WIDE.match(text[at]))
    ):
        word = re.search(r"[^\s\u3000-\u9fff\uff00-\uffef]*$", before)
        rest = re.match(r"[^\s\u3000-\u9fff\uff00-\uffef]*", after)
        whole = (word.group(0) if word else "") + (rest.group(0) if rest else "")
        if cell_len(whole) <= width:
            return f"the word {whole!r} is cut, and fits in {width} columns"
    return None


@pytest.mark.parametrize(
    ("text", "width", "lines"),
    [
        (
            "→ 请求（发往 demo，deepseek 格式）：1 条消息，用户的提问；提供的工具：get_weather",
            40,
            [
                "→ 请求（发往 demo，deepseek 格式）：1 条",
                "消息，用户的提问；提供的工具：",
                "get_weather",
            ],
        ),
        ("（厂商格式里：finish_reason stop）（3 ms，输入 158 / 输出", 36, None),
        ("杭州现在 21°C，多云。适合跑步", 16, ["杭州现在 21°C，", "多云。适合跑步"]),
        ("北京、上海、深圳：Shenzhen is sunny", 22, ["北京、上海、深圳：", "Shenzhen is sunny"]),
        ("共3条消息", 4, ["共", "3条", "消息"]),
        ("按 UTC 06:00-10:00 时段的价格", 16, ["按 UTC", "06:00-10:00 时段", "的价格"]),
        # a JSON value after Chinese starts a line; a number that ends a clause holds nothing
        ('结果（3 ms）：{"a": 1}', 14, ["结果（3 ms）：", '{"a": 1}']),
        ('{"temp_c": 21, "aqi": 38}', 16, ['{"temp_c": 21,', '"aqi": 38}']),
        ("她说：「好」。", 8, ["她说：", "「好」。"]),
        ("see https://api.deepseek.com/chat/completions now", 20, None),
        # help pages wrap with these rules too, as click wraps their Latin
        ("默认：$FC_PROVIDER；其次", 14, ["默认：", "$FC_PROVIDER；", "其次"]),
        ("回答 HTTP 400（按厂商的格式）", 14, ["回答 HTTP 400", "（按厂商的格", "式）"]),
        ("the newest under ./traces", 17, ["the newest under", "./traces"]),
    ],
)
def test_breaks_where_the_rules_allow(text: str, width: int, lines: list[str] | None) -> None:
    found = _lines(text, width)
    if lines is not None:
        assert found == lines
    assert "".join(found).replace(" ", "") == text.replace(" ", "")
    for at in break_offsets(text, width):
        assert _broken_wrongly(text, width, at) is None, (text, width, at)
    for line in found:
        assert cell_len(line) <= width or " " not in line, line


def test_a_number_stays_with_what_it_counts() -> None:
    for width in range(8, 30):
        for line in _lines("（3 ms，输入 158 / 输出 36 token）共 12 条消息", width):
            assert not re.search(r"\d$", line) or line.endswith("158"), (width, line)


def test_a_word_longer_than_the_line_is_folded() -> None:
    assert _lines("a " + "x" * 25, 10) == ["a", "x" * 10, "x" * 10, "x" * 5]


def test_a_wrapped_line_keeps_its_indentation() -> None:
    buffer = io.StringIO()
    console = make_console(file=buffer, width=30, force_terminal=True, color_system=None)
    console.print(
        "  思考内容：用户想知道杭州的天气适不适合跑步。我没有实时天气数据，需要调用 get_weather 查询。"
    )
    lines = buffer.getvalue().splitlines()
    assert len(lines) > 2
    assert all(line.startswith("  ") and not line.startswith("   ") for line in lines)
    assert all(cell_len(line) <= 30 for line in lines)


def _course(page: str, examples: list[Example]) -> list[tuple[str, Example, int]]:
    return [(page, e, w) for e in examples for w in COURSE_WIDTHS]


COURSE = _course("docs/course.zh.md", EXAMPLES_ZH) + _course("docs/course.md", EXAMPLES)


def _recording(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int, list[int]]]:
    """Every line the console wraps, with its width and its breaks, from now on."""
    wrapped: list[tuple[str, int, list[int]]] = []

    def recorded(text: str, room: int, measure: Callable[[str], int]) -> list[int]:
        offsets = break_offsets(text, room, measure)
        wrapped.append((text, room, offsets))
        return offsets

    monkeypatch.setattr(console_module, "break_offsets", recorded)
    return wrapped


def _wrong_breaks(wrapped: list[tuple[str, int, list[int]]]) -> list[str]:
    return [
        f"{problem}: {text[max(0, at - 30) : at]}⏎{text[at : at + 30]}"
        for text, room, offsets in wrapped
        for at in offsets
        if (problem := _broken_wrongly(text, room, at))
    ]


_ITEM = re.compile(r" *(?:[→←▶✓✗✎⇄!] |\d{1,3}\. |(?:answer|text): |(?:回答|文本)：)")
"""The start of an item, up to its text: a mark (`→ `, `✗ `, `1. `) or an answer's label."""


def _printing(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Each line fc prints to a terminal from now on, as it is (one line) and as the terminal
    shows it (its wrapped lines): what one call of the console's `print`, or of
    `print_hanging`, wrote."""
    printed: list[tuple[str, str]] = []
    depth = [0]

    def recorder(function: Callable[..., None], plain: Callable[..., str | None]):
        def recorded(console: Any, *args: Any, **kwargs: Any) -> None:
            said = plain(console, *args, **kwargs) if depth[0] == 0 else None
            stream = getattr(console.file, "buffer", None)
            if said is None or console.soft_wrap or not isinstance(stream, io.BytesIO):
                depth[0] += 1
                try:
                    return function(console, *args, **kwargs)
                finally:
                    depth[0] -= 1
            console.file.flush()
            start = len(stream.getvalue())
            depth[0] += 1
            try:
                function(console, *args, **kwargs)
            finally:
                depth[0] -= 1
            console.file.flush()
            printed.append((said, stream.getvalue()[start:].decode("utf-8")))
            return None

        return recorded

    def text_of(console: Any, *objects: Any, **options: Any) -> str | None:
        if len(objects) != 1 or options:
            return None
        text = console.render_str(objects[0]) if isinstance(objects[0], str) else objects[0]
        return text.plain if isinstance(text, Text) else None

    def hanging_of(console: Any, start: Text, body: Text, indent: int) -> str:
        return start.plain + body.plain

    hanging = recorder(console_module.print_hanging, hanging_of)
    for found in pkgutil.iter_modules(render.__path__, "fccli.render."):
        importlib.import_module(found.name)  # each renderer, with the name it imported
    for name, module in list(sys.modules.items()):
        if name.startswith("fccli.") and getattr(module, "print_hanging", None) is (
            console_module.print_hanging
        ):
            monkeypatch.setattr(module, "print_hanging", hanging)
    monkeypatch.setattr(
        console_module._Console, "print", recorder(console_module._Console.print, text_of)
    )
    return printed


def _not_hanging(printed: list[tuple[str, str]]) -> list[str]:
    """The wrapped lines that do not go on under their item's text (or their own indentation)."""
    wrong = []
    for said, shown in printed:
        lines = _CONTROL.sub("", shown).splitlines()
        for line in said.split("\n"):
            # The terminal lines that show this line: as many as hold its words.
            words, taken = re.sub(r"\s", "", line), ""
            start = len(lines)
            for k, shown_line in enumerate(lines):
                taken += re.sub(r"\s", "", shown_line)
                if len(taken) >= len(words):
                    start = k + 1
                    break
            wrapped, lines = lines[1:start], lines[start:]
            indent = len(line) - len(line.lstrip(" "))
            item = _ITEM.match(line)
            for further in wrapped:
                at = len(further) - len(further.lstrip(" "))
                if (item and at != cell_len(item.group())) or at < indent:
                    wrong.append(f"goes on at column {at}: {line[:60]}… ⏎ {further}")
    return wrong


def _wrong_lines(shown: str, width: int) -> list[str]:
    wrong = []
    for line in _CONTROL.sub("", shown).splitlines():
        if cell_len(line) > width:
            wrong.append(f"{cell_len(line)} columns: {line}")
        if line.strip()[:1] in set(CLOSING) or line.rstrip()[-1:] in set(OPENING):
            wrong.append(f"starts or ends with punctuation that belongs elsewhere: {line}")
    return wrong


@pytest.mark.parametrize("width", WIDTHS)
def test_a_table_cell_breaks_where_chinese_allows(
    fc, width: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    wrapped = _recording(monkeypatch)
    shown = fc("providers", env=clean_env(COLUMNS=str(width), LANG="zh_CN.UTF-8"), terminal=True)
    assert shown.returncode == 0, shown.stderr
    assert wrapped
    assert not _wrong_breaks(wrapped) + _wrong_lines(shown.stdout, width)


@pytest.mark.parametrize(
    ("page", "example", "width"),
    COURSE,
    ids=[f"{p.split('/')[-1][:-3]}-line{e.line}-{w}" for p, e, w in COURSE],
)
def test_every_screen_of_the_course_breaks_where_its_language_allows(
    page: str, example: Example, width: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(REPO / "docs" / "course", tmp_path / "docs" / "course")
    wrapped = _recording(monkeypatch)
    printed = _printing(monkeypatch)
    monkeypatch.setattr(doc_claims, "run_in_process", partial(run_in_process, terminal=True))
    env = clean_env(COLUMNS=str(width), **PAGES[page])
    shown = [
        doc_claims.run(Example(0, [c], []), tmp_path, env).stdout
        for c in example.commands
        if not c.startswith("fc curl")  # a shell command to copy, as long as it is
    ]
    wrong = _wrong_breaks(wrapped) + _not_hanging(printed)
    for out in shown:
        if not _is_json(out):
            wrong += _wrong_lines(out, width)
    assert printed
    assert not wrong, "\n".join(wrong)
