"""Direct REST calls: ``POST /tools/<name>`` with the arguments object as the body.

No MCP specification covers this route; the answers are this package's: 200
``{"result": ...}`` (a dict result as itself); 400 invalid JSON or arguments; 404 unknown
tool (a tool for its view only, ``view_visibility=["app"]``, is not served here: the REST routes
have no host to keep it from a model, and OpenAPI readers are often models), or a job the job
tools (``get_job_result``, ``cancel_job``) may not show the caller (the ``{"status": "not_found",
...}`` object they answer); 500 ``{"error": "<message>"}`` when the tool raises; 422 with its text
when it returns an error result, ``ToolResult(..., is_error=True)`` (as the earlier package); 403 when a
middleware refuses the call on purpose (a ``ProtocolError`` of its own code:
:func:`~nanohubmcp.errors.http_status_for`); 202 with the job handle for ``@async_tool`` tools
(poll ``POST /tools/get_job_result``); a tool's None is ``{"result": null}``.
Output schemas apply here as on ``tools/call``. The call's provenance record is named by a ``Link`` header (relation
``http://www.w3.org/ns/prov#has_provenance``, W3C PROV-AQ); ``resources/read`` of it (``POST /``
or ``/mcp``) answers the caller. No MCP session is
involved, so tools that need the client (elicitation, sampling) fail with a clear message.

A REST call is a ``tools/call`` served through the same :class:`~nanohubmcp.server.connection.Connection`
as every other route (one call path); this module only maps the body in and the result or
JSON-RPC error out (:func:`rest_error` is the REST shape of every error). A name that is no tool's is the
call pipeline's to refuse, as on ``/mcp`` (the application's middleware and call observers see it): its
-32602, marked :data:`~nanohubmcp.server.wire.request.UNKNOWN_TOOL`, is answered 404 (the name cut to its first 200
characters, as a no-route 404 cuts the path). The name is judged before the body: a name that is no tool's, or a
tool's for its view only, is 404 whatever the body (authorization, at the edge, comes before both); only a tool that
exists has a body that is not a JSON object refused 415 or 400 (an empty body is no arguments, ``{}``).

.. versionchanged:: 1.0
   A name that is no tool's is 404 whatever the body (trial79: ``POST /tools/nope`` without ``Content-Type`` was
   told to send JSON).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from ..errors import (
    REST_ROUTE,
    RETRY_AFTER_META,
    InvalidParams,
    NanohubMCPError,
    ProtocolError,
    UnknownTool,
    UnsupportedMediaType,
    http_status_for,
    http_status_of,
    to_error_object,
)
from ..protocol import jsonrpc, versions
from ..protocol.encoded import is_object
from ..schema.paths import echoed
from ..server.results.named_blocks import placeholders
from ..server.wire.request import (
    ASKED_WITHOUT_CLIENT,
    LARGE_MESSAGE_BYTES,
    RETURNED_ERROR,
    TIMED_OUT,
    UNKNOWN_TOOL,
)
from .bodies import BodyReadingHandler
from .headers import json_body_type
from .not_found import shown
from .retry_after import retry_after_seconds

log = logging.getLogger("nanohubmcp.server")

REST_VERSION = versions.V2025_11_25
PROVENANCE_META = "io.nanohub/provenance"
"""The result ``_meta`` key naming the call's provenance record (read it with ``resources/read``)."""
HAS_PROVENANCE = "http://www.w3.org/ns/prov#has_provenance"
"""The link relation of a resource's provenance record (W3C PROV-AQ, § 3.1)."""


def _app_only(meta: dict[str, Any]) -> bool:
    """``mcp_apps.app_only``, imported with the first tool that has ``_meta`` (a server without views never
    loads the MCP Apps module)."""
    from ..server.registry.mcp_apps import app_only

    return app_only(meta)


def _view_refusal(tool: Any, name: str) -> UnknownTool | None:
    """The 404 for a tool for its view only (through a host: REST has neither), else None."""
    if tool is None or not tool.meta or not _app_only(tool.meta):
        return None
    return UnknownTool(f"Tool {shown(name)!r} is for its view only (view_visibility=['app']): not served over REST; "
                       "an MCP host calls it for its view")


def rest_error(error: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """The REST status and body ``{"error": message, "details"?: [...]}`` for a JSON-RPC error object."""
    body: dict[str, Any] = {"error": error.get("message") or "the call failed"}
    data = error.get("data")
    if isinstance(data, dict) and isinstance(data.get("errors"), list):
        body["details"] = data["errors"]
    return http_status_for(error, REST_ROUTE), body


class RestToolHandler(BodyReadingHandler):
    """``POST /tools/<name>``."""

    route = REST_ROUTE

    def error_body(self, exc: NanohubMCPError, request_id: Any = None) -> Any:
        return rest_error(to_error_object(exc))[1]

    def refuse_body(self, tool: object, name: str, refusal: ProtocolError) -> None:
        """Answer a body this route cannot read: ``refusal`` for a tool that exists; for a name that is no tool's,
        its 404 (``Unknown tool: NAME``) instead, whatever the body: what the caller must fix first."""
        self.fail(refusal if tool is not None else UnknownTool(f"Unknown tool: {echoed(name)}"))

    def refuse_coding(self) -> bool:
        """As every route reading a body (a compressed one is 415), but the tool named first: a name that is no tool's,
        or a tool's for its view only, is its 404 whatever the body (:meth:`refuse_body`)."""
        if self.sent_coding() is None:
            return False
        name = self.path_args[0]
        tool = self.connection.described.registry.tools.get(name)
        refusal = UnknownTool(f"Unknown tool: {echoed(name)}") if tool is None else _view_refusal(tool, name)
        if refusal is not None:
            self.fail(refusal)
            return True
        return super().refuse_coding()

    async def post(self, name: str) -> None:
        if self.finished:
            return
        body = self.received()
        if body is None:  # answered already (or the client is gone)
            return
        # The tool named first (404 for none, or one for its view only, whatever the body), then the body (415, 400:
        # an empty one is no arguments); a well-formed call to no tool is the call pipeline's to refuse, as on /mcp.
        tools = self.connection.described.registry.tools
        tool = tools.get(name)
        refusal = _view_refusal(tool, name)
        if refusal is not None:
            self.fail(refusal)
            return
        if not json_body_type(self.request.headers.get("Content-Type")):
            self.refuse_body(tool, name, UnsupportedMediaType(
                "Send the arguments as JSON with 'Content-Type: application/json'"))
            return
        large = len(body) >= LARGE_MESSAGE_BYTES  # parsed, and its arguments checked, on a worker thread
        try:
            if not large:
                arguments = jsonrpc.parse_body(body) if body.strip() else {}
            else:
                arguments = await asyncio.to_thread(jsonrpc.parse_body, body, large=True) if body.strip() else {}
        except ProtocolError as exc:
            self.refuse_body(tool, name, type(exc)(f"Malformed JSON body: {exc.message}"))
            return
        if not isinstance(arguments, dict):
            self.refuse_body(tool, name, InvalidParams("The body must be a JSON object of argument names to values"))
            return
        params = {"name": name, "arguments": arguments}
        message = jsonrpc.classify(jsonrpc.request(f"rest-{id(self)}", "tools/call", params))
        connection = self.connection
        # Invalid arguments are REST's 400 whatever the server's argument_errors option says.
        call = connection.request(
            message, version=REST_VERSION, argument_errors="protocol", data_only=True, principal=self.principal,
            trace_headers=self.request.headers,
        )
        call.large = large
        reply = await connection.serve(call)
        response = reply.message or {}
        if "error" in response:
            self.reply_status(response, REST_ROUTE)  # the headers its error needs (a scope challenge)
            error = response["error"]
            status, answer = rest_error(error)
            if call.slots.get(UNKNOWN_TOOL) and error.get("code") == UnknownTool.code:  # the tool named is none
                status = http_status_of(UnknownTool(answer["error"]), REST_ROUTE)  # 404, not -32602's 400
                answer["error"] = f"Unknown tool: {echoed(name)}"  # escaped and cut, as MCP's answer names it
            self.send_error_json(status, answer)
            return
        tool = tool or tools.get(name)  # (registered while the call was on its way)
        background = tool is not None and tool.background
        result = response["result"]
        record = (result.get("_meta") or {}).get(PROVENANCE_META)
        if isinstance(record, str):  # the call's provenance record, as W3C PROV-AQ names it
            self.set_header("Link", f'<{record}>; rel="{HAS_PROVENANCE}"')
        refused = job_not_found(name, result)
        if refused is not None:
            # An unknown (or someone else's) job id: the tool's error, with the status body pollers read.
            self.send_json(404, refused, echoes=False)
            return
        if background and result.get("isError"):
            # An async tool answers at once; an error then means no job could start (a full job store),
            # with the seconds until the caller's share frees a slot when the store knows them.
            seconds = retry_after(result)
            if seconds is not None:
                self.set_header("Retry-After", str(seconds))
            self.send_error_json(429, rest_answer(result)[1], echoes=False)
            return
        if background:
            job_id = (result.get("structuredContent") or {}).get("job_id")
            self.send_json(
                202,
                {
                    "status": "running",
                    "job_id": job_id,
                    "message": f"Job started. Poll with POST {self.config.public_path()}/tools/get_job_result "
                    f'{{"job_id": "{job_id}"}}',
                },
            )
            return
        seconds = retry_after(result)
        if seconds is not None:
            self.set_header("Retry-After", str(seconds))
        # The tool's answer, its error text too: a lone surrogate in any of it is U+FFFD, as over tools/call.
        status, answer = rest_answer(result, returned=bool(call.slots.get(RETURNED_ERROR)),
                                     timed_out=bool(call.slots.get(TIMED_OUT)),
                                     asked=bool(call.slots.get(ASKED_WITHOUT_CLIENT)))
        try:
            self.send_json(status, answer, echoes=False)
        except (TypeError, ValueError) as exc:  # a middleware's value JSON has no form for (bytes, a set)
            log.error("the result of REST call %s cannot be written as JSON (%s); answered 500: a middleware "
                      "must return JSON values (numbers, text, lists, dicts)", echoed(name), exc)
            self.clear_header("Retry-After")
            self.clear_header("Link")
            self.send_error_json(500, {"error": "Internal error: the result could not be written as JSON; see "
                                                "the server log"})


def retry_after(result: dict[str, Any]) -> int | None:
    """The seconds an ``isError`` result asks the caller to wait before retrying, if it says."""
    meta = result.get("_meta")
    return retry_after_seconds(meta.get(RETRY_AFTER_META)) if isinstance(meta, dict) and result.get("isError") \
        else None


JOB_TOOLS = frozenset({"get_job_result", "cancel_job"})
"""The built-in job tools: their ``not_found`` refusal is REST's 404 with the status object."""


def job_not_found(name: str, result: dict[str, Any]) -> dict[str, Any] | None:
    """The status object ``{"status": "not_found", "job_id", "error"}`` of a job tool's refusal of a
    job the caller may not see (``get_job_result``, ``cancel_job``: the same answer), else None."""
    structured = result.get("structuredContent")
    if name in JOB_TOOLS and result.get("isError") and isinstance(structured, dict) \
            and structured.get("status") == "not_found":
        return structured
    return None


def rest_answer(result: dict[str, Any], *, returned: bool = False, timed_out: bool = False,
                asked: bool = False) -> tuple[int, Any]:
    """Map a CallToolResult to the REST status and body: 500 for a tool error (it raised, or its result
    broke its output schema), 422 for an error result the tool returned (``returned``:
    ``ToolResult(..., is_error=True)``), 504 for a call past a time limit (``timed_out``: ``tool_timeout``, a
    Rappture tool's ``timeout``, a Sim2L's ``cell_timeout``; :class:`~nanohubmcp.errors.ToolTimeout`), 400 for a
    tool that asked the client (``asked``: ``ctx.elicit``, ``ctx.sample``: only an MCP client answers), 503 for a
    tool that could not start (its ``_meta`` names when
    to retry: the handler sends ``Retry-After``). A 200 body is the result's data: its structured
    content (a dict as itself), one text block as ``{"result": text}``, else its blocks named, never
    carried, as a job's value names them (:func:`~nanohubmcp.server.results.named_blocks.placeholders`:
    a figure answers ``{"result": "<image: content[0]>"}``, bytes ``{"result": "<content[0]>"}``).

    .. versionchanged:: 1.0
       a result with no structured content answered its blocks, base64 PNG or bytes inside.
    """
    if result.get("isError"):
        texts = [c.get("text", "") for c in result.get("content", []) if c.get("type") == "text"]
        status = (503 if retry_after(result) is not None else 422 if returned else 504 if timed_out
                  else 400 if asked else 500)
        return status, {"error": "\n".join(texts) or "the tool failed"}
    structured = result.get("structuredContent")
    if is_object(structured):  # (a large dict's is its JSON text: encoded.Encoded)
        return 200, structured
    content = result.get("content", [])
    if len(content) == 1 and content[0].get("type") == "text":
        return 200, {"result": content[0]["text"]}
    # pictures and files are named in their places, not carried (a REST caller reads no base64), as in a job's value
    return 200, {"result": structured if structured is not None else placeholders(content)}
