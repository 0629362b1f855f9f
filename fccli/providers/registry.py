"""Finding a provider by name, and the default when none is named (CLI.md, `--provider`)."""

from __future__ import annotations

import os

from fccli.core.errors import UsageError
from fccli.providers.base import Provider

KNOWN = ("demo", "deepseek", "openai", "anthropic", "ollama")
AVAILABLE = ("demo",)


def default_provider_name() -> str:
    """`$FC_PROVIDER`; else `deepseek` when `DEEPSEEK_API_KEY` is set; else the offline `demo`."""
    named = os.environ.get("FC_PROVIDER")
    if named:
        return named
    if os.environ.get("DEEPSEEK_API_KEY"):
        return "deepseek"
    return "demo"


def get_provider(name: str) -> Provider:
    if name == "demo":
        from fccli.providers.demo import DemoProvider

        return DemoProvider()
    if name in KNOWN:
        raise UsageError(
            f"provider {name!r} is not available in fc yet; this version runs the offline demo model",
            hint="use --provider demo (and unset FC_PROVIDER / DEEPSEEK_API_KEY to make it the default)",
        )
    raise UsageError(f"unknown provider {name!r}", hint=f"known providers: {', '.join(KNOWN)}")
