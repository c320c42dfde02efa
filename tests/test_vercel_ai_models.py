"""The AI SDK readers use pydantic-ai's Vercel models loaded without pydantic-ai's package code
(``formats/vercel_ai/pai_models.py``): they must be pydantic-ai's models exactly, and reading an AI
SDK stream or messages file must not import pydantic-ai."""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import BaseModel
from pydantic_ai.ui.vercel_ai import request_types, response_types

from threadlab.formats.vercel_ai import pai_models

DATA = Path(__file__).resolve().parents[1] / "data" / "vercel_ai"


def _models(module: object) -> dict[str, type[BaseModel]]:
    return {name: value for name, value in vars(module).items()
            if inspect.isclass(value) and issubclass(value, BaseModel) and value.__module__ == module.__name__}  # type: ignore[attr-defined]


@pytest.mark.parametrize(("ours", "theirs"), [(pai_models.request_types, request_types), (pai_models.response_types, response_types)])
def test_the_models_are_pydantic_ais(ours: object, theirs: object) -> None:
    mine, real = _models(ours), _models(theirs)
    assert len(real) > 10 and sorted(mine) == sorted(real)
    for name, model in real.items():
        if model.__abstractmethods__ if hasattr(model, "__abstractmethods__") else False:
            continue
        assert mine[name].model_json_schema(by_alias=True) == model.model_json_schema(by_alias=True), name
        # ours are built on first use (defer_build): how a model validates does not depend on it
        assert {**mine[name].model_config, "defer_build": False} == {**model.model_config, "defer_build": False}, name


def test_the_models_are_loaded_without_pydantic_ai() -> None:
    """In a fresh process the readers' models come from their own package, not pydantic-ai's."""
    code = ("import sys\nfrom threadlab.formats.vercel_ai import pai_models\n"
            "print(pai_models.response_types.__name__, 'pydantic_ai' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["threadlab.formats.vercel_ai._pydantic_ai_models.response_types", "False"]


def test_loading_ai_sdk_files_imports_no_pydantic_ai() -> None:
    """data/vercel_ai (streams and UI messages): read in full, no pydantic-ai import (0.6 s)."""
    code = (f"import sys, threadlab\nf = threadlab.load({str(DATA)!r}, progress=False)\n"
            "assert len(f.actions) > 20 and f.threads.shape[0] == 6, f\nprint('pydantic_ai' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
