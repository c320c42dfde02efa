"""AITP / NEAR AI JSON → Thread (see the package docstring)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

import orjson
from pydantic import ValidationError

from threadlab.core.builder import EPOCH, ThreadBuilder, slug
from threadlab.core.model import Thread, action_class
from threadlab.core.timefmt import parse_timestamp
from threadlab.formats.aitp.shapes import ABSENT, CARRIED, META, split_document

_HIDDEN_PREFIXES = ("system:", "agent:")
_KNOWN_PARTS = ("text", "image", "aitp", "file")
_CAPABILITY = re.compile(r"(aitp-\d+-[a-z0-9-]+)")
_VERSION = re.compile(r"/v(\d+(?:\.\d+)*)(?:/|\.|$)")
_AGENT_PATH = re.compile(r"^[^/\s]+/([^/\s]+)/[^/\s]+$")  # namespace/name/version


def from_aitp(obj: Any, *, thread_id: str | None = None, source: str | None = None) -> Thread:
    """A Thread from an AITP thread (spec shape), a NEAR AI hub export ``{"thread", "messages"}``,
    an OpenAI ``{"object": "list", "data": [...]}`` page, or a bare list of thread messages."""
    parts = split_document(obj)
    if parts is None:
        raise ValueError("from_aitp: expected an AITP thread {id, messages, metadata} or a NEAR AI export {thread, messages}")
    thread = build_thread(*parts, default_id=thread_id, source=source)
    if thread_id:
        thread.thread_id = thread_id
    return thread


def _decode_list(value: Any) -> list[str] | None:
    """The hub's string-encoded id lists: JSON (``child_thread_ids``) or comma-joined (``agent_ids``)."""
    if isinstance(value, list):
        return [str(v) for v in value]
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    if text.startswith("["):
        try:
            decoded = orjson.loads(text)
        except orjson.JSONDecodeError:
            decoded = None
        if isinstance(decoded, list):
            return [str(v) for v in decoded]
    return [part.strip() for part in text.split(",") if part.strip()]


def agent_name_of(actor_id: str) -> str:
    """The name an actor id gives its agent (``namespace/name/version`` → ``name``)."""
    match = _AGENT_PATH.match(actor_id)
    return match.group(1) if match else actor_id


def build_thread(shape: str, head: dict[str, Any], messages: list[Any], *, default_id: str | None, source: str | None) -> Thread:
    meta = head.get("metadata") if isinstance(head.get("metadata"), Mapping) else {}
    first_thread_id = next((m.get("thread_id") for m in messages if isinstance(m, Mapping) and isinstance(m.get("thread_id"), str)), None)
    thread_id = head.get("id") if isinstance(head.get("id"), str) else first_thread_id or default_id or "aitp_thread"
    parent = meta.get("parent_id") if isinstance(meta.get("parent_id"), str) and meta.get("parent_id") else None
    title = meta.get("topic") if isinstance(meta.get("topic"), str) else ""
    thread_meta: dict[str, Any] = {META: {"shape": shape, "thread": head}}
    for key in ("agent_ids", "child_thread_ids"):
        decoded = _decode_list(meta.get(key))
        if decoded is not None:
            thread_meta[key] = decoded
    if isinstance(meta.get("owner_id"), str):
        thread_meta["owner_id"] = meta["owner_id"]
    builder = ThreadBuilder(thread_id, title=title, parent_thread_id=parent, metadata=thread_meta, source=source)
    created = head.get("created_at")
    actors = meta.get("actors") or []
    if isinstance(actors, str):  # hub metadata holds strings only: a JSON-encoded list
        try:
            actors = orjson.loads(actors)
        except orjson.JSONDecodeError:
            pass
    if not isinstance(actors, list):
        builder.problem("schema", f"metadata.actors must be a list of {{id, capabilities}}, got {str(actors)[:80]!r}")
        actors = []
    names = _decode_names(meta.get("agent_names"))
    for actor in actors:
        if isinstance(actor, Mapping) and isinstance(actor.get("id"), str):
            extra = {k: v for k, v in actor.items() if k != "id"}
            name = actor.get("name") if isinstance(actor.get("name"), str) and actor.get("name") else None
            _register(builder, actor["id"], created, {"aitp_actor": True, **extra}, name=name)
        else:
            builder.problem("schema", f"metadata.actors holds {actor!r}, not an actor object with an id")
    for agent_id in thread_meta.get("agent_ids", []):
        _register(builder, agent_id, created, None, name=names.get(agent_id))
    default_agent = thread_meta["agent_ids"][0] if len(thread_meta.get("agent_ids", [])) == 1 else None
    opener = next((a["id"] for a in actors if isinstance(a, Mapping) and isinstance(a.get("id"), str)), None)
    for number, message in enumerate(messages, 1):
        if not isinstance(message, Mapping):
            builder.failed("schema", f"message #{number} is {type(message).__name__}, not an object; skipped")
            continue
        _add_message(builder, message, number, default_agent, opener)
    return builder.build()


def _decode_names(value: Any) -> dict[str, str]:
    """The hub thread's ``agent_names`` (a JSON object in a string, as hub metadata holds only
    strings): agent id → display name, for ids that do not name their agent themselves."""
    if isinstance(value, str):
        try:
            value = orjson.loads(value)
        except orjson.JSONDecodeError:
            return {}
    return {k: v for k, v in value.items() if isinstance(k, str) and isinstance(v, str)} if isinstance(value, Mapping) else {}


def _register(builder: ThreadBuilder, actor_id: str, created: Any, metadata: dict[str, Any] | None, *, name: str | None = None) -> str:
    return builder.agent(name or agent_name_of(actor_id), agent_id=actor_id, identifier=actor_id, created_at=created, metadata=metadata)


def _structured(text: str) -> dict[str, Any] | None:
    """A JSON capability payload (an object with ``$schema``) as a structured content part."""
    stripped = text.strip()
    if not stripped.startswith("{") or "$schema" not in stripped:
        return None
    try:
        data = orjson.loads(stripped)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("$schema"), str):
        return None
    schema = data["$schema"]
    capability = _CAPABILITY.search(schema)
    version = _VERSION.search(schema)
    kinds = [k for k in data if k != "$schema"]
    part: dict[str, Any] = {"type": "aitp", "schema": schema, "data": data}
    part["capability"] = capability.group(1) if capability else schema.rstrip("/").split("/")[-2 if schema.endswith("schema.json") else -1].removesuffix(".schema.json")
    if version:
        part["version"] = version.group(1)
    if len(kinds) == 1:
        part["kind"] = kinds[0]
    return part


def _block_text(block: Any) -> str | None:
    """The text of a hub content block (``{type: "text", text: {value}}``) or an AITP string."""
    if isinstance(block, str):
        return block
    if isinstance(block, Mapping) and block.get("type") == "text":
        text = block.get("text")
        if isinstance(text, Mapping) and isinstance(text.get("value"), str):
            return text["value"]
        if isinstance(text, str):
            return text
    return None


def _plain_block(block: Any) -> bool:
    """A block ``to_aitp`` writes back byte for byte from its text alone."""
    if isinstance(block, str):
        return _structured(block) is None
    return (
        isinstance(block, Mapping)
        and set(block) == {"type", "text"}
        and isinstance(block["text"], Mapping)
        and set(block["text"]) == {"value", "annotations"}
        and block["text"]["annotations"] == []
        and isinstance(block["text"]["value"], str)
        and _structured(block["text"]["value"]) is None
    )


def _content(raw: Any) -> tuple[Any, bool]:
    """(ThreadProtocol content, whether the raw content must be kept to write it back)."""
    blocks = raw if isinstance(raw, list) else [raw] if raw is not None else []
    parts: list[Any] = []
    for block in blocks:
        text = _block_text(block)
        if text is not None:
            parts.append(_structured(text) or {"type": "text", "text": text})
        elif isinstance(block, Mapping) and block.get("type") == "image_url" and isinstance(block.get("image_url"), Mapping):
            parts.append({"type": "image", "image_url": block["image_url"].get("url")})
        else:
            parts.append(dict(block) if isinstance(block, Mapping) else {"type": "unknown", "value": block})
    keep = not all(_plain_block(b) for b in blocks)
    if len(parts) == 1 and parts[0].get("type") == "text" and isinstance(parts[0].get("text"), str):
        return parts[0]["text"], keep
    if not parts:
        return "", keep
    return parts, keep


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return json.dumps(content)
    return "\n".join(p["text"] if isinstance(p.get("text"), str) and p["text"] else json.dumps(p.get("data", p)) for p in content if isinstance(p, Mapping))


def _add_message(builder: ThreadBuilder, message: Mapping[str, Any], number: int, default_agent: str | None, opener: str | None) -> None:
    """One message → one action. A message with no role (the spec's examples leave it out) is
    its actor's: the user's when the actor is the thread's first actor (who opened it), an
    assistant message of that actor otherwise."""
    meta = message.get("metadata") if isinstance(message.get("metadata"), Mapping) else {}
    created = message.get("created_at")
    try:
        when = parse_timestamp(created) if created is not None else None
    except ValueError:
        builder.problem("schema", f"message #{number} has created_at {created!r}, not unix seconds or ISO 8601")
        when = None
    carried = meta.get(CARRIED)
    if isinstance(carried, Mapping):  # an action AITP has no place for, written by to_aitp
        _restore(builder, carried, when, number)
        return
    content, keep = _content(message.get("content"))
    odd = [p.get("type") for p in (content if isinstance(content, list) else []) if isinstance(p, Mapping) and p.get("type") not in _KNOWN_PARTS]
    if odd:  # the message is read; the blocks threadlab does not map are kept as they came
        builder.problem("unknown-type", f"message #{number} has content blocks of type {', '.join(map(repr, odd))}, kept as they came")
    builder.took()
    kept = {k: v for k, v in message.items() if k not in ("role", "created_at") and (keep or k != "content")}
    if "created_at" in message and not isinstance(created, int):
        kept["created_at"] = created
    absent = [k for k in ("role", "created_at") if k not in message]
    if absent:  # written back without them
        kept[ABSENT] = absent
    role = message.get("role")
    actor = meta.get("actor") if isinstance(meta.get("actor"), str) else None
    actor = actor or (message.get("assistant_id") if isinstance(message.get("assistant_id"), str) else None)
    if "role" not in message and actor:
        role = "user" if actor == opener else "assistant"
    agent_id = _register(builder, actor, when, None) if actor else None
    message_type = meta.get("message_type") if isinstance(meta.get("message_type"), str) else None
    metadata: dict[str, Any] = {META: kept}
    if role == "user" and not message_type:
        if agent_id:
            metadata["actor"] = agent_id
        builder.add("user_message", timestamp=when, content=content, metadata=metadata)
        return
    if role == "assistant" and not message_type:
        agent_id = agent_id or _register(builder, default_agent or "assistant", when, None)
        builder.add("assistant_message", timestamp=when, agent_id=agent_id, content=content, metadata=metadata)
        return
    data: dict[str, Any] = {"role": role, "text": _text_of(content)}
    if message_type:
        data["message_type"] = message_type
    if not isinstance(content, str):
        data["content"] = content
    if agent_id or role == "assistant":
        data["agent_id"] = agent_id or _register(builder, default_agent or "assistant", when, None)
    builder.add(_system_name(role, message_type), timestamp=when, data=data, metadata=metadata)


def _system_name(role: Any, message_type: str | None) -> str:
    """``system.log`` for NEAR AI log messages; ``system.<type>`` for other typed messages
    (``system:output_file`` → ``system.output_file``); ``system.<role>_message`` otherwise."""
    if message_type:
        kind = message_type.split(":")[-1]
        if kind.endswith("log") or (message_type.startswith(_HIDDEN_PREFIXES) and "log" in kind):
            return "system.log"
        name = slug(kind)
        return "system." + (name if name[:1].isalpha() else f"t_{name}")
    name = slug(str(role)) if role else "unknown"
    return f"system.{name if name[:1].isalpha() else 'unknown'}_message"


def _restore(builder: ThreadBuilder, carried: Mapping[str, Any], when: Any, number: int) -> None:
    """The action ``to_aitp`` carried in a message's metadata, back as it was (at the
    message's time)."""
    fields = {k: v for k, v in carried.items() if k not in ("sequence", "timestamp", "action_type")}
    agent = fields.get("agent_id")
    if isinstance(agent, str) and agent not in builder.agents:
        _register(builder, agent, when, None)
    kind = str(carried.get("action_type"))
    try:  # checked before it is added: the builder would keep a broken one as it came, as a broken action
        action_class(kind).model_validate({**fields, "action_type": kind, "timestamp": EPOCH, "sequence": 1})
        builder.add(kind, timestamp=when, **fields)
    except (ValidationError, ValueError, TypeError) as exc:  # a damaged carried action is kept, not lost
        reason = str(exc).splitlines()[0]
        builder.kept("schema", f"message #{number}: metadata.{CARRIED} does not hold a valid action ({reason}); kept as system.log")
        builder.add("system.log", timestamp=when, data=dict(carried))
        return
    builder.took()
