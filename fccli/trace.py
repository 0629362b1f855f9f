"""The trace directory of CLI.md: numbered request/response files in both formats, and a manifest.

Every file is written atomically (a temporary file, then a rename), and the manifest is
rewritten after every step, so a run that dies part-way leaves every file it got and a manifest
that says how far it came and why it stopped.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from fccli import __version__
from fccli.core.errors import FcError, UsageError
from fccli.core.jsonio import dumps

SCHEMA_VERSION = 1
MANIFEST = "manifest.json"


def write_atomic(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def prepare_dir(path: Path, *, force: bool) -> Path:
    """Create the trace directory; a non-empty one is refused unless `force` replaces it."""
    if path.exists():
        if not path.is_dir():
            raise UsageError(f"{path} exists and is not a directory")
        if any(path.iterdir()):
            if not force:
                raise UsageError(
                    f"{path} is not empty; fc will not mix two runs in one trace",
                    hint="choose another --out, or add --force to replace it",
                )
            shutil.rmtree(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UsageError(f"cannot create the trace directory {path}: {e.strerror}") from None
    return path


def default_dir(root: Path, slug: str, now: datetime | None = None) -> Path:
    stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S")
    candidate = root / f"{stamp}-{slug}"
    n = 2
    while candidate.exists():  # two runs in one second
        candidate = root / f"{stamp}-{slug}-{n}"
        n += 1
    return candidate


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class TraceWriter:
    """Writes one run's files. The engine calls it; nothing here knows about providers."""

    def __init__(self, path: Path, manifest: dict[str, Any]) -> None:
        self.path = path
        self._start = time.perf_counter()
        self.manifest: dict[str, Any] = {
            "schema_version": SCHEMA_VERSION,
            "fc_version": __version__,
            **manifest,
            "status": "running",
            "error": None,
            "started_at": _now(),
            "finished_at": None,
            "duration_ms": None,
            "steps": [],
            "final_answer": None,
        }
        self.save_manifest()

    def write_json(self, name: str, obj: Any) -> Path:
        return self.write_bytes(name, dumps(obj).encode("utf-8"))

    def write_bytes(self, name: str, data: bytes) -> Path:
        target = self.path / name
        write_atomic(target, data)
        return target

    def add_step(self, record: dict[str, Any]) -> None:
        self.manifest["steps"].append(record)
        self.save_manifest()

    def finish(self, status: str, *, error: FcError | None = None, step: int | None = None) -> None:
        self.manifest["status"] = status
        if error is not None:
            self.manifest["error"] = {
                "kind": type(error).__name__,
                "message": error.message,
                "step": step,
                "http_status": getattr(error, "status", None),
            }
        self.manifest["finished_at"] = _now()
        self.manifest["duration_ms"] = round((time.perf_counter() - self._start) * 1000, 1)
        self.save_manifest()

    def save_manifest(self) -> None:
        self.write_json(MANIFEST, self.manifest)


TIME_KEYS = frozenset({"started_at", "finished_at", "duration_ms"})


def without_times(obj: Any) -> Any:
    """The manifest with what differs between two identical runs (times) taken out."""
    if isinstance(obj, dict):
        return {k: without_times(v) for k, v in obj.items() if k not in TIME_KEYS}
    if isinstance(obj, list):
        return [without_times(v) for v in obj]
    return obj
