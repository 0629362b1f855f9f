"""What `--mcp SERVER` names: a command line (stdio) or an http(s) URL (streamable HTTP).

Its label names it in the trace (`mcp-<label>.jsonl`) and on screen: the server's own name
from its `initialize` answer when it gives one, else the program's name; a second server of
one name gets `-2`. What is shown or written of it has its secrets masked: a URL's password and
query values, and the value of a command-line flag or `NAME=VALUE` whose name says key, token,
secret or password, and the value of every provider's key variable set here (a server
inherits the environment and may echo it).
"""

from __future__ import annotations

import os
import re
import shlex
import sys
from pathlib import Path
from typing import NamedTuple

from fccli.core.errors import UsageError
from fccli.core.secrets import Secrets, url_secrets
from fccli.i18n import Msg
from fccli.providers.profiles import PROFILES

_SECRET_NAME = re.compile(r"(?i)(key|token|secret|password|passwd|auth)")
_LABEL = re.compile(r"[^a-z0-9_-]+")


class ServerSpec(NamedTuple):
    given: str
    """As the command line gave it."""
    url: str | None
    argv: list[str]
    secrets: Secrets

    @property
    def transport(self) -> str:
        return "streamable-http" if self.url else "stdio"

    def shown(self) -> str:
        """Say the server with its secrets masked."""
        return self.secrets.text(self.given) if self.secrets else self.given


def server_spec(given: str) -> ServerSpec:
    """Read one --mcp value."""
    if re.match(r"(?i)https?://", given):
        return ServerSpec(given, given, [], Secrets(url_secrets(given) + _environment_keys()))
    try:
        argv = shlex.split(given)
    except ValueError as e:
        raise UsageError(Msg("--mcp {server!r}: {error}", server=given, error=str(e))) from None
    if not argv:
        raise UsageError(
            Msg("--mcp needs a command line or an http(s):// URL"),
            hint='fc run --mcp "fc mcp demo" QUESTION',
        )
    if argv[0] == "fc":
        # fc's own servers (`fc mcp demo`) are started by this very fc, on PATH or not.
        argv = [sys.executable, "-m", "fccli", *argv[1:]]
    return ServerSpec(given, None, argv, Secrets(_argv_secrets(argv) + _environment_keys()))


AWS_SECRETS = ("AWS_BEARER_TOKEN_BEDROCK", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN")


def _environment_keys() -> list[str]:
    """Return the values of the providers' key variables that are set in this environment."""
    names = {p.key_env for p in PROFILES.values() if p.key_env} | set(AWS_SECRETS)
    return [value for name in sorted(names) if (value := os.environ.get(name))]


def _argv_secrets(argv: list[str]) -> list[str]:
    found: list[str] = []
    for i, arg in enumerate(argv):
        name, eq, value = arg.partition("=")
        if eq and _SECRET_NAME.search(name) and value:
            found.append(value)
        elif arg.startswith("-") and _SECRET_NAME.search(arg) and i + 1 < len(argv):
            found.append(argv[i + 1])
    return found


def label_for(spec: ServerSpec, server_name: str | None, taken: set[str]) -> str:
    """Name the server in the trace: its own name, else its program's or host's, made unique."""
    base = server_name or (
        re.sub(r"(?i)^https?://", "", spec.url).split("/")[0]
        if spec.url
        else Path(shlex.split(spec.given)[0]).name
    )
    label = _LABEL.sub("-", base.lower()).strip("-")[:40] or "server"
    unique, n = label, 1
    while unique in taken:
        n += 1
        unique = f"{label}-{n}"
    taken.add(unique)
    return unique
