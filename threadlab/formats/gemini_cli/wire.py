"""The shapes of a Gemini CLI session file (``~/.gemini/tmp/<project>/chats/session-*.json[l]``).

Two generations, both written by ``ChatRecordingService`` (packages/core/src/services/
chatRecordingService.ts of google-gemini/gemini-cli):

* **JSON** (releases before JSON Lines): one object ``{sessionId, projectHash, startTime,
  lastUpdated, messages: [...], summary?, kind?, directories?}``, rewritten whole on every change.
* **JSON Lines** (0.3x and later, 0.61.0 here): appended records, read in order:
  the **metadata** line ``{sessionId, projectHash, startTime, lastUpdated, kind, directories?}``
  (written again when a session is taken up, ``--resume``); a **message** record ``{id,
  timestamp, type, content, ...}``, written again whole whenever it changes (its tokens and
  tool calls arrive after it), the last copy being the message; a **metadata update** ``{"$set":
  {...}}`` (``lastUpdated``, ``summary``, ``directories``, ``memoryScratchpad``, or ``messages``:
  the history as the model holds it, which on a resume repeats every message without its tool
  calls, thoughts and tokens); a **rewind** ``{"$rewindTo": id}`` (``/rewind``: the messages
  from ``id`` on are dropped from what the program shows and resumes).

A message's ``type`` is ``user``, ``gemini``, ``info``, ``error`` or ``warning``. Its ``content``
is a string or a list of Gemini API parts (``{"text"}``, ``{"functionResponse"}``,
``{"inlineData"}`` ...). A ``gemini`` message holds ``thoughts`` (``{subject, description,
timestamp}``), ``toolCalls`` (``{id, name, args, result: [parts], status, timestamp,
resultDisplay, displayName, description, renderOutputAsMarkdown}``), ``tokens`` (``{input,
output, cached, thoughts, tool, total}``: the API's ``promptTokenCount`` (cached ones inside),
``candidatesTokenCount`` (thoughts not inside), ``cachedContentTokenCount``,
``thoughtsTokenCount``, ``toolUsePromptTokenCount``, ``totalTokenCount``) and ``model``."""

from __future__ import annotations

from typing import Any

MESSAGE_TYPES = frozenset({"user", "gemini", "info", "error", "warning"})
SESSION_KEYS = ("sessionId", "projectHash", "startTime", "lastUpdated", "kind", "directories", "summary", "memoryScratchpad")


def is_metadata(value: Any) -> bool:
    """A session's metadata record (the JSON form's whole object, or the JSON Lines first line)."""
    return type(value) is dict and isinstance(value.get("sessionId"), str) and isinstance(value.get("projectHash"), str) and "id" not in value


def is_session_object(value: Any) -> bool:
    """The JSON generation's whole file: metadata with its ``messages`` list."""
    return is_metadata(value) and isinstance(value.get("messages"), list)


def is_message(value: Any) -> bool:
    return type(value) is dict and isinstance(value.get("id"), str) and "type" in value


def is_update(value: Any) -> bool:
    return type(value) is dict and type(value.get("$set")) is dict


def is_rewind(value: Any) -> bool:
    return type(value) is dict and isinstance(value.get("$rewindTo"), str)


def is_record(value: Any) -> bool:
    """Any record of the JSON Lines generation."""
    return is_metadata(value) or is_message(value) or is_update(value) or is_rewind(value)


def function_output(response: Any) -> Any:
    """A ``functionResponse``'s content as a tool return holds it: its ``output`` text when that is
    all the response holds (what the CLI's tools send back), else the response as it came."""
    if type(response) is dict and len(response) == 1 and isinstance(response.get("output"), str):
        return response["output"]
    return response
