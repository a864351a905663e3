"""What the tests of a resource's listed MIME type share: one session on a served server, over raw HTTP (the
official client hides an absent ``mimeType``), with what its lists and reads give."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from streams.stream_wire import Wire
from support import serve

from nanohubmcp import MCPServer


class Listing:
    """A session opened with ``initialize`` on the server at ``url`` (its base URL)."""

    def __init__(self, url: str) -> None:
        self.wire = Wire(url)
        self.session = self.wire.initialize()

    def result(self, method: str, params: dict[str, Any]) -> Any:
        return self.wire.request(method, params, self.session)["result"]

    def resources(self) -> dict[str, str | None]:
        """``{uri: mimeType}`` of ``resources/list`` (None where an entry has no ``mimeType``)."""
        return {item["uri"]: item.get("mimeType") for item in self.result("resources/list", {})["resources"]}

    def templates(self) -> dict[str, str | None]:
        """``{uriTemplate: mimeType}`` of ``resources/templates/list`` (None where an entry has none)."""
        listed = self.result("resources/templates/list", {})["resourceTemplates"]
        return {item["uriTemplate"]: item.get("mimeType") for item in listed}

    def read(self, uri: str) -> list[dict[str, Any]]:
        """The ``contents`` of ``resources/read`` of ``uri``."""
        contents: list[dict[str, Any]] = self.result("resources/read", {"uri": uri})["contents"]
        return contents


@contextlib.contextmanager
def listing(server: MCPServer) -> Iterator[Listing]:
    """``server`` served on a free port, with a :class:`Listing` session on it."""
    with serve(server) as url:
        yield Listing(url)
