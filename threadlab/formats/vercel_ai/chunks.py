"""UI message stream chunks, parsed with pydantic-ai's own models (``response_types``).

pydantic-ai ported the chunk types from ai@6.0.57 and forbids unknown keys; real streams carry
newer keys (``toolMetadata``, ``inputEncoding``, v7's ``citations``) and newer chunk types. So each
model is used through a subclass that keeps unknown keys (``model_extra``) instead of failing, and
the v7 additions get small models of the same style. A chunk whose ``type`` nobody knows is not
an error: the reader keeps it as a ``system.unknown_chunk`` action."""

from __future__ import annotations

from functools import cache
from typing import Any, Literal

from pydantic import ConfigDict

from threadlab.formats.vercel_ai.pai_models import response_types as rt

BaseChunk = rt.BaseChunk
ProviderMetadata = rt.ProviderMetadata


def keep_extra(cls: type[Any]) -> type[Any]:
    """A subclass of a pydantic-ai Vercel model that keeps unknown keys instead of rejecting them."""
    config = ConfigDict(**{**cls.model_config, "extra": "allow"})  # type: ignore[typeddict-item]
    return type(cls.__name__, (cls,), {"model_config": config, "__module__": __name__, "__doc__": cls.__doc__})


# --- v7 additions (ai@7.0.173 runtime schema), in pydantic-ai's style -------------------------


class ToolApprovalResponseChunk(BaseChunk):
    """v7: the user's answer to an approval request, streamed back."""

    type: Literal["tool-approval-response"] = "tool-approval-response"
    approval_id: str
    approved: bool
    reason: str | None = None
    provider_executed: bool | None = None
    provider_metadata: ProviderMetadata | None = None


class CustomChunk(BaseChunk):
    """v7: a provider-specific event, ``kind`` is ``<namespace>.<name>``."""

    type: Literal["custom"] = "custom"
    kind: str
    provider_metadata: ProviderMetadata | None = None


class ReasoningFileChunk(BaseChunk):
    """v7: a file produced while reasoning."""

    type: Literal["reasoning-file"] = "reasoning-file"
    url: str
    media_type: str
    provider_metadata: ProviderMetadata | None = None


class SteeringMessageChunk(BaseChunk):
    """v7: a user message injected while the assistant is answering (text and file parts)."""

    type: Literal["steering-message"] = "steering-message"
    id: str
    parts: list[dict[str, Any]]


class ResetStepChunk(BaseChunk):
    """v7: the current step is being retried; the client drops its parts."""

    type: Literal["reset-step"] = "reset-step"


class FinishChunk(rt.FinishChunk):
    """``finish`` with any finish reason (v7 adds ``interrupted``; later versions may add more)."""

    finish_reason: str | None = None  # type: ignore[assignment]


class ToolApprovalRequestChunk(rt.ToolApprovalRequestChunk):
    """``tool-approval-request`` (late 6.x/v7 add ``approvalDescriptor``, ``reason`` ..., kept as extras)."""


_PYDANTIC_AI_CHUNKS: tuple[type[Any], ...] = (
    rt.TextStartChunk,
    rt.TextDeltaChunk,
    rt.TextEndChunk,
    rt.ReasoningStartChunk,
    rt.ReasoningDeltaChunk,
    rt.ReasoningEndChunk,
    rt.ErrorChunk,
    rt.ToolInputStartChunk,
    rt.ToolInputDeltaChunk,
    rt.ToolInputAvailableChunk,
    rt.ToolInputErrorChunk,
    rt.ToolOutputAvailableChunk,
    rt.ToolOutputErrorChunk,
    ToolApprovalRequestChunk,
    rt.ToolOutputDeniedChunk,
    rt.SourceUrlChunk,
    rt.SourceDocumentChunk,
    rt.FileChunk,
    rt.StartStepChunk,
    rt.FinishStepChunk,
    rt.StartChunk,
    FinishChunk,
    rt.AbortChunk,
    rt.MessageMetadataChunk,
)
_V7_CHUNKS: tuple[type[Any], ...] = (
    ToolApprovalResponseChunk,
    CustomChunk,
    ReasoningFileChunk,
    SteeringMessageChunk,
    ResetStepChunk,
)


_MODELS: dict[str, type[Any]] = {cls.model_fields["type"].default: cls for cls in (*_PYDANTIC_AI_CHUNKS, *_V7_CHUNKS)}


@cache
def _extra_keeping(kind: str) -> type[Any]:
    """The extra-keeping model of one chunk ``type`` (``data`` for every ``data-*``), made on
    first use: a stream pays only for the chunk types it holds."""
    return keep_extra(rt.DataChunk if kind == "data" else _MODELS[kind])


def chunk_models() -> dict[str, type[Any]]:
    """chunk ``type`` → the (extra-keeping) model that parses it."""
    return {kind: _extra_keeping(kind) for kind in _MODELS}


def chunk_model(kind: Any) -> type[Any] | None:
    """The model for a chunk ``type``, or None for a type no SDK version we know emits."""
    if not isinstance(kind, str):
        return None
    if kind.startswith("data-"):
        return _extra_keeping("data")
    return _extra_keeping(kind) if kind in _MODELS else None


def extra_of(chunk: Any) -> dict[str, Any]:
    """The keys of a chunk no model declares (kept so nothing is lost)."""
    return dict(chunk.model_extra) if chunk.model_extra else {}
