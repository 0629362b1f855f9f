"""The `otel` extra (opentelemetry-proto), which fc export and fc import of a protobuf file need."""

from __future__ import annotations

from fccli.core.errors import UsageError
from fccli.i18n import Msg

INSTALL_LINE = "pip install 'fccli[otel]'"


def require_otel(needs: str | Msg) -> None:
    """Exit 2 with the install line when the `otel` extra is missing, before any work is done;
    `needs` says what needs it (`fc export`)."""
    try:
        from opentelemetry.proto.collector.trace.v1 import trace_service_pb2  # noqa: F401
    except ImportError as e:
        raise UsageError(
            Msg(
                "{needs} needs the otel extra (opentelemetry-proto), which is not installed"
                " (Python found no module {module})",
                needs=needs,
                module=str(e.name or e),
            ),
            hint=Msg(
                "install it: {line}  (in a checkout: pip install -e '.[otel]')", line=INSTALL_LINE
            ),
        ) from None
