"""A real kernel and the export agree on the whole-number settings the export refused or wrote otherwise (review
r26 LOW-3, trial 50 F6): ``max_inline_bytes = float('inf')`` and ``max_result_bytes = math.inf`` are no limit in
the kernel, and the exported script's server holds None for both (the export refused them); ``max_jobs = 10**400``
is taken by both (the export refused it); ``cache_max_bytes = 1e30`` is the same int in both, written ``1e30``;
``port = 19515.0`` serves in the kernel and is the script's ``--port`` default as the int."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from export_roundtrip import export, free_port, script_server
from kernels import server_url

SETTINGS = ("import math\n%load_ext nanohubmcp\n%config NanohubMCP.max_inline_bytes = float('inf')\n"
            "%config NanohubMCP.max_result_bytes = math.inf\n%config NanohubMCP.max_jobs = 10**400\n"
            "%config NanohubMCP.cache_max_bytes = 1e30\n")
TOOL = "%%mcp_tool\ndef add(a: int, b: int) -> int:\n    \"\"\"Add.\"\"\"\n    return a + b\n"
HELD = ("import json\n"
        "held = [c for c in get_ipython().configurables if type(c).__name__ == 'NanohubMCP'][-1]\n"
        "print(json.dumps({k: None if getattr(held, k) is None else str(getattr(held, k)) for k in "
        "('max_inline_bytes', 'max_result_bytes', 'max_jobs', 'cache_max_bytes', 'port')}))\n")


def test_the_script_holds_what_the_kernel_took(start_export_kernel: Callable[[], Any],
                                              write_notebook: Callable[..., Path]) -> None:
    port = free_port()
    notebook = write_notebook(SETTINGS + f"%config NanohubMCP.port = {port}.0\n", TOOL)
    kernel = start_export_kernel()
    try:
        for cell in (SETTINGS, f"%config NanohubMCP.port = {port}.0\n", TOOL):
            kernel.run_ok(cell)
        held = json.loads(kernel.run_ok(HELD).stdout)
        assert f":{port}/" in server_url(kernel)  # served on it
    finally:
        kernel.shutdown()
    assert held == {"max_inline_bytes": None, "max_result_bytes": None, "max_jobs": str(10**400),
                    "cache_max_bytes": str(int(1e30)), "port": str(port)}
    done = export(notebook, "-o", str(notebook.parent / "start_mcp.py"))
    assert done.returncode == 0, done.stderr
    text = (notebook.parent / "start_mcp.py").read_text()
    assert f"default={port}," in text
    server = script_server(text)
    options = server.core.result_options
    assert (options.max_inline_bytes, options.max_result_bytes) == (None, None)
    assert server.core.result_cache.max_bytes == int(1e30)
    assert "cache_max_bytes=1e30" in text
    assert "max_jobs=10**400" in text
