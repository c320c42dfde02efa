"""What the two generators in this folder share: Responses output items and an offline
``agents`` Model that answers from a script (no network, no API key)."""

from __future__ import annotations

import json
from typing import Any

from agents.items import ModelResponse
from agents.models.interface import Model
from agents.usage import Usage
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText


def text_item(msg_id: str, text: str) -> ResponseOutputMessage:
    return ResponseOutputMessage(
        id=msg_id, type="message", role="assistant", status="completed",
        content=[ResponseOutputText(type="output_text", text=text, annotations=[])],
    )


def call_item(call_id: str, name: str, args: dict[str, Any]) -> ResponseFunctionToolCall:
    return ResponseFunctionToolCall(id=f"fc_{call_id}", call_id=call_id, name=name, arguments=json.dumps(args), type="function_call", status="completed")


class ScriptedModel(Model):
    """Answers each request with ``respond(items)``: the output items and their usage."""

    def __init__(self, agent: str) -> None:
        self.agent = agent
        self.step = 0

    def respond(self, items: list[dict[str, Any]]) -> tuple[list[Any], Usage]:
        raise NotImplementedError

    async def get_response(self, system_instructions: Any, input: Any, model_settings: Any, tools: Any, output_schema: Any,
                           handoffs: Any, tracing: Any, *, previous_response_id: Any = None, conversation_id: Any = None,
                           prompt: Any = None) -> ModelResponse:
        self.step += 1
        items = input if isinstance(input, list) else [{"role": "user", "content": input}]
        output, usage = self.respond(items)
        return ModelResponse(output=output, usage=usage, response_id=f"resp_{self.agent.lower()}_{self.step}")

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("this script only uses get_response")
