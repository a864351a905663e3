"""The in-memory client for synchronous tests: :func:`in_memory` and :class:`SyncMemoryClient`."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
from collections.abc import Coroutine, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from ..protocol.seconds import limit_seconds
from .client import MemoryClient

if TYPE_CHECKING:
    from ..facade import MCPServer

__all__ = ["SyncMemoryClient", "in_memory"]

T = TypeVar("T")

DEFAULT_TIMEOUT = 30.0
"""Seconds a verb waits for its answer by default before it raises ``TimeoutError``."""


class SyncMemoryClient:
    """:class:`~nanohubmcp.testing.MemoryClient`'s verbs as plain calls (made by :func:`in_memory`).

    Each verb takes ``timeout`` (seconds; None: the ``timeout=`` given to :func:`in_memory`, 30 by
    default; ``inf`` or one past any wait, ``1e308``: no limit; 0, a negative number, NaN, a bool or a string
    raise ``ValueError``, :func:`~nanohubmcp.protocol.seconds.limit_seconds`) and raises ``TimeoutError``
    ("tools/call 'slow' got no answer within 0.5 s") when no
    answer came in that time, after cancelling the request at the server
    (``notifications/cancelled``); the client stays usable. Otherwise it answers and raises as the
    async verb of the same name. After the ``with`` block the verbs raise ``RuntimeError`` (the
    client is closed).
    """

    def __init__(self, client: MemoryClient, loop: asyncio.AbstractEventLoop,
                 timeout: float | None = DEFAULT_TIMEOUT) -> None:
        self.client = client
        """The async client (run its coroutines on :attr:`loop`)."""
        self.loop = loop
        """The event loop the client and the server run on (a thread of its own)."""
        self.timeout = limit_seconds(timeout, "timeout")
        """Seconds a verb waits when given no ``timeout`` (None: no limit)."""
        self.closed = False
        """The ``with`` block ended: the verbs raise ``RuntimeError``."""

    def _run(self, coroutine: Coroutine[Any, Any, T], timeout: float | None, what: str) -> T:
        if self.closed:
            coroutine.close()  # never started: no "never awaited" warning
            raise RuntimeError("the client is closed: its `with in_memory(server)` block ended; open a new one")
        try:
            seconds = self.timeout if timeout is None else limit_seconds(timeout, "timeout")
        except ValueError:
            coroutine.close()  # refused before it started: no "never awaited" warning either
            raise
        future = asyncio.run_coroutine_threadsafe(coroutine, self.loop)
        try:
            return future.result(seconds)
        except concurrent.futures.TimeoutError:  # the builtin TimeoutError from Python 3.11 on
            future.cancel()  # the request is withdrawn at the server (notifications/cancelled)
            raise TimeoutError(f"{what} got no answer within {seconds or 0:g} s (timeout=)") from None

    def list_tools(self, timeout: float | None = None) -> list[dict[str, Any]]:
        """`MemoryClient.list_tools`, waited for."""
        return self._run(self.client.list_tools(), timeout, "tools/list")

    def call_tool(self, name: str, arguments: dict[str, Any] | None = None, *, progress: bool = False,
                  timeout: float | None = None, **params: Any) -> dict[str, Any]:
        """`MemoryClient.call_tool`, waited for."""
        call = self.client.call_tool(name, arguments, progress=progress, **params)
        return self._run(call, timeout, f"tools/call {name!r}")

    def list_resources(self, timeout: float | None = None) -> list[dict[str, Any]]:
        """`MemoryClient.list_resources`, waited for."""
        return self._run(self.client.list_resources(), timeout, "resources/list")

    def read_resource(self, uri: str, timeout: float | None = None) -> list[dict[str, Any]]:
        """`MemoryClient.read_resource`, waited for."""
        return self._run(self.client.read_resource(uri), timeout, f"resources/read {uri!r}")

    def list_prompts(self, timeout: float | None = None) -> list[dict[str, Any]]:
        """`MemoryClient.list_prompts`, waited for."""
        return self._run(self.client.list_prompts(), timeout, "prompts/list")

    def get_prompt(self, name: str, arguments: dict[str, str] | None = None,
                   timeout: float | None = None) -> dict[str, Any]:
        """`MemoryClient.get_prompt`, waited for."""
        return self._run(self.client.get_prompt(name, arguments), timeout, f"prompts/get {name!r}")

    def request(self, method: str, params: dict[str, Any] | None = None,
                timeout: float | None = None) -> dict[str, Any]:
        """`MemoryClient.request`, waited for."""
        return self._run(self.client.request(method, params), timeout, method)

    def send(self, message: Any, timeout: float | None = None) -> Any:
        """`MemoryClient.send`, waited for (a dict, a batch as a list, or raw text as ``str``/``bytes``)."""
        what = str(message.get("method", "the message")) if isinstance(message, dict) else "the message"
        return self._run(self.client.send(message), timeout, what)

    def notifications(self, method: str | None = None) -> list[dict[str, Any]]:
        """`MemoryClient.notifications`."""
        return self.client.notifications(method)

    @property
    def messages(self) -> list[dict[str, Any]]:
        """`MemoryClient.messages` (the list the loop thread appends to)."""
        return self.client.messages


@contextlib.contextmanager
def in_memory(server: MCPServer, *, timeout: float | None = DEFAULT_TIMEOUT,
              **options: Any) -> Iterator[SyncMemoryClient]:
    """A :class:`~nanohubmcp.testing.MemoryClient` of ``server`` for synchronous tests.

    The client and the server run on an event loop in a thread of its own (handlers are called
    there too). On leaving, the client's session ends and what it still runs is cancelled. The server is
    left as it was found: when it serves (``server.start()``, an application of ``make_app()``), its other
    clients' sessions, calls and jobs go on, and the client's jobs still running are handed to it (one whose
    function runs on a thread or a Dask cluster goes on and stores its end: :class:`MemoryClient`; one that runs on
    the client's loop, an ``async def`` tool's, fails with "the testing client that started this job closed while
    it ran", as the loop stops); when it does not, its core, which served on the client's loop, is closed as
    ``server.stop()`` would close it (its calls and jobs are cancelled; it serves again when used again).

    Args:
        server: the ``MCPServer`` (it need not be started).
        timeout: seconds each verb (and ``initialize``) waits for its answer unless the verb is
            given its own ``timeout=`` (default 30); then ``TimeoutError``. None, ``inf`` or a number past any
            wait (``1e308``): no limit.
        options: :class:`~nanohubmcp.testing.MemoryClient`'s keywords (``version``,
            ``elicitation``, ``sampling``, ``roots``, ``principal``, ``log_level``, ...).

    Raises:
        ValueError: an unknown ``version``; a ``timeout`` that is no time limit (0, a negative number, NaN, a
            bool, a string): "timeout must be a positive number of seconds, or None for no limit, not 0".
        RpcError: ``initialize`` was refused.

    Example:
        ```python
        with in_memory(server) as client:
            assert client.call_tool("add", {"a": 1, "b": 2})["structuredContent"] == {"result": 3}
        ```
    """
    seconds = limit_seconds(timeout, "timeout")
    client = MemoryClient(server, **options)  # options checked here, before a thread starts
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="nanohubmcp-memory-client", daemon=True)
    thread.start()
    try:
        asyncio.run_coroutine_threadsafe(client.__aenter__(), loop).result(seconds)
        sync = SyncMemoryClient(client, loop, seconds)
        try:
            yield sync
        finally:
            sync.closed = True
            asyncio.run_coroutine_threadsafe(client.__aexit__(None, None, None), loop).result(DEFAULT_TIMEOUT)
    finally:
        # The core this loop served is closed; else the jobs started on this loop end (handed over when they can).
        client.peer.loop_ends(loop, DEFAULT_TIMEOUT)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()
