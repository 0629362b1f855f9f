"""Where fc's data files live, installed or run from a checkout."""

from __future__ import annotations

from pathlib import Path


def fixtures_dir() -> Path:
    # A wheel carries the fixtures inside the package (pyproject's force-include);
    # a checkout or an editable install reads them from the repository's top level.
    package = Path(__file__).resolve().parent.parent
    packaged = package / "_fixtures"
    if packaged.is_dir():
        return packaged
    return package.parent / "fixtures"
