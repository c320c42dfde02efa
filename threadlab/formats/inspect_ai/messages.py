"""One message of an Inspect AI sample → its actions: the half of ``SampleReader`` (``convert.py``)
that reads the sample's ``messages`` and a model call's output message, while ``convert.py`` walks
the events and says who is acting.

A user message is the person's (the sample's input, an operator's message) except inspect_ai's
compaction summary, which is ``author: harness`` (``harness: compaction_summary``).

Who wrote a message: no person types into an eval. A user-role message of a sample is the eval
harness's, written on the person's behalf (the dataset's input, a solver's template or its
"please continue" message), so each is ``metadata.author = "harness"``, ``metadata.harness =
"task_prompt"`` (``core/authors.py``): ``threads.n_human_prompts`` of an eval log is 0. The writer
writes them as user messages and the reader says so again."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from threadlab.core.authors import harness_metadata
from threadlab.core.builder import ThreadBuilder
from threadlab.core.problems import short
from threadlab.formats.inspect_ai.decode import MAPS

KEY = "inspect_ai"


class MessageActions:
    """What ``SampleReader`` does with a message; it sets the builder, the default agent's model
    and where the sample is (named in problems)."""

    b: ThreadBuilder
    default_model: str
    member: str
    line: int | None

    def message(self, message: Any, index: int) -> list[Any]:
        self.b.took()
        if not isinstance(message, MAPS):
            self.b.problem("schema", f"message {index + 1} is a {type(message).__name__}, not a message; kept as system.unknown_message")
            return [self.b.add("system.unknown_message", data=message)]
        role = message.get("role")
        if role == "user":  # the eval's, not a person's (the module doc); a compaction summary says so
            kind = "compaction_summary" if _is_summary(message) else "task_prompt"
            metadata = {**(_keep(message, ("role", "content")) or {}), **harness_metadata(kind)}
            return [self.b.add("user_message", content=_content(message.get("content")), metadata=metadata)]
        if role == "system":
            return [self.b.add("system.message", data={"role": "system", "content": message.get("content")}, metadata=_keep(message, ("role", "content")))]
        if role == "assistant":
            name = ((message.get("metadata") or {}).get("agent")) if isinstance(message.get("metadata"), MAPS) else None
            agent = self.b.agent(name if isinstance(name, str) else self.default_model)
            model = message.get("model")
            meta = {"model_name": model, "provider_name": model.split("/", 1)[0]} if isinstance(model, str) else {}
            return self.assistant(message, agent, None, meta, f"{self.member} message {index + 1}")
        if role == "tool":
            error = message.get("error")
            return [self.b.add(
                "tool_return",
                tool_call_id=str(message.get("tool_call_id")),
                tool_name=str(message.get("function")),
                status="error" if error else "success",
                content=_content(message.get("content")),
                metadata=_keep(message, ("role", "content", "tool_call_id", "function")),
            )]
        self.b.problem("unknown-type", f"message {index + 1} has role {role!r}; kept as system.unknown_message")
        self.b.account.kept += 1
        self.b.account.converted -= 1
        return [self.b.add("system.unknown_message", data=dict(message))]

    def assistant(self, message: Mapping[str, Any], agent: str, when: Any, meta: dict[str, Any], where: str) -> list[Any]:
        actions: list[Any] = []
        content = message.get("content")
        texts: list[Any] = []
        for part in content if isinstance(content, list) else [content]:
            if isinstance(part, MAPS) and part.get("type") == "reasoning":
                signature = part.get("signature")
                actions.append(self.b.add("thinking", timestamp=when, agent_id=agent, content=part.get("reasoning") or part.get("summary"),
                                          signature=signature if isinstance(signature, str) else None, provider_name=meta.get("provider_name") or "inspect", metadata=dict(meta) or None))
            elif part not in (None, ""):
                texts.append(part)
        listed = message.get("tool_calls")
        if listed is not None and not isinstance(listed, list):
            self.b.problem("schema", f"{where}: tool_calls is {short(listed)}, not a list; none read", line=self.line)
        calls = [c for c in listed if isinstance(c, MAPS)] if isinstance(listed, list) else []
        if texts or not (calls or actions):  # a message of reasoning alone is its thinking, not also an empty message
            text = "".join(p if isinstance(p, str) else str(p.get("text", "")) for p in texts if isinstance(p, str) or (isinstance(p, MAPS) and p.get("type") == "text"))
            others = [dict(p) for p in texts if isinstance(p, MAPS) and p.get("type") != "text"]
            body: Any = [{"type": "text", "text": text}, *others] if others else text
            actions.append(self.b.add("assistant_message", timestamp=when, agent_id=agent, content=body, metadata=dict(meta) or None))
        for call in calls:
            actions.append(self.b.add("tool_call", timestamp=when, agent_id=agent, tool_name=str(call.get("function")), tool_call_id=str(call.get("id")),
                                      args=call.get("arguments"), metadata=dict(meta) or None))
        return actions


def _content(content: Any) -> Any:
    if isinstance(content, str) or content is None:
        return content or ""
    if isinstance(content, list):
        return [{"type": "text", "text": p["text"]} if isinstance(p, MAPS) and p.get("type") == "text" and isinstance(p.get("text"), str) else p for p in content]
    return str(content)


def _is_summary(message: Mapping[str, Any]) -> bool:
    """inspect_ai's compaction summary: a user message it marks with a ``summary`` metadata key
    (its own compaction finds summaries by that key). Other user messages a solver or an agent
    loop appends carry no mark a person's input lacks (a human's answer to an ``input`` screen
    has ``source`` None too), so they stay the user's."""
    own = message.get("metadata")
    return isinstance(own, MAPS) and "summary" in own


def _keep(message: Mapping[str, Any], mapped: tuple[str, ...]) -> dict[str, Any] | None:
    rest = {k: v for k, v in message.items() if k not in mapped}
    return {KEY: rest} if rest else None
