"""What a writer could not put into its format, said out loud.

A wire format holds less than ThreadProtocol (pydantic-ai keeps no agent registry, a UI message
stream no timestamps ...). A writer never drops such things quietly: it writes what the format
can hold and warns with a ``WriteLoss`` naming what is not in its output, so a round trip that
is not exact says why."""

from __future__ import annotations

import warnings
from collections.abc import Sequence


class WriteLoss(UserWarning):
    """A writer's output lacks part of the thread it was given: ``lost`` says what, one phrase a
    kind of thing ("12 action timestamps", "2 thinking signatures")."""

    def __init__(self, format: str, thread_id: str | None, lost: Sequence[str]) -> None:
        self.format = format
        self.thread_id = thread_id
        self.lost = list(lost)
        super().__init__(f"the {format} writer could not keep, of thread {thread_id}: {'; '.join(self.lost)}")


def report_loss(format: str, thread_id: str | None, lost: Sequence[str]) -> None:
    """Warn with a ``WriteLoss`` when ``lost`` names anything."""
    if lost:
        warnings.warn(WriteLoss(format, thread_id, lost), stacklevel=3)
