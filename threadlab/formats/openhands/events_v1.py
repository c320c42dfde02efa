"""OpenHands V1 events (``openhands-sdk``) → one thread (see ``wire.py`` for the shapes).

``SystemPromptEvent`` → ``system.prompt`` (its ``tools`` in the metadata); ``MessageEvent`` → a
``user_message`` (role ``user``; source other than ``user``: the harness's) or the assistant's
``thinking`` (``reasoning_content``, ``thinking_blocks``) and ``assistant_message``;
``ActionEvent`` → its ``thinking``, its ``thought`` as an ``assistant_message`` and a ``tool_call``
(``tool_name``, ``tool_call_id``, the arguments the model sent: ``tool_call.arguments`` parsed,
else the parsed ``action``); ``ObservationEvent`` → that call's ``tool_return`` (``error`` when
``observation.is_error``); ``AgentErrorEvent`` and ``UserRejectObservation`` → an ``error`` return
of their call; ``Condensation`` / ``CondensationRequest`` / ``CondensationSummaryEvent`` →
``system.condensation``, ``ConversationStateUpdateEvent`` → ``system.state_update``, ``PauseEvent``
→ ``system.pause`` (the person's), ``ConversationErrorEvent`` → ``system.error``, all
``author: harness`` but the pause. Any other kind is kept as ``system.unknown_event``.

Usage: no event holds it; ``base_state.json``'s ``stats.usage_to_metrics.<usage id>.token_usages``
has one entry per model response (``response_id``), given to the first action of the event whose
``llm_response_id`` names it (``prompt_tokens`` counts cached input too). ``accumulated_token_usage``
is the thread's ``usage_total``, ``accumulated_cost`` (summed over usage ids) its cost.

Records: an event, and ``base_state.json`` itself when read."""

from __future__ import annotations

import json
from typing import Any

from threadlab.core.model import Usage
from threadlab.formats.common.counts import counts_as
from threadlab.formats.openhands.common import KEY, PROVIDER, EventReader, harness
from threadlab.formats.openhands.wire import is_v1_event, text_of

_USAGE = {"prompt_tokens": "input_tokens", "completion_tokens": "output_tokens", "cache_read_tokens": "cache_read_tokens", "cache_write_tokens": "cache_write_tokens", "reasoning_tokens": "thinking_tokens"}
_HARNESS = {"Condensation": ("system.condensation", "condensation"), "CondensationRequest": ("system.condensation", "condensation"),
            "CondensationSummaryEvent": ("system.condensation", "compaction_summary"), "ConversationStateUpdateEvent": ("system.state_update", "state_update"),
            "ConversationErrorEvent": ("system.error", "error"), "HookExecutionEvent": ("system.hook", "hook")}
_OWN = {"SystemPromptEvent": ("system_prompt",), "MessageEvent": ("llm_message",), "ActionEvent": ("thought", "reasoning_content", "thinking_blocks", "tool_call"),
        "ObservationEvent": ("observation",)}


class V1Reader(EventReader):
    def __init__(self, *args: Any, state: dict[str, Any] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.state = state or {}
        self.by_response: dict[str, dict[str, Any]] = {}
        self.model: str | None = None
        stats = self.state.get("stats") if type(self.state.get("stats")) is dict else {}
        metrics = stats.get("usage_to_metrics") if type(stats.get("usage_to_metrics")) is dict else {}
        self.metrics = [m for m in metrics.values() if type(m) is dict]
        for m in self.metrics:
            for usage in m.get("token_usages") or []:
                if type(usage) is dict and isinstance(usage.get("response_id"), str):
                    self.by_response[usage["response_id"]] = usage
            if isinstance(m.get("model_name"), str):
                self.model = self.model or m["model_name"]
        if self.model:  # the agent's model: its actions' (frames model_name, pricing)
            self.b.agent(self.b.agents[self.agent].agent_name, agent_id=self.agent, metadata={"model_name": self.model, "provider_name": PROVIDER})

    def is_event(self, value: Any) -> bool:
        return is_v1_event(value)

    def finish(self) -> None:
        self.totals()
        if isinstance(self.state.get("id"), str):
            self.b.thread_id = self.state["id"]
            self.b.metadata[KEY] = {k: v for k, v in self.state.items() if k not in ("stats", "secret_registry")}

    def event(self, e: dict[str, Any], index: int) -> None:
        kind, when = e["kind"], e.get("timestamp")
        meta = {KEY: {k: v for k, v in e.items() if k not in _OWN.get(kind, ()) and k not in ("timestamp", "tool_name", "tool_call_id")}}
        if kind == "SystemPromptEvent":
            prompt = e.get("system_prompt")
            self.b.add("system.prompt", timestamp=when, data=prompt.get("text") if type(prompt) is dict and isinstance(prompt.get("text"), str) else prompt, metadata=meta)
        elif kind == "MessageEvent":
            self.message(e, when, meta)
        elif kind == "ActionEvent":
            self.action(e, when, meta)
        elif kind in ("ObservationEvent", "AgentErrorEvent", "UserRejectObservation"):
            self.observation(e, when, meta)
        elif kind in _HARNESS:
            name, what = _HARNESS[kind]
            self.b.add(name, timestamp=when, data={k: v for k, v in e.items() if k not in ("id", "timestamp", "source", "kind")}, metadata=harness(what, meta))
        elif kind == "PauseEvent":
            self.b.add("system.pause", timestamp=when, data=None, metadata={**meta, "author": "human"})
        else:
            self.b.kept("unknown-type", f"event {index + 1} is an OpenHands {kind}, which threadlab does not read; kept as system.unknown_event")
            self.b.add("system.unknown_event", timestamp=when, data=e, metadata={KEY: {"index": index}})
            return
        self.b.took()

    def response_usage(self, response_id: Any) -> Usage | None:
        if not isinstance(response_id, str) or not self.once(response_id):
            return None
        figures = self.by_response.get(response_id)
        return self.usage(figures, f"base_state.json token_usages[{response_id}].", _USAGE) if figures is not None else None

    def thoughts(self, carrier: dict[str, Any], when: Any) -> None:
        blocks = carrier.get("thinking_blocks") if isinstance(carrier.get("thinking_blocks"), list) else []
        for block in blocks:
            if type(block) is dict and isinstance(block.get("thinking"), str):
                self.b.add("thinking", timestamp=when, agent_id=self.agent, content=block["thinking"], signature=block.get("signature") if isinstance(block.get("signature"), str) else None, provider_name=PROVIDER)
        reasoning = carrier.get("reasoning_content")
        if not blocks and isinstance(reasoning, str) and reasoning.strip():
            self.b.add("thinking", timestamp=when, agent_id=self.agent, content=reasoning, provider_name=PROVIDER)

    def message(self, e: dict[str, Any], when: Any, meta: dict[str, Any]) -> None:
        m = e.get("llm_message") if type(e.get("llm_message")) is dict else {}
        text = text_of(m.get("content"))
        meta[KEY]["llm_message"] = {k: v for k, v in m.items() if k not in ("content", "thinking_blocks", "reasoning_content")}
        if m.get("role") == "assistant":
            self.thoughts(m, when)
            usage = self.response_usage(e.get("llm_response_id"))
            self.b.add("assistant_message", timestamp=when, agent_id=self.agent, content=text, usage=usage, metadata=meta)
            return
        if e.get("source") == "user":
            self.prompt_title(text)
            self.b.add("user_message", timestamp=when, content=text, metadata=meta)
        else:
            self.b.add("user_message", timestamp=when, content=text, metadata=harness("meta", meta))

    def action(self, e: dict[str, Any], when: Any, meta: dict[str, Any]) -> None:
        self.thoughts(e, when)
        usage = self.response_usage(e.get("llm_response_id"))
        thought = text_of(e.get("thought"))
        if thought.strip():
            self.b.add("assistant_message", timestamp=when, agent_id=self.agent, content=thought, usage=usage, metadata={KEY: {"id": e.get("id"), "thought": True}})
            usage = None
        call = e.get("tool_call") if type(e.get("tool_call")) is dict else {}
        call_id = e.get("tool_call_id") if isinstance(e.get("tool_call_id"), str) else f"oh-{e.get('id')}"
        name = e.get("tool_name") if isinstance(e.get("tool_name"), str) else ""
        meta[KEY]["tool_call"] = {k: v for k, v in call.items() if k != "arguments"}
        args = _arguments(call.get("arguments"))
        if args is None:
            args = e.get("action") if type(e.get("action")) is dict else {}
            meta[KEY]["arguments"] = call.get("arguments")
        self.b.add("tool_call", timestamp=when, agent_id=self.agent, tool_name=name, tool_call_id=call_id, args=args, usage=usage, metadata=meta)
        self.calls[call_id] = (call_id, name)

    def observation(self, e: dict[str, Any], when: Any, meta: dict[str, Any]) -> None:
        kind = e["kind"]
        call_id = e.get("tool_call_id") if isinstance(e.get("tool_call_id"), str) else ""
        _, name = self.calls.pop(call_id, (call_id, e.get("tool_name") if isinstance(e.get("tool_name"), str) else ""))
        obs = e.get("observation") if type(e.get("observation")) is dict else {}
        if kind == "ObservationEvent":
            meta[KEY]["observation"] = {k: v for k, v in obs.items() if k != "content"}
            content, failed = text_of(obs.get("content")), obs.get("is_error") is True
        else:
            content, failed = e.get("error") if kind == "AgentErrorEvent" else e.get("rejection_reason"), True
        self.b.add("tool_return", timestamp=when, tool_call_id=call_id, tool_name=name, status="error" if failed else "success", content=content if isinstance(content, str) else "", metadata=meta)

    def totals(self) -> None:
        problems: list[str] = []
        total: dict[str, int] = {}
        cost = 0.0
        for m in self.metrics:
            used = m.get("accumulated_token_usage") if type(m.get("accumulated_token_usage")) is dict else {}
            for key, value in counts_as({k: (ours, used.get(k)) for k, ours in _USAGE.items()}, problems, "stats.accumulated_token_usage.").items():
                total[key] = total.get(key, 0) + value
            if isinstance(m.get("accumulated_cost"), (int, float)) and not isinstance(m.get("accumulated_cost"), bool):
                cost += m["accumulated_cost"]
        for phrase in problems:
            self.b.problem("usage", phrase)
        if any(total.values()):
            self.b.metadata["usage_total"] = total
            self.b.metadata["usage_total_note"] = "OpenHands' own totals (base_state.json stats.usage_to_metrics: every model call of the conversation)"
        if cost > 0:
            self.b.metadata["cost_usd"] = cost


def _arguments(text: Any) -> dict[str, Any] | None:
    if not isinstance(text, str):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if type(value) is dict else None
