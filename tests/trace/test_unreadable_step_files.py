"""A step file that cannot be read (nested too deep, not UTF-8, a pipe, a device) is said by
every command that reads it: fc show notes it on its step, fc compare in its notes, fc check
(which reads every file) in one line with exit 2. None skips it in silence."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO

EXAMPLE = REPO / "traces" / "examples" / "hangzhou"

SPOILED: dict[str, tuple[Callable[[Path], Any], str]] = {
    "deep": (lambda p: p.write_text("[" * 500 + "]" * 500), "nested too deeply"),
    "binary": (lambda p: p.write_bytes(b"{\x80\x81\x00" * 64), "not UTF-8 text"),
    "fifo": (os.mkfifo, "is not a regular file"),
    "device": (lambda p: p.symlink_to("/dev/zero"), "is not a regular file"),
}


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="a FIFO needs POSIX")
def test_each_command_says_a_step_file_it_cannot_read(fc: Any, tmp_path: Path) -> None:
    cases = [("1-response.json", kind) for kind in SPOILED]
    cases += [("2-response.deepseek.json", "binary"), ("2-request.json", "fifo")]
    for file, kind in cases:
        trace = tmp_path / f"{kind}-{file}"
        shutil.copytree(EXAMPLE, trace)
        (trace / file).unlink()
        spoil, said = SPOILED[kind]
        spoil(trace / file)
        checked = fc("check", str(trace))
        assert checked.returncode == 2, (file, kind, checked.stdout)
        (line,) = checked.stderr.splitlines()
        assert str(trace / file) in line and said in line, (file, kind, line)
        if ".deepseek." in file:
            continue  # fc show and fc compare read the wire answer only without the internal one
        compared = fc("compare", str(trace), str(EXAMPLE), "--json")
        assert compared.returncode == 0, compared.stderr
        notes = [n for n in json.loads(compared.stdout)["notes"] if n.startswith("A: ")]
        assert len(notes) == 1 and file in notes[0] and said in notes[0], (file, kind, notes)
        shown = fc("show", str(trace), "--json")
        step_notes = [n for s in json.loads(shown.stdout)["steps"] for n in s["notes"]]
        assert any(file in n and said in n for n in step_notes), (file, kind, step_notes)


def test_an_mcp_log_past_the_limit_is_read_to_its_last_whole_line_within_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fccli.trace import mcp_log

    line = json.dumps({"n": 1, "dir": "sent", "message": {"jsonrpc": "2.0", "id": 1}}) + "\n"
    (tmp_path / "mcp-big.jsonl").write_text(line * 10, encoding="utf-8")
    monkeypatch.setattr(mcp_log, "READ_LIMIT", len(line) * 3 + 5)  # 3 lines and a piece
    (log,) = mcp_log.read_mcp_logs(tmp_path)
    assert len(log.entries) == 3
