"""The OpenAPI 3.1 document for the REST routes, built from the tools' schemas.

Every tool is a ``POST /tools/<name>`` operation whose request body is the tool's input schema
and whose responses describe what the REST route really answers (:mod:`.rest`): 200 with the
result (the output schema when declared), 202 with a job handle for async tools, and the
error bodies for 400, 404, 413 (a body over ``max_request_bytes``), 415 (a body not JSON, or compressed), 422
(an error result the tool returned), 500, 503 (the tool could not start, the server is stopping or at a
limit; with ``Retry-After``), and for a tool answering in its call 504 (past a time limit: ``ToolTimeout``), for
an async tool 429 (its job could not start); 403 when the server has a middleware (its refusal) or, with
authorization, requires scopes of every request or of the tool (a token without them); 401 with authorization (no
valid token). The refusals
of every route at the edge (421 a ``Host``, 403 an ``Origin``, 405 another method) are docs/api/http.md's.
``servers`` carries the public base (weber URL and prefix), so paths resolve through the proxy.
Tools that need an MCP client (a Context parameter) are still listed; calling them over REST works
unless they ask the client for input. A tool for its view only (``view_visibility=["app"]``) is not
listed: the REST route does not serve it.

Source: OpenAPI Specification 3.1.0 (§ 4.8 Schema, § 4.8.5 Server Object).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..server.registry.mcp_apps import app_only
from ..server.wire.scopes import TOOL_SCOPES
from .rest import JOB_TOOLS

if TYPE_CHECKING:
    from ..auth.verifiers import TokenVerifier
    from ..server.described import Described
    from ..server.registry.components import Tool

_ERROR = {"type": "object", "properties": {"error": {"type": "string"}, "details": {"type": "array"}},
          "required": ["error"]}
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


_RETRY_AFTER = {"Retry-After": {"description": "Seconds to wait before trying again",
                                 "schema": {"type": "integer", "minimum": 0}}}
_WWW_AUTHENTICATE = {"WWW-Authenticate": {"description": "The Bearer challenge (RFC 6750 § 3)",
                                          "schema": {"type": "string"}}}


def _json(schema: dict[str, Any], description: str, headers: dict[str, Any] | None = None) -> dict[str, Any]:
    answer: dict[str, Any] = {"description": description, "content": {"application/json": {"schema": schema}}}
    if headers:
        answer["headers"] = headers
    return answer


def _refusals(middleware: bool, auth: TokenVerifier | None, tool: Tool) -> dict[str, Any]:
    """401 and 403, as far as the server refuses calls of ``tool``: 401 with authorization (no valid token); 403
    with a middleware (its deliberate refusal, a ProtocolError of its own code: errors.http_status_for), or with
    authorization and scopes every request or the tool needs (a token without them)."""
    scoped = auth is not None and bool(getattr(auth, "required_scopes", None) or tool.extra.get(TOOL_SCOPES))
    why = [*(["Refused by a middleware of the server"] if middleware else []),
           *(["The token lacks a scope the server or the tool needs"] if scoped else [])]
    answers = {"401": _json(_ERROR, "No valid bearer token", _WWW_AUTHENTICATE)} if auth is not None else {}
    if why:
        answers["403"] = _json(_ERROR, "; or ".join(why))
    return answers


def build_openapi(server: Described, base_url: str, *, auth: TokenVerifier | None = None,
                  middleware: bool = False) -> dict[str, Any]:
    """Return the OpenAPI document.

    Args:
        server: the server whose tools become operations (a connection's ``described``).
        base_url: the public base URL (with the path prefix), advertised in ``servers``.
        auth: the server's token verifier, None without authorization (with one, 401 is listed; with the scopes
            it requires, 403).
        middleware: whether the server's application added a middleware (then 403 is listed: its refusal).
    """
    paths: dict[str, Any] = {}
    for tool in server.registry.tools.values():
        if app_only(tool.meta):
            continue
        summary = (tool.title or (tool.description or tool.name).strip().splitlines()[0])[:120]
        if tool.background:
            ok = {"202": _json(_JOB, "Job started; poll POST /tools/get_job_result with the job_id")}
            late = {"429": _json(_ERROR, "The job could not start: the job store is full")}
        else:
            late = {"504": _json(_ERROR, "The call ran past a time limit (ToolTimeout): the server's tool_timeout, "
                                 "a Rappture tool's timeout, a Sim2L's cell_timeout; the text names it")}
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
                    **_refusals(middleware, auth, tool),
                    "404": _json({"anyOf": [_ERROR, _NOT_FOUND]}, "Unknown tool, or no such job for the caller")
                    if tool.name in JOB_TOOLS else _json(_ERROR, "Unknown tool"),
                    "413": _json(_ERROR, "The body is larger than the server's max_request_bytes"),
                    "415": _json(_ERROR, "The body is not JSON (Content-Type: application/json), or was sent "
                                 "compressed"),
                    "422": _json(_ERROR, "The tool returned an error result: its text"),
                    "500": _json(_ERROR, "The tool raised an error"),
                    "503": _json(_ERROR, "The tool could not start (every worker busy), the server is at a limit, "
                                 "or it is stopping: try again after Retry-After", _RETRY_AFTER),
                    **late,
                },
            }
        }
    return {
        "openapi": "3.1.0",
        "info": {"title": server.name, "version": server.version,
                 "description": server.instructions or f"Tools of the MCP server '{server.name}' as REST operations"},
        "servers": [{"url": base_url.rstrip("/") or "/"}],
        "paths": paths,
    }
