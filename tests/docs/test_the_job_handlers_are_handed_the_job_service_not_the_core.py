"""The job service is one object the core builds (``server/executors/job_service.JobService``: the registry, the job
executors, the job store and the done jobs' kept data, the tool-call machinery a job's run goes through), and the
handlers of jobs and tasks hand it on whole: no handler family's protocol names the service's parts, and the job
machinery (``executors/service``, the job tools, a task's answer) takes the service, never the core.

Review r43 (R43-2) found the locator narrowed, not replaced: ``core: JobHost`` fourteen times, and ``JobHost``'s
twelve members (the job store, the executors, the kept data, the loop, what running a tool reads) copied into
``ToolsHost``, ``TasksHost`` and the 2026 era's hosts. An ``ast`` scan, type-only protocols (``Routed``) included.
"""

from __future__ import annotations

import ast
from pathlib import Path

import nanohubmcp

SERVER = Path(nanohubmcp.__file__).parent / "server"
HOSTS = ["calls/hosts.py", "services.py", "executors/job_service.py", "executors/service.py", "handlers/host.py",
         "stateless/hosts.py", "dispatcher.py"]
"""Where the protocols of what the handlers read are, and those they may extend (``Routed``: the union the
dispatcher hands them)."""
HANDLER_HOSTS = {"ToolsHost", "TasksHost", "ResourcesHost", "KeptHost", "TaskHost", "ListenHost", "ModernHost",
                 "Routed"}
"""The handler families that read jobs: each names the job service as one member."""
PARTS = {"jobs", "job_runners", "polled_data", "loop"}
"""The job service's parts (and the serving loop its runs read): no handler family reads them off the core."""
MACHINERY = ["executors/service.py", "executors/job_tools.py", "handlers/answered_result.py"]
"""The job machinery: its functions take the job service, never the core."""


def _protocols(sources: list[str]) -> dict[str, tuple[list[str], set[str]]]:
    """Each protocol class in ``sources`` (``if TYPE_CHECKING:`` ones too): its bases' names and its own members."""
    found: dict[str, tuple[list[str], set[str]]] = {}
    for source in sources:
        for node in ast.walk(ast.parse(source)):
            if not isinstance(node, ast.ClassDef):
                continue
            bases = [base.id if isinstance(base, ast.Name) else getattr(base, "attr", "") for base in node.bases]
            own = {stmt.target.id for stmt in node.body
                   if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)}
            own |= {stmt.name for stmt in node.body
                    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and not stmt.name.startswith("_")}
            found[node.name] = (bases, own)
    return found


def _members(protocols: dict[str, tuple[list[str], set[str]]], name: str) -> set[str]:
    """``name``'s members, its own and those of every base among ``protocols``."""
    bases, own = protocols[name]
    return own.union(*(_members(protocols, base) for base in bases if base in protocols))


def _server_protocols() -> dict[str, tuple[list[str], set[str]]]:
    return _protocols([(SERVER / path).read_text(encoding="utf-8") for path in HOSTS if (SERVER / path).exists()])


def test_no_handler_family_reads_the_job_services_parts_off_the_core() -> None:
    protocols = _server_protocols()
    assert protocols.keys() >= HANDLER_HOSTS
    read = {name: sorted(_members(protocols, name) & PARTS) for name in sorted(HANDLER_HOSTS)}
    assert not any(read.values()), f"handler families reading the job service's parts off the core: {read}"
    missing = [name for name in sorted(HANDLER_HOSTS) if "job_service" not in _members(protocols, name)]
    assert not missing, f"handler families that read jobs but do not name the job service: {missing}"


def test_the_job_machinery_takes_the_job_service_not_the_core() -> None:
    found = []
    for path in MACHINERY:
        for node in ast.walk(ast.parse((SERVER / path).read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                names = {arg.arg for arg in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]}
                annotations = {ast.unparse(arg.annotation) for arg in [*node.args.posonlyargs, *node.args.args]
                               if arg.annotation is not None}
                if "core" in names or any("Host" in annotation for annotation in annotations):
                    found.append(f"{path}:{node.lineno} {node.name}")
    assert not found, f"job machinery handed the core (or a view of it) instead of the job service: {found}"


def test_no_part_of_the_core_names_a_job_host() -> None:
    named = [f"{path.relative_to(SERVER)}:{node.lineno}" for path in sorted(SERVER.rglob("*.py"))
             for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
             if isinstance(node, ast.Name) and node.id == "JobHost"]
    assert not named, f"the core seen as a job host (hand over the job service instead): {named}"


def test_an_inherited_part_is_found() -> None:
    protocols = _protocols(["class JobHost(Protocol):\n    jobs: int\n    @property\n    def loop(self): ...\n"
                            "class TasksHost(JobHost, Protocol):\n    registry: int\n"])
    assert _members(protocols, "TasksHost") & PARTS == {"jobs", "loop"}
