"""The stateless 2026-07-28 era in the core: what has no counterpart in the handshake era.

Modules, one concern each:

- :mod:`.discover`: ``server/discover``, capabilities with extensions, caching hints;
- :mod:`.mrtr` and :mod:`.request_state`: multi round-trip requests, signed ``requestState``;
- :mod:`.asks`: how ``ctx.elicit``/``sample``/``list_roots``/``ask`` reach the client per era;
- ``server.handlers.modern_calls`` (a handler module, above this package): ``tools/call``,
  ``prompts/get``, ``resources/read`` with MRTR and tasks, built on the modules here;
- :mod:`.tasks` and :mod:`.task_inputs`: the ``io.modelcontextprotocol/tasks`` extension;
- :mod:`.listen`: ``subscriptions/listen``;
- :mod:`.headers`: ``x-mcp-header`` tool parameters and header value decoding;
- :mod:`.skills_api`: the ``io.modelcontextprotocol/skills`` extension's methods;
- :mod:`.state`: what a server keeps for this era (the ``requestState`` key, tasks' inputs,
  skills).

Nothing here knows HTTP; ``transports/modern.py`` checks the request headers with
:mod:`.headers` and hands the request to the dispatcher, whose 2026 method table points here.

Source: MCP 2026-07-28, Basic § Versioning, § Patterns § Multi Round-Trip Requests, § Transports;
Server § Tools, § Resources, § Prompts; the tasks and skills extensions.
"""

from __future__ import annotations
