"""Finding the tool set a run offers: a built-in set by name, or a user's Python file of functions."""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import inspect
import os
import sys
from pathlib import Path
from types import ModuleType

from fccli.core.errors import UsageError
from fccli.i18n import Msg
from fccli.tools import weather
from fccli.tools.json_tools import Asker, load_json_tools, require_tools_file
from fccli.tools.registry import Tool, ToolSet, tool_from_function

BUILTIN_SETS = ("weather",)
NO_TOOLS = "none"


def load_toolset(spec: str, asker: Asker | None = None) -> ToolSet:
    """Load a tool set: `weather`; `none` (a plain question); a `.json` file of tool definitions
    (json_tools.py), `asker` answering for them when the file has no result; or a path to a `.py`
    file whose tools are its `TOOLS` list, else its public functions."""
    if spec in BUILTIN_SETS:
        return weather.toolset()
    if spec == NO_TOOLS:
        return ToolSet(NO_TOOLS, [])
    path = Path(spec)
    if path.suffix.lower() == ".json":
        return load_json_tools(path, asker)
    if path.suffix == ".py" or path.exists() or "/" in spec:
        return load_tool_file(path)
    raise UsageError(
        Msg("unknown tool set {spec!r}", spec=spec),
        hint=Msg(
            "built-in sets: {sets}; none; or the path of a .py file of "
            "tool functions or a .json file of tool definitions",
            sets=", ".join(BUILTIN_SETS),
        ),
    )


def tools_file_entry(spec: str, trace_dir: Path) -> dict[str, str] | None:
    """Return where a trace finds its tools file again, from any working directory: the file's path
    relative to the trace (a trace and its tools moved together still find each other, and no home
    directory is written into a trace that is shared). None for a built-in set, or none."""
    if spec in BUILTIN_SETS or spec == NO_TOOLS:
        return None
    relative = os.path.relpath(Path(spec).resolve(), trace_dir.resolve())
    return {"path": Path(relative).as_posix(), "relative_to": "trace"}


def tools_file_in(options: dict[str, object], trace_dir: Path) -> Path | None:
    """Return the tools file a trace's manifest points to (see tools_file_entry), if it says so."""
    entry = options.get("tools_file")
    if not isinstance(entry, dict) or entry.get("relative_to") != "trace":
        return None
    path = entry.get("path")
    return trace_dir / path if isinstance(path, str) and path else None


def load_tool_file(path: Path) -> ToolSet:
    if path.is_dir():
        raise UsageError(
            Msg("{path} is a directory; --tools takes a .py file or a built-in set", path=str(path))
        )
    require_tools_file(path)
    module = _import_file(path)
    listed = getattr(module, "TOOLS", None)
    if listed is not None:
        candidates = list(listed) if isinstance(listed, (list, tuple)) else [listed]
        for c in candidates:
            if not isinstance(c, Tool) and not (callable(c) and hasattr(c, "__name__")):
                raise UsageError(
                    Msg(
                        "{path}: TOOLS holds {value}, which is not a function",
                        path=str(path),
                        value=repr(c),
                    )
                )
    else:
        candidates = [
            obj
            for name, obj in vars(module).items()
            if inspect.isfunction(obj)
            and obj.__module__ == module.__name__
            and not name.startswith("_")
        ]
    tools = [c if isinstance(c, Tool) else tool_from_function(c) for c in candidates]
    if not tools:
        raise UsageError(
            Msg("{path}: no tool functions found", path=str(path)),
            hint=Msg("define public functions with type hints and a docstring, or a TOOLS list"),
        )
    return ToolSet(str(path), tools)


def _import_file(path: Path) -> ModuleType:
    digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:12]
    name = f"fc_user_tools_{digest}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise UsageError(Msg("{path}: cannot be loaded as Python", path=str(path)))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pydantic look their module up here
    # A tools file may import a helper module that sits next to it, as a script would.
    folder = str(path.resolve().parent)
    sys.path.insert(0, folder)
    try:
        # A print() at import time goes to stderr, as a tool's print() does: stdout is fc's.
        with contextlib.redirect_stdout(sys.stderr):
            spec.loader.exec_module(module)
    except SyntaxError as e:
        raise UsageError(
            Msg(
                "{path}, line {line}: syntax error: {error}",
                path=str(path),
                line=e.lineno,
                error=e.msg,
            )
        ) from None
    except KeyboardInterrupt:
        raise
    except BaseException as e:  # SystemExit too: a tools file must not end fc with its own code
        raise UsageError(
            Msg(
                "{path}: importing it failed: {type}: {error}",
                path=str(path),
                type=type(e).__name__,
                error=str(e),
            )
        ) from None
    finally:
        sys.path.remove(folder)
    return module
