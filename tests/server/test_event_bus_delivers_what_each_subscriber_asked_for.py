"""The event bus: a subscriber gets the events it asked for; call events are built only when wanted."""

from __future__ import annotations

from typing import Any

from nanohubmcp.server.wire.events import EventBus


def test_a_subscriber_for_some_events_gets_only_those() -> None:
    bus = EventBus()
    got: list[str] = []
    everything: list[str] = []
    unsubscribe = bus.subscribe(lambda event, data: got.append(event), events={"tools_changed"})
    assert bus.active is False  # nobody wants call events: the hot path skips building them
    bus.subscribe(lambda event, data: everything.append(event))
    assert bus.active is True
    bus.emit("tools_changed", name="x")
    bus.emit("call_started", call_id=1)
    assert got == ["tools_changed"]
    assert everything == ["tools_changed", "call_started"]
    unsubscribe()
    bus.emit("tools_changed", name="y")
    assert got == ["tools_changed"]


def test_a_failing_subscriber_does_not_break_the_publisher() -> None:
    bus = EventBus()
    seen: list[dict[str, Any]] = []

    def broken(event: str, data: dict[str, Any]) -> None:
        raise RuntimeError("boom")

    bus.subscribe(broken)
    bus.subscribe(lambda event, data: seen.append(data))
    bus.emit("call_finished", ok=True)
    assert seen == [{"ok": True}]
