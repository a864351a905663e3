"""The stateless 2026-07-28 era in the core: what has no counterpart in the handshake era.

Modules, one concern each:

- :mod:`.envelope`: a request's envelope, the version and client capabilities its ``_meta`` carries;
- :mod:`.handlers`: ``tools/call``, ``prompts/get``, ``resources/read`` with multi round-trip requests and
  tasks, built on the handshake era's calls;
- :mod:`.discover`: ``server/discover``, capabilities with extensions, caching hints;
- :mod:`.tasks`: the ``io.modelcontextprotocol/tasks`` extension;
- :mod:`.listen`: ``subscriptions/listen``;
- :mod:`.headers` and :mod:`.tool_options`: ``x-mcp-header`` tool parameters, header value decoding, and
  the tool options of this era applied at registration;
- :mod:`.skills_methods`: the ``io.modelcontextprotocol/skills`` extension's methods.

Asking the client for input is :mod:`..asks`' in both eras (multi round-trip requests,
:mod:`..asks.input_requests`; the signed ``requestState``, :mod:`..asks.request_state`; tasks' inputs,
:mod:`..asks.task_inputs`); the published skills are :mod:`..registry.skills`' and
:mod:`..registry.skill_catalog`'s; what the core keeps for this era is made at its first use
(:mod:`..first_use`).

Nothing here knows HTTP; ``transports/stateless.py`` checks the request headers with
:mod:`.headers` and hands the request to the connection seam, whose dispatcher's 2026 method table
(:mod:`..methods`) points here.

Source: MCP 2026-07-28, Basic § Versioning, § Patterns § Multi Round-Trip Requests, § Transports;
Server § Tools, § Resources, § Prompts; the tasks and skills extensions.
"""

from __future__ import annotations
