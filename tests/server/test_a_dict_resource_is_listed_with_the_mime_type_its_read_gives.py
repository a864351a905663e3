"""trial60 F1: a resource whose function is annotated to return a ``dict`` is listed with ``application/json``,
the MIME type its read gives (before, ``resources/list`` gave none and the demo printed "(no MIME type)"); a
registered ``mime_type=`` still wins, and an annotation that does not make the read's type certain (``str``, none)
lists none, as before."""

from __future__ import annotations

from typing import Any

from listed_mime_types import listing

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
    with listing(build()) as session:
        listed = session.resources()
        assert listed == {"config://settings": "application/json", "config://plain": "application/json",
                          "config://yaml": "application/yaml", "notes://today": None}, listed
        read = session.read("config://settings")[0]
        assert read["mimeType"] == listed["config://settings"], read
        mime_types = session.templates()
        assert mime_types["runs://{run}"] == "application/json", mime_types
