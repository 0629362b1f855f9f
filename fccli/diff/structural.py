"""The structural diff: every added, removed and changed value of two JSON documents, by path."""

from __future__ import annotations

from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any, Literal

from fccli.diff.paths import LONG_STRING, Loc, canon, child, path_str
from fccli.i18n import Joined, Msg


@dataclass(frozen=True)
class Change:
    """One difference by JSON path. Paths of removed and changed values are A's; of added, B's
    (a changed value's place in B is `b_loc`, when elements before it were added or removed)."""

    loc: Loc
    kind: Literal["added", "removed", "changed"]
    old: Any = None
    new: Any = None
    where: str = ""
    """The element the path falls in, in words (`call call_1 (get_weather)`), where known."""
    b_loc: Loc | None = None
    """A changed value's path in B, when it is not the same as in A."""

    @property
    def path(self) -> str:
        return path_str(self.loc)

    @property
    def b_path(self) -> str | None:
        return None if self.b_loc is None else path_str(self.b_loc)

    def inline(self) -> list[tuple[str, str]] | None:
        """For a long changed string: its pieces, ("=", same) ("-", removed) ("+", added)."""
        if self.kind != "changed" or not (isinstance(self.old, str) and isinstance(self.new, str)):
            return None
        if max(len(self.old), len(self.new)) <= LONG_STRING:
            return None
        return segments(self.old, self.new)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path, "kind": self.kind}
        if self.kind != "added":
            out["old"] = self.old
        if self.kind != "removed":
            out["new"] = self.new
        if self.where:
            out["where"] = self.where
        if self.b_loc is not None:
            out["b_path"] = self.b_path
        return out


def changes(a: Any, b: Any, loc: Loc = (), b_loc: Loc | None = None) -> list[Change]:
    """List every difference between two JSON values; arrays are aligned, so an inserted element is
    one change, not a cascade of shifted ones. `b_loc`: where B's value is, when not at `loc`."""
    at_b = loc if b_loc is None else b_loc
    if isinstance(a, dict) and isinstance(b, dict):
        out: list[Change] = []
        for key in a:
            if key in b:
                out += changes(a[key], b[key], (*loc, key), (*at_b, key))
            else:
                out.append(Change((*loc, key), "removed", old=a[key]))
        out += [Change((*at_b, k), "added", new=b[k]) for k in b if k not in a]
        return out
    if isinstance(a, list) and isinstance(b, list):
        return _list_changes(a, b, loc, at_b)
    if canon(a) == canon(b):
        return []
    return [Change(loc, "changed", a, b, b_loc=None if at_b == loc else at_b)]


def _list_changes(a: list[Any], b: list[Any], loc: Loc, b_loc: Loc) -> list[Change]:
    matcher = SequenceMatcher(None, [canon(x) for x in a], [canon(x) for x in b], autojunk=False)
    out: list[Change] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            out += _replaced(a, b, range(i1, i2), range(j1, j2), loc, b_loc)
    return out


def _replaced(
    a: list[Any], b: list[Any], ia: range, jb: range, loc: Loc, b_loc: Loc
) -> list[Change]:
    """Compare elements that differ: those of one shape (a text block and a text block) are compared
    field by field, the others are removed or added whole."""
    shapes = SequenceMatcher(
        None, [_shape(a[i]) for i in ia], [_shape(b[j]) for j in jb], autojunk=False
    )
    out: list[Change] = []
    for tag, i1, i2, j1, j2 in shapes.get_opcodes():
        paired = i2 - i1 if tag in ("equal", "replace") and i2 - i1 == j2 - j1 else 0
        for k in range(paired):
            i, j = ia[i1 + k], jb[j1 + k]
            out += changes(a[i], b[j], (*loc, i), (*b_loc, j))
        out += [Change((*loc, ia[i]), "removed", old=a[ia[i]]) for i in range(i1 + paired, i2)]
        out += [Change((*b_loc, jb[j]), "added", new=b[jb[j]]) for j in range(j1 + paired, j2)]
    return out


def _shape(value: Any) -> str:
    """Name the kind of element a value is: a block's type, a message's role, or its keys."""
    if isinstance(value, dict):
        for key in ("type", "role"):
            if isinstance(value.get(key), str):
                return f"{key}:{value[key]}"
        return "keys:" + ",".join(sorted(value))
    return type(value).__name__


def segments(old: str, new: str) -> list[tuple[str, str]]:
    """Diff two strings: ("=", kept), ("-", removed), ("+", added), in order (character-wise, so
    Chinese text, which has no spaces, diffs as well as English)."""
    out: list[tuple[str, str]] = []
    matcher = SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            out.append(("=", old[i1:i2]))
            continue
        if i2 > i1:
            out.append(("-", old[i1:i2]))
        if j2 > j1:
            out.append(("+", new[j1:j2]))
    return out


def where(doc: Any, loc: Loc) -> str:
    """Say the element of an internal document that `loc` falls in, in words, and the rest of the
    path: `message 1 (assistant) › call call_1 (get_weather) › input.city`."""
    parts: list[str] = []
    node, rest_from = doc, 0
    for i, seg in enumerate(loc):
        ok, node = child(node, seg)
        if not ok:
            break
        here = loc[: i + 1]
        said = _describe(here, node)
        if said:
            parts.append(said)
            rest_from = i + 1
    if not parts:
        return ""
    rest = path_str(loc[rest_from:])[1:].lstrip(".")
    return Joined(parts + ([rest] if rest else []), " › ")


def _describe(loc: Loc, node: Any) -> str | None:
    if not isinstance(node, dict) or not isinstance(loc[-1], int):
        return None
    if loc[:1] == ("messages",) and len(loc) == 2:
        return Msg("message {n} ({role})", n=loc[1], role=str(node.get("role")))
    if loc[:1] == ("tools",) and len(loc) == 2:
        return Msg("tool {name}", name=str(node.get("name")))
    kind = node.get("type")
    if kind == "tool_use":
        return Msg("call {id} ({name})", id=str(node.get("id")), name=str(node.get("name")))
    if kind == "tool_result":
        return Msg("result for {id}", id=str(node.get("tool_use_id")))
    return Msg("{kind} block", kind=kind) if isinstance(kind, str) else None


def described_changes(a: Any, b: Any) -> list[Change]:
    """List every difference between two internal documents, each with the element it falls in."""
    out = []
    for c in changes(a, b):
        said = where(b if c.kind == "added" else a, c.loc)
        out.append(Change(c.loc, c.kind, c.old, c.new, said, c.b_loc))
    return out


def kind_said(kind: str) -> str:
    """Say a document's kind (`request`, `response`, `messages`: --json's values) in words."""
    if kind == "request":
        return Msg("request")
    if kind == "response":
        return Msg("response")
    return Msg("messages") if kind == "messages" else kind
