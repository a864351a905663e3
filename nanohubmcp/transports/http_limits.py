"""The numbers of the limits of an HTTP message before a handler runs (:mod:`.http_server`, which applies them and
offers them as its own): header block size, header and body time, read sizes.

:class:`~.http_server.LimitedApplication` (:func:`~nanohubmcp.transports.routes.make_app`'s, on any server) wraps
every request:

- **Header block.** A request whose header block is over :data:`MAX_HEADER_BYTES` is answered ``431 Request
  Header Fields Too Large`` (RFC 6585 § 5) with a JSON body saying the limit, before any route sees it (Tornado
  closes the connection without a word). The runner's server reads up to :data:`READ_HEADER_BYTES`; beyond it
  the connection is closed unanswered (nobody reads a megabyte of headers to refuse it).
- **Slow bodies.** A request body not complete :data:`BODY_TIMEOUT` seconds after its headers is answered ``408
  Request Timeout`` with ``Connection: close`` when nothing was answered yet (RFC 9110 § 15.5.9), and loses its
  connection (a client trickling its body cannot hold a connection): every body being read on a loop is timed in one
  table that one timer sweeps (:class:`~.http_server.Deadlines`), not a timer (or Tornado's ``body_timeout``
  futures) a request.
- **Slow headers.** On the runner's server (:class:`~.http_server.LimitedServer`) a connection's next request
  headers are timed in the same table from when it waits for them (:data:`HEADER_TIMEOUT`; Tornado's own is a timer
  and two futures per request; a first byte 0x16, TLS, is answered at once: :mod:`.tls_probe`); elsewhere
  ``idle_connection_timeout``.
- **Reads.** The runner's server reads a request from its socket :data:`FIRST_READ_BYTES` at a time (Tornado: 64
  KiB, a zero-filled buffer made for every read), and a body declared larger than that (or chunked) in Tornado's
  pieces; and it reads a request's header block as :func:`~.http_server.read_header_block` says,
  after finding where it ends with a pattern ~10x cheaper than Tornado's (:data:`~.http_server.HEADER_END`).
- **Body size.** A POST route's handler gets its body buffered by Tornado when its ``Content-Length`` is within the
  route's ``max_request_bytes`` (no streaming round trips: the common case); any other body goes to the handler's
  streamed twin, which answers 413 before buffering it (:mod:`.bodies`).

Source: RFC 6585 § 5 (431); RFC 9110 § 15.5 (client errors); RFC 9112 § 6 (message body length).
"""

from __future__ import annotations

MAX_HEADER_BYTES = 64 * 1024
"""Largest header block (request line included) a request may have; 431 above it
(:func:`~.http_server.read_header_block`)."""
READ_HEADER_BYTES = 1024 * 1024
"""Largest header block read at all; above it the connection is closed unanswered."""
HEADER_TIMEOUT = 30.0
"""Seconds a connection may take to send a request's headers, counted from the end of the previous request (also
how long an idle keep-alive connection stays open): a client trickling its headers cannot hold a connection."""
BODY_TIMEOUT = 30.0
"""Seconds a client has to send a request body once its headers arrived (slowloris guard); then 408."""
FIRST_READ_BYTES = 8 * 1024
"""What a :class:`~.http_server.LimitedServer` connection reads from its socket at a time for a request's headers
(and a body of up to this size). Tornado reads 64 KiB at a time into a buffer it makes and zero-fills for every read
(~4 µs, twice a request). A body declared larger, or chunked, is read in Tornado's pieces."""
SWEEP_SECONDS = 1.0
"""How often the body table is swept while it holds a request (at most; a quarter of the timeout when shorter): a
body is given up between BODY_TIMEOUT and BODY_TIMEOUT + SWEEP_SECONDS seconds after its headers."""
