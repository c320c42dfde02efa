"""ThreadProtocol v1.0.0 (+ RC2 media content) as pydantic v2 models.

Every model keeps unknown fields (``extra="allow"``) so that a thread written by a newer
producer survives a read/write round trip unchanged.  Actions are a discriminated union on
``action_type``: the five core actions, ``system.*`` actions, and - so that nothing is lost -
an ``UnknownAction`` that holds any other action exactly as it came (validation reports it).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal, TypeAlias

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    PrivateAttr,
    Tag,
    TypeAdapter,
    ValidationInfo,
    field_validator,
)

from threadlab.core.timefmt import parse_timestamp

PROTOCOL_VERSION = "1.0.0"

CORE_ACTION_TYPES = ("user_message", "assistant_message", "thinking", "tool_call", "tool_return")
ToolStatus: TypeAlias = Literal["success", "error", "validation_error"]
FinishReason: TypeAlias = Literal["stop", "tool_call", "length", "content_filter"]


class ProtocolModel(BaseModel):
    """Base of every ThreadProtocol object: unknown fields are kept, names are the wire names."""

    model_config = ConfigDict(extra="allow", populate_by_name=True, validate_assignment=False)


Timestamp = Annotated[datetime, Field()]

# How ThreadProtocol JSON is validated (``Thread.model_validate(doc, **WIRE)``): as it came, so
# a value of the wrong type is a problem, never quietly changed. Strict types (a sequence of
# "2", 2.0 or true, a token count of "10", are errors, not 2, 2 and 1 and 10) and timestamps
# only as ISO 8601 text (not unix seconds). Converters build models in the default lax mode:
# they hand over Python values they made themselves.
WIRE: dict[str, Any] = {"strict": True, "context": {"wire": True}}


class _Timestamped(ProtocolModel):
    @field_validator("timestamp", "created_at", "updated_at", "resolved_at", mode="before", check_fields=False)
    @classmethod
    def _utc(cls, value: Any, info: ValidationInfo) -> Any:
        if value is None:
            return None
        if info.context and info.context.get("wire") and type(value) is not str:
            raise ValueError(f"a timestamp is ISO 8601 text, not {type(value).__name__}")
        return parse_timestamp(value)


# --- content -----------------------------------------------------------------------------


class TextPart(ProtocolModel):
    type: Literal["text"] = "text"
    text: str


class ImagePart(ProtocolModel):
    """The v1.0.0 image part (url or base64)."""

    type: Literal["image"] = "image"
    image_url: str | None = None
    image_base64: str | None = None
    media_type: str | None = None


MediaCategory: TypeAlias = Literal["image", "audio", "video", "document"]


class MediaPart(ProtocolModel):
    """RC2 media content: a file, image, audio or video given by URL or inline base64 data."""

    type: str = "file"
    content_type: Literal["url", "binary"]
    media_type: str
    media_category: MediaCategory
    url: str | None = None
    data: str | None = None
    identifier: str | None = None
    metadata: dict[str, Any] | None = None


class UnknownPart(ProtocolModel):
    """A content part of a type this version does not know; kept as it came."""

    type: str | None = None


def _part_tag(value: Any) -> str:
    if isinstance(value, dict):
        if "content_type" in value and "media_category" in value:
            return "media"
        kind = value.get("type")
    else:
        if isinstance(value, MediaPart):
            return "media"
        kind = getattr(value, "type", None)
    return kind if kind in ("text", "image") else "unknown"


ContentPart = Annotated[
    Annotated[TextPart, Tag("text")]
    | Annotated[ImagePart, Tag("image")]
    | Annotated[MediaPart, Tag("media")]
    | Annotated[UnknownPart, Tag("unknown")],
    Discriminator(_part_tag),
]
MessageContent: TypeAlias = str | list[ContentPart]


class Attachment(ProtocolModel):
    name: str
    url: str | None = None
    data: str | None = None
    media_type: str
    size_bytes: int | None = None


class Usage(ProtocolModel):
    """Token usage. The spec names input/output/total (and thinking on thinking actions);
    threadlab adds the cache counts most providers report."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None
    thinking_tokens: int | None = None
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None


# --- agents ------------------------------------------------------------------------------


class AgentConfig(_Timestamped):
    agent_id: str
    agent_identifier: str
    agent_name: str
    created_at: datetime
    config_ref: str | None = None
    metadata: dict[str, Any] | None = None


# --- actions -----------------------------------------------------------------------------


class BaseAction(_Timestamped):
    action_type: str
    action_id: str | None = None
    timestamp: datetime
    sequence: int
    metadata: dict[str, Any] | None = None

    @property
    def agent(self) -> str | None:
        """The agent this action belongs to (None for user messages and tool returns)."""
        return getattr(self, "agent_id", None)


class UserMessage(BaseAction):
    action_type: Literal["user_message"] = "user_message"
    content: MessageContent
    attachments: list[Attachment] | None = None


class AssistantMessage(BaseAction):
    action_type: Literal["assistant_message"] = "assistant_message"
    agent_id: str
    content: MessageContent
    finish_reason: FinishReason | None = None
    usage: Usage | None = None


class Thinking(BaseAction):
    action_type: Literal["thinking"] = "thinking"
    agent_id: str
    content: str | None = None
    signature: str | None = None
    provider_name: str
    thinking_id: str | None = None
    usage: Usage | None = None


class ToolCall(BaseAction):
    action_type: Literal["tool_call"] = "tool_call"
    agent_id: str
    tool_name: str
    tool_call_id: str
    args: Any = None


class ToolReturn(BaseAction):
    action_type: Literal["tool_return"] = "tool_return"
    tool_call_id: str
    tool_name: str
    status: ToolStatus = "success"
    content: Any = None


class SystemAction(BaseAction):
    """``system.<name>`` actions: agent joins, tool grants, config updates, tool resolutions and
    every converter-specific event. ``data`` is free-form."""

    data: Any = None

    @property
    def name(self) -> str:
        return self.action_type.removeprefix("system.")


class UnknownAction(BaseAction):
    """An action whose ``action_type`` is neither core nor ``system.*``: kept, and reported by
    ``validate`` under the ``action-type-name`` rule."""


def _action_tag(value: Any) -> str:
    kind = value.get("action_type") if isinstance(value, dict) else getattr(value, "action_type", None)
    if kind in CORE_ACTION_TYPES:
        return kind
    if isinstance(kind, str) and kind.startswith("system."):
        return "system"
    return "unknown"


Action = Annotated[
    Annotated[UserMessage, Tag("user_message")]
    | Annotated[AssistantMessage, Tag("assistant_message")]
    | Annotated[Thinking, Tag("thinking")]
    | Annotated[ToolCall, Tag("tool_call")]
    | Annotated[ToolReturn, Tag("tool_return")]
    | Annotated[SystemAction, Tag("system")]
    | Annotated[UnknownAction, Tag("unknown")],
    Discriminator(_action_tag),
]

ACTION_CLASSES: dict[str, type[BaseAction]] = {
    "user_message": UserMessage,
    "assistant_message": AssistantMessage,
    "thinking": Thinking,
    "tool_call": ToolCall,
    "tool_return": ToolReturn,
    "system": SystemAction,
    "unknown": UnknownAction,
}


action_adapter: TypeAdapter[Any] = TypeAdapter(Action)


class InvalidAction(ProtocolModel):
    """An action that breaks the schema, kept exactly as it came (lenient reading only)."""

    action_type: Any = None
    action_id: Any = None
    timestamp: Any = None
    sequence: Any = None

    @property
    def agent(self) -> str | None:
        value = (self.__pydantic_extra__ or {}).get("agent_id")
        return value if isinstance(value, str) else None


def action_class(action_type: str) -> type[BaseAction]:
    """The model class that holds actions of this ``action_type``."""
    return ACTION_CLASSES[_action_tag({"action_type": action_type})]


# --- thread ------------------------------------------------------------------------------


class Thread(_Timestamped):
    version: str = PROTOCOL_VERSION
    thread_id: str
    parent_thread_id: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    title: str = ""
    metadata: dict[str, Any] | None = None
    agents: dict[str, AgentConfig] = Field(default_factory=dict)
    actions: list[Action] = Field(default_factory=list)

    _problems: list[Any] = PrivateAttr(default_factory=list)
    _origin: tuple[str | None, str | None] = PrivateAttr(default=(None, None))
    _account: Any = PrivateAttr(default=None)

    @property
    def origin(self) -> tuple[str | None, str | None]:
        """(source name, format name) this thread was read from; not part of its JSON."""
        return self._origin

    @origin.setter
    def origin(self, value: tuple[str | None, str | None]) -> None:
        self._origin = value

    @property
    def problems(self) -> list[Any]:
        """Problems found when this thread was read leniently (empty when read strictly)."""
        return self._problems

    @problems.setter
    def problems(self, value: list[Any]) -> None:
        self._problems = list(value)

    @property
    def account(self) -> Any:
        """What became of the input records this thread was read from (``core.account.Account``:
        converted, kept, failed); None for a thread not read from an input. Not part of its JSON."""
        return self._account

    @account.setter
    def account(self, value: Any) -> None:
        self._account = value

    def agent_name(self, agent_id: str | None) -> str | None:
        if agent_id is None:
            return None
        agent = self.agents.get(agent_id)
        return agent.agent_name if agent else agent_id

    def to_dict(self) -> dict[str, Any]:
        """The canonical JSON object of this thread (key order as written)."""
        from threadlab.core.canonical import thread_to_dict

        return thread_to_dict(self)

    def _repr_html_(self) -> str:
        from threadlab.core.html import render_html

        return render_html(self)

    def __repr__(self) -> str:
        return (
            f"Thread(thread_id={self.thread_id!r}, title={self.title!r}, "
            f"agents={len(self.agents)}, actions={len(self.actions)})"
        )

    __str__ = __repr__  # print(thread) stays one line; the JSON is thread.to_dict() / dumps(thread)


def now_utc() -> datetime:
    return datetime.now(UTC)
