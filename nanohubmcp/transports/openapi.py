"""The OpenAPI 3.1 document for the REST routes, built from the tools' schemas.

Every tool is a ``POST /tools/<name>`` operation whose request body is the tool's input schema
and whose responses describe what the REST route really answers: 200 with the
result (the output schema when declared), 202 with a job handle for async tools, and the
error bodies for 400, 404, 422 (an error result the tool returned) and 500 (and 403, a middleware's
refusal, when the server has one).
``servers`` carries the public base (weber URL and prefix), so paths resolve through the proxy.
Tools that need an MCP client (a Context parameter) are still listed; calling them over REST works
unless they ask the client for input. A tool for its view only (``view_visibility=["app"]``) is not
listed: the REST route does not serve it.

Source: OpenAPI Specification 3.1.0 (§ 4.8 Schema, § 4.8.5 Server Object).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..server.registry.mcp_apps import app_only
from .rest import JOB_TOOLS

if TYPE_CHECKING:
    from ..server.core import ServerCore

_ERROR = {"type": "object", "properties": {"error": {"type": "string"}}, "required": ["error"]}
_NOT_FOUND = {
    "type": "object",
    "properties": {"status": {"const": "not_found"}, "job_id": {"type": "string"}, "error": {"type": "string"}},
    "required": ["status", "job_id", "error"],
}
_JOB = {
    "type": "object",
    "properties": {"status": {"const": "running"}, "job_id": {"type": "string"}, "message": {"type": "string"}},
    "required": ["status", "job_id"],
}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def build_openapi(core: ServerCore, base_url: str) -> dict[str, Any]:
    """Return the OpenAPI document.

    Args:
        core: the ``ServerCore`` whose tools become operations.
        base_url: the public base URL (with the path prefix), advertised in ``servers``.
    """
    paths: dict[str, Any] = {}
    # A middleware's deliberate refusal (a ProtocolError of its own code) is REST's 403 (errors.http_status_for).
    refusal = {"403": _json(_ERROR, "Refused by a middleware of the server")} if core.dispatcher.pipeline.middleware \
        else {}
    for tool in core.registry.tools.values():
        if app_only(tool.meta):
            continue
        summary = (tool.title or (tool.description or tool.name).strip().splitlines()[0])[:120]
        if tool.background:
            ok = {"202": _json(_JOB, "Job started; poll POST /tools/get_job_result with the job_id")}
        else:
            result_schema = tool.output_schema or {
                "type": "object", "properties": {"result": {}},
                "description": "A dict result is returned as itself; anything else as {\"result\": ...}"}
            ok = {"200": _json(result_schema, "The tool's result")}
        paths[f"/tools/{tool.name}"] = {
            "post": {
                "operationId": tool.name,
                "summary": summary,
                "description": tool.description or "",
                "tags": sorted(tool.tags) or ["tools"],
                "requestBody": {"required": True, "content": {"application/json": {"schema": tool.input_schema}}},
                "responses": {
                    **ok,
                    "400": _json(_ERROR, "Malformed JSON or invalid arguments"),
                    **refusal,
                    "404": _json({"anyOf": [_ERROR, _NOT_FOUND]}, "Unknown tool, or no such job for the caller")
                    if tool.name in JOB_TOOLS else _json(_ERROR, "Unknown tool"),
                    "422": _json(_ERROR, "The tool returned an error result: its text"),
                    "500": _json(_ERROR, "The tool raised an error"),
                },
            }
        }
    return {
        "openapi": "3.1.0",
        "info": {"title": core.name, "version": core.version,
                 "description": core.instructions or f"Tools of the MCP server '{core.name}' as REST operations"},
        "servers": [{"url": base_url.rstrip("/") or "/"}],
        "paths": paths,
    }
