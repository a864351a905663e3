"""Which :class:`~.config.NanohubMCP` settings a change does what to: restarts the notebook's server, rebuilds it
(its tools kept), or applies to the next call; and which are limits passed on under their own names to
``MCPServer(...)`` or ``server.start(...)``. Read by :mod:`.session` (what to observe), :mod:`.comm` (the panel)
and :mod:`.export_settings` (where a setting goes in the exported script)."""

from __future__ import annotations

SERVE_LIMIT_TRAITS = ("max_request_bytes", "max_buffered_bytes", "max_buffered_bytes_per_principal", "max_unsent_bytes",
                      "max_unsent_bytes_per_principal")
"""The HTTP server's limits, each passed to ``server.start(...)`` under its own name (the default is run()'s)."""
RESTART_TRAITS = ("host", "port", "mode", "path_prefix", "allowed_origins", "public_url", "token", *SERVE_LIMIT_TRAITS)
"""Traits whose change restarts a running server on its new address or URL, or with its new limits."""
LIMIT_TRAITS = ("max_result_bytes", "max_event_bytes", "max_stuck_calls", "max_kept_bytes", "max_kept_bytes_per_owner",
                "max_job_result_bytes", "max_jobs", "max_jobs_per_owner", "cache_max_bytes")
"""The server's limits, each passed to ``MCPServer(...)`` under its own name (the default is MCPServer's)."""
RESULT_TRAITS = ("max_inline_bytes", "figure_dpi", "max_result_bytes", "max_event_bytes")
"""Traits shaping tool results: a change applies to the next call."""
REBUILD_TRAITS = ("name", "version", "instructions", "state_dir", "job_executor", "dask_address", "executor_options",
                  "state_url", "tracing", "provenance",
                  *(limit for limit in LIMIT_TRAITS if limit not in RESULT_TRAITS))
"""Traits baked into the server's identity: a change rebuilds the server (tools are kept)."""
