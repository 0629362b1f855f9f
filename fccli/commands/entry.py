"""The `fc` console script: the one place where FcError becomes an exit code.

Kept import-light (start-up): `fc --version` answers before typer is even imported, and
nothing of fccli beyond the typer app is imported before typer runs (the error tree only when
something is raised), so the imports below sit in the functions that need them.

What is caught here, and how it ends:
- FcError: its one or two lines, its exit code (CLI.md);
- Ctrl-C, SIGTERM, SIGHUP: "interrupted", exit 128 + the signal (fccli/core/interrupts.py);
- a closed stdout (`fc show --wire | head`): a normal end, exit 0, nothing more printed;
- anything else, any BaseException: one line saying it is a bug, never a traceback
  (unless FC_DEBUG=1).
"""

import gc
import os
import sys
from collections.abc import Callable

whole_process = False
"""Whether fc runs as a process of its own (`console`), not called by a test in its process."""


def console(run: Callable[[], None] | None = None) -> None:
    """Run `fc` (and `python -m fccli`): main() (or `run`), then an exit without Python's last
    collection.

    That collection walks every object the command made, in a process about to give its memory
    back; gc.freeze() hides the heap from it. Nothing is lost: fc closes its files and writes its
    traces explicitly (no finalizers, no atexit). The raised thresholds spare the start-up
    imports (objects by the hundred thousand, none garbage) repeated walks while they are made.
    """
    global whole_process
    whole_process = True
    gc.set_threshold(10_000, 50, 50)
    try:
        (run or main)()
    finally:
        gc.freeze()


def main() -> None:
    """Run the command the arguments name; end what it raises in one line and an exit code."""
    args = sys.argv[1:]
    if args in (["--version"], ["-V"]):
        from fccli import __version__

        print(f"fc {__version__}")
        return
    if not _choose_language(args):
        sys.exit(2)
    from fccli.commands.app import app_for
    from fccli.commands.help_format import prepared

    guarded(lambda: prepared(app_for(args))(prog_name="fc"))


def guarded(command: Callable[[], object]) -> None:
    """Run `command` (fc's typer app, or fc proxy's lean process: fccli/commands/proxy_lean.py),
    ending what it raises as the module's docstring says."""
    from fccli.core import interrupts
    from fccli.core.plugins import without_pydantic_plugins

    without_pydantic_plugins()

    interrupts.received.clear()
    restore = interrupts.install()
    try:
        command()
    except SystemExit as e:
        # typer turns Ctrl-C into exit 130 and a closed pipe into exit 1, silently.
        if _caused_by(e, BrokenPipeError):
            _end_quietly()
        if _caused_by(e, KeyboardInterrupt):
            _interrupted(interrupts, _("interrupted"))
        raise
    except KeyboardInterrupt:
        _interrupted(interrupts, _("interrupted"))
    except BrokenPipeError:
        _end_quietly()
    except BaseException as e:
        from fccli.core.errors import FcError, Interrupted

        if os.environ.get("FC_DEBUG") == "1":
            raise
        if isinstance(e, Interrupted):
            _interrupted(interrupts, e.localized())
        if isinstance(e, FcError):
            _print_error(e.localized())
            sys.exit(e.exit_code)
        # a bug in fc: one line, unless asked for the traceback
        _print_error(
            _("internal error: {kind}: {message}", kind=type(e).__name__, message=_message_of(e))
        )
        _print_error(_("this is a bug in fc; FC_DEBUG=1 shows the traceback"))
        sys.exit(1)
    finally:
        restore()


def _choose_language(args: list[str]) -> bool:
    """Choose fc's language for this command, from `--lang` (anywhere before `--`: `fc run --help
    --lang zh` too), else the environment. False, with the error said, for a `--lang` fc does
    not speak."""
    from fccli import i18n
    from fccli.commands.help_format import language_in

    try:
        chosen = language_in(args)
    except ValueError as e:
        given = f", not {str(e)!r}" if str(e) else ""  # `fc --lang` with nothing after it
        _print_error(f"--lang: fc speaks en or zh{given} (fc 只会说 en 或 zh)")
        return False
    i18n.set_language(chosen or i18n.language_from_environment(os.environ))
    return True


def _interrupted(interrupts, message: str) -> None:  # type: ignore[no-untyped-def]
    name = interrupts.signal_name()
    first, _sep, rest = message.partition("\n")
    if name:
        first = _("{message} (by {signal})", message=first, signal=name)
    _print_error(first + (f"\n{rest}" if rest else ""))
    sys.exit(interrupts.exit_code())


def _caused_by(error: BaseException, kind: type) -> bool:
    seen = error.__context__ or error.__cause__
    while seen is not None:
        if isinstance(seen, kind):
            return True
        seen = seen.__context__ or seen.__cause__
    return False


def _end_quietly() -> None:
    """End normally when the reader went away, as `git log | head` does. Nothing more reaches
    stdout (the flush at exit included)."""
    from fccli.render.console import silence_stdout

    silence_stdout()
    sys.exit(0)


def _message_of(error: BaseException) -> str:
    try:
        return str(error)
    except Exception:
        return _("(its message cannot be read)")


def _(msgid: str, /, **params: object) -> str:
    """Say a message through fccli.i18n's `_`, imported only then (start-up)."""
    from fccli.i18n import _ as say

    return say(msgid, **params)


def _print_error(text: str) -> None:
    from fccli.core.controls import escape_controls  # a provider's words may hold escapes
    from fccli.render.linebreak import terminal_width, wrapped

    text = text.rstrip()  # an empty hint must not print a blank second line
    lines = escape_controls(text).split("\n") if text else [""]
    width = terminal_width(sys.stderr)  # on a terminal, broken where the language allows
    try:
        print(wrapped(_("fc: error: {message}", message=lines[0]), width, 2), file=sys.stderr)
        for line in lines[1:]:
            print(wrapped(f"  {line}", width, 4), file=sys.stderr)
    except (BrokenPipeError, OSError):  # stderr gone too (a closed terminal): nothing to say
        pass
