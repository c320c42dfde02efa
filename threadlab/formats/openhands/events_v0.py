"""OpenHands V0 events (``event_to_dict``) → one thread (see ``wire.py`` for the shapes).

Actions: a ``message`` is a ``user_message`` (source ``user``; ``environment``: the harness's) or
an ``assistant_message`` (source ``agent``); ``system`` is ``system.prompt``. Every other action of
the agent (``run``, ``run_ipython``, ``read``, ``edit``, ``browse_interactive``, ``think``, ``mcp``,
``finish`` ...) is a ``tool_call``: named and keyed by its ``tool_call_metadata`` (``function_name``,
``tool_call_id``) when the model called it as a tool, else by the action (``oh-<event id>``); its
``args`` are the call's arguments but ``thought``, the model's text of that response, which is the
``assistant_message`` before it (a ``think`` call's ``thought`` is its argument). A ``finish`` without tool metadata is ``system.finish``. The
harness's own actions and observations are ``system.*`` with ``author: harness``:
``change_agent_state`` / ``agent_state_changed`` (``system.agent_state``), ``recall``
(``system.recall``), ``condensation`` (``system.condensation``), an ``error`` that answers no call
(``system.error``). A ``delegate`` action is the call and a ``system.agent_join`` of the delegate;
the agent's events until its ``delegate`` observation are the delegate's. An observation whose
``cause`` is a call is that call's ``tool_return`` (``error`` for ``error`` / ``user_rejected``
observations and a non-zero ``exit_code``); a ``null`` one is ``system.null_observation``.

Usage: ``tool_call_metadata.model_response.usage`` once per response id (``prompt_tokens`` counts
cached input too; ``cache_read_input_tokens`` / ``prompt_tokens_details.cached_tokens``,
``cache_creation_input_tokens``), on the response's first action. The last ``llm_metrics``'
``accumulated_token_usage`` is the thread's ``usage_total`` and its ``accumulated_cost`` its cost.

Records: an event."""

from __future__ import annotations

from typing import Any

from threadlab.core.model import Usage
from threadlab.formats.common.counts import counts_as
from threadlab.formats.openhands.common import KEY, PROVIDER, EventReader, harness
from threadlab.formats.openhands.wire import is_v0_event

_USAGE = {"prompt_tokens": "input_tokens", "completion_tokens": "output_tokens", "total_tokens": "total_tokens", "cache_creation_input_tokens": "cache_write_tokens"}
_STATE = ("change_agent_state", "agent_state_changed")
_TOTAL = {"prompt_tokens": "input_tokens", "completion_tokens": "output_tokens", "cache_read_tokens": "cache_read_tokens", "cache_write_tokens": "cache_write_tokens"}
_ERRORS = ("error", "user_rejected")


class V0Reader(EventReader):
    metrics: dict[str, Any] | None = None  # the last llm_metrics: the run's running totals

    def is_event(self, value: Any) -> bool:
        return is_v0_event(value)

    def event(self, event: dict[str, Any], index: int) -> None:
        if type(event.get("llm_metrics")) is dict:
            self.metrics = event["llm_metrics"]
        if isinstance(event.get("action"), str):
            self.action(event)
        else:
            self.observation(event)
        self.b.took()

    def meta(self, e: dict[str, Any]) -> dict[str, Any]:
        return {KEY: {k: e[k] for k in ("id", "source", "cause", "message", "timeout", "success") if k in e}}

    def action(self, e: dict[str, Any]) -> None:
        kind, source, when = e["action"], e["source"], e.get("timestamp")
        args = e.get("args") if type(e.get("args")) is dict else {}
        meta = self.meta(e)
        meta[KEY]["action"] = kind
        tcm = e.get("tool_call_metadata") if type(e.get("tool_call_metadata")) is dict else None
        if kind == "message":
            content = args.get("content") if isinstance(args.get("content"), str) else ""
            extra = {k: v for k, v in args.items() if k != "content"}
            if extra:
                meta[KEY]["args"] = extra
            if source == "agent":
                response = tcm.get("model_response") if tcm is not None and type(tcm.get("model_response")) is dict else {}
                usage = self.response_usage(response) if self.once(response.get("id")) else None
                if isinstance(response.get("model"), str):
                    meta.update(model_name=response["model"], provider_name=PROVIDER)
                self.b.add("assistant_message", timestamp=when, agent_id=self.agent, content=content, usage=usage, metadata=meta)
            else:
                if source == "user":
                    self.prompt_title(content)
                self.b.add("user_message", timestamp=when, content=content, metadata=meta if source == "user" else harness("meta", meta))
        elif kind == "system":
            meta[KEY]["args"] = {k: v for k, v in args.items() if k != "content"}
            self.b.add("system.prompt", timestamp=when, data=args.get("content"), metadata=meta)
        elif kind in _STATE:
            self.b.add("system.agent_state", timestamp=when, data=args, metadata=harness("agent_state", meta))
        elif kind == "recall":
            self.b.add("system.recall", timestamp=when, data=args, metadata=harness("recall", meta))
        elif kind in ("condensation", "condensation_request"):
            self.b.add("system.condensation", timestamp=when, data=args, metadata=harness("compaction_summary" if args.get("summary") else "condensation", meta))
        elif kind == "finish" and tcm is None:
            self.thought(args, when, None, meta)
            self.b.add("system.finish", timestamp=when, data=args, metadata=meta)
        else:
            self.call(e, kind, args, tcm, meta)

    def thought(self, args: dict[str, Any], when: Any, usage: Usage | None, meta: dict[str, Any], model: str | None = None) -> Usage | None:
        """The model's text of the response (``args.thought``) as its message; the usage if not given."""
        text = args.get("thought")
        if isinstance(text, str) and text.strip():
            named = {"model_name": model, "provider_name": PROVIDER} if model else {}
            self.b.add("assistant_message", timestamp=when, agent_id=self.agent, content=text, usage=usage, metadata={KEY: {"id": meta[KEY].get("id"), "thought": True}, **named})
            return None
        return usage

    def call(self, e: dict[str, Any], kind: str, args: dict[str, Any], tcm: dict[str, Any] | None, meta: dict[str, Any]) -> None:
        when = e.get("timestamp")
        response = tcm.get("model_response") if tcm is not None and type(tcm.get("model_response")) is dict else {}
        usage = self.response_usage(response) if self.once(response.get("id")) else None
        model = response.get("model") if isinstance(response.get("model"), str) else None
        if tcm is not None:
            meta[KEY]["tool_call_metadata"] = {k: v for k, v in tcm.items() if k != "model_response"}
            if response:
                meta[KEY]["model_response_id"] = response.get("id")
        own = e["source"] == "agent" and kind != "think"  # a think call's ``thought`` is its argument, not the response's text
        usage = self.thought(args, when, usage, meta, model) if own else usage
        name = tcm.get("function_name") if tcm is not None and isinstance(tcm.get("function_name"), str) else kind
        call_id = tcm.get("tool_call_id") if tcm is not None and isinstance(tcm.get("tool_call_id"), str) else f"oh-{e.get('id')}"
        if e["source"] == "user":
            meta["author"] = "human"
        called = {k: v for k, v in args.items() if k != "thought" or not own}
        parent = self.agent
        if model:
            meta.update(model_name=model, provider_name=PROVIDER)
        self.b.add("tool_call", timestamp=when, agent_id=parent, tool_name=name, tool_call_id=call_id, args=called, usage=usage, metadata=meta)
        self.calls[e.get("id")] = (call_id, name)
        if kind == "delegate":
            delegate = args.get("agent") if isinstance(args.get("agent"), str) and args.get("agent") else "delegate"
            self.join(delegate, parent, {KEY: {"id": e.get("id"), "delegate": True}})

    def response_usage(self, response: dict[str, Any]) -> Usage | None:
        figures = response.get("usage")
        if type(figures) is not dict:
            return None
        names = dict(_USAGE)
        names["cache_read_input_tokens" if "cache_read_input_tokens" in figures else "prompt_tokens_details.cached_tokens"] = "cache_read_tokens"
        return self.usage(figures, "tool_call_metadata.model_response.usage.", names)

    def observation(self, e: dict[str, Any]) -> None:
        kind, when = e["observation"], e.get("timestamp")
        meta = self.meta(e)
        meta[KEY]["observation"] = kind
        extras = e.get("extras")
        if extras is not None:
            meta[KEY]["extras"] = extras
        call = self.calls.pop(e.get("cause"), None)
        if kind == "delegate" and len(self.stack) > 1:
            self.stack.pop()
        if call is not None:
            code = extras.get("metadata", {}).get("exit_code") if type(extras) is dict and type(extras.get("metadata")) is dict else None
            failed = kind in _ERRORS or (type(code) is int and code not in (0, -1)) or e.get("success") is False
            self.b.add("tool_return", timestamp=when, tool_call_id=call[0], tool_name=call[1], status="error" if failed else "success", content=e.get("content", ""), metadata=meta)
        elif kind in _STATE:
            self.b.add("system.agent_state", timestamp=when, data=extras, metadata=harness("agent_state", meta))
        elif kind == "recall":
            self.b.add("system.recall", timestamp=when, data={"content": e.get("content"), "extras": extras}, metadata=harness("recall", meta))
        elif kind == "error":
            self.b.add("system.error", timestamp=when, data=e.get("content"), metadata=harness("error", meta))
        elif kind == "null":
            self.b.add("system.null_observation", timestamp=when, data=e.get("content"), metadata=meta)
        else:
            self.b.add("system.observation", timestamp=when, data={"content": e.get("content"), "extras": extras}, metadata=meta)

    def finish(self) -> None:
        metrics = self.metrics
        if metrics is None:
            return
        problems: list[str] = []
        used = metrics.get("accumulated_token_usage") if type(metrics.get("accumulated_token_usage")) is dict else {}
        total = counts_as({k: (ours, used.get(k)) for k, ours in _TOTAL.items()}, problems, "llm_metrics.accumulated_token_usage.")
        for phrase in problems:
            self.b.problem("usage", phrase)
        if any(total.values()):
            self.b.metadata["usage_total"] = total
            self.b.metadata["usage_total_note"] = "OpenHands' own running total (the last event's llm_metrics.accumulated_token_usage)"
        cost = metrics.get("accumulated_cost")
        if isinstance(cost, (int, float)) and not isinstance(cost, bool) and cost > 0:
            self.b.metadata["cost_usd"] = cost
