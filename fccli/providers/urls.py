"""URLs as fc writes and prints them: a password in one is never shown."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit


def shown_url(url: str) -> str:
    """The URL as fc writes and prints it: a password in it (`user:secret@host`) masked."""
    try:
        parts = urlsplit(url)
        password, port = parts.password, parts.port
    except ValueError:  # not even a URL: keep only what follows a user part
        return "***@" + url.rsplit("@", 1)[1] if "@" in url else url
    if password is None:
        return url
    netloc = f"{parts.username}:***@{parts.hostname}" + (f":{port}" if port else "")
    return urlunsplit(parts._replace(netloc=netloc))
