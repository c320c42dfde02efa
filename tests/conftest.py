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


@pytest.fixture(scope="session")
def s3_options() -> Iterator[dict]:
    """A real S3 API on 127.0.0.1 (moto's server, started once per session) and the
    ``storage_options`` s3fs needs to reach it: an endpoint and made-up keys, so no credential of
    the machine is looked for or used, and nothing leaves it."""
    import socket

    from moto.server import ThreadedMotoServer

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        yield {"endpoint_url": f"http://127.0.0.1:{port}", "key": "testing", "secret": "testing",
               "client_kwargs": {"region_name": "eu-west-1"}, "skip_instance_cache": True}
    finally:
        server.stop()
