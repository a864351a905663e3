"""trial60 F1: a resource whose function is annotated to return a ``dict`` is listed with ``application/json``,
the MIME type its read gives (before, ``resources/list`` gave none and the demo printed "(no MIME type)"); a
registered ``mime_type=`` still wins, and an annotation that does not make the read's type certain (``str``, none)
lists none, as before."""

from __future__ import annotations

from typing import Any

from streams.stream_wire import Wire
from support import serve

from nanohubmcp import MCPServer


def build() -> MCPServer:
    server = MCPServer("listed")

    @server.resource("config://settings")
    def settings() -> dict[str, Any]:
        return {"precision": 10}

    @server.resource("config://plain")
    def plain() -> dict:  # type: ignore[type-arg]
        return {"a": 1}

    @server.resource("config://yaml", mime_type="application/yaml")
    def yaml_settings() -> dict[str, Any]:
        return {"b": 2}

    @server.resource("notes://today")
    def notes() -> str:
        return "nothing"

    @server.resource("runs://{run}")
    def run(run: str) -> dict[str, str]:
        return {"run": run}

    return server


def test_the_listing_gives_the_mime_type_the_read_gives() -> None:
    with serve(build()) as url:
        wire = Wire(url)
        session = wire.initialize()
        listed = {item["uri"]: item.get("mimeType")
                  for item in wire.request("resources/list", {}, session)["result"]["resources"]}
        assert listed == {"config://settings": "application/json", "config://plain": "application/json",
                          "config://yaml": "application/yaml", "notes://today": None}, listed
        read = wire.request("resources/read", {"uri": "config://settings"}, session)["result"]["contents"][0]
        assert read["mimeType"] == listed["config://settings"], read
        templates = wire.request("resources/templates/list", {}, session)["result"]["resourceTemplates"]
        mime_types = {item["uriTemplate"]: item.get("mimeType") for item in templates}
        assert mime_types["runs://{run}"] == "application/json", templates
