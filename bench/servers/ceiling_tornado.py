"""The ceiling: a bare Tornado JSON-RPC endpoint doing the least a Streamable HTTP server must.

POST /mcp parses the body, checks the ``Mcp-Session-Id`` it handed out at ``initialize``, calls
the tool and serialises a result shaped like the SDK's (``content`` plus ``structuredContent``
for a number, a little more than nanohubmcp sends). No validation, no logging, no SSE framing.
GET /mcp holds a ``text/event-stream`` response open until the client leaves. Any server built on Tornado pays
at least this much per request.
"""

from __future__ import annotations

import asyncio
import json
import uuid

import tornado.web
from _args import parse

SESSIONS: set[str] = set()


def tool_result(name: str, args: dict) -> dict | None:
    if name == "add":
        total = float(args["a"]) + float(args["b"])
        return {
            "content": [{"type": "text", "text": json.dumps(total)}],
            "structuredContent": {"result": total},
            "isError": False,
        }
    if name == "big":
        return {"content": [{"type": "text", "text": "x" * int(args["n"])}], "isError": False}
    return None


class Endpoint(tornado.web.RequestHandler):
    def post(self) -> None:
        message = json.loads(self.request.body)
        method, rid = message.get("method"), message.get("id")
        session = self.request.headers.get("Mcp-Session-Id")
        if method == "initialize":
            session = uuid.uuid4().hex
            SESSIONS.add(session)
            self.set_header("Mcp-Session-Id", session)
            reply = {
                "jsonrpc": "2.0",
                "id": rid,
                "result": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "ceiling", "version": "0"},
                },
            }
        elif session is not None and session not in SESSIONS:
            self.set_status(404)
            self.finish()
            return
        elif rid is None:
            self.set_status(202)
            self.finish()
            return
        elif method == "tools/call":
            params = message.get("params") or {}
            result = tool_result(params.get("name"), params.get("arguments") or {})
            reply = (
                {"jsonrpc": "2.0", "id": rid, "result": result}
                if result is not None
                else {"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": "unknown tool"}}
            )
        else:
            reply = {"jsonrpc": "2.0", "id": rid, "result": {}}
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps(reply))

    async def get(self) -> None:
        self.set_header("Content-Type", "text/event-stream")
        self.set_header("Cache-Control", "no-cache")
        self.write(": open\n\n")
        await self.flush()
        self.left = asyncio.Event()
        await self.left.wait()

    def on_connection_close(self) -> None:
        left = getattr(self, "left", None)
        if left is not None:
            left.set()


async def main() -> None:
    opts = parse()
    tornado.web.Application([(r"/mcp", Endpoint)]).listen(opts.port, address=opts.host)
    await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main())
