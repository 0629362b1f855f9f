"""The trace directory of CLI.md: numbered request/response files in both formats, and a manifest.

Every file is written atomically (a temporary file, then a rename), and the manifest is
rewritten after every step, so a run that dies part-way leaves every file it got and a manifest
that says how far it came and why it stopped.
"""

from __future__ import annotations

import os
import re
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


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_FILE_MODE = 0o666 & ~_umask()


def write_atomic(path: Path, data: bytes) -> None:
    """Write all or nothing: a reader never sees half a file, a crash never leaves one."""
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as e:
        raise UsageError(f"cannot write {path}: {e.strerror}") from None
    try:
        # mkstemp makes the file private (0600); a trace is meant to be shared and read.
        os.fchmod(fd, _FILE_MODE)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError as e:
        Path(tmp).unlink(missing_ok=True)
        raise UsageError(f"cannot write {path}: {e.strerror}") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


# What fc writes into a trace directory; --force replaces only a directory holding nothing else.
_TRACE_FILE = re.compile(
    r"(manifest\.json|\d+-(request|response)(\.[a-z]+)?\.(json|sse)|\..+\.tmp)"
)


def looks_like_trace(path: Path) -> bool:
    entries = list(path.iterdir())
    return (path / MANIFEST).is_file() and all(
        e.is_file() and _TRACE_FILE.fullmatch(e.name) for e in entries
    )


def prepare_dir(path: Path, *, force: bool) -> Path:
    """Create the trace directory. A non-empty one is refused; `force` replaces it, but only
    when it is an earlier trace: --force must never become a way to delete someone's files."""
    if path.is_symlink():
        raise UsageError(f"{path} is a symbolic link; give the trace directory itself")
    if path.exists():
        if not path.is_dir():
            raise UsageError(f"{path} exists and is not a directory")
        if any(path.iterdir()):
            if not force:
                raise UsageError(
                    f"{path} is not empty; fc will not mix two runs in one trace",
                    hint="choose another --out, or add --force to replace it",
                )
            here = Path.cwd().resolve()
            if path.resolve() in (here, *here.parents) or not looks_like_trace(path):
                raise UsageError(
                    f"{path} is not empty and is not an fc trace; --force replaces only a trace",
                    hint="choose another --out",
                )
            try:
                shutil.rmtree(path)
            except OSError as e:
                raise UsageError(f"cannot replace {path}: {e.strerror}") from None
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

    def finish(
        self, status: str, *, error: BaseException | None = None, step: int | None = None
    ) -> None:
        self.manifest["status"] = status
        if error is not None:
            self.manifest["error"] = {
                "kind": type(error).__name__,
                "message": error.message if isinstance(error, FcError) else str(error),
                "step": step,
                "http_status": getattr(error, "status", None),
            }
            attempts = getattr(error, "attempts", None)
            if attempts:
                self.manifest["error"]["attempts"] = attempts
            body = getattr(error, "body", None)
            if isinstance(body, str) and not body.lstrip().startswith(("{", "[")):
                self.manifest["error"]["body_excerpt"] = body[:2000]
        self.manifest["finished_at"] = _now()
        self.manifest["duration_ms"] = round((time.perf_counter() - self._start) * 1000, 1)
        self.save_manifest()

    def save_manifest(self) -> None:
        self.write_json(MANIFEST, self.manifest)


TIME_KEYS = frozenset({"started_at", "finished_at", "duration_ms", "first_byte_ms"})


def without_times(obj: Any) -> Any:
    """The manifest with what differs between two identical runs (times) taken out."""
    if isinstance(obj, dict):
        return {k: without_times(v) for k, v in obj.items() if k not in TIME_KEYS}
    if isinstance(obj, list):
        return [without_times(v) for v in obj]
    return obj
