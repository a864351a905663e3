"""``server.runtime.set_result_option`` checks a value by the rule ``MCPServer(...)`` applies to it (trial 74, F10: it
checked nothing, so ``max_result_bytes=-5`` refused every later result, ``max_inline_bytes=-1`` kept a 10-byte result
aside as a resource, ``figure_dpi="x"`` was stored as given and ``max_event_bytes="x"`` raised a bare TypeError)."""

from __future__ import annotations

import pytest

from nanohubmcp import ConfigurationError, MCPServer


@pytest.mark.parametrize(("setting", "value"), [("max_result_bytes", -5), ("max_inline_bytes", -1),
                                                ("figure_dpi", "x"), ("max_event_bytes", "x"),
                                                ("max_inline_bytes", 5.5), ("figure_dpi", 0)])
def test_a_value_the_constructor_refuses_is_refused_and_nothing_changes(setting: str, value: object) -> None:
    server = MCPServer("settings")
    before = getattr(server.runtime.results, setting)
    with pytest.raises(ConfigurationError, match=setting):
        MCPServer("settings", **{setting: value})  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match=setting):
        server.runtime.set_result_option(setting, value)
    assert getattr(server.runtime.results, setting) == before


def test_a_good_value_and_no_limit_are_taken() -> None:
    server = MCPServer("settings")
    server.runtime.set_result_option("max_inline_bytes", 2048.0)
    server.runtime.set_result_option("figure_dpi", 150)
    server.runtime.set_result_option("max_result_bytes", None)
    results = server.runtime.results
    assert (results.max_inline_bytes, results.figure_dpi) == (2048, 150)
    assert results.max_result_bytes in (None, float("inf"))
    with pytest.raises(ValueError, match="no result setting"):
        server.runtime.set_result_option("max_things", 3)
