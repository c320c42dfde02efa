"""Escaping and previews: every text a widget shows goes through here.

Message text is data, never markup: ``esc`` turns ``<script>`` into ``&lt;script&gt;`` before it
reaches HTML, plotly hover labels or legends; ``safe_url`` lets only http(s), mailto and inline
image data become links, so a ``javascript:`` URL is shown as text."""

from __future__ import annotations

import html
import re
from typing import Any

import orjson

_SPACE = re.compile(r"\s+")
_SAFE_SCHEMES = ("http://", "https://", "mailto:")
_SAFE_DATA = re.compile(r"^data:(image|audio|video)/[a-z0-9.+-]+;base64,[a-z0-9+/=\s]*$", re.IGNORECASE)


def esc(value: Any) -> str:
    """HTML-escape any value (None → empty string). A double quote becomes ``&#34;``, not
    ``&quot;``: plotly.js decodes numeric entities in its labels but not ``&quot;``."""
    if value is None:
        return ""
    try:
        import pandas as pd

        if value is pd.NA:
            return ""
    except ImportError:  # pragma: no cover - pandas is a dependency
        pass
    return html.escape(str(value), quote=True).replace("&quot;", "&#34;")


def as_text(value: Any) -> str:
    """Any content as plain text: strings as they are, structures as compact JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS | orjson.OPT_INDENT_2, default=str).decode()
    except TypeError:
        return str(value)


# A message is shown up to TEXT_HEAD characters, then under "show more" up to TEXT_MAX; what is
# beyond is named, not drawn (a 100 MB tool result must not become hundreds of MB of HTML).
TEXT_HEAD = 10_000
TEXT_MAX = 200_000


def capped(text: str, tag: str = "div", cls: str = "tl-text", title: str | None = None) -> str:
    """``text`` escaped inside ``<tag class=cls>``, at most ``TEXT_HEAD`` characters shown and
    ``TEXT_MAX`` written: the rest of the first ``TEXT_MAX`` under a "show more" fold, the
    number of characters beyond it said (the thread holds them all)."""
    attrs = (f' class="{cls}"' if cls else "") + (f' title="{esc(title)}"' if title else "")
    if len(text) <= TEXT_HEAD:
        return f"<{tag}{attrs}>{esc(text)}</{tag}>"
    beyond = len(text) - TEXT_MAX
    rest = f"<{tag}{attrs}>{esc(text[TEXT_HEAD:TEXT_MAX])}</{tag}>"
    if beyond > 0:
        rest += f'<div class="tl-note">… {beyond:,} more characters not shown (the thread holds the whole text)</div>'
    summary = f"show more ({len(text) - TEXT_HEAD:,} more characters)"
    return f'<{tag}{attrs}>{esc(text[:TEXT_HEAD])}</{tag}><details class="tl-more"><summary>{summary}</summary>{rest}</details>'


def shorten(text: Any, limit: int = 160) -> str:
    """One line, at most ``limit`` characters (ellipsis when cut); NOT escaped."""
    flat = _SPACE.sub(" ", as_text(text)).strip()
    return flat if len(flat) <= limit else flat[: max(limit - 1, 0)] + "…"


def preview(text: Any, limit: int = 160) -> str:
    """An escaped one-line preview, safe inside HTML and plotly labels."""
    return esc(shorten(text, limit))


def safe_url(url: Any) -> str | None:
    """The URL when it may become a link or an image source, else None (javascript:, vbscript:,
    data: other than inline media, relative tricks)."""
    if not isinstance(url, str):
        return None
    candidate = url.strip()
    lowered = candidate.lower()
    if lowered.startswith(_SAFE_SCHEMES) and not any(c in candidate for c in "\"'<>\\ \n\t"):
        return candidate
    if _SAFE_DATA.match(candidate):
        return candidate
    return None


def arrow_strings(series: Any) -> Any:
    """A pandas column as a pyarrow string array, missing values as ''."""
    import pyarrow as pa
    import pyarrow.compute as pc

    values = pa.array(series.astype(object).to_numpy(), from_pandas=True)
    return pc.fill_null(pc.cast(values, pa.string()), "")


def esc_arrow(values: Any) -> Any:
    """``esc`` over a pyarrow string array, vectorised (the replacements html.escape makes)."""
    import pyarrow.compute as pc

    for char, entity in (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ('"', "&#34;"), ("'", "&#x27;")):
        values = pc.replace_substring(values, char, entity)
    return values


def clip_arrow(values: Any, limit: int) -> Any:
    """One escaped line of at most ``limit`` characters per value (pyarrow, vectorised)."""
    import pyarrow.compute as pc

    flat = pc.utf8_slice_codeunits(pc.replace_substring_regex(values, r"\s+", " "), 0, limit)
    return esc_arrow(flat)


def distinct_names(names: dict[Any, Any]) -> dict[Any, str]:
    """Each id's name, told apart where two ids share one (two Claude Code sub-agents both
    "general-purpose: Count files"): those get `` · `` and the shortest start of their id, four
    characters or more, that no other id of that name starts with. A missing name is the id."""
    import pandas as pd

    plain = {key: str(key) if name is None or pd.isna(name) else str(name) for key, name in names.items()}
    by_name: dict[str, list[Any]] = {}
    for key, name in plain.items():
        by_name.setdefault(name, []).append(key)
    out = dict(plain)
    for name, keys in by_name.items():
        if len(keys) < 2:
            continue
        ids = [str(k) for k in keys]
        for key, ident in zip(keys, ids, strict=True):
            n = min(4, len(ident))
            while n < len(ident) and any(other != ident and other.startswith(ident[:n]) for other in ids):
                n += 1
            out[key] = f"{name} · {ident[:n]}"
    return out


def fit_label(text: Any, chars: int, lines: int = 2) -> list[str]:
    """``text`` on at most ``lines`` lines of at most ``chars`` characters, broken between words
    (NOT escaped). What does not fit is cut in the middle with "…", keeping the end after a
    `` · `` (the id ``distinct_names`` adds to tell two names apart)."""
    flat = shorten(text, 100_000)
    wrapped = _wrap(flat, chars)
    if lines >= 2 and len(wrapped) == 2 and all(len(line) <= chars for line in wrapped):  # two lines of about equal length
        words = flat.split(" ")
        splits = [(" ".join(words[:i]), " ".join(words[i:])) for i in range(1, len(words))]
        return list(min((pair for pair in splits if max(map(len, pair)) <= chars), key=lambda pair: max(map(len, pair))))
    if len(wrapped) <= lines and all(len(line) <= chars for line in wrapped):
        return wrapped
    head, sep, tail = flat.rpartition(" · ")
    keep = f" · {tail}" if sep and len(tail) + 3 <= chars // 2 else ""
    budget = chars * lines - len(keep) - lines  # a line may end short of ``chars`` where a word did not fit
    cut = shorten(head if keep else flat, max(budget, 1)) + keep
    wrapped = _wrap(cut, chars)
    if len(wrapped) > lines or any(len(line) > chars for line in wrapped):  # words longer than a line: cut anywhere
        wrapped = [cut[i:i + chars] for i in range(0, len(cut), chars)][:lines]
    return wrapped


def _wrap(text: str, chars: int) -> list[str]:
    out = [""]
    for word in text.split(" "):
        joined = f"{out[-1]} {word}" if out[-1] else word
        if len(joined) <= chars or not out[-1]:
            out[-1] = joined
        else:
            out.append(word)
    return out
