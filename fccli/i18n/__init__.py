"""fc's own words in the learner's language: English (the source) or Simplified Chinese.

Three ways to mark a string a person reads (docs/i18n.md says which to use where):

- `_("step {n}: ...", n=2)`: said now, in the chosen language. For text that is only printed:
  the run view, `fc show`, `fc diff`'s notes, help pages, and the error text fc hands the model
  in a tool result (so the model reads one language).
- `Msg("...", n=2)`: text that is both kept and printed (an error's message, a trace's note, a
  finding). It *is* the English text (a `str`), so whatever writes it to a trace file or to
  `--json` writes English; `localized(text)` says it in the chosen language when it is printed.
  Its parameters may be `Msg`s too; they are localized with it.
- `N_("...")`: only marks a string for the catalog (`--help` texts, defined at import time);
  the help page translates it when it is shown.

Placeholders are `str.format` fields, filled only when parameters are given (so a message
without parameters may hold braces as they are).

The language: `--lang` on any command, else `$FC_LANG`, else the locale (`LC_ALL`,
`LC_MESSAGES`, `LANG` starting with `zh`), else English. Under English nothing is loaded: the
msgid is the text. The Chinese catalog (`locale/zh/LC_MESSAGES/fc.mo`, compiled from `fc.po`,
shipped in the wheel) is read on the first message said in Chinese, not before.
"""

from __future__ import annotations

import gettext as stdlib_gettext
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gettext import GNUTranslations

LANGUAGES = ("en", "zh")
DOMAIN = "fc"
LOCALE_DIR = Path(__file__).parent / "locale"

_language = "en"
_catalog: GNUTranslations | None = None
_read: dict[str, GNUTranslations] = {}
"""Each language's catalog, once read: a process that says things in both reads each once."""


def language() -> str:
    """Return the language fc speaks in now: `en` or `zh`."""
    return _language


def set_language(lang: str) -> None:
    global _language, _catalog
    if lang not in LANGUAGES:
        raise ValueError(lang)
    _language = lang
    _catalog = None


def language_from_environment(environ: Mapping[str, str]) -> str:
    """Return `$FC_LANG` when it names a language fc has; else the locale; else English.

    An `FC_LANG` fc does not have (`fr`) is not an error (the environment may serve other
    programs too); its region is ignored (`zh_CN.UTF-8` and `zh-Hans` are `zh`)."""
    chosen = environ.get("FC_LANG", "").strip()
    if chosen:
        found = _base(chosen)
        if found in LANGUAGES:
            return found
    # The first of these that is set decides, as POSIX has it (C and POSIX mean English).
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(name, "").strip()
        if value:
            return "zh" if _base(value) == "zh" else "en"
    return "en"


def _base(value: str) -> str:
    return value.replace("-", "_").split("_")[0].split(".")[0].lower()


def gettext(msgid: str) -> str:
    """Return the translation of `msgid` in the chosen language (the msgid itself when there is
    none)."""
    if _language == "en" or not msgid:
        return msgid
    return _load().gettext(msgid)


def _(msgid: str, /, **params: Any) -> str:
    """Return `msgid` said now, in the chosen language, its `{fields}` filled from `params`."""
    text = gettext(msgid)
    if not params:
        return text
    return text.format(**{name: localized(value) for name, value in params.items()})


def N_(msgid: str) -> str:
    """Mark `msgid` for the catalog without translating it (help texts)."""
    return msgid


class Msg(str):
    """English text that can still be said in the chosen language (see the module's docstring).

    Its value is the English text, so it is written, compared and sliced as the str it is.
    `localized()` says it in the chosen language; an operation that makes a new str (`+`,
    `f"..."`, `.strip()`) makes an English str, which is why composite messages are Msgs with
    Msg parameters, not concatenations."""

    msgid: str
    params: dict[str, Any]

    def __new__(cls, msgid: str, /, **params: Any) -> Msg:
        self = super().__new__(cls, msgid.format(**params) if params else msgid)
        self.msgid = msgid
        self.params = params
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        # Rebuilt from msgid and params: a Msg crossing to another process stays a Msg.
        return (_rebuild, (self.msgid, self.params))

    def localized(self) -> str:
        return _(self.msgid, **self.params) if _language != "en" else str(self)


class Joined(Msg):
    """Parts (Msgs or plain text) said one after the other: English as `sep.join(parts)`; in
    Chinese each part localized and joined by `zh_sep`, by default the separator as Chinese
    writes it between phrases (`; ` is `；`, a list's `, ` is `、`). A list of clauses rather
    than items passes `zh_sep="，"`."""

    parts: tuple[Any, ...]
    sep: str
    zh_sep: str | None

    def __new__(cls, parts: Iterable[Any], sep: str = "; ", zh_sep: str | None = None) -> Joined:
        parts = tuple(parts)
        self = str.__new__(cls, sep.join(parts))
        self.msgid, self.params = str(self), {}
        self.parts, self.sep, self.zh_sep = parts, sep, zh_sep
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (Joined, (self.parts, self.sep, self.zh_sep))

    def localized(self) -> str:
        if _language == "en":
            return str(self)
        sep = self.zh_sep if self.zh_sep is not None else _ZH_SEPARATORS.get(self.sep, self.sep)
        return sep.join(str(localized(part)) for part in self.parts)


_ZH_SEPARATORS = {"; ": "；", " or ": " 或 ", "; or ": "；或 ", ": ": "：", ", ": "、"}


def _rebuild(msgid: str, params: dict[str, Any]) -> Msg:
    return Msg(msgid, **params)


def localized(text: Any) -> Any:
    """Return `text` said in the chosen language when it is a Msg; anything else as it is."""
    return text.localized() if isinstance(text, Msg) else text


_stray_space: re.Pattern[str] | None = None


def tidy(text: str) -> str:
    """Return `text` without a space between two Chinese characters (a placeholder filled with a
    Chinese phrase where a Latin name goes, `{who} 会返回`), under zh; as it is under en."""
    global _stray_space
    if _language == "en" or " " not in text:
        return text
    if _stray_space is None:  # compiled on first use: its two CJK ranges are slow to compile
        _stray_space = re.compile(r"(?<=[\u4e00-\u9fff]) (?=[\u4e00-\u9fff])")
    return _stray_space.sub("", text)


def _load() -> GNUTranslations:
    global _catalog
    if _catalog is None:
        _catalog = _read.get(_language)
    if _catalog is None:
        path = LOCALE_DIR / _language / "LC_MESSAGES" / f"{DOMAIN}.mo"
        with path.open("rb") as file:
            _catalog = _read[_language] = stdlib_gettext.GNUTranslations(file)
    return _catalog
