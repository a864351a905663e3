"""The Tornado ceiling with one serving feature switched on at a time, to price each feature.

``bench/costs.py`` starts it with one flag and compares its CPU per request with the bare
ceiling's in the same rounds. Each flag adds one thing nanohubmcp's request path does:

    --body-timeout   HTTPServer(body_timeout=30, idle_connection_timeout=300): a timer per body read
    --stream-body    @stream_request_body: prepare() + data_received() instead of a buffered body
    --executor       the tool runs in a ThreadPoolExecutor (run_in_executor), awaited by the handler
    --validate       arguments checked with jsonschema's Draft202012Validator (iter_errors)
    --all            every flag above
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import json

import tornado.httpserver
import tornado.web

SCHEMA = {
    "type": "object",
    "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
    "required": ["a", "b"],
    "additionalProperties": False,
}


def build(opts: argparse.Namespace) -> type[tornado.web.RequestHandler]:
    pool = concurrent.futures.ThreadPoolExecutor(4) if opts.executor else None
    checker = None
    if opts.validate:
        from jsonschema import Draft202012Validator

        checker = Draft202012Validator(SCHEMA)

    class Endpoint(tornado.web.RequestHandler):
        def prepare(self) -> None:
            self.chunks: list[bytes] = []

        def data_received(self, chunk: bytes) -> None:
            self.chunks.append(chunk)

        async def post(self) -> None:
            body = b"".join(self.chunks) if opts.stream_body else self.request.body
            message = json.loads(body)
            rid = message.get("id")
            if message.get("method") == "initialize":
                self.set_header("Mcp-Session-Id", "s")
                reply = {"jsonrpc": "2.0", "id": rid, "result": {"protocolVersion": "2025-11-25",
                                                                 "capabilities": {"tools": {}},
                                                                 "serverInfo": {"name": "c", "version": "0"}}}
            elif rid is None:
                self.set_status(202)
                self.finish()
                return
            else:
                args = message["params"]["arguments"]
                if checker is not None:
                    errors = list(checker.iter_errors(args))
                    if errors:
                        raise tornado.web.HTTPError(400)
                if pool is not None:
                    loop = asyncio.get_running_loop()
                    total = await loop.run_in_executor(pool, lambda: args["a"] + args["b"])
                else:
                    total = args["a"] + args["b"]
                reply = {"jsonrpc": "2.0", "id": rid, "result": {
                    "content": [{"type": "text", "text": json.dumps(total)}], "isError": False}}
            self.set_header("Content-Type", "application/json")
            self.finish(json.dumps(reply))

    if opts.stream_body:
        Endpoint = tornado.web.stream_request_body(Endpoint)
    return Endpoint


async def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, required=True)
    for flag in ("body-timeout", "stream-body", "executor", "validate", "all"):
        p.add_argument(f"--{flag}", action="store_true")
    opts = p.parse_args()
    if opts.all:
        opts.body_timeout = opts.stream_body = opts.executor = opts.validate = True
    app = tornado.web.Application([(r"/mcp", build(opts))])
    timeouts = {"body_timeout": 30.0, "idle_connection_timeout": 300.0} if opts.body_timeout else {}
    server = tornado.httpserver.HTTPServer(app, **timeouts)
    server.listen(opts.port, address=opts.host)
    await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main())
