"""Suite-wide guards that keep test files independent of each other's order and worker."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True, scope="module")
def no_event_loop_left_running(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test file must not leave an asyncio loop marked as running in the worker's thread
    (Playwright's sync API does while a page is open): every later ``asyncio.run`` in the
    same worker would fail, and which files share a worker changes from run to run."""
    yield
    assert asyncio._get_running_loop() is None, f"{request.node.nodeid} left an asyncio loop running in this thread"
