"""A server with two middleware layers, loaded by the pipeline tests in this process and run by
``python -m nanohubmcp run`` for stdio.

``outer`` (added first) records what every request looked like and what came back; ``inner``
changes the arguments of ``echo`` on the way in, answers ``shortcut`` itself, and refuses
``refused`` with a JSON-RPC error of its own. The ``seen`` tool tells what ``outer`` recorded.
"""

from __future__ import annotations

from typing import Any

from nanohubmcp import MCPServer, ProtocolError, Request
from nanohubmcp.server.middleware import CallNext

REFUSED_CODE = -32050

server = MCPServer("layers")
seen: list[dict[str, Any]] = []


@server.tool()
def echo(text: str) -> str:
    """Return the text."""
    return text


@server.tool()
def report() -> list[dict[str, Any]]:
    """What the outer layer saw of the requests before this one."""
    return list(seen)


@server.middleware
async def outer(request: Request, call_next: CallNext) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "order": ["outer"],
        "method": request.method,
        "tool": request.tool_name,
        "session": request.session_id,
        "version": request.protocol_version,
        "principal": request.principal.subject if request.principal is not None else None,
    }
    if request.tool_name != "report":
        seen.append(entry)
    try:
        result = await call_next(request)
    except ProtocolError as exc:
        entry["error"] = exc.code
        raise
    entry["result_keys"] = sorted(result)
    return result


async def inner(request: Request, call_next: CallNext) -> dict[str, Any]:
    name = request.tool_name
    if seen and name != "report":
        seen[-1]["order"].append("inner")
    if name == "shortcut":
        return {"content": [{"type": "text", "text": "answered by a layer"}], "isError": False}
    if name == "refused":
        raise ProtocolError("refused by a layer", code=REFUSED_CODE)
    if name == "echo":
        arguments = dict(request.params.get("arguments") or {})
        arguments["text"] = str(arguments.get("text", "")) + "!"
        request = request.replace(params={**request.params, "arguments": arguments})
    return await call_next(request)


server.add_middleware(inner)
