"""Every error fc raises on purpose, under one root.

The CLI catches `FcError` in one place and maps it to the exit code of CLI.md; anything else
is a bug in fc.

    FcError
    ├── UsageError            exit 2: bad option, unknown provider or tool set, missing key, refused overwrite
    │   ├── InputFileError    exit 2: a file that is missing, not JSON, or not of the expected shape
    │   └── ConversionError   exit 2: content a wire format cannot express, or a wire body of the wrong shape
    ├── ProviderError         exit 3: the provider or the network failed (HTTP status and body kept)
    │   ├── ProtocolError     exit 3: the answer breaks the protocol (unknown stop reason, a tool stop
    │   │                              without calls, an answer cut off at max_tokens)
    │   └── StreamCut         exit 3: a stream that ended before its end; nothing in it is executed
    ├── FindingsError         exit 1: the thing examined has problems
    ├── HarnessAborted        exit 1: the harness raised on a tool error and stopped the loop
    │                                 (--harness-bug raise-on-error)
    └── Interrupted           exit 130: Ctrl-C; the trace keeps what it had
"""

from __future__ import annotations

from typing import Any, TypeVar

from fccli.i18n import Msg, _, localized

E = TypeVar("E", bound="FcError")


class FcError(Exception):
    """Root of fc's errors. `str(err)` is the one or two lines printed on stderr, in English (what
    a trace's manifest keeps); `localized()` says them in the chosen language, as stderr shows
    them. A message built from parts is a `Msg` with Msg parameters (fccli/i18n), never an
    f-string of them, so that it can still be said in Chinese.

    Context is kept in fields, never spliced into the message: `step` (a run's step) is said
    when the error is shown (`step 2: ...`). An error is not changed once raised: `at()` gives
    a copy with more context, to raise `from` it."""

    exit_code = 1

    def __init__(self, message: str, *, hint: str | None = None, step: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.step = step
        """The step of a run it happened at; None outside a run."""

    def said(self) -> str:
        """Return the message with its context, on one line (`step 2: the provider answered
        ...`)."""
        return self.message if self.step is None else f"step {self.step}: {self.message}"

    def at(self: E, **context: Any) -> E:
        """Return a copy with other context or wording (`step`, `hint`, `message`, `body`...)."""
        new = type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.__dict__.update(context)
        Exception.__init__(new, new.message)
        return new

    def __str__(self) -> str:
        text = self.said()
        return text if self.hint is None else f"{text}\n{self.hint}"

    def localized(self) -> str:
        """Return `str(self)` in the chosen language (fccli/i18n): what stderr shows. `str()` and
        `said()` stay English: they are what a trace's manifest keeps."""
        text = localized(self.message)
        if self.step is not None:
            text = _("step {step}: {message}", step=self.step, message=text)
        return text if self.hint is None else f"{text}\n{localized(self.hint)}"


class UsageError(FcError):
    """Bad usage: an unknown option value, provider or tool set, a missing key, a refused overwrite."""

    exit_code = 2


class InputFileError(UsageError):
    """A file fc was asked to read is missing, is not JSON, or is not of the expected shape."""

    def __init__(self, path: str, problem: str, *, json_path: str | None = None) -> None:
        # Msgs of Msgs: the message is English (a trace keeps it), said in the chosen language
        # when printed (`problem` may be a Msg itself).
        where = (
            path
            if json_path is None
            else Msg("{path}, at {json_path}", path=path, json_path=json_path)
        )
        super().__init__(Msg("{where}: {problem}", where=where, problem=problem))
        self.path = path
        self.json_path = json_path
        self.problem = problem


class ConversionError(UsageError):
    """Content that a wire format cannot express, or a wire body that is not of the format's shape."""

    def __init__(self, problem: str, *, json_path: str | None = None) -> None:
        super().__init__(
            problem
            if json_path is None
            else Msg("{json_path}: {problem}", json_path=json_path, problem=problem)
        )
        self.problem = problem
        self.json_path = json_path


class ProviderError(FcError):
    """The provider or the network failed: an HTTP error, a timeout, a cut stream."""

    exit_code = 3

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        body: str | None = None,
        step: int | None = None,
        hint: str | None = None,
        attempts: list[dict[str, Any]] | None = None,
    ) -> None:
        super().__init__(message, hint=hint, step=step)
        self.status = status
        self.body = body
        """The error body as received (a key in it already masked)."""
        self.attempts = attempts or []
        """Every HTTP attempt made, retries included, for the manifest."""


class ProtocolError(ProviderError):
    """The model's answer breaks the protocol, so fc stops rather than guess what was meant."""


class StreamCut(ProviderError):
    """A stream that ended early: the connection closed, no end marker (`data: [DONE]`,
    `message_stop`), no stop reason, or a call's arguments that do not parse once it ended.

    Whatever arrived is kept (the raw bytes in the trace, `partial` here); no call in it runs.
    """

    def __init__(
        self,
        message: str,
        *,
        bytes_received: int,
        partial: dict[str, Any] | None = None,
        ended: bool = False,
        step: int | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(message, step=step, hint=hint)
        self.bytes_received = bytes_received
        self.partial = partial
        """The wire response assembled from what arrived, leniently (arguments as cut)."""
        self.ended = ended
        """The stream itself ended as it should (a stop reason, its end event); only a call in
        it is incomplete (Anthropic, out of tokens inside a tool's input). Its assembled
        answer is a file of the trace like any other."""


class FindingsError(FcError):
    """The thing examined has problems (`fc check` errors, `fc diff --exit-code` differences)."""

    exit_code = 1


class HarnessAborted(FcError):
    """The harness raised on a tool error and stopped the loop, as `--harness-bug
    raise-on-error` makes it: the error never went back to the model."""

    exit_code = 1


class Interrupted(FcError):
    """Ctrl-C. Raised after the trace has been closed with status `interrupted`."""

    exit_code = 130


OS_REASONS = {
    "Is a directory": Msg("Is a directory"),
    "Not a directory": Msg("Not a directory"),
    "No such file or directory": Msg("No such file or directory"),
    "Permission denied": Msg("Permission denied"),
    "No space left on device": Msg("No space left on device"),
    "Read-only file system": Msg("Read-only file system"),
    "File name too long": Msg("File name too long"),
}
"""The system's most common reasons a file cannot be read or written (`e.strerror`), as Msgs:
the same English, said in the chosen language where printed."""


def os_reason(error: OSError) -> str:
    """Return `error.strerror` (the system's words, English), a Msg when fc has them translated."""
    text = error.strerror or str(error)
    return OS_REASONS.get(text, text)
