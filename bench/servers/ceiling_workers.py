"""The ceiling of serving one port from several processes: bare Tornado (the JSON-RPC endpoint of
``ceiling_tornado.py``) forked into ``--workers`` processes after binding once, the way
``nanohubmcp run --workers N`` serves; ``--reuse-port`` gives each worker a socket of its own on the
port (``SO_REUSEPORT``: the kernel spreads the connections) instead.

Sessions are not shared between the processes, so every session id is accepted (a worker cannot
know the ids another handed out); everything else is ``ceiling_tornado.Endpoint``.
"""

from __future__ import annotations

import asyncio

import tornado.httpserver
import tornado.netutil
import tornado.process
import tornado.web
from _args import parse
from ceiling_tornado import SESSIONS, Endpoint


class AnySession(Endpoint):
    def prepare(self) -> None:
        session = self.request.headers.get("Mcp-Session-Id")
        if session:
            SESSIONS.add(session)


def main() -> None:
    opts = parse(values=("workers",), extra=("reuse-port",))
    workers = int(opts.workers or 1)
    app = tornado.web.Application([(r"/mcp", AnySession)])
    if opts.reuse_port:
        if workers > 1:
            tornado.process.fork_processes(workers, max_restarts=0)
        sockets = tornado.netutil.bind_sockets(opts.port, address=opts.host, reuse_port=True)
    else:
        sockets = tornado.netutil.bind_sockets(opts.port, address=opts.host)
        if workers > 1:
            tornado.process.fork_processes(workers, max_restarts=0)

    async def serve() -> None:
        tornado.httpserver.HTTPServer(app).add_sockets(sockets)
        await asyncio.Event().wait()

    asyncio.run(serve())


if __name__ == "__main__":
    main()
