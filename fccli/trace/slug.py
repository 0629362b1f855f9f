"""Short ASCII names for trace directories: `杭州今天适合跑步吗？` -> `hangzhou`."""

from __future__ import annotations

import re
from collections.abc import Mapping


def slugify(text: str, names: Mapping[str, str] | None = None, *, limit: int = 40) -> str:
    """Name `text` in ASCII words, known non-ASCII names (say, city names) spelled by `names`."""
    found: list[tuple[int, str]] = []
    for name, ascii_name in (names or {}).items():
        pos = text.find(name)
        if pos >= 0 and not name.isascii():
            found.append((pos, ascii_name))
    words = [w for _, w in sorted(found)] if found else []
    if not words:
        words = re.findall(r"[A-Za-z0-9]+", text)
    slug = "-".join(w.lower() for w in words)
    slug = re.sub(r"[^a-z0-9]+", "-", slug).strip("-")[:limit].strip("-")
    return slug or "run"
