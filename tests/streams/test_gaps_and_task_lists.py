"""A list_changed sent while the GET stream is reconnecting is replayed on resume; tasks/list
shows the tasks the client asked for, not plain async-tool jobs."""

from __future__ import annotations

from stream_wire import Wire
from support import serve, wait_until

from nanohubmcp import MCPServer

LIST_CHANGED = "notifications/tools/list_changed"


def test_list_changed_during_a_reconnect_is_replayed_after_last_event_id() -> None:
    server = MCPServer("gaps")

    @server.tool()
    def first() -> str:
        """One tool."""
        return "1"

    with serve(server) as url:
        wire = Wire(url)
        session = wire.initialize()
        events = wire.listen(session)
        primed = events.next()
        assert primed is not None
        assert primed.id
        events.close()
        record = server.core.sessions.get(session)
        assert record is not None
        assert record.standalone is not None
        get_stream = record.standalone
        wait_until(lambda: not get_stream.reading, "the server noticed the dropped GET stream", 10)

        @server.tool()
        def second() -> str:
            """Added while nobody listened."""
            return "2"

        wait_until(  # kept for a resuming client: it is not sent live after the resume
            lambda: LIST_CHANGED in [message.get("method") for _, message in get_stream._after(primed.id)],
            "the list_changed waits on the server",
            10,
        )
        resumed = wire.listen(session, last_event_id=primed.id)
        try:
            _, message = resumed.until(lambda m: m.get("method") == LIST_CHANGED, timeout=5)
            assert message == {"jsonrpc": "2.0", "method": LIST_CHANGED}
        finally:
            resumed.close()


def test_tasks_list_shows_only_task_augmented_calls() -> None:
    server = MCPServer("tasks")

    @server.async_tool()
    def work() -> str:
        """A job."""
        return "done"

    with serve(server) as url:
        wire = Wire(url)
        session = wire.initialize()
        plain = wire.request("tools/call", {"name": "work", "arguments": {}}, session)
        assert "job_id" in plain["result"]["content"][0]["text"]
        created = wire.request("tools/call", {"name": "work", "arguments": {}, "task": {}}, session)
        task_id = created["result"]["task"]["taskId"]
        listed = wire.request("tasks/list", {}, session)["result"]["tasks"]
        assert [t["taskId"] for t in listed] == [task_id]
