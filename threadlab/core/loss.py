"""What a writer could not put into its format, said out loud.

A wire format holds less than ThreadProtocol (pydantic-ai keeps no agent registry, a UI message
stream no timestamps ...). A writer never drops such things quietly: it writes what the format
can hold and warns with a ``WriteLoss`` naming what is not in its output, so a round trip that
is not exact says why."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from threadlab.core.model import Thread


class WriteLoss(UserWarning):
    """A writer's output lacks part of the thread it was given: ``lost`` says what, one phrase a
    kind of thing ("12 action timestamps", "2 thinking signatures")."""

    def __init__(self, format: str, thread_id: str | None, lost: Sequence[str]) -> None:
        self.format = format
        self.thread_id = thread_id
        self.lost = list(lost)
        super().__init__(f"the {format} writer could not keep, of thread {thread_id}: {'; '.join(self.lost)}")


def nothing_to_write(format: str, thread: Thread) -> ValueError:
    """The error a writer raises when it would keep none of a thread (a thread of no actions, or
    only of actions its format cannot hold, such as a Codex rollout fragment of ``token_count``
    lines): its empty container is no file its own reader reads, so it writes nothing rather than
    a file that reads back as nothing."""
    kinds = ", ".join(sorted({a.action_type for a in thread.actions})) or "it has none"
    return ValueError(f"the {format} writer can keep none of thread {thread.thread_id}'s actions ({kinds}): there is nothing to write")


class OptionNeeded(ValueError):
    """A writer cannot write this thread without one of its options: a per-agent format given
    a thread of several agents needs ``agent``. It carries the option and what it may be, so the
    caller says how to pass it: ``agent=`` in Python (``str``), ``--agent`` on the command line
    (``message(lambda o: f"--{o}")``)."""

    def __init__(self, format: str, thread_id: str | None, option: str, why: str, choices: Sequence[str]) -> None:
        """``why``: what the writer needs and what the thread is ("writes one agent's view;
        thread t1 has 3 agents")."""
        self.format = format
        self.thread_id = thread_id
        self.option = option
        self.why = why
        self.choices = list(choices)
        super().__init__(self.message())

    def message(self, spell: Callable[[str], str] = lambda option: f"{option}=") -> str:
        one_of = f" with one of: {', '.join(self.choices)}" if self.choices else ""
        return f"the {self.format} writer {self.why}: pass {spell(self.option)}{one_of}"


def report_loss(format: str, thread_id: str | None, lost: Sequence[str]) -> None:
    """Warn with a ``WriteLoss`` when ``lost`` names anything."""
    if lost:
        warnings.warn(WriteLoss(format, thread_id, lost), stacklevel=3)
