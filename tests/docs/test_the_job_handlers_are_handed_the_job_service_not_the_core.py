"""The job service is one object the core builds (``server/executors/job_service.JobService``: the registry, the job
executors, the job store and the done jobs' kept data, the tool-call machinery a job's run goes through), and the
handlers of jobs and tasks hand it on whole: no handler family's protocol names the service's parts, and the job
machinery (``executors/service``, the job tools, a task's answer) takes the service, never the core.

Review r43 (R43-2) found the locator narrowed, not replaced: ``core: JobHost`` fourteen times, and ``JobHost``'s
twelve members (the job store, the executors, the kept data, the loop, what running a tool reads) copied into
``ToolsHost``, ``TasksHost`` and the 2026 era's hosts. An ``ast`` scan, type-only protocols (``Routed``) included.

Review r44 found two more doors (R44-1, R44-2): the core kept ``jobs``, ``job_runners`` and ``job_runner`` beside
``job_service`` (the same objects), and thirteen handler lines reached through to the store as
``core.job_service.jobs.<op>``; and this scan read no keyword-only annotation, nor what of the core travels inside
the service (it held the core as ``calls``, typed ``RunHost``, and its stores through a lambda on the core). So the
core's own doors are gone, a handler takes the service off its host once and hands it on, and the service is built
from parts built before it: what a call's run reads is the core's ``CallParts`` (``calls/call_parts``), never the
core, here by its constructor's source and by what a server's service holds.
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
HANDLERS = ["handlers", "stateless"]
"""The method handlers: they take the job service off their host once, never the job store through it."""
WHOLE_CORE = ("Host", "ServerCore", "Routed")
"""Annotations that name the core, or a view of it (``...Host``; ``Routed``, the union of the handlers'): the job
service and its machinery take none of them (R44-2: the service held the core as ``calls``, typed ``RunHost``)."""


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


def _through_the_core(path: str) -> set[str]:
    """Where ``path`` (a module of the job machinery or the service) names the core: a parameter ``core``, or one,
    keyword-only too, or a class's field, annotated by the core or a view of it (:data:`WHOLE_CORE`); each as
    ``path function-or-class.name what``."""
    found: set[str] = set()

    def visit(node: ast.AST, where: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{where}.{child.name}" if where else child.name
                if not isinstance(child, ast.ClassDef):
                    args = child.args
                    for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
                        shown = ast.unparse(arg.annotation) if arg.annotation is not None else ""
                        if arg.arg == "core" or any(name in shown for name in WHOLE_CORE):
                            found.add(f"{path} {name} {arg.arg}: {shown}")
                visit(child, name)
                continue
            if isinstance(child, ast.AnnAssign) and isinstance(child.target, ast.Name) \
                    and any(name in ast.unparse(child.annotation) for name in WHOLE_CORE):
                found.add(f"{path} {where}.{child.target.id}: {ast.unparse(child.annotation)}")
            visit(child, where)

    visit(ast.parse((SERVER / path).read_text(encoding="utf-8")), "")
    return found


def test_the_job_machinery_takes_the_job_service_not_the_core() -> None:
    found = set().union(*(_through_the_core(path) for path in [*MACHINERY, "executors/job_service.py"]))
    assert not found, f"job machinery handed the core (or a view of it) instead of the job service: {sorted(found)}"


def test_a_keyword_only_view_of_the_core_and_a_field_typed_as_the_core_are_found(tmp_path: Path) -> None:
    source = ("def run(service, *, host: RunHost) -> None:\n    return service.calls.loop\n"
              "class Parts(Protocol):\n    calls: ServerCore\n    routed: Routed\n")
    (tmp_path / "machinery.py").write_text(source, encoding="utf-8")
    found = _through_the_core(str(tmp_path / "machinery.py"))  # (an absolute path: SERVER / it is itself)
    named = {line.split(" ", 1)[1] for line in found}
    assert named == {"run host: RunHost", "Parts.calls: ServerCore", "Parts.routed: Routed"}


def _handed(call: ast.Call) -> list[ast.expr]:
    return [*call.args, *(keyword.value for keyword in call.keywords)]


def test_the_core_builds_the_job_service_from_parts_built_before_it() -> None:
    """R44-2: ``JobService(self.registry, runners, self, lambda: self.first_use)``: the service held the whole core,
    and reached its stores through a lambda on a member built after it. Now it is handed the core's parts, each
    built before it, and none of them is the core."""
    tree = ast.parse((SERVER / "core.py").read_text(encoding="utf-8"))
    builds = [node for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id in {"JobService", "FirstUse", "CallParts"}]
    for node in builds:
        handed = [ast.unparse(value) for value in _handed(node)
                  if isinstance(value, ast.Lambda) or (isinstance(value, ast.Name) and value.id == "self")]
        assert not handed, f"{ast.unparse(node.func)} is handed the core, or a way to it: {handed}"
    assert {ast.unparse(node.func) for node in builds} == {"JobService", "FirstUse", "CallParts"}


def _fields(held: object) -> dict[str, object]:
    slots = getattr(type(held), "__slots__", None)
    return {name: getattr(held, name) for name in slots} if slots is not None else dict(vars(held))


def test_nothing_the_job_service_holds_is_the_core() -> None:
    from nanohubmcp import MCPServer

    core = MCPServer("held").core
    service = core.job_service
    held = {"calls": service.calls, **_fields(service)}
    held |= {f"calls.{name}": value for name, value in _fields(service.calls).items()}
    try:
        assert not [name for name, value in held.items() if value is core], "the job service holds the core"
        assert service.calls is core.call_parts
    finally:
        core.close()


def _reached_stores(path: Path) -> list[str]:
    """Each ``<x>.job_service.jobs`` in ``path``: a handler reaching the job store through its host."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [f"{path.relative_to(SERVER)}:{node.lineno}" for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and node.attr == "jobs" and isinstance(node.value, ast.Attribute)
            and node.value.attr == "job_service"]


def test_no_handler_reaches_the_job_store_through_its_host() -> None:
    reached = [line for family in HANDLERS for path in sorted((SERVER / family).rglob("*.py"))
               for line in _reached_stores(path)]
    assert not reached, f"handlers reading core.job_service.jobs (take the service once and hand it on): {reached}"


def _named_stores(path: Path) -> list[str]:
    """Each read of ``<x>.jobs`` in ``path`` (the job store, through the service or otherwise), and of
    ``core.task_inputs``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [f"{path.relative_to(SERVER)}:{node.lineno} .{node.attr}" for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and (node.attr == "jobs" or (
                node.attr == "task_inputs" and isinstance(node.value, ast.Name) and node.value.id == "core"))]


def test_no_handler_or_job_tool_names_the_job_store() -> None:
    """R44-7: of the handlers' 19 uses of the service, 13 were ``service.jobs.get/cancel/owned_by/...``: the service
    was a holder of the store. Its job operations (``job_of``, ``tasks_of``, ``cancel``, ``ended``, ``follow``,
    ``task_for``, ``answer_inputs``) are what the handlers and the job tools use, and the tasks' input requests are
    the service's (``task_inputs``), not the core's."""
    paths = [*(path for family in HANDLERS for path in sorted((SERVER / family).rglob("*.py"))),
             SERVER / "executors/job_tools.py"]
    named = [line for path in paths for line in _named_stores(path)]
    assert not named, f"handlers naming the job store (use the job service's operations): {named}"


def test_the_tasks_input_requests_are_the_job_services_not_the_cores() -> None:
    from nanohubmcp import MCPServer

    core = MCPServer("inputs").core
    try:
        assert not hasattr(core, "task_inputs")
        assert core.job_service.task_inputs is core.call_seams.task_inputs  # (one, made at its first use)
    finally:
        core.close()


def test_no_part_of_the_core_names_a_job_host() -> None:
    named = [f"{path.relative_to(SERVER)}:{node.lineno}" for path in sorted(SERVER.rglob("*.py"))
             for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
             if isinstance(node, ast.Name) and node.id == "JobHost"]
    assert not named, f"the core seen as a job host (hand over the job service instead): {named}"


def test_an_inherited_part_is_found() -> None:
    protocols = _protocols(["class JobHost(Protocol):\n    jobs: int\n    @property\n    def loop(self): ...\n"
                            "class TasksHost(JobHost, Protocol):\n    registry: int\n"])
    assert _members(protocols, "TasksHost") & PARTS == {"jobs", "loop"}
