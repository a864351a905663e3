"""Direct REST calls: ``POST /tools/<name>`` with the arguments object as the body.

Answers (``design/rulings.md`` § HTTP): 200 ``{"result": ...}`` (a dict result as itself);
400 invalid JSON or arguments; 404 unknown tool; 500 ``{"error": "<message>"}`` when the tool
raises; 202 with the job handle for ``@async_tool`` tools (poll ``POST /tools/get_job_result``).
Output schemas apply here as on ``tools/call`` (fixes study § f 7). No MCP session is
involved, so tools that need the client (elicitation, sampling) fail with a clear message.
"""

from __future__ import annotations

import asyncio
from typing import Any

import tornado.web

from ..errors import InvalidArguments, ProtocolError
from ..protocol import jsonrpc, versions
from ..server.handlers import tools as tool_handlers
from ..server.request import RequestContext
from .base import BaseHandler, BodyLimitMixin, json_body_type

REST_VERSION = versions.V2025_11_25


@tornado.web.stream_request_body
class RestToolHandler(BodyLimitMixin, BaseHandler):
    """``POST /tools/<name>``."""

    def prepare(self) -> None:
        super().prepare()
        if not self._finished:
            self.prepare_body()

    def body_error(self, message: str) -> dict[str, Any]:
        return {"error": message}

    async def post(self, name: str) -> None:
        if self._finished:
            return
        tool = self.core.registry.tools.get(name)
        if tool is None:
            self.send_error_json(404, {"error": f"Unknown tool: {name}"})
            return
        if not json_body_type(self.request.headers.get("Content-Type")):
            self.send_error_json(415, {"error": "Send the arguments as JSON with 'Content-Type: application/json'"})
            return
        body = self.body()
        try:
            arguments = jsonrpc.parse_body(body) if body.strip() else {}
        except ProtocolError as exc:
            self.send_error_json(400, {"error": f"Malformed JSON body: {exc.message}"})
            return
        if not isinstance(arguments, dict):
            self.send_error_json(400, {"error": "The body must be a JSON object of argument names to values"})
            return
        try:
            arguments = tool.validator.validate(arguments)
        except InvalidArguments as exc:
            self.send_error_json(400, {"error": str(exc), "details": exc.errors})
            return
        message = jsonrpc.Message(jsonrpc.REQUEST, {}, method="tools/call", id=f"rest-{id(self)}",
                                  params={"name": name, "arguments": arguments})
        request = RequestContext(message, version=REST_VERSION, loop=asyncio.get_running_loop())
        if tool.background:
            job = tool_handlers.start_job(self.core, request, tool, arguments)
            self.send_json(202, {
                "status": "running", "job_id": job.id,
                "message": f'Job started. Poll with POST {self.config.public_path()}/tools/get_job_result '
                           f'{{"job_id": "{job.id}"}}'})
            return
        try:
            result = await tool_handlers.run_tool(self.core, request, tool, arguments)
        except ProtocolError as exc:
            self.send_error_json(400, {"error": exc.message})
            return
        status, payload = rest_answer(result)
        self.send_json(status, payload)


def rest_answer(result: dict[str, Any]) -> tuple[int, Any]:
    """Map a CallToolResult to the REST status and body."""
    if result.get("isError"):
        texts = [c.get("text", "") for c in result.get("content", []) if c.get("type") == "text"]
        return 500, {"error": "\n".join(texts) or "the tool failed"}
    structured = result.get("structuredContent")
    if isinstance(structured, dict):
        return 200, structured
    content = result.get("content", [])
    if len(content) == 1 and content[0].get("type") == "text":
        return 200, {"result": content[0]["text"]}
    return 200, {"result": structured if structured is not None else content}
