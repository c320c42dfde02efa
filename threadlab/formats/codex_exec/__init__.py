"""``codex exec --json`` output → one thread per run (and a thread back to such output).

What the Codex CLI prints on stdout when run non-interactively with ``--json``, which scripts
and CI jobs keep (the session's rollout, ``~/.codex/sessions/...``, is the ``codex`` format):
JSON Lines of events, in two generations (``wire.py``): thread events (``thread.started``,
``item.completed`` ...) and, in mid-2025 releases, Codex's protocol events (a configuration
line, the prompt, ``{"id", "msg"}`` events)."""

from __future__ import annotations

from threadlab.core.finite import refuses_non_finite
from threadlab.core.model import Thread
from threadlab.formats.codex_exec.reading import AGENT, KEY, read_stream
from threadlab.formats.codex_exec.wire import is_config_line, is_prompt_line, is_protocol_event, is_thread_event
from threadlab.formats.codex_exec.writing import write_stream
from threadlab.formats.common.json_lines import head_values, refusal
from threadlab.formats.common.source import Source

NAME = "codex-exec"


def detect(source: Source) -> bool:
    """JSON Lines whose first line is a thread event, a protocol event, or the protocol
    generation's configuration line followed (within two lines: one may be damaged) by the
    prompt or an event."""
    if source.is_dir or source.is_object:
        return False
    first, *after = head_values(source) or [None]
    if is_thread_event(first) or is_protocol_event(first):
        return True
    return is_config_line(first) and any(is_prompt_line(v) or is_protocol_event(v) for v in after)


def to_threads(source: Source) -> list[Thread]:
    if not detect(source):
        raise refusal(source, f"is not codex exec --json output (its first line is no event: {source.describe()})")
    return [read_stream(source)]


@refuses_non_finite
def from_thread(thread: Thread) -> bytes:
    """The thread as ``codex exec --json`` output (see ``writing.py``)."""
    return write_stream(thread)


__all__ = ["AGENT", "KEY", "NAME", "detect", "from_thread", "to_threads"]
