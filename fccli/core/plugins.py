"""What fc leaves out of the libraries it loads: pydantic's plugins. Called by every process fc
starts (the command line, fc proxy's journal) before pydantic builds a model."""

from __future__ import annotations

import sys
import types


def without_pydantic_plugins() -> None:
    """Load no third-party pydantic plugins: fc has no use for them, and pydantic's loader
    imports importlib.metadata (email, zipfile, socket...) even under PYDANTIC_DISABLE_PLUGINS
    (start-up). Should pydantic move or rename the loader, this does nothing."""
    name = "pydantic.plugin._loader"
    if name not in sys.modules:
        loader = types.ModuleType(name, "fc: no pydantic plugins (fccli/core/plugins.py)")
        loader.get_plugins = lambda: ()  # type: ignore[attr-defined]
        sys.modules[name] = loader
