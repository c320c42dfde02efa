"""Cost in USD from genai-prices' bundled price data (offline: never fetches updates)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any


@lru_cache(maxsize=4096)
def _known(model: str, provider: str | None) -> bool:
    from genai_prices import Usage, calc_price

    try:
        calc_price(Usage(input_tokens=1), model_ref=model, provider_id=provider)
    except (LookupError, ValueError):
        return False
    return True


@lru_cache(maxsize=65536)
def _price(model: str, provider: str | None, inp: int, out: int, cache_read: int, cache_write: int) -> float | None:
    from genai_prices import Usage, calc_price

    usage = Usage(input_tokens=inp, output_tokens=out, cache_read_tokens=cache_read, cache_write_tokens=cache_write)
    try:
        return float(calc_price(usage, model_ref=model, provider_id=provider).total_price)
    except (LookupError, ValueError):
        return None


def cost_usd(model: Any, provider: Any, tokens: dict[str, int | None]) -> float | None:
    """Price of one model response, or None when the model is unknown to genai-prices.

    ``input_tokens`` counts every input token, cached ones included (pydantic-ai's and
    genai-prices' convention)."""
    if not isinstance(model, str) or not model:
        return None
    provider = provider if isinstance(provider, str) and provider else None
    if not _known(model, provider):
        if provider is None or not _known(model, None):
            return None
        provider = None
    return _price(
        model,
        provider,
        tokens.get("input_tokens") or 0,
        (tokens.get("output_tokens") or 0),
        tokens.get("cache_read_tokens") or 0,
        tokens.get("cache_write_tokens") or 0,
    )
