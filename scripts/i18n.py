"""fc's message catalog: extract the marked strings, update the Chinese `.po`, compile the `.mo`.

Usage (Babel, from the dev extra):

    python scripts/i18n.py update        # extract from fccli/, merge into zh's fc.po, compile
    python scripts/i18n.py check         # exit 1 if a msgid has no translation (or the .mo is stale)
    python scripts/i18n.py merge A.po B.po ...   # take the translations of other copies of fc.po
                                         # (two branches that both translated): then update

Strings are marked with `_()`, `Msg()` and `N_()` (fccli/i18n/__init__.py says which is for
what). `fc.po` is written without source locations and sorted by msgid, so that two changes in
different parts of fc rarely touch the same lines; its dates are fixed for the same reason.
The `.mo` is committed beside it (it ships in the wheel; tests/i18n/test_i18n_catalog.py checks that it
is the compiled `.po`).
"""

from __future__ import annotations

import io
import sys
from datetime import datetime, timezone
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

REPO = Path(__file__).resolve().parent.parent
SOURCE = REPO / "fccli"
PO = SOURCE / "i18n" / "locale" / "zh" / "LC_MESSAGES" / "fc.po"
MO = PO.with_suffix(".mo")
KEYWORDS = {"_": None, "Msg": None, "N_": None}
FIXED_DATE = datetime(2026, 12, 1, tzinfo=timezone.utc)


def extracted() -> Catalog:
    """Every marked string in fccli/, as a template catalog."""
    template = Catalog(project="fc", creation_date=FIXED_DATE)
    for filename, lineno, message, comments, _context in extract_from_dir(
        str(SOURCE), keywords=KEYWORDS, comment_tags=("i18n:",)
    ):
        if isinstance(message, tuple):  # a keyword called with more than one string
            message = message[0]
        template.add(message, locations=[(filename, lineno)], auto_comments=comments)
    return template


def read(path: Path) -> Catalog:
    with path.open("rb") as file:
        return read_po(file, locale="zh")


def write(catalog: Catalog) -> None:
    catalog.creation_date = FIXED_DATE
    catalog.revision_date = FIXED_DATE
    catalog.header_comment = HEADER
    catalog.fuzzy = False
    catalog.project, catalog.version = "fc", ""
    catalog.msgid_bugs_address = ""
    catalog.last_translator = catalog.language_team = "fc"
    buffer = io.BytesIO()
    write_po(buffer, catalog, no_location=True, sort_output=True, ignore_obsolete=True, width=0)
    PO.parent.mkdir(parents=True, exist_ok=True)
    PO.write_bytes(buffer.getvalue())
    MO.write_bytes(compiled(catalog))


def compiled(catalog: Catalog) -> bytes:
    buffer = io.BytesIO()
    write_mo(buffer, catalog, use_fuzzy=False)
    return buffer.getvalue()


def update() -> Catalog:
    catalog = read(PO) if PO.exists() else Catalog(locale="zh", project="fc")
    catalog.update(extracted(), no_fuzzy_matching=True, update_creation_date=False)
    write(catalog)
    return catalog


def untranslated(catalog: Catalog) -> list[str]:
    return [m.id for m in catalog if m.id and (not m.string or m.fuzzy)]


def merge(paths: list[str]) -> None:
    """Translations from other copies of fc.po fill the ones this copy lacks."""
    catalog = read(PO) if PO.exists() else Catalog(locale="zh", project="fc")
    for path in paths:
        for message in read(Path(path)):
            if not message.id or not message.string or message.fuzzy:
                continue
            mine = catalog.get(message.id)
            if mine is None:
                catalog.add(message.id, message.string)
            elif not mine.string or mine.fuzzy:
                mine.string = message.string
                mine.flags.discard("fuzzy")
    write(catalog)


HEADER = """\
# fc's messages in Simplified Chinese.
# The words for fc's terms are in docs/glossary.md; keep to them.
# Edit the translations here; `python scripts/i18n.py update` adds new msgids and compiles fc.mo."""


def main(argv: list[str]) -> int:
    command, *rest = argv or ["update"]
    if command == "update":
        missing = untranslated(update())
        print(f"{PO.relative_to(REPO)}: {len(missing)} msgid(s) without a translation")
        return 0
    if command == "merge":
        merge(rest)
        missing = untranslated(update())
        print(f"merged; {len(missing)} msgid(s) without a translation")
        return 0
    if command == "check":
        catalog = read(PO)
        catalog.update(extracted(), no_fuzzy_matching=True, update_creation_date=False)
        missing = untranslated(catalog)
        for msgid in missing:
            print(f"untranslated: {msgid!r}")
        stale = not MO.exists() or MO.read_bytes() != compiled(read(PO))
        if stale:
            print(f"{MO.relative_to(REPO)} is not the compiled fc.po: run update")
        return 1 if missing or stale else 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
