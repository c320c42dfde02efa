"""Agent colours a reader can tell apart, and text a reader can read: the palette's pairwise
distance (CIEDE2000, computed here from the CIE formulas, not by threadlab), the colours of agents
drawn together, and every colour used for text against every background the widgets put text on
(the WCAG 2 contrast formula, also computed here)."""

from __future__ import annotations

import itertools
import math
import re

import pytest

from threadlab.widgets import colors
from threadlab.widgets.styles import CSS

AA = 4.5
MIN_PALETTE_DE = 15.0  # two agents' colours: plainly different side by side
MIN_RESERVED_DE = 14.0  # an agent's colour against error red, pending amber, the greys of user, tools, system, harness


def _lab(color: str) -> tuple[float, float, float]:
    """sRGB (D65) → CIELAB."""
    rgb = [int(color.lstrip("#")[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    xyz = (
        (0.4124564 * lin[0] + 0.3575761 * lin[1] + 0.1804375 * lin[2]) / 0.95047,
        0.2126729 * lin[0] + 0.7151522 * lin[1] + 0.0721750 * lin[2],
        (0.0193339 * lin[0] + 0.1191920 * lin[1] + 0.9503041 * lin[2]) / 1.08883,
    )
    fx, fy, fz = (t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116 for t in xyz)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def ciede2000(c1: str, c2: str) -> float:
    """CIEDE2000 colour difference (Sharma, Wu, Dalal 2005)."""
    (l1, a1, b1), (l2, a2, b2) = _lab(c1), _lab(c2)
    cbar = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(cbar**7 / (cbar**7 + 25**7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p, h2p = math.degrees(math.atan2(b1, a1p)) % 360, math.degrees(math.atan2(b2, a2p)) % 360
    dh = 0.0 if c1p * c2p == 0 else h2p - h1p - 360 * ((h2p - h1p) > 180) + 360 * ((h2p - h1p) < -180)
    dhp = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dh / 2))
    lbar, cbarp = (l1 + l2) / 2, (c1p + c2p) / 2
    if c1p * c2p == 0:
        hbar = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        hbar = (h1p + h2p) / 2
    else:
        hbar = (h1p + h2p + 360) / 2 if h1p + h2p < 360 else (h1p + h2p - 360) / 2
    t = (1 - 0.17 * math.cos(math.radians(hbar - 30)) + 0.24 * math.cos(math.radians(2 * hbar)) + 0.32 * math.cos(math.radians(3 * hbar + 6))
         - 0.20 * math.cos(math.radians(4 * hbar - 63)))
    sl = 1 + 0.015 * (lbar - 50) ** 2 / math.sqrt(20 + (lbar - 50) ** 2)
    sc, sh = 1 + 0.045 * cbarp, 1 + 0.015 * cbarp * t
    rt = -math.sin(math.radians(60 * math.exp(-(((hbar - 275) / 25) ** 2)))) * 2 * math.sqrt(cbarp**7 / (cbarp**7 + 25**7))
    dl, dc = l2 - l1, c2p - c1p
    return math.sqrt((dl / sl) ** 2 + (dc / sc) ** 2 + (dhp / sh) ** 2 + rt * (dc / sc) * (dhp / sh))


def wcag_contrast(a: str, b: str) -> float:
    def luminance(color: str) -> float:
        rgb = [int(color.lstrip("#")[i:i + 2], 16) / 255 for i in (0, 2, 4)]
        lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_the_colour_formulas_agree_with_published_values() -> None:
    assert ciede2000("#ff0000", "#ff0000") == 0
    assert ciede2000("#000000", "#ffffff") == pytest.approx(100, abs=0.01)
    assert wcag_contrast("#000000", "#ffffff") == pytest.approx(21)
    assert wcag_contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)  # the well-known just-failing grey


def test_every_two_palette_colours_are_far_apart_and_far_from_the_reserved_ones() -> None:
    close = [(a, b, round(ciede2000(a, b), 1)) for a, b in itertools.combinations(colors.AGENT_PALETTE, 2) if ciede2000(a, b) < MIN_PALETTE_DE]
    assert close == []
    reserved = (colors.ERROR_COLOR, colors.PENDING_COLOR, colors.ORPHAN_COLOR, colors.INTERRUPT_COLOR, colors.USER_COLOR, colors.TOOL_COLOR,
                colors.SYSTEM_COLOR, colors.HARNESS_COLOR)
    near = [(a, r, round(ciede2000(a, r), 1)) for a in colors.AGENT_PALETTE for r in reserved if ciede2000(a, r) < MIN_RESERVED_DE]
    assert near == []


def test_agents_drawn_together_never_share_a_colour() -> None:
    ids = [f"agent-{i}" for i in range(200)]
    by_hash: dict[str, list[str]] = {}
    for agent in ids:
        by_hash.setdefault(colors.agent_color(agent), []).append(agent)
    twins = next(group for group in by_hash.values() if len(group) >= 3)  # three agents one hash colour would paint alike
    together = colors.agent_colors(twins[:3])
    assert len(set(together.values())) == 3
    assert together[twins[0]] == colors.agent_color(twins[0])  # the first keeps its own colour
    dozen = colors.agent_colors(ids[: len(colors.AGENT_PALETTE)])
    assert sorted(dozen.values()) == sorted(colors.AGENT_PALETTE)  # as many agents as colours: all different
    assert colors.agent_colors(["solo"]) == {"solo": colors.agent_color("solo")}  # alone, an agent has its usual colour


def test_every_colour_used_for_text_reads_at_aa_on_every_background() -> None:
    texts = {f"agent {c}": colors.text_color(c) for c in colors.AGENT_PALETTE}
    texts |= {f"status {s}": colors.status_text_color(s) for s in (*colors.STATUS_COLORS, "unknown")}
    texts |= {name: colors.text_color(getattr(colors, name)) for name in ("USER_COLOR", "HARNESS_COLOR", "INTERRUPT_COLOR", "SYSTEM_COLOR")}
    texts["muted"] = colors.MUTED_TEXT
    failing = [(name, text, bg, round(wcag_contrast(text, bg), 2)) for name, text in texts.items() for bg in colors.TEXT_BACKGROUNDS
               if wcag_contrast(text, bg) < AA]
    assert failing == []
    badges = [(s, round(wcag_contrast("#ffffff", colors.status_text_color(s)), 2)) for s in colors.STATUS_COLORS
              if wcag_contrast("#ffffff", colors.status_text_color(s)) < AA]
    assert badges == []  # a status badge: white text on the status colour
    # darkened only as far as needed: a hue that already reads keeps its colour
    assert colors.text_color(colors.USER_COLOR) == colors.USER_COLOR


def test_every_text_colour_of_the_stylesheet_reads_at_aa() -> None:
    found = re.findall(r"(?<![-\w])color:#([0-9a-fA-F]{6}|[0-9a-fA-F]{3})\b", CSS)
    declared = {"#" + (c if len(c) == 6 else "".join(ch * 2 for ch in c)) for c in found} - {"#ffffff"}  # white: the badges' text, checked above
    assert declared, "the stylesheet names no text colour"
    failing = [(c, bg, round(wcag_contrast(c, bg), 2)) for c in declared for bg in colors.TEXT_BACKGROUNDS if wcag_contrast(c, bg) < AA]
    assert failing == []
