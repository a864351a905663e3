"""trial76 NIT: ``ctx.report_progress`` took a bool (``True`` went out as ``true``); in a ``processes`` job its ctx
checked only that progress did not decrease, so a NaN or a bool went to the server. One check now serves both:
a job's ctx refuses what the server's refuses, with the same words."""

from __future__ import annotations

import math
from pathlib import Path

from support import wait_until

from nanohubmcp import Context, MCPServer


def odd_reports(ctx: Context) -> list[str]:
    """Report values that are no finite numbers; answer with the refusals."""
    refusals = []
    for progress, total in ((True, 2), (math.nan, 2), (1, math.inf)):
        try:
            ctx.report_progress(progress, total)
        except (TypeError, ValueError) as exc:
            refusals.append(f"{type(exc).__name__}: {exc}")
    ctx.report_progress(1, 2)
    return refusals


def test_a_process_job_refuses_a_bool_or_nan_as_the_server_does(tmp_path: Path) -> None:
    server = MCPServer("job-progress", state_dir=str(tmp_path), job_executor="processes", provenance=False)
    server.async_tool()(odd_reports)
    server.start(host="127.0.0.1", port=0)
    try:
        job_id = server.call("odd_reports", {})["structuredContent"]["job_id"]

        def done() -> dict[str, object] | None:
            answer = server.call("get_job_result", {"job_id": job_id})["structuredContent"]
            return answer if answer["status"] != "running" else None

        answer = wait_until(done, "the job to end")
    finally:
        server.stop()
    assert answer["status"] == "done", answer
    assert answer["result"] == [
        "TypeError: progress and total must be numbers, not progress=True, total=2",
        "ValueError: progress and total must be finite numbers, not progress=nan, total=2: JSON has no NaN or "
        "Infinity (leave total out when it is unknown)",
        "ValueError: progress and total must be finite numbers, not progress=1, total=inf: JSON has no NaN or "
        "Infinity (leave total out when it is unknown)",
    ]
