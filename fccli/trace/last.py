"""The trace fc wrote last from each working directory, wherever `--out` put it.

`fc show` and `fc export otel` with no trace read it: after `fc run ... -o hangzhou`, a bare
`fc show` shows `hangzhou`, not an older trace under ./traces. One small JSON file in the user's
state directory (`$XDG_STATE_HOME/fc/last-trace.json`, else `~/.local/state/fc/`) maps each
working directory to its last trace. It is a convenience: a file that cannot be read or written
is the same as no file, and never stops a run.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

KEPT = 200
"""Working directories remembered; the least recent are forgotten first."""


def _state_file() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "state"
    )
    return Path(base) / "fc" / "last-trace.json"


def _read(file: Path) -> dict[str, str]:
    try:
        data = json.loads(file.read_bytes()[: 1 << 20])
    except (OSError, ValueError, RecursionError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)}


def remember(trace: Path) -> None:
    """Record `trace` as the last one written from the working directory."""
    file = _state_file()
    with contextlib.suppress(OSError, ValueError):
        here, path = str(Path.cwd().resolve()), str(trace.resolve())
        known = _read(file)
        known.pop(here, None)
        known[here] = path  # last in the object: the most recent
        kept = dict(list(known.items())[-KEPT:])
        file.parent.mkdir(parents=True, exist_ok=True)
        temporary = file.with_name(f".{file.name}.{os.getpid()}.tmp")
        temporary.write_text(json.dumps(kept, ensure_ascii=False), "utf-8")
        os.replace(temporary, file)


def recalled() -> Path | None:
    """Return the last trace written from the working directory, if it is still there: as a
    path relative to it when it lies inside, else absolute."""
    with contextlib.suppress(OSError, ValueError):
        here = Path.cwd().resolve()
        path = _read(_state_file()).get(str(here))
        if path is None or not (Path(path) / "manifest.json").is_file():
            return None
        with contextlib.suppress(ValueError):
            return Path(path).relative_to(here)
        return Path(path)
    return None
