"""Running `fc ARGS...` inside the test process, as a subprocess would see it from outside.

A subprocess costs ~0.3 s of start-up (Python, typer, rich, httpx) on every call; in-process the
imports are paid once per test session. What a process would have of its own is given to each
run and taken back afterwards: argv, environment, working directory, the three standard streams
(byte-backed, so `sys.stdout.buffer` works, and not terminals), signal handlers, the import path
and the modules a run imports from outside the installed packages (a `--tools` file, a helper
module next to it). `SystemExit` becomes the exit code; anything else that escapes `main()` is
printed as Python prints it, with exit 1, so a test still sees a traceback it must not see.

What only a real process shows (start-up imports, signals, broken pipes, the exit status as the
shell sees it) is tested with `fc(..., process=True)`.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path

_SIGNALS = tuple(
    getattr(signal, name)
    for name in ("SIGINT", "SIGTERM", "SIGHUP", "SIGPIPE")
    if hasattr(signal, name)
)


@dataclass
class Ran:
    """The fields of `subprocess.CompletedProcess` that the tests read."""

    args: list[str]
    returncode: int
    stdout: str
    stderr: str
    in_process: bool = field(default=True, repr=False)


def run_in_process(
    args: list[str],
    *,
    cwd: Path,
    env: dict[str, str],
    input: str | None = None,
    terminal: bool = False,
) -> Ran:
    """`terminal`: stdout says it is a terminal (isatty), as Rich asks before wrapping lines."""
    from fccli.commands.entry import main

    stdout = _Terminal(_Bytes(), encoding="utf-8") if terminal else _stream()
    stderr = _stream(errors="backslashreplace")  # as Python's own stderr does
    stdin = io.TextIOWrapper(io.BytesIO((input or "").encode("utf-8")), encoding="utf-8")
    with _isolated(args, cwd=cwd, env=env, streams=(stdin, stdout, stderr)):
        try:
            main()
            code = 0
        except SystemExit as e:
            code = _exit_code(e.code, stderr)
        except BaseException:  # what the interpreter would print and exit 1 with
            traceback.print_exc(file=stderr)
            code = 1
        for stream in (stdout, stderr):
            with contextlib.suppress(ValueError):  # closed by the code under test
                stream.flush()
    return Ran(["fc", *args], code, _text(stdout), _text(stderr))


class _Bytes(io.BytesIO):
    """Keeps its value after being closed: a command may close its stdout."""

    def close(self) -> None:
        self.kept = self.getvalue()
        super().close()


class _Terminal(io.TextIOWrapper):
    def isatty(self) -> bool:
        return True


def _stream(errors: str = "strict") -> io.TextIOWrapper:
    return io.TextIOWrapper(_Bytes(), encoding="utf-8", errors=errors)


def _text(stream: io.TextIOWrapper) -> str:
    raw = stream.buffer
    assert isinstance(raw, _Bytes)
    data = raw.kept if raw.closed else raw.getvalue()
    # `subprocess.run(text=True)` decodes with universal newlines: do the same.
    return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


def _exit_code(code: object, stderr: io.TextIOWrapper) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=stderr)  # sys.exit("text"): the interpreter prints it, exit 1
    return 1


class _isolated:
    """Give the run its own process state, and restore the test's afterwards."""

    def __init__(self, args, *, cwd, env, streams) -> None:
        self.args, self.cwd, self.env, self.streams = args, cwd, env, streams

    def __enter__(self) -> None:
        self.saved_env = dict(os.environ)
        self.saved_cwd = os.getcwd()
        self.saved_argv = sys.argv
        self.saved_path = list(sys.path)
        self.saved_modules = set(sys.modules)
        self.saved_streams = (sys.stdin, sys.stdout, sys.stderr)
        self.saved_signals = {s: signal.getsignal(s) for s in _SIGNALS}
        self.saved_hooks = (sys.excepthook, sys.unraisablehook)
        _set_environ(self.env)
        os.chdir(self.cwd)
        sys.argv = ["fc", *self.args]
        sys.stdin, sys.stdout, sys.stderr = self.streams

    def __exit__(self, *exc: object) -> None:
        sys.stdin, sys.stdout, sys.stderr = self.saved_streams
        sys.argv = self.saved_argv
        sys.path[:] = self.saved_path
        sys.excepthook, sys.unraisablehook = self.saved_hooks
        for sig, handler in self.saved_signals.items():
            if handler is not None:
                signal.signal(sig, handler)
        os.chdir(self.saved_cwd)
        _set_environ(self.saved_env)
        _forget_foreign_modules(self.saved_modules)


def _set_environ(env: dict[str, str]) -> None:
    """Make `os.environ` exactly `env`, touching only what differs (`clear()` unsets each
    variable one by one, looking the mapping up afresh each time)."""
    for name in [name for name in os.environ if name not in env]:
        del os.environ[name]
    for name, value in env.items():
        if os.environ.get(name) != value:
            os.environ[name] = value


_PREFIXES = {sys.prefix, sys.base_prefix, sys.exec_prefix}
_INSTALLED = (
    *(str(Path(p).resolve()) for p in _PREFIXES),
    str(Path(__file__).resolve().parent.parent.parent / "fccli"),
)


def _forget_foreign_modules(before: set[str]) -> None:
    """Drop modules a run imported from outside Python, the venv and fccli: a tools file, or a
    helper next to it, must be imported afresh by the next run, as a new process would."""
    for name in set(sys.modules) - before:
        origin = getattr(sys.modules[name], "__file__", None)
        if origin and not str(Path(origin).resolve()).startswith(_INSTALLED):
            del sys.modules[name]


QUESTION = "杭州今天适合跑步吗？"


def deepseek_run(url: str, *extra: str, question: str = QUESTION) -> list[str]:
    """`fc run QUESTION -p deepseek --base-url URL -o t EXTRA...`: a run against the fake
    provider (with DEEPSEEK_API_KEY set, see `deepseek_env`)."""
    return ["run", question, "-p", "deepseek", "--base-url", url, "-o", "t", *extra]


def deepseek_env() -> dict[str, str]:
    from tests.conftest import clean_env
    from tests.support.fake_provider import DEFAULT_KEY

    return clean_env(DEEPSEEK_API_KEY=DEFAULT_KEY)
