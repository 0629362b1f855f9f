"""The trace directory: refused overwrites, atomic files, names, and what a time-free comparison ignores."""

from __future__ import annotations

import itertools
import json
import os
import re
import stat
from datetime import datetime
from pathlib import Path

import pytest

from fccli.core.errors import ProviderError, UsageError
from fccli.core.manifest import Manifest, StepRecord
from fccli.trace.names import TRACE_FILE
from fccli.trace.slug import slugify
from fccli.trace.writer import (
    TraceWriter,
    default_dir,
    prepare_dir,
    release,
    without_times,
    write_atomic,
)


def test_a_new_directory_is_created(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b"
    assert prepare_dir(target, force=False) == target
    assert target.is_dir()


def test_an_empty_directory_is_fine(tmp_path: Path) -> None:
    prepare_dir(tmp_path, force=False)


def test_a_non_empty_directory_is_refused_then_replaced_with_force(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").write_text("{}")
    (tmp_path / "1-request.deepseek.json").write_text("{}")
    with pytest.raises(UsageError, match="not empty"):
        prepare_dir(tmp_path, force=False)
    assert (tmp_path / "manifest.json").exists()
    prepare_dir(tmp_path, force=True)
    assert [p.name for p in tmp_path.iterdir()] == [".fc-writing"]  # claimed, until released
    release(tmp_path)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "files", [["old.json"], ["manifest.json", "notes.txt"], ["1-request.json"]]
)
def test_force_refuses_a_directory_that_is_not_a_trace(tmp_path: Path, files: list[str]) -> None:
    for name in files:
        (tmp_path / name).write_text("{}")
    with pytest.raises(UsageError, match="not an fc trace"):
        prepare_dir(tmp_path, force=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(files)


def test_force_refuses_a_symbolic_link(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    with pytest.raises(UsageError, match="symbolic link"):
        prepare_dir(tmp_path / "link", force=True)


def test_an_unwritable_directory_is_a_usage_error(tmp_path: Path) -> None:
    import os

    if os.geteuid() == 0:
        pytest.skip("root writes anywhere")
    target = tmp_path / "ro"
    target.mkdir()
    target.chmod(0o500)
    with pytest.raises(UsageError, match="cannot write"):
        write_atomic(target / "x.json", b"{}")


def test_a_file_in_the_way_is_refused(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    with pytest.raises(UsageError, match="not a directory"):
        prepare_dir(tmp_path / "f", force=True)


def test_default_names_carry_time_and_slug_and_never_collide(tmp_path: Path) -> None:
    now = datetime(2026, 11, 29, 10, 15, 0)
    first = default_dir(tmp_path, "hangzhou", now)
    assert first.name == "20261129-101500-hangzhou"
    first.mkdir()
    assert default_dir(tmp_path, "hangzhou", now).name == "20261129-101500-hangzhou-2"


def test_many_traces_in_one_second_each_look_at_a_name_or_two(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """fc proxy opens hundreds of traces a second, all named alike: looking from the first
    name every time made opening them quadratic."""
    now = datetime(2026, 11, 29, 10, 15, 1)
    looked: list[Path] = []
    exists = Path.exists
    monkeypatch.setattr(Path, "exists", lambda self: looked.append(self) or exists(self))
    names = []
    for _ in range(200):
        path = default_dir(tmp_path, "beijing", now)
        path.mkdir()
        names.append(path.name)
    assert names == ["20261129-101501-beijing"] + [
        f"20261129-101501-beijing-{n}" for n in range(2, 201)
    ]
    assert len(looked) <= 2 * 200
    (tmp_path / "20261129-101501-beijing-201").mkdir()  # another fc took the next name
    assert default_dir(tmp_path, "beijing", now).name == "20261129-101501-beijing-202"


@pytest.mark.parametrize(
    ("text", "slug"),
    [
        ("杭州今天适合跑步吗？", "hangzhou"),
        ("北京、上海、深圳今天适合跑步吗？", "beijing-shanghai-shenzhen"),
        ("Is it a good day for a run?", "is-it-a-good-day-for-a-run"),
        ("今天适合跑步吗？", "run"),
        ("???", "run"),
    ],
)
def test_slugs_are_short_ascii(text: str, slug: str) -> None:
    names = {"杭州": "Hangzhou", "北京": "Beijing", "上海": "Shanghai", "深圳": "Shenzhen"}
    assert slugify(text, names) == slug


def test_atomic_write_leaves_no_temporary_files(tmp_path: Path) -> None:
    write_atomic(tmp_path / "x.json", b"{}")
    write_atomic(tmp_path / "x.json", b"[]")
    assert [p.name for p in tmp_path.iterdir()] == ["x.json"]
    assert (tmp_path / "x.json").read_bytes() == b"[]"


def test_the_manifest_exists_from_the_start_and_records_the_end(tmp_path: Path) -> None:
    writer = TraceWriter(tmp_path, {"provider": "demo", "question": "q"})
    started = json.loads((tmp_path / "manifest.json").read_text())
    assert started["status"] == "running"
    assert started["schema_version"] == 1
    writer.manifest.steps.append(StepRecord(step=1, stop_reason="tool_use"))
    writer.finish("error", error=ProviderError("boom", status=500), step=2)
    done = json.loads((tmp_path / "manifest.json").read_text())
    assert done["status"] == "error"
    assert done["error"] == {
        "kind": "ProviderError",
        "message": "boom",
        "step": 2,
        "http_status": 500,
    }
    assert done["steps"] == [{"step": 1, "stop_reason": "tool_use"}]
    assert done["finished_at"] is not None


EXAMPLES = Path(__file__).resolve().parent.parent.parent / "traces" / "examples"


@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.iterdir()))
def test_a_manifest_reads_into_its_model_and_writes_back_the_same(name: str) -> None:
    data = json.loads((EXAMPLES / name / "manifest.json").read_text(encoding="utf-8"))
    manifest = Manifest.model_validate(data)
    assert manifest.steps and manifest.options is not None
    assert manifest.to_json_dict() == data
    assert list(manifest.to_json_dict()) == list(data)  # the order of the keys too


def test_an_older_or_unfinished_manifest_still_reads() -> None:
    # What a run that died after its first write left, from a version with a key since gone.
    old = {"schema_version": 1, "provider": "deepseek", "status": "running", "legacy": {"a": 1}}
    manifest = Manifest.model_validate(old)
    assert (manifest.provider, manifest.steps, manifest.error) == ("deepseek", [], None)
    assert manifest.to_json_dict() == old


def test_without_times_drops_only_times_and_the_prices_that_follow_them() -> None:
    manifest = {
        "started_at": "t",
        "steps": [
            {
                "duration_ms": 1,
                "tool_runs": [{"duration_ms": 2, "id": "c"}],
                "cost": {"usd": 0.1, "hours": "01:00-04:00", "model": "m"},
            }
        ],
        "cost": {"usd": 0.1, "cache_saved_usd": 0.01, "priced_as": "m"},
    }
    assert without_times(manifest) == {
        "steps": [{"tool_runs": [{"id": "c"}], "cost": {"model": "m"}}],
        "cost": {"priced_as": "m"},
    }


def test_a_write_that_fails_is_a_usage_error_not_a_crash(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="cannot write"):
        write_atomic(tmp_path / "gone" / "x.json", b"{}")


def test_a_written_file_is_readable_as_the_umask_says_and_leaves_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import fccli.trace.writer as writer

    monkeypatch.setattr(writer, "_TEMP_NUMBERS", itertools.count())
    stale = f".1-request.json.{os.getpid()}_0.tmp"
    (tmp_path / stale).write_text("left by a crashed process that had this pid")
    target = tmp_path / "1-request.json"
    for _ in range(3):  # a new file, then replaced twice
        writer.write_atomic(target, [b"{", b"}\n"])
    assert target.read_bytes() == b"{}\n"
    assert stat.S_IMODE(target.stat().st_mode) == writer._FILE_MODE
    assert sorted(p.name for p in tmp_path.iterdir()) == [stale, "1-request.json"]
    assert re.fullmatch(TRACE_FILE, stale)  # --force knows fc's temporary files
