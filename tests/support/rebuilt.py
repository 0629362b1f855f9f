"""Committed traces (course material) against the same traces made again: equal but for times."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from fccli.trace.writer import without_times


def differences(rebuilt: Path, committed: Path) -> list[str]:
    """What differs between a trace made again and the committed one, times left out."""
    if not committed.is_dir():
        return [f"{committed} is missing"]
    names = sorted(p.name for p in rebuilt.iterdir())
    if names != sorted(p.name for p in committed.iterdir()):
        return [f"the files differ: {names}"]
    found = []
    for name in names:
        new, old = rebuilt / name, committed / name
        if name == "manifest.json":
            same = without_times(json.loads(new.read_text("utf-8"))) == without_times(
                json.loads(old.read_text("utf-8"))
            )
        else:
            same = new.read_bytes() == old.read_bytes()
        if not same:
            found.append(f"{name} differs" + (" beyond times" if name == "manifest.json" else ""))
    return found


def assert_rebuilt_identically(rebuilt: Path, committed: Path) -> None:
    """Fail unless the trace made again is the committed one but for times; with
    FC_UPDATE_EXAMPLES=1, replace the committed one instead (review the diff then)."""
    found = differences(rebuilt, committed)
    if found and os.environ.get("FC_UPDATE_EXAMPLES") == "1":
        # Only on a real difference, so that a rebuild does not churn the times in git.
        shutil.rmtree(committed, ignore_errors=True)
        shutil.copytree(rebuilt, committed)
        found = differences(rebuilt, committed)
    assert not found, f"{committed}: {found}; rebuild with FC_UPDATE_EXAMPLES=1 if intended"
