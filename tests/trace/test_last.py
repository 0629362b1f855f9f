"""fccli/trace/last.py: the trace fc wrote last from each directory, and a state file that is
broken, hostile or cannot be written (the same as none: never a failed run)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from fccli.trace import last


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.chdir(tmp_path)
    return tmp_path / "state" / "fc" / "last-trace.json"


def _trace(path: Path) -> Path:
    path.mkdir(parents=True)
    (path / "manifest.json").write_text("{}", "utf-8")
    return path


def test_a_trace_inside_is_recalled_relative_one_outside_absolute(
    state: Path, tmp_path: Path
) -> None:
    last.remember(_trace(tmp_path / "a" / "t"))
    assert last.recalled() == Path("a/t")
    outside = _trace(tmp_path.parent / f"{tmp_path.name}-outside")
    last.remember(outside)
    assert last.recalled() == outside.resolve()
    assert json.loads(state.read_text("utf-8")) == {str(tmp_path.resolve()): str(outside.resolve())}


@pytest.mark.parametrize(
    "content", [b"not json", b"[1, 2]", b'{"x": 1}', b"\xff\xfe", b'{"a": ' * 100_000]
)
def test_a_broken_state_file_is_no_state_file(state: Path, tmp_path: Path, content: bytes) -> None:
    state.parent.mkdir(parents=True)
    state.write_bytes(content)
    assert last.recalled() is None
    last.remember(_trace(tmp_path / "t"))  # and is replaced by a good one
    assert last.recalled() == Path("t")


def test_a_deleted_trace_is_not_recalled(state: Path, tmp_path: Path) -> None:
    trace = _trace(tmp_path / "t")
    last.remember(trace)
    (trace / "manifest.json").unlink()
    assert last.recalled() is None


def test_only_the_most_recent_directories_are_kept(state: Path, tmp_path: Path) -> None:
    state.parent.mkdir(parents=True)
    many = {f"/dir{n}": f"/trace{n}" for n in range(last.KEPT + 50)}
    state.write_text(json.dumps(many), "utf-8")
    last.remember(_trace(tmp_path / "t"))
    kept = json.loads(state.read_text("utf-8"))
    assert len(kept) == last.KEPT and list(kept)[-1] == str(tmp_path.resolve())
    assert "/dir0" not in kept


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere")
def test_a_state_directory_that_cannot_be_written_stops_nothing(fc, tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    ran = fc("run", "杭州？", "-o", "t", env={"XDG_STATE_HOME": str(locked)})
    assert ran.returncode == 0, ran.stderr
    assert ran.stderr == ""


def test_a_state_path_that_is_a_file_stops_nothing(fc, tmp_path: Path) -> None:
    (tmp_path / "not-a-dir").write_text("x", "utf-8")
    ran = fc("run", "杭州？", "-o", "t", env={"XDG_STATE_HOME": str(tmp_path / "not-a-dir")})
    assert ran.returncode == 0, ran.stderr
    assert "Traceback" not in ran.stderr
    assert fc("show", env={"XDG_STATE_HOME": str(tmp_path / "not-a-dir")}).returncode == 2


def test_fc_export_otel_with_no_trace_exports_the_last_one_written_here(fc, tmp_path: Path) -> None:
    assert fc("run", "杭州？", "-o", "elsewhere/deep/t").returncode == 0
    ran = fc("export", "otel", "-o", "spans.json")
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith("elsewhere/deep/t: trace ")
    assert (tmp_path / "spans.json").is_file()
