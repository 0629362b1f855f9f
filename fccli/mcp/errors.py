"""The one check every MCP command makes first: is the SDK installed."""

from __future__ import annotations

from fccli.core.errors import UsageError
from fccli.i18n import Msg

INSTALL = "pip install 'fccli[mcp]'"


def require_sdk() -> None:
    """Refuse to go on without the `mcp` SDK (the mcp extra), saying how to install it."""
    try:
        import mcp  # noqa: F401
    except ImportError:
        raise UsageError(
            Msg("MCP needs the official MCP SDK, which is not installed"), hint=INSTALL
        ) from None
