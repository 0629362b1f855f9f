"""What `fc run` prints, checked through a Rich console writing to a string (no colour, fixed width)."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from rich.console import Console

from fccli.core.errors import ProtocolError
from fccli.render.run_view import RunView
from fccli.run.prepare import RunSettings, prepare_run


def transcript(tmp_path: Path, question: str, **settings: object) -> str:
    prepared = prepare_run(RunSettings(question=question, out=tmp_path / "t", **settings))  # type: ignore[arg-type]
    buffer = io.StringIO()
    console = Console(file=buffer, width=100, no_color=True, highlight=False, soft_wrap=True)
    view = RunView(
        console, prepared.provider_name, prepared.wire.name, prepared.wire.results_layout
    )
    result = prepared.execute(view)
    view.finished(result, prepared.trace.path)
    return buffer.getvalue()


def test_each_step_shows_the_call_its_id_the_result_and_the_stop_reason(tmp_path: Path) -> None:
    out = transcript(tmp_path, "北京、上海今天适合跑步吗？")
    ids = re.findall(
        r"▶ tool call get_weather input \{\"city\": \"(?:北京|上海)\"\} id (call_\w+)", out
    )
    assert len(ids) == 2
    for call_id in ids:
        assert re.search(rf"✓ result for {call_id} \([\d.]+ ms\): \{{\"city\"", out)
    assert "stop_reason tool_use" in out and "stop_reason end_turn" in out
    assert "2 tool result(s) handed back" in out and "(4 on the wire)" in out
    assert "answer: 北京现在 12°C" in out
    assert "\x1b[" not in out


def test_an_error_result_is_marked_and_the_answer_invents_nothing(tmp_path: Path) -> None:
    out = transcript(tmp_path, "巴黎今天适合跑步吗？")
    assert "✗ error for call_" in out
    assert "unknown city '巴黎'" in out
    assert "°C" not in out.split("answer:")[1]


def test_a_cut_call_is_said_not_executed(tmp_path: Path) -> None:
    prepared = prepare_run(
        RunSettings(question="杭州今天适合跑步吗？", out=tmp_path / "t", max_tokens=30)
    )
    buffer = io.StringIO()
    console = Console(file=buffer, width=100, no_color=True, highlight=False, soft_wrap=True)
    with pytest.raises(ProtocolError):
        prepared.execute(
            RunView(
                console, prepared.provider_name, prepared.wire.name, prepared.wire.results_layout
            )
        )
    out = buffer.getvalue()
    assert "stop_reason max_tokens" in out
    assert "not executed: the stop reason is max_tokens" in out
    assert "✓ result" not in out


def _streamed_transcript(tmp_path: Path, *, terminal: bool) -> str:
    prepared = prepare_run(
        RunSettings(question="杭州今天适合跑步吗？", out=tmp_path / "t", stream=True)
    )
    buffer = io.StringIO()
    console = Console(
        file=buffer, width=100, force_terminal=terminal, color_system=None, highlight=False
    )
    view = RunView(
        console, prepared.provider_name, prepared.wire.name, prepared.wire.results_layout
    )
    result = prepared.execute(view, stream_deltas=view.live)
    view.close()
    view.finished(result, prepared.trace.path)
    return buffer.getvalue()


def test_a_stream_grows_live_on_a_terminal(tmp_path: Path) -> None:
    out = _streamed_transcript(tmp_path, terminal=True)
    # the live display drew the call as it grew: a half-written argument string was on screen
    assert re.search(r"get_weather id call_\w+ \(call 0, \d+ fragment\(s\)\)", out)
    assert '{"city":"杭州"}▌' in out  # the arguments, on a line of their own
    assert "streaming…" in out
    # then the step printed as any other
    assert "▶ tool call get_weather" in out and "streamed:" in out


def test_a_stream_in_a_pipe_shows_no_fragments(tmp_path: Path) -> None:
    out = _streamed_transcript(tmp_path, terminal=False)
    assert "streaming…" not in out and "fragment(s)" not in out
    assert "▶ tool call get_weather" in out and "streamed:" in out
    assert "\x1b[" not in out
