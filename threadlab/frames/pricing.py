"""Cost in USD from genai-prices' bundled price data (offline: never fetches updates).

genai-prices prices one usage at a time (about half a millisecond each), too slow for a million
usage rows. Its prices are per-token rates, with "cliff" tiers chosen by the input token count
(a tier applies to every token once input exceeds its start). So within one tier the price is
an affine function of the token counts: we ask genai-prices for a few points per (model,
provider, tier), derive the rates, and price whole columns with numpy."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

_PRICED_KEYS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")


@dataclass(frozen=True, slots=True)
class TierRates:
    """USD = base + sum(rate * tokens) for input up to ``upto`` tokens (None: no limit)."""

    upto: int | None
    base: float
    input: float
    output: float
    cache_read: float
    cache_write: float


def _calc(model: str, provider: str | None, inp: int, out: int = 0, cache_read: int = 0, cache_write: int = 0) -> Any:
    from genai_prices import Usage, calc_price

    usage = Usage(input_tokens=inp, output_tokens=out, cache_read_tokens=cache_read, cache_write_tokens=cache_write)
    return calc_price(usage, model_ref=model, provider_id=provider)


def _tier_starts(model_price: Any) -> list[int]:
    from genai_prices.types import TieredPrices

    starts = {tier.start for value in vars(model_price).values() if isinstance(value, TieredPrices) for tier in value.tiers}
    return sorted(starts)


@lru_cache(maxsize=1024)
def model_rates(model: str, provider: str | None) -> tuple[TierRates, ...] | None:
    """The rates of ``model`` (at ``provider`` when given and known), one entry per input
    tier, or None when genai-prices does not know the model."""
    try:
        first = _calc(model, provider, 1000)
    except (LookupError, ValueError):
        if provider is None:
            return None
        return model_rates(model, None)
    starts = _tier_starts(first.model_price)
    tiers = []
    bounds = [*starts, None]
    low = 0
    for upto in bounds:
        high = upto if upto is not None else low + 1_000_000
        a, b = (low, high) if high > low else (high, high)
        price = float(_calc(model, provider, b).total_price)
        rate_in = (price - float(_calc(model, provider, a).total_price)) / (b - a) if b > a else 0.0
        per = max(b, 1)
        tiers.append(
            TierRates(
                upto=upto,
                base=price - rate_in * b,
                input=rate_in,
                output=(float(_calc(model, provider, b, out=per).total_price) - price) / per,
                cache_read=(float(_calc(model, provider, b, cache_read=per).total_price) - price) / per,
                cache_write=(float(_calc(model, provider, b, cache_write=per).total_price) - price) / per,
            )
        )
        low = (upto or 0) + 1
    return tuple(tiers)


def price_columns(models: Sequence[Any], providers: Sequence[Any], tokens: dict[str, np.ndarray]) -> np.ndarray:
    """Cost of every usage row (NaN where the model is unknown). ``tokens`` holds float arrays
    (NaN = not reported, priced as 0) under ``input_tokens``, ``output_tokens``,
    ``cache_read_tokens`` and ``cache_write_tokens``."""
    n = len(models)
    cost = np.full(n, np.nan)
    if n == 0:
        return cost
    counts = {k: np.nan_to_num(np.asarray(tokens[k], dtype=float), nan=0.0) for k in _PRICED_KEYS}
    groups: dict[tuple[Any, Any], list[int]] = {}
    for i, key in enumerate(zip(models, providers, strict=True)):
        groups.setdefault(key, []).append(i)
    for (model, provider), rows in groups.items():
        if not isinstance(model, str) or not model:
            continue
        rates = model_rates(model, provider if isinstance(provider, str) and provider else None)
        if rates is None:
            continue
        idx = np.asarray(rows)
        inp = counts["input_tokens"][idx]
        tier = np.searchsorted(np.array([r.upto for r in rates[:-1]], dtype=float), inp, side="left")
        for t, r in enumerate(rates):
            sel = idx[tier == t]
            if len(sel):
                cost[sel] = (
                    r.base
                    + r.input * counts["input_tokens"][sel]
                    + r.output * counts["output_tokens"][sel]
                    + r.cache_read * counts["cache_read_tokens"][sel]
                    + r.cache_write * counts["cache_write_tokens"][sel]
                )
    return cost


def cost_usd(model: Any, provider: Any, tokens: dict[str, int | None]) -> float | None:
    """Price of one model response, or None when the model is unknown to genai-prices.

    ``input_tokens`` counts every input token, cached ones included (pydantic-ai's and
    genai-prices' convention)."""
    arrays = {k: np.array([tokens.get(k) or 0], dtype=float) for k in _PRICED_KEYS}
    value = float(price_columns([model], [provider], arrays)[0])
    return None if np.isnan(value) else value
