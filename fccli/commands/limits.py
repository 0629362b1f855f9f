"""The typer parameters `fc send` shares with run and replay, from their declarations."""

from __future__ import annotations

from fccli.commands.parameters import parameter
from fccli.options.declared import SEND, declared, megabytes

TIMEOUT = parameter(declared("timeout", SEND)).default
MAX_RESPONSE_MB = parameter(declared("max_response_mb", SEND)).default

__all__ = ["MAX_RESPONSE_MB", "TIMEOUT", "megabytes"]
