"""The trace directory of CLI.md: numbered request/response files in both formats, and a manifest.

Every file is written atomically (a temporary file, then a rename), and the manifest is
rewritten after every step, so a run that dies part-way leaves every file it got and a manifest
that says how far it came and why it stopped.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import operator
import os
import re
import sys
import time
from collections.abc import Iterable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

if sys.platform != "win32":
    import fcntl

from fccli import __version__
from fccli.core.errors import FcError, UsageError, os_reason
from fccli.core.interrupts import signal_name
from fccli.core.jsonio import encoded_pieces
from fccli.core.manifest import Attempt, ErrorRecord, Manifest, StepRecord
from fccli.i18n import Msg
from fccli.trace.history import FEW, HistoryEncoder
from fccli.trace.last import remember
from fccli.trace.names import LOCK, MANIFEST, TRACE_FILE


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_FILE_MODE = 0o666 & ~_umask()


def write_atomic(path: Path, data: bytes | Iterable[bytes]) -> None:
    """Write `path` all or nothing: a reader never sees half a file, a crash never leaves one.

    `data` may come in pieces (a large JSON file is never held whole)."""
    try:
        fd, tmp = _new_beside(path)
    except OSError as e:
        raise UsageError(
            Msg("cannot write {file}: {reason}", file=str(path), reason=os_reason(e))
        ) from None
    try:
        with os.fdopen(fd, "wb") as f:
            if isinstance(data, bytes):
                f.write(data)
            else:
                f.writelines(data)
        os.replace(tmp, path)
    except OSError as e:
        Path(tmp).unlink(missing_ok=True)
        raise UsageError(
            Msg("cannot write {file}: {reason}", file=str(path), reason=os_reason(e))
        ) from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


_TEMP_NUMBERS = itertools.count()
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)


def _new_beside(path: Path) -> tuple[int, str]:
    """Create a temporary file of fc's own next to `path` (`.NAME.PID_N.tmp`), open for writing,
    readable as the umask decides. Not mkstemp: its random name and chmod cost fc proxy's
    journal (docs/performance.md)."""
    while True:
        tmp = f"{path.parent}{os.sep}.{path.name}.{os.getpid()}_{next(_TEMP_NUMBERS)}.tmp"
        try:
            return os.open(tmp, _NEW_FILE, _FILE_MODE), tmp
        except FileExistsError:  # left by a process that had this number: take the next
            continue


def written_by_fc(entry: Path) -> bool:
    """Tell whether fc wrote `entry` (names.TRACE_FILE): --force replaces those, and only those."""
    return entry.is_file() and not entry.is_symlink() and bool(re.fullmatch(TRACE_FILE, entry.name))


def looks_like_trace(path: Path) -> bool:
    """Tell whether `path` is a trace: a manifest and nothing but fc's files, or a manifest fc
    wrote (a person may keep notes in a trace; they are not fc's to delete)."""
    manifest = path / MANIFEST
    if not manifest.is_file():
        return False
    if all(written_by_fc(e) for e in path.iterdir()):
        return True
    try:
        data = json.loads(manifest.read_bytes())
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and "fc_version" in data and "schema_version" in data


def prepare_dir(path: Path, *, force: bool) -> Path:
    """Create the trace directory and claim it for this run (see `claim`). A non-empty one is
    refused; `force` replaces an earlier trace, and of it only the files fc wrote: --force must
    never become a way to delete someone's files."""
    if path.is_symlink():
        raise UsageError(
            Msg("{path} is a symbolic link; give the trace directory itself", path=str(path))
        )
    if path.exists() and not path.is_dir():
        raise UsageError(Msg("{path} exists and is not a directory", path=str(path)))
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UsageError(
            Msg(
                "cannot create the trace directory {path}: {reason}",
                path=str(path),
                reason=os_reason(e),
            )
        ) from None
    claim(path)
    entries = [e for e in path.iterdir() if e.name != LOCK]
    if not entries:
        return path
    try:
        if not force:
            raise UsageError(
                Msg("{path} is not empty; fc will not mix two runs in one trace", path=str(path)),
                hint=Msg("choose another --out, or add --force to replace it"),
            )
        here = Path.cwd().resolve()
        if path.resolve() in (here, *here.parents) or not looks_like_trace(path):
            raise UsageError(
                Msg(
                    "{path} is not empty and is not an fc trace; --force replaces only a trace",
                    path=str(path),
                ),
                hint=Msg("choose another --out"),
            )
        for entry in entries:
            if written_by_fc(entry):
                entry.unlink()
    except OSError as e:
        release(path)
        raise UsageError(
            Msg("cannot replace {path}: {reason}", path=str(path), reason=os_reason(e))
        ) from None
    except UsageError:
        release(path)
        raise
    return path


_HELD: dict[Path, int] = {}
"""The trace directories this process writes, and the open lock file of each."""


def claim(path: Path) -> None:
    """Lock `path/.fc-writing` for this run: one trace, one writer.

    The lock is held until the run ends, or the process does (the system drops the lock of a
    process that died). Another fc writing there, a `--force` too, is refused. Where the system
    has no flock (Windows), there is no lock."""
    if sys.platform == "win32":
        return
    lock = path / LOCK
    for _ in range(5):
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT, _FILE_MODE)
        except OSError as e:
            raise UsageError(
                Msg("cannot write in {path}: {reason}", path=str(path), reason=os_reason(e))
            ) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise UsageError(
                Msg(
                    "{path} is being written by another fc run; one trace has one writer",
                    path=str(path),
                ),
                hint=Msg("choose another --out, or wait for that run to end"),
            ) from None
        try:
            same = os.stat(lock).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:  # the run before released it between open and lock
            same = False
        if same:
            _HELD[path.resolve()] = fd
            return
        os.close(fd)
    raise UsageError(Msg("cannot claim {path}: its lock keeps changing hands", path=str(path)))


def release(path: Path) -> None:
    """Remove the lock file of a run that is over, then drop the lock."""
    fd = _HELD.pop(path.resolve(), None)
    if fd is None:
        return
    with contextlib.suppress(OSError):
        (path / LOCK).unlink()
    os.close(fd)


_SUFFIXES: dict[tuple[Path, str], int] = {}
"""The last suffix this process took for each name (`-2`, `-3`...), in the current second."""


def default_dir(root: Path, slug: str, now: datetime | None = None) -> Path:
    """Name a new trace under `root`: `YYYYMMDD-HHMMSS-slug`, then `-2`, `-3`... if taken."""
    stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S")
    name = f"{stamp}-{slug}"
    if _SUFFIXES and not next(iter(_SUFFIXES))[1].startswith(stamp):
        _SUFFIXES.clear()  # a new second: names of the last one are never asked for again
    # Two runs in one second get -2, -3... fc proxy opens hundreds of traces in a second: it
    # looks on from the last suffix it took, not from the first (a stat per trace, not n²).
    n = _SUFFIXES.get((root, name), 1)
    candidate = root / name if n == 1 else root / f"{name}-{n}"
    while candidate.exists():
        n += 1
        candidate = root / f"{name}-{n}"
    _SUFFIXES[(root, name)] = n
    return candidate


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class TraceWriter:
    """Write one run's trace: its files, atomically, and its manifest, after every change."""

    def __init__(self, path: Path, manifest: Manifest | dict[str, Any]) -> None:
        self.path = path
        self.encoder = HistoryEncoder()
        self._steps: dict[int, tuple[StepRecord, tuple[Any, ...], dict[str, Any]]] = {}
        """Each step record's JSON, with the values it was made from (kept: their ids stay
        theirs)."""
        self._start = time.perf_counter()
        header = manifest if isinstance(manifest, Manifest) else Manifest.model_validate(manifest)
        self.manifest = header.model_copy(
            update={
                "schema_version": header.schema_version,
                "fc_version": __version__,
                "status": "running",
                "error": None,
                "started_at": _now(),
                "finished_at": None,
                "duration_ms": None,
                "steps": [],
                "final_answer": None,
            }
        )
        self.save_manifest()
        remember(path)

    def write(self, name: str, data: bytes | Any, kind: str | None = None) -> Path:
        """Write the file `name`: bytes as they are, anything else as JSON; `kind`: the file's
        kind (`request.deepseek`), whose history items the next file of that kind may repeat
        (history.py)."""
        target = self.path / name
        if isinstance(data, bytes):
            write_atomic(target, data)
        else:
            write_atomic(
                target, encoded_pieces(data) if kind is None else self.encoder.pieces(kind, data)
            )
        return target

    def rest(self) -> tuple[str, float]:
        """Let go of the trace's lock while nothing is written, and return what `woken` takes
        to go on writing it: fc proxy's conversation waiting for its agent's next request holds
        no open file, and neither this writer nor its manifest (the file has it, as the last
        save wrote it)."""
        release(self.path)
        return str(self.path), self._start

    @classmethod
    def woken(cls, rested: tuple[str, float]) -> TraceWriter:
        """Claim a trace again after `rest`, its manifest read back from its file."""
        path = Path(rested[0])
        claim(path)
        file = path / MANIFEST
        try:
            manifest = Manifest.model_validate_json(file.read_bytes())
        except (OSError, ValueError) as e:  # gone or changed while it rested
            release(path)
            reason = os_reason(e) if isinstance(e, OSError) else Msg("not the manifest fc wrote")
            raise UsageError(
                Msg("cannot read {file} back: {reason}", file=str(file), reason=reason)
            ) from None
        writer = cls.__new__(cls)
        writer.path, writer.manifest, writer._start = path, manifest, rested[1]
        writer.encoder = HistoryEncoder()
        writer._steps = {}
        return writer

    def note(self, text: str) -> None:
        """Note something a learner should know about the run (saved with the next save)."""
        self.manifest.note(text)

    def finish(
        self, status: str, *, error: BaseException | None = None, step: int | None = None
    ) -> None:
        """Close the run with `status` (and the error that ended it), save, release the lock."""
        self.manifest.status = status
        if error is not None:
            record = ErrorRecord(
                kind=type(error).__name__,
                message=error.said() if isinstance(error, FcError) else str(error),
                step=step,
                http_status=getattr(error, "status", None),
            )
            if status == "interrupted":
                name = signal_name()
                if name is not None:  # not Ctrl-C, which a reader would assume
                    record.signal = name
            attempts = getattr(error, "attempts", None)
            if attempts:
                record.attempts = [Attempt.model_validate(a) for a in attempts]
            body = getattr(error, "body", None)
            if isinstance(body, str) and not body.lstrip().startswith(("{", "[")):
                record.body_excerpt = body[:2000]
            self.manifest.error = record
        self.manifest.finished_at = _now()
        self.manifest.duration_ms = round((time.perf_counter() - self._start) * 1000, 1)
        try:
            self.save_manifest()
        finally:
            release(self.path)

    def save_manifest(self) -> None:
        """Write the manifest: each step record made JSON again only when it changed."""
        manifest = self.manifest
        if "steps" not in manifest.model_fields_set or len(manifest.steps) < FEW:
            self._steps.clear()
            self.write(MANIFEST, manifest.to_json_dict())
            return
        rest = manifest.model_dump(mode="json", exclude_unset=True, exclude={"steps"})
        fields = list(type(manifest).model_fields)
        before = set(fields[: fields.index("steps")])
        doc: dict[str, Any] = {}
        for name, value in rest.items():
            if "steps" not in doc and name not in before:
                doc["steps"] = [self._step(r) for r in manifest.steps]
            doc[name] = value
        if "steps" not in doc:
            doc["steps"] = [self._step(r) for r in manifest.steps]
        self.write(MANIFEST, doc, "manifest")

    def _step(self, record: StepRecord) -> dict[str, Any]:
        """Return the record's JSON, made again only when a field holds another object (fields
        are replaced, never changed in place)."""
        values = tuple(record.__dict__.values())
        kept = self._steps.get(id(record))
        if (
            kept is not None
            and kept[0] is record
            and len(kept[1]) == len(values)
            and all(map(operator.is_, kept[1], values))
        ):
            return kept[2]
        data = record.to_json_dict()
        self._steps[id(record)] = (record, values, data)
        return data


TIME_KEYS = frozenset({"started_at", "finished_at", "duration_ms", "first_byte_ms"})
PRICE_KEYS = frozenset({"usd", "input_usd", "output_usd", "cache_saved_usd", "hours"})
"""A cost record's amounts and hours: some providers' prices change with the time of day."""


def without_times(obj: Any) -> Any:
    """Take out of a manifest what differs between two identical runs: its times, and the
    prices that follow them."""
    if isinstance(obj, dict):
        return {k: without_times(v) for k, v in obj.items() if k not in TIME_KEYS | PRICE_KEYS}
    if isinstance(obj, list):
        return [without_times(v) for v in obj]
    return obj
