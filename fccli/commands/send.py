"""`fc send FILE`: post a wire-format request file as it is; print or save the raw response."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

import typer

from fccli.commands.limits import MAX_RESPONSE_MB, TIMEOUT, megabytes
from fccli.i18n import N_

HELP = N_(
    "Post FILE's bytes exactly, and print the raw response body (a stream as it arrives, "
    "when the file asks for one). HTTP errors: the provider's sentence on stderr, exit 3."
)
RANK = 100  # its place in `fc --help`

# Shared with `fc curl`, which reads the same file and finds the same provider.
FILE = typer.Argument(
    ..., metavar="FILE", help=N_("A wire-format request body, e.g. TRACE/2-request.deepseek.json.")
)
PROVIDER = typer.Option(
    None,
    "--provider",
    "-p",
    help=N_(
        "Where to send it (default: by the file's format: deepseek, openai, anthropic, "
        "gemini; a responses file to openai; "
        "another provider of the same format family, e.g. ollama; demo answers offline, fc send only)."
    ),
)
BASE_URL = typer.Option(
    None, "--base-url", help=N_("Endpoint root (default: $FC_BASE_URL, else the provider's).")
)


def send(
    file: str = FILE,
    provider: str | None = PROVIDER,
    base_url: str | None = BASE_URL,
    out: Path | None = typer.Option(
        None, "--out", "-o", help=N_("Save the response body to this file instead of printing it.")
    ),
    retries: int = typer.Option(
        3, "--retries", min=0, max=10, help=N_("Retries on 429, 5xx and connection errors.")
    ),
    timeout: float = TIMEOUT,
    max_response_mb: float = MAX_RESPONSE_MB,
) -> None:
    from fccli.core.errors import UsageError
    from fccli.i18n import Msg, _, localized
    from fccli.send.post import provider_for, read_request_file, send_file, with_provider_model

    if out is not None and out.resolve() == Path(file).resolve():
        raise UsageError(
            Msg("-o {out} is the request being sent; save the response elsewhere", out=str(out))
        )
    request = read_request_file(file)
    name = provider_for(request, provider)
    request, swapped = with_provider_model(request, name)
    if swapped is not None:
        typer.echo(_("fc: note: ") + localized(swapped), err=True)
    if out is not None:
        _check_writable(out)  # before the call: a response sent for nothing is billed anyway

    show = _shown_on(sys.stdout)

    def live(piece: bytes) -> None:
        show(piece)

    pieces: list[bytes] = []
    try:
        body = send_file(
            request,
            name,
            base_url=base_url,
            retries=retries,
            timeout=timeout,
            max_response_bytes=megabytes(max_response_mb),
            on_bytes=live if out is None else pieces.append,
        )
    finally:
        if out is not None and pieces:  # a stream cut short: what came is kept
            _save(out, b"".join(pieces))
    if out is not None:
        if not request.stream:
            _save(out, body)
        typer.echo(
            _("fc: wrote the response ({n} bytes) to {out}", n=len(body), out=str(out)), err=True
        )
        return
    if not request.stream:
        show(body)
    if sys.stdout.isatty() and not body.endswith(b"\n"):
        sys.stdout.buffer.write(b"\n")  # the prompt on a line of its own; pipes get the bytes
    sys.stdout.buffer.flush()


def _shown_on(stdout: TextIO) -> Callable[[bytes], None]:
    """How the body reaches stdout: its bytes exactly in a pipe; on a terminal, as text with
    its control characters escaped, since a body may hold escape sequences that would drive
    the terminal (a clipboard write, a screen clear)."""
    if not stdout.isatty():

        def raw(piece: bytes) -> None:
            stdout.buffer.write(piece)
            stdout.buffer.flush()

        return raw
    import codecs

    from fccli.core.controls import escape_controls

    decoder = codecs.getincrementaldecoder("utf-8")("replace")  # a character cut across pieces

    def text(piece: bytes) -> None:
        stdout.write(escape_controls(decoder.decode(piece)))
        stdout.flush()

    return text


def _check_writable(out: Path) -> None:
    """Refuse an -o that cannot be written, before anything is sent. Nothing is created."""
    import os

    from fccli.core.errors import UsageError
    from fccli.i18n import Msg

    if out.is_dir():
        raise UsageError(
            Msg("cannot write {out}: it is a directory", out=str(out)),
            hint=Msg("give a file name"),
        )
    parent = out.parent
    if not parent.is_dir():
        raise UsageError(
            Msg("cannot write {out}: {parent} is not a directory", out=str(out), parent=str(parent))
            if parent.exists()
            else Msg("cannot write {out}: no directory {parent}", out=str(out), parent=str(parent)),
            hint=Msg("create the directory first, or choose another -o"),
        )
    if out.exists() and not os.access(out, os.W_OK):
        raise UsageError(Msg("cannot write {out}: permission denied", out=str(out)))
    if not out.exists() and not os.access(parent, os.W_OK | os.X_OK):
        raise UsageError(
            Msg(
                "cannot write {out}: permission denied in {parent}",
                out=str(out),
                parent=str(parent),
            )
        )


def _save(out: Path, data: bytes) -> None:
    from fccli.core.errors import UsageError
    from fccli.i18n import Msg

    try:
        out.write_bytes(data)
    except OSError as e:
        raise UsageError(
            Msg("cannot write {out}: {reason}", out=str(out), reason=str(e.strerror))
        ) from None
