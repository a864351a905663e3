"""A small HTTP/1.1 client on asyncio streams, for the probes that wrk cannot do.

Used for readiness polling, sessions, the 1 MB calls, held SSE streams and the calls made while
streams are held. It keeps the connection alive when the server does, reads Content-Length,
chunked and close-delimited bodies, and bounds every exchange with a timeout.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Reply:
    status: int
    headers: dict[str, str]  # lower-case names
    body: bytes
    version: str = "HTTP/1.1"
    raw_size: int = 0

    def header(self, name: str, default: str = "") -> str:
        return self.headers.get(name.lower(), default)

    def message(self) -> dict[str, Any] | None:
        """The JSON-RPC response in the body: plain JSON, or the last SSE event carrying an id."""
        if "event-stream" in self.header("content-type"):
            found = None
            for event in self.body.decode("utf-8", "replace").split("\n\n"):
                data = "\n".join(line[5:].lstrip() for line in event.splitlines() if line.startswith("data:"))
                if not data:
                    continue
                try:
                    parsed = json.loads(data)
                except ValueError:
                    continue
                if isinstance(parsed, dict) and "id" in parsed:
                    found = parsed
            return found
        try:
            parsed = json.loads(self.body)
        except ValueError:
            return None
        return parsed if isinstance(parsed, dict) else None


@dataclass
class Connection:
    host: str
    port: int
    reader: asyncio.StreamReader | None = None
    writer: asyncio.StreamWriter | None = None
    opened: int = field(default=0)

    async def close(self) -> None:
        writer, self.reader, self.writer = self.writer, None, None
        if writer is not None:
            writer.close()
            with contextlib.suppress(OSError, asyncio.TimeoutError):
                await asyncio.wait_for(writer.wait_closed(), 2)

    async def request(
        self, method: str, path: str, headers: dict[str, str], body: bytes = b"", timeout: float = 10.0
    ) -> Reply:
        """One exchange, bounded by ``timeout`` seconds; reconnects once if a kept connection died."""
        return await asyncio.wait_for(self._exchange(method, path, headers, body, retry=True), timeout)

    async def _exchange(
        self, method: str, path: str, headers: dict[str, str], body: bytes, retry: bool
    ) -> Reply:
        fresh = self.writer is None
        if fresh:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port, limit=1 << 24)
            self.opened += 1
        head = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}"]
        head += [f"{k}: {v}" for k, v in headers.items()]
        if body or method == "POST":
            head.append(f"Content-Length: {len(body)}")
        assert self.writer is not None
        assert self.reader is not None
        self.writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body)
        try:
            version, status, names, size = await self._head()
        except (asyncio.IncompleteReadError, ConnectionError):
            await self.close()
            if retry and not fresh:
                return await self._exchange(method, path, headers, body, retry=False)
            raise
        data, close = await self._body(method, status, names)
        reply = Reply(status, names, data, version, size + len(data))
        connection = names.get("connection", "").lower()
        if close or connection == "close" or (version == "HTTP/1.0" and connection != "keep-alive"):
            await self.close()
        return reply

    async def _head(self) -> tuple[str, int, dict[str, str], int]:
        assert self.reader is not None
        raw = await self.reader.readuntil(b"\r\n\r\n")
        lines = raw.decode("latin-1").split("\r\n")
        version, status = lines[0].split(" ", 2)[:2]
        names = {}
        for line in lines[1:]:
            name, sep, value = line.partition(":")
            if sep:
                names[name.strip().lower()] = value.strip()
        return version, int(status), names, len(raw)

    async def _body(self, method: str, status: int, names: dict[str, str]) -> tuple[bytes, bool]:
        assert self.reader is not None
        if method == "HEAD" or status in (204, 304) or status < 200:
            return b"", False
        if "chunked" in names.get("transfer-encoding", "").lower():
            parts = []
            while True:
                size = int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16)
                if size == 0:
                    while await self.reader.readuntil(b"\r\n") != b"\r\n":
                        pass
                    return b"".join(parts), False
                parts.append(await self.reader.readexactly(size))
                await self.reader.readexactly(2)
        if "content-length" in names:
            return await self.reader.readexactly(int(names["content-length"])), False
        return await self.reader.read(), True
