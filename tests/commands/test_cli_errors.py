"""Failures of the provider through the real entry point: exit 3, two lines, the trace kept.

The demo model never fails by itself, so a scripted provider stands in for it here; the
end-to-end runs against a real HTTP server come with the real providers.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from fccli.commands import entry
from fccli.core.errors import ProviderError
from fccli.core.jsonio import encode
from fccli.providers.base import ProviderInfo, Reply


class Failing:
    info = ProviderInfo("failing", "deepseek", "m", None, None)

    def __init__(self, error: Exception) -> None:
        self.error = error

    def send(self, body: bytes, *, step: int) -> Reply:
        raise self.error


class CutOff:
    info = ProviderInfo("cutoff", "deepseek", "m", None, None)

    def send(self, body: bytes, *, step: int) -> Reply:
        call = {
            "id": "c1",
            "type": "function",
            "function": {"name": "get_weather", "arguments": '{"ci'},
        }
        message = {"role": "assistant", "content": None, "tool_calls": [call]}
        return Reply(
            encode({"choices": [{"index": 0, "message": message, "finish_reason": "length"}]})
        )


def run_main(monkeypatch: pytest.MonkeyPatch, provider: object, *args: str) -> int:
    monkeypatch.setattr("fccli.run.prepare.get_provider", lambda name, **options: provider)
    monkeypatch.setattr(sys, "argv", ["fc", "run", "杭州今天适合跑步吗？", *args])
    with pytest.raises(SystemExit) as exit_:
        entry.main()
    return int(exit_.value.code or 0)


def test_an_http_error_is_exit_3_with_the_providers_words(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    error = ProviderError(
        "step 1: HTTP 503: overloaded", status=503, body='{"error": "overloaded"}'
    )
    code = run_main(monkeypatch, Failing(error), "-o", str(tmp_path / "t"))
    err = capsys.readouterr().err
    assert code == 3
    assert err.splitlines()[0] == "fc: error: step 1: HTTP 503: overloaded"
    assert f"the trace keeps what it had: {tmp_path / 't'}" in err
    assert "Traceback" not in err
    manifest = json.loads((tmp_path / "t/manifest.json").read_text())
    assert manifest["status"] == "error"
    assert manifest["error"]["http_status"] == 503
    assert (tmp_path / "t/1-request.deepseek.json").exists()


def test_a_cut_off_answer_is_exit_3_and_its_call_never_runs(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code = run_main(monkeypatch, CutOff(), "-o", str(tmp_path / "t"), "--json")
    out, err = capsys.readouterr()
    assert code == 3
    assert "NOT executed" in err
    summary = json.loads(out)  # --json still reports, on stdout
    assert summary["status"] == "error"
    assert summary["steps"][0]["tool_runs"] == []


def test_an_unexpected_exception_is_one_line_unless_fc_debug(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code = run_main(monkeypatch, Failing(RuntimeError("oops")), "-o", str(tmp_path / "a"))
    err = capsys.readouterr().err
    assert code == 1
    assert "internal error: RuntimeError: oops" in err and "FC_DEBUG=1" in err
    monkeypatch.setenv("FC_DEBUG", "1")
    monkeypatch.setattr(sys, "argv", ["fc", "run", "q", "-o", str(tmp_path / "b")])
    with pytest.raises(RuntimeError):
        entry.main()
