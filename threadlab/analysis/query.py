"""A search query as the regular expressions that run it.

Matching runs in RE2 through pyarrow (``match_substring_regex``: about 0.2 s over 500 MB of
text, where Arrow's own substring search takes 1 s case-sensitive), so a plain query is its
escaped literal. A regular expression is written in Python's syntax and checked by Python's
``re`` first, which names the position of a mistake; RE2 then runs it, where ``\\w``, ``\\d``,
``\\s`` and ``\\b`` are ASCII-only. A pattern RE2 does not take (lookaround, backreferences)
runs in Python's ``re`` instead, row by row: the same answer, slower."""

from __future__ import annotations

import re
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc

CONTEXT = 40  # characters shown each side of a match
OPEN, CLOSE = "⟦", "⟧"  # around the match in a snippet
_SPECIAL = frozenset("\\.^$|?*+()[]{}-#&~")


@dataclass(frozen=True)
class Query:
    """``re2``: the pattern pyarrow runs (None: RE2 does not take it, ``python`` runs instead);
    ``snippet``: the pattern that captures a match with its context (named groups ``tl_before``,
    ``tl_match``, ``tl_after``); ``python``: the compiled pattern for the fallback."""

    text: str
    re2: str | None
    snippet: str | None
    python: re.Pattern[str]


def _literal(text: str) -> str:
    """``text`` as an RE2 literal: punctuation escaped, control characters as escapes."""
    out = []
    for ch in text:
        if ch in _SPECIAL:
            out.append("\\" + ch)
        elif ord(ch) < 32 or ord(ch) == 127:
            out.append(f"\\x{{{ord(ch):x}}}")
        else:
            out.append(ch)
    return "".join(out)


def _uncaptured(pattern: str) -> str:
    """``pattern`` with its capturing groups made non-capturing (``(`` and ``(?P<name>`` become
    ``(?:``), so the snippet's own named groups are the only ones (pyarrow's extract wants every
    group named). Escapes and character classes are left as they are."""
    out: list[str] = []
    i, n = 0, len(pattern)
    in_class = False
    while i < n:
        ch = pattern[i]
        if ch == "\\":
            out.append(pattern[i:i + 2])
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
            out.append(ch)
            i += 1
            continue
        if ch == "[":
            j = i + 1
            j += pattern[j:j + 1] == "^"
            j += pattern[j:j + 1] == "]"  # a ] first in a class is a literal
            out.append(pattern[i:j])
            in_class, i = True, j
            continue
        if ch == "(" and pattern.startswith("(?P<", i):
            out.append("(?:")
            i = pattern.index(">", i) + 1
            continue
        if ch == "(" and not pattern.startswith("(?", i):
            out.append("(?:")
            i += 1
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _re2_takes(pattern: str) -> bool:
    try:
        pc.match_substring_regex(pa.array([""]), pattern)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return False
    return True


def compile_query(query: str, *, regex: bool = False, case: bool = False) -> Query:
    """The patterns for ``query``; a bad regular expression is a ValueError naming the position
    (and an empty query, or a pattern that matches the empty text, one saying so)."""
    if not isinstance(query, str) or not query:
        raise ValueError("search for what? the query is empty")
    flags = 0 if case else re.IGNORECASE
    if regex:
        try:
            python = re.compile(query, flags)
        except re.error as error:
            where = f" at position {error.pos}" if error.pos is not None else ""
            raise ValueError(f"bad regular expression {query!r}{where}: {error.msg}") from None
        if python.fullmatch("") is not None:
            raise ValueError(f"the regular expression {query!r} matches the empty text, so it matches every text")
        body = query
    else:
        python = re.compile(re.escape(query), flags)
        body = _literal(query)
    prefix = "" if case else "(?i)"
    re2 = prefix + body
    if not _re2_takes(re2):
        return Query(query, None, None, python)
    inner = prefix + _uncaptured(body) if regex else re2
    snippet = (f"(?P<tl_before>(?s:.){{0,{CONTEXT + 1}}}?)(?P<tl_match>{inner})(?P<tl_after>(?s:.){{0,{CONTEXT + 1}}})")
    if not _re2_takes(snippet):  # (a flag group RE2 takes at the start but not inside a group)
        snippet = None
    return Query(query, re2, snippet, python)
