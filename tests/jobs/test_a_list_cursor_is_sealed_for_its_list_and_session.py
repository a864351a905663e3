"""Every ``nextCursor`` the server mints is opaque and authenticated (``server.handlers.cursors``): a
``tasks/list`` cursor holds no task id a reader of a log could take (the id is, without authorization, what reads
or cancels a task once its session ended), and one the server did not issue to that session for that list is
-32602, as docs/how-to/jobs.md says. Before (trial59 F8), a cursor was base64 of "<created>/<task id>": a forged
``base64("0/abc")`` answered a page, and another session's cursor answered ``[]``. A real server, the official
``mcp`` client (its raw requests: it has no tasks API)."""

from __future__ import annotations

import base64
import binascii
from typing import Any

import anyio
import pytest
from paged_lists import paged_server
from support import mcp_client, serve

pytestmark = pytest.mark.timeout(120)


def decoded(cursor: str) -> bytes:
    try:
        return base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
    except (binascii.Error, ValueError):
        return b""


def test_a_cursor_shows_no_task_id_and_one_not_issued_to_the_session_for_the_list_is_refused() -> None:
    async def main(url: str) -> tuple[list[str], list[str], dict[str, Any], dict[str, Any]]:
        from mcp.shared.exceptions import MCPError

        with anyio.fail_after(60):
            async with mcp_client(url + "mcp") as client, mcp_client(url + "mcp") as other:
                send, send_other = client._dispatcher.send_raw_request, other._dispatcher.send_raw_request
                ids = [str((await send("tools/call", {"name": "work", "arguments": {"n": n},
                                                      "task": {"ttl": 60000}}))["task"]["taskId"])
                       for n in range(5)]
                seen, cursors, cursor = [], [], None
                while True:
                    page = await send("tasks/list", {} if cursor is None else {"cursor": cursor})
                    seen += [task["taskId"] for task in page["tasks"]]
                    cursor = page.get("nextCursor")
                    if cursor is None:
                        break
                    cursors.append(cursor)
                first = (await send("tasks/list", {}))["tasks"]
                created = first[1]["createdAt"]
                tools_cursor = (await send("tools/list", {}))["nextCursor"]
                forged = {
                    "bare position": base64.urlsafe_b64encode(b"0/abc").decode(),
                    "a real task's position": base64.urlsafe_b64encode(f"0/{ids[1]}".encode()).decode(),
                    "created time": base64.urlsafe_b64encode(f"{created}/{ids[1]}".encode()).decode(),
                    "altered": cursors[0][:-2] + ("AA" if not cursors[0].endswith("AA") else "BB"),
                    "tools/list's": tools_cursor,
                }
                refused: dict[str, Any] = {}
                for what, bad in forged.items():
                    try:
                        refused[what] = await send("tasks/list", {"cursor": bad})
                    except MCPError as exc:
                        refused[what] = exc
                others: dict[str, Any] = {}
                for what, bad in (("another session's", cursors[0]),):
                    try:
                        others[what] = await send_other("tasks/list", {"cursor": bad})
                    except MCPError as exc:
                        others[what] = exc
                try:
                    others["a tasks/list cursor on tools/list"] = await send("tools/list", {"cursor": cursors[0]})
                except MCPError as exc:
                    others["a tasks/list cursor on tools/list"] = exc
                return ids, seen + cursors, refused, others

    with serve(paged_server("sealed", job_store="memory")) as url:
        ids, seen_and_cursors, refused, others = anyio.run(main, url)
    seen, cursors = seen_and_cursors[:len(ids)], seen_and_cursors[len(ids):]
    assert seen == ids
    assert len(cursors) == 2
    for cursor in cursors:
        assert not any(task_id in cursor or task_id.encode() in decoded(cursor) for task_id in ids), cursor
    for what, answer in {**refused, **others}.items():
        assert not isinstance(answer, dict), f"{what} cursor answered a page: {answer}"
        assert answer.code == -32602, what
        assert answer.message.startswith("Invalid cursor: "), (what, answer.message)
        assert "list again without a cursor" in answer.message, (what, answer.message)
