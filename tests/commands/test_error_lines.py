"""An error whose text ends in a newline (an empty hint) prints no blank second line."""

from __future__ import annotations

import io
import sys

import pytest

from fccli.commands.entry import _print_error


def test_trailing_newline_prints_no_blank_line(capsys: pytest.CaptureFixture[str]) -> None:
    _print_error("cannot reach http://127.0.0.1:9/v1/traces\n")
    assert capsys.readouterr().err == "fc: error: cannot reach http://127.0.0.1:9/v1/traces\n"


class _TerminalStderr(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_an_error_on_a_narrow_terminal_breaks_where_chinese_allows_and_hangs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from fccli.commands import entry
    from fccli.render.linebreak import cells

    said = (
        "第 1 步：raise-on-error：get_weather 执行失败：不认识的城市 '巴黎'。已知城市：北京"
        "（Beijing）、上海（Shanghai）、深圳（Shenzhen），被抛出，而不是交回去\n"
        "没有这个 bug 时，fc 把错误作为结果（is_error）交回去，模型读到后继续；轨迹保存了已有的内容"
    )
    for stream, width in ((_TerminalStderr(), 60), (io.StringIO(), 0)):
        monkeypatch.setattr(sys, "stderr", stream)
        monkeypatch.setenv("COLUMNS", "60")
        entry._print_error(said)
        lines = stream.getvalue().splitlines()
        if not width:  # a pipe or a file: one line per line of the message
            assert len(lines) == 2
            continue
        assert len(lines) > 3
        assert all(cells(line) <= width for line in lines), lines
        assert all(line.startswith("  ") for line in lines[1:]), lines
        assert not any(line.strip()[0] in "。，、；：？！）」" for line in lines), lines
        joined = "".join(line.replace(" ", "") for line in lines)
        assert joined == ("fc: error: " + said).replace("\n", "").replace(" ", "")
