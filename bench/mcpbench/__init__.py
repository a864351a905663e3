"""nanohubmcp's benchmark harness: nanohubmcp against its peers and a bare Tornado ceiling, in one run.

Modules: ``matrix`` (what is compared), ``env`` (peers venv, wrk, versions), ``procs`` (server
processes, /proc figures), ``http`` and ``mcp`` (a small client), ``wrk`` (load cells),
``phases`` (the measurements), ``kernel`` (ping latency in a Jupyter kernel), ``report``
(results.md), ``seam`` (the server the in-process pipeline benchmarks call). Entry point: ``bench/run.py``.
"""
