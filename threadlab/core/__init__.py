"""threadlab.core: the canonical ThreadProtocol model and what derives from it.

No pandas, no ipywidgets here: converters built on the core stay usable in a server."""

from threadlab.core.account import Account
from threadlab.core.builder import ThreadBuilder
from threadlab.core.canonical import dumps, model_to_dict, write
from threadlab.core.derive import (
    ToolPair,
    actions_of_agent,
    iter_text,
    pending_tool_calls,
    tool_call_owner,
    tool_pairs,
)
from threadlab.core.loss import WriteLoss, report_loss
from threadlab.core.model import (
    CORE_ACTION_TYPES,
    PROTOCOL_VERSION,
    Action,
    AgentConfig,
    AssistantMessage,
    Attachment,
    BaseAction,
    ImagePart,
    InvalidAction,
    MediaPart,
    SystemAction,
    TextPart,
    Thinking,
    Thread,
    ToolCall,
    ToolReturn,
    UnknownAction,
    UnknownPart,
    Usage,
    UserMessage,
)
from threadlab.core.problems import RULES, VALIDATION_RULES, Problem, ThreadError
from threadlab.core.timefmt import format_timestamp, parse_timestamp
from threadlab.core.validate import validate, validate_dict

__all__ = [
    "CORE_ACTION_TYPES",
    "PROTOCOL_VERSION",
    "RULES",
    "VALIDATION_RULES",
    "Account",
    "Action",
    "AgentConfig",
    "AssistantMessage",
    "Attachment",
    "BaseAction",
    "ImagePart",
    "InvalidAction",
    "MediaPart",
    "Problem",
    "SystemAction",
    "TextPart",
    "Thinking",
    "Thread",
    "ThreadBuilder",
    "ThreadError",
    "ToolCall",
    "ToolPair",
    "ToolReturn",
    "UnknownAction",
    "UnknownPart",
    "Usage",
    "UserMessage",
    "WriteLoss",
    "actions_of_agent",
    "dumps",
    "format_timestamp",
    "iter_text",
    "model_to_dict",
    "parse_timestamp",
    "pending_tool_calls",
    "report_loss",
    "tool_call_owner",
    "tool_pairs",
    "validate",
    "validate_dict",
    "write",
]
