"""How the demo model reads: the question, and what a tool definition says.

No language understanding, only rules a learner can follow: a small bilingual list of topics
(weather, orders, refunds, ...), the words of the question found again in a tool's name and
description, the numbers, quoted text and ID-like tokens in the question, and the cities of the
demo world. All of it is deterministic, so the same question reads the same way every time.
"""

from __future__ import annotations

import re
from itertools import groupby
from typing import Any, NamedTuple

from fccli.core import cities


def has_cjk(text: str) -> bool:
    """Whether `text` holds a CJK ideograph. Not a regex: a class of ideographs is slow to compile."""
    return any("\u4e00" <= c <= "\u9fff" for c in text)


def _is_cjk(char: str) -> bool:
    return "\u4e00" <= char <= "\u9fff"


TOPICS: dict[str, tuple[str, ...]] = {
    # A city of the demo world is weather too (cities are what its weather table knows).
    "weather": (
        "weather",
        "天气",
        "气温",
        "温度",
        "temperature",
        "forecast",
        "空气质量",
        "下雨",
        "雨",
        "伞",
        "umbrella",
        "rain",
        "晴",
        "sunny",
        "跑步",
        "run",
        "出门",
        "冷不冷",
        "热不热",
    ),
    "order": ("订单", "单号", "查单", "order", "ORD-"),
    "shipping": (
        "物流",
        "快递",
        "发货",
        "到哪",
        "送达",
        "shipping",
        "delivery",
        "package",
        "logistics",
    ),
    "refund": ("退款", "退钱", "refund", "money back"),
    "billing": ("账单", "扣费", "扣款", "发票", "付款", "billing", "invoice", "charge", "payment"),
    "technical": ("报错", "崩溃", "打不开", "bug", "error", "crash", "登录", "login", "technical"),
    "classify": ("分类", "类别", "归类", "classify", "category", "categorize", "label"),
    "ticket": ("工单", "投诉", "ticket", "complaint"),
    "search": ("搜索", "查找", "search", "look up"),
    "file": ("文件", "路径", "file", "path"),
    "email": ("邮件", "email", "mail"),
    "time": ("几点", "时间", "time", "date", "日期"),
    "math": ("计算", "等于", "多少钱", "calculate", "sum", "plus"),
    "currency": (
        "汇率",
        "换成",
        "兑换",
        "美元",
        "人民币",
        "欧元",
        "日元",
        "currency",
        "exchange",
        "convert",
    ),
}
"""Words that name a topic, in either language; matched case-insensitively."""

WET = ("雨", "雪", "雷", "rain", "snow", "storm", "shower", "thunder")
"""Conditions that mean rain or snow: an umbrella, and no run."""

# What a question about the weather wants to know, by the words it uses (answers follow it).
WEATHER_ASPECTS = (
    ("umbrella", ("伞", "下雨", "雨", "umbrella", "rain")),
    ("run", ("跑步", "跑", "run", "jog")),
)

_ID_TOKEN = re.compile(r"(?<![A-Za-z0-9_-])[A-Za-z]{1,10}[-_]?\d[A-Za-z0-9_-]*(?![A-Za-z0-9_-])")
_NUMBER = re.compile(r"(?<![A-Za-z0-9_.-])(\d+(?:,\d{3})*(?:\.\d+)?)")
_ZH_DIGITS = {
    "零": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
_ZH_UNITS = {"十": 10, "百": 100, "千": 1000, "万": 10000}
_ZH_NUMBER = re.compile(r"[零一二两三四五六七八九十百千万]+(?=[个件天次元块本张位条份年月周小])")
_QUOTED = re.compile(r"[「“\"'‘《]([^」”\"'’》]{1,200})[」”\"'’》]")
# "巴黎今天适合跑步吗" -> 巴黎: a place-like head before a time or weather word.
# As text, compiled by `re` when first used: only a question naming no known city needs it.
_ZH_PLACE = r"^([\u4e00-\u9fff]{2,8}?)(?:今天|明天|现在|今日|的天气|天气)"
_EN_PLACE = r"\b(?:in|at|for)\s+([A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)"
_WORD = re.compile(r"[A-Za-z]{3,}")
_STOP = frozenset(
    [
        "the",
        "and",
        "for",
        "with",
        "that",
        "this",
        "from",
        "what",
        "when",
        "your",
        "you",
        "are",
        "get",
        "set",
        "list",
        "use",
        "can",
        "does",
        "into",
        "about",
        "which",
        "have",
        "has",
        "was",
    ]
)


# NamedTuples and plain classes, not dataclasses: start-up.


class Number(NamedTuple):
    value: float | int
    unit: str
    """The word right after it (元, 天, days, ...): what kind of quantity it is."""
    start: int


class Question:
    """What the demo finds in a question, once."""

    def __init__(self, text: str, language: str) -> None:
        self.text = text
        self.language = language
        self.topics: set[str] = set()
        self.places: list[dict[str, Any]] = []
        """Known cities, in order of appearance (table rows)."""
        self.place_word: str | None = None
        """A place-like word that is not a known city (巴黎)."""
        self.more_places: list[str] = []
        """Place-like words that are not known cities, listed with known ones (杭州和苏州: 苏州):
        each gets its call too, and its honest error."""
        self.numbers: list[Number] = []
        self.quoted: list[str] = []
        self.ids: list[str] = []
        self.aspect = "weather"
        """What a weather question wants to know: run, umbrella, or just weather."""
        self.compares = False
        """Whether it asks which of several is better (哪个更适合, which is better)."""

    def mentions(self, word: str) -> bool:
        return says(self.text, word)


def read_question(text: str) -> Question:
    q = Question(text=text, language="zh" if has_cjk(text) else "en")
    q.places = _places(text)
    q.more_places = _listed_with(text, q.places)
    if not q.places:
        stripped = text.strip()
        m = re.match(_ZH_PLACE, stripped) or re.search(_EN_PLACE, stripped)
        q.place_word = m.group(1) if m else None
    q.topics = topics_of(text)
    if q.places:
        q.topics.add("weather")
    q.ids = [m.group(0) for m in _ID_TOKEN.finditer(text) if not m.group(0).isdigit()]
    q.numbers = _numbers(text, q.ids)
    q.quoted = [m.group(1) for m in _QUOTED.finditer(text)]
    q.compares = any(q.mentions(w) for w in _COMPARING)
    q.aspect = next(
        (a for a, words in WEATHER_ASPECTS if any(q.mentions(w) for w in words)), "weather"
    )
    return q


def topics_of(text: str) -> set[str]:
    return {topic for topic, words in TOPICS.items() if any(says(text, w) for w in words)}


def says(text: str, word: str) -> bool:
    """Whether `text` has `word`: Chinese anywhere, English as a whole word ("run", not "runtime")."""
    if has_cjk(word) or not word[-1:].isalpha():
        return word.casefold() in text.casefold()
    # As `(?<![a-z])WORD(?:s|ning|ing)?(?![a-z])`, without compiling a pattern per word.
    w, t = word.casefold(), text.casefold()
    at = t.find(w)
    while at >= 0:
        if not _is_az(t[at - 1 : at]):
            end = at + len(w)
            for ending in _ENDINGS:
                after = end + len(ending)
                if t.startswith(ending, end) and not _is_az(t[after : after + 1]):
                    return True
        at = t.find(w, at + 1)
    return False


_ENDINGS = ("", "s", "ning", "ing")
"""What `says` lets follow an English word: run, runs, running; rain, raining."""


def _is_az(char: str) -> bool:
    return "a" <= char <= "z"  # False for "" (the start or the end of the text)


# The characters beyond ASCII that re's IGNORECASE takes for an ASCII letter (İ ı ſ K).
_ASCII_LOOKALIKES = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})


def _places(text: str) -> list[dict[str, Any]]:
    found: list[tuple[int, dict[str, Any]]] = []
    # A name the text cannot hold, even ignoring case, is not searched for: each search
    # compiles a pattern.
    folded = text.translate(_ASCII_LOOKALIKES).lower()
    for city in cities.cities():
        positions = [text.find(city["zh"])]
        for name in (city["en"], *city.get("aliases", [])):
            m = None
            if name.lower() in folded:
                m = re.search(rf"\b{re.escape(name)}\b", text, re.IGNORECASE)
            positions.append(m.start() if m else -1)
        seen = [p for p in positions if p >= 0]
        if seen:
            found.append((min(seen), city))
    return [city for _, city in sorted(found, key=lambda pc: pc[0])]


_AND = r"(?:和|与|跟|还是|或者|或|、)"
_COMPARING = ("哪个", "哪里", "哪儿", "哪座", "更适合", "which", "better")
_NOT_PLACES = frozenset({"今天", "明天", "现在", "哪个", "天气", "哪里", "这里", "那里", "我们"})


def _listed_with(text: str, places: list[dict[str, Any]]) -> list[str]:
    """Words listed beside a known city by 和、与、or (苏州 in 杭州和苏州), that are not one."""
    known = {c["zh"] for c in places} | {c["en"] for c in places}
    found: list[tuple[int, str]] = []
    for city in places:
        zh, en = re.escape(city["zh"]), re.escape(city["en"])
        patterns = (
            rf"{zh}{_AND}([\u4e00-\u9fff]{{2,3}}?)(?=哪|今天|明天|现在|的|天气|适合|更|呢|吗|{_AND}|[，。？?]|$)",
            rf"([\u4e00-\u9fff]{{2}}){_AND}(?={zh})",
            rf"\b{en}\s*(?:,|and|or|vs\.?)\s*([A-Z][a-z]+)\b",
            rf"\b([A-Z][a-z]+)\s*(?:,|and|or|vs\.?)\s*(?={en}\b)",
        )
        for pattern in patterns:
            for m in re.finditer(pattern, text):
                word = m.group(1)
                named = any(k in word for k in known) or cities.lookup(word) is not None
                if not named and word not in _NOT_PLACES:
                    found.append((m.start(1), word))
    return list(dict.fromkeys(word for _, word in sorted(found)))


def _numbers(text: str, ids: list[str]) -> list[Number]:
    masked = text
    for token in ids:  # the digits of ORD-2024-000123 are not amounts
        masked = masked.replace(token, " " * len(token))
    out = []
    for m in _NUMBER.finditer(masked):
        raw = m.group(1).replace(",", "")
        value: float | int = float(raw) if "." in raw else int(raw)
        out.append(Number(value, _unit_after(masked, m.end()), m.start()))
    for m in _ZH_NUMBER.finditer(masked):
        out.append(Number(zh_number(m.group(0)), _unit_after(masked, m.end()), m.start()))
    return sorted(out, key=lambda n: n.start)


def zh_number(text: str) -> int:
    """三 -> 3, 十二 -> 12, 两百五十 -> 250: the numerals people write in a question."""
    total, current = 0, 0
    for ch in text:
        if ch in _ZH_DIGITS:
            current = _ZH_DIGITS[ch]
        elif ch in _ZH_UNITS:
            unit = _ZH_UNITS[ch]
            if unit == 10000:
                total = (total + current) * unit
            else:
                total += (current or 1) * unit
            current = 0
    return total + current


_UNIT_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz%$¥")


def _unit_after(text: str, end: int) -> str:
    """The ideograph, or the run of letters (and %$¥), right after a number. Not a regex, for
    the reason has_cjk gives."""
    rest = text[end : end + 12].lstrip()
    if rest and _is_cjk(rest[0]):
        return rest[0].casefold()
    n = 0
    while n < len(rest) and (rest[n] in _UNIT_CHARS):
        n += 1
    return rest[:n].casefold()


# ---------------------------------------------------------------------------------------------
# what a tool definition says


def words_of(text: str) -> set[str]:
    """The pieces two texts are compared by: Chinese character pairs, and English words
    (a name's parts too: get_order -> get, order)."""
    text = re.sub(r"([a-z])([A-Z])", r"\1 \2", text).replace("_", " ").casefold()
    pieces = {w for w in _WORD.findall(text) if w not in _STOP}
    for cjk, chars in groupby(text, _is_cjk):  # runs of ideographs (has_cjk: not a regex)
        if cjk:
            run = "".join(chars)
            pieces.update(run[i : i + 2] for i in range(len(run) - 1))
    return pieces


class Match(NamedTuple):
    score: int
    shared: tuple[str, ...]
    """The topics or words the question and the text have in common: the reason, to say."""


def match(question: Question, text: str) -> Match:
    """How well a tool's name or description fits the question: shared topics count most."""
    if not text:
        return Match(0, ())
    topics = sorted(question.topics & topics_of(text))
    words = sorted(words_of(question.text) & words_of(text))
    shared_words = [w for w in _topic_words(question, topics)] + words
    return Match(3 * len(topics) + len(words), tuple(dict.fromkeys(shared_words)))


def said_words(question: Question, shared: tuple[str, ...]) -> list[str]:
    """The shared pieces worth saying in the reasoning: words of the vocabulary whole, a token
    of the question whole (`ORD-` is said as `ORD-2024-000123`); a pair of characters cut out
    of two words (一个文件 -> 个文) is not a word, and is left out."""
    vocabulary = {w for words in TOPICS.values() for w in words}
    said = []
    for piece in shared:
        if piece.isascii():
            token = next(
                (t for t in question.text.split() if piece.casefold() in t.casefold()), piece
            )
            said.append(token.strip("，。？！,.?!"))
        elif piece in vocabulary:
            said.append(piece)
    return list(dict.fromkeys(said))


def _topic_words(question: Question, topics: list[str]) -> list[str]:
    """For each shared topic, the word of the question that named it (what the model saw)."""
    shown = []
    for topic in topics:
        word = next((w for w in TOPICS[topic] if question.mentions(w)), None)
        if word is None and topic == "weather" and question.places:
            word = question.places[0][question.language]
        if word is not None:
            shown.append(word)
    return shown
