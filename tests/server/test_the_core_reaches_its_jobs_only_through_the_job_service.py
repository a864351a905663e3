"""The core has one door to its jobs: ``job_service`` (review r44 R44-1). It kept ``jobs`` (a property over the job
store), ``job_runners`` and ``job_runner`` beside it, the same objects, so ``runtime`` and the facade's registration
took either; now they, and everything else, ask the job service (``job_service.jobs``, ``job_service.runners``)."""

from __future__ import annotations

from nanohubmcp import MCPServer
from nanohubmcp.server.core import ServerCore


def test_no_member_of_the_core_but_the_job_service_is_its_job_store_or_executors() -> None:
    server = MCPServer("one-door", job_store="memory")
    core, service = server.core, server.core.job_service
    parts = {id(service.runners), id(service.runners.default)}
    held = sorted(name for name, value in vars(core).items() if not name.startswith("_") and id(value) in parts)
    stores = sorted(name for name, member in vars(ServerCore).items()
                    if isinstance(member, property) and "JobStore" in str(member.fget.__annotations__.get("return")))
    assert held + stores == [], "the core's own doors to its jobs"
    assert server.runtime.jobs is service.jobs
    assert server.runtime.job_executor == service.runners.default.name == "threads"
