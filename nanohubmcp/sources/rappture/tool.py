"""A Rappture tool read from its tool.xml, and one run of it: driver in, run file out.

:func:`load_rappture_tool` reads the file once (title, about, ``<command>``, ``<limits>``, inputs);
:meth:`RapptureTool.run` writes the driver in a fresh working directory (:mod:`.rundirs`), runs the program
(:mod:`.execute`) while the figures for its plots are made (:func:`.plots.prepare`, once it has started), reads
the run file (:mod:`.outputs`) and has the directory removed (on a thread of its own: the answer does not
wait for it). The run file is read, and the plots drawn, as
soon as the program names it (``=RAPPTURE-RUN=>``, printed once the file is written), while the
program's process ends; that result is returned when the program then exits with status 0 and
leaves the file as it was, else the file is read again.

Time limit of a run: ``timeout=`` when given (``inf``: none of ours), else the tool's ``<limits><cputime>``
read as Rappture's runner reads it (whole seconds, at least 10 s, at most 12 hours; ``unlimited``: 12 hours;
absent or empty: 4 hours; anything else is refused at load: Rappture would read ``1e3`` as 1 s and ``2h``
as 2 s) — here as wall-clock time. A run past it is stopped and raises
:class:`~nanohubmcp.errors.ToolTimeout` (REST 504), as a call past the server's ``tool_timeout`` does.
"""

from __future__ import annotations

import math
import os
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import RegistrationError, ToolError, ToolTimeout
from ...protocol.result_types import ToolResult
from ...protocol.seconds import limit_or_default
from ...server.registry.components import name_like
from . import plots
from .driver import current_values, write_driver
from .execute import Outcome, command_line, find_rappture, program_environment, run_program
from .inputs import Inputs, read_inputs, text_of
from .outputs import read_outputs, tool_result
from .rundirs import RUN_MARK, RunFileRefused, read_run_file, record_group, remove_run_directory_soon, run_directory
from .schema import input_schema

__all__ = ["PROXY_TIMEOUT", "RapptureTool", "load_rappture_tool", "time_limit"]

PROXY_TIMEOUT = 30.0
"""Seconds a reverse proxy (nanoHUB's weber among them) may wait for an answer: a tool whose
``<limits><cputime>`` is longer (or ``unlimited``) runs as a job (``@async_tool``)."""

_NAME_PARTS = re.compile(r"^(rappture|current|dev|r\d+|tool)$")


def time_limit(cputime: str) -> float:
    """Seconds a run may take, from ``<limits><cputime>`` (Rappture's rules, see the module): whole
    seconds (``600``, also ``600s``), ``unlimited``, or nothing.

    Raises:
        ValueError: any other text (``1e3``, ``2h``, ``1.5``, ``-5``): Rappture reads the digits it
            starts with, if any, so ``1e3`` would be 1 s (raised to 10 s) and ``2h`` 2 s; refused
            rather than read so (the message says what fits).
    """
    text = cputime.strip().lower()
    if text == "unlimited":
        return 43200.0
    if not text:
        return 14400.0
    match = _SECONDS.match(text)
    if match is None:
        raise ValueError(f"<limits><cputime> is {cputime.strip()!r}, which is not a time limit Rappture reads: "
                         "write whole seconds (3600, at least 10, at most 43200) or unlimited")
    return float(min(max(int(match.group(1)), 10), 43200))


_SECONDS = re.compile(r"^([0-9]+)\s*s?$")  # ASCII digits: Tcl reads no others (int() would)


def _not_found(path: Path) -> str:
    """Why ``path`` names no tool.xml: no such file, or a directory without one (where it looked, and
    the Sim2L command when the directory holds a notebook)."""
    if not path.is_dir():
        return f"Rappture tool {str(path)!r}: no such file (give tool.xml or its directory)"
    text = (f"Rappture tool {str(path)!r}: a directory holding neither tool.xml nor rappture/tool.xml (give "
            "tool.xml or its directory)")
    notebooks = [*path.glob("*.ipynb"), *path.glob("simtool/*.ipynb")]
    if notebooks:
        text += f"; it holds a notebook: a Sim2L is served with add_sim2l (nanohubmcp sim2l {path})"
    return text


def _default_name(path: Path, root: ET.Element) -> str:
    ident = text_of(root, "tool/id")
    if not ident:
        for folder in path.resolve().parents:
            if folder.name and not _NAME_PARTS.match(folder.name):
                ident = folder.name
                break
    if not ident:
        ident = text_of(root, "tool/title") or "rappture_tool"
    return name_like(ident, fallback="rappture_tool")  # accents dropped, not the letter: ümlaut is umlaut


@dataclass(eq=False)
class RapptureTool:
    """A loaded tool.xml.

    Attributes:
        path: the tool.xml file; ``directory`` is what ``@tool`` stands for.
        name / title / about: the MCP tool's name, title and the start of its description.
        command: the ``<command>`` text.
        limit: seconds a run may take (see :func:`time_limit`); ``math.inf``: no limit of ours (``timeout=inf``).
        limit_given: ``limit`` is the ``timeout=`` given, not tool.xml's ``<limits><cputime>``.
        long: run as a job: runs longer than :data:`PROXY_TIMEOUT` are possible (the ``timeout=`` given, else
            ``<limits>``, says so), or it was asked for.
        inputs: the arguments and the skipped inputs.
        schema: the input JSON Schema.
        rappture: the ``rappture`` program to run with (None: run the command directly).
    """

    path: Path
    root: ET.Element = field(repr=False)
    name: str
    title: str
    about: str
    command: str
    limit: float
    long: bool
    inputs: Inputs = field(repr=False)
    schema: dict[str, Any] = field(repr=False)
    rappture: str | None = None
    limit_given: bool = False

    @property
    def limit_text(self) -> str:
        """:attr:`limit` as a text says it: ``"600 s"``, or ``"no time limit"``."""
        return f"{self.limit:g} s" if math.isfinite(self.limit) else "no time limit"

    @property
    def directory(self) -> Path:
        """The tool's directory (``@tool``)."""
        return self.path.parent

    @property
    def may_plot(self) -> bool:
        """Its run files may hold a plot: tool.xml declares a curve, histogram or table output, or
        no outputs at all (then whatever the run file holds is returned)."""
        declared = self.root.find("output")
        kinds = {o.tag for o in declared if isinstance(o.tag, str)} if declared is not None else set()
        return not kinds or bool(kinds & {"curve", "histogram", "table"})

    @property
    def description(self) -> str:
        """The MCP tool description: about, declared outputs, skipped inputs, how it runs."""
        parts = [self.about or self.title or self.name]
        declared = self.root.find("output")
        if declared is not None:
            outputs = [
                f"{text_of(o, 'about/label') or o.get('id') or o.tag} ({o.tag})"
                for o in declared
                if isinstance(o.tag, str)
            ]
            if outputs:
                parts.append("Outputs: " + "; ".join(outputs) + ".")
        for skipped in self.inputs.skipped:
            parts.append(f"Not an argument: {skipped.label or skipped.path} ({skipped.kind}): {skipped.reason}.")
        parts.append(f"A Rappture tool; a run may take up to {self.limit:g} s." if math.isfinite(self.limit)
                     else "A Rappture tool; a run has no time limit.")
        return "\n\n".join(parts)

    def run(
        self,
        arguments: dict[str, Any],
        *,
        on_progress: Callable[[float, str], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
        inline_limit: int | None = None,
        figure_dpi: float | None = None,
        plot: bool = True,
    ) -> ToolResult:
        """Run the tool with ``arguments`` (already checked against :attr:`schema`).

        Raises:
            InvalidArguments: a value that does not fit its input (units, limits, options).
            ToolTimeout: the program ran past :attr:`limit` and was stopped (the message names the limit, the
                options raising it and the end of its log).
            ToolError: the program could not start, failed, was cancelled or wrote no run file; the message
                carries the end of its log.
        """
        currents = current_values(self.name, self.inputs.arguments, arguments)
        workdir = run_directory(self.name)
        try:
            driver = workdir / "driver.xml"
            write_driver(self.root, self.inputs.arguments, currents, driver)
            if self.rappture:
                argv = [self.rappture, "-execute", str(driver), "-tool", str(self.path)]
            else:
                argv = command_line(self.command, self.directory, driver)
            stop_preparing: list[Callable[[], object]] = []

            def on_start(pgid: int) -> None:
                record_group(workdir, pgid)
                if plot and self.may_plot:  # blank figures (and matplotlib) made while the program runs
                    stop_preparing.append(plots.prepare_soon(figure_dpi))  # (once started: see plots.prepare)
            early: dict[str, tuple[ET.Element, ToolResult]] = {}  # the run file's text -> parsed, shaped

            def shape(root: ET.Element) -> ToolResult:
                found = read_outputs(root, self.name, inline_limit)
                return tool_result(found, self.name, plot=plot, figure_dpi=figure_dpi)

            def on_run_file(path: Path) -> None:
                """The program has written its run file and is exiting: shape the result (draw its
                plots) now; it is used if the program then exits with 0 and the file is unchanged."""
                early.clear()
                try:
                    source = read_run_file(path)
                    root = self._parse(source)
                    early[source] = (root, shape(root))
                except Exception:  # read again after the exit, where its errors are reported
                    early.clear()

            try:
                outcome = run_program(
                    argv,
                    cwd=workdir,
                    env={**program_environment(self.rappture is None), RUN_MARK: str(workdir.resolve())},
                    timeout=self.limit,
                    on_progress=on_progress,
                    cancelled=cancelled,
                    on_run_file=None if self.rappture else on_run_file,
                    on_start=on_start,
                )
            except OSError as exc:
                raise ToolError(
                    f"Rappture tool '{self.name}': cannot start {argv[0]!r}: {exc.strerror or exc}"
                ) from None
            finally:
                for stop in stop_preparing:
                    stop()
            source, root = self._run_document(outcome, workdir, {text: r for text, (r, _) in early.items()})
            if source in early:  # the file as the program left it: shaped while the program exited
                return early[source][1]
            return shape(root)
        finally:  # (the answer does not wait for it: the scan for helpers carrying the run's mark, the files)
            remove_run_directory_soon(workdir)

    def _run_document(self, outcome: Outcome, workdir: Path, parsed: dict[str, ET.Element]) -> tuple[str, ET.Element]:
        """The run file's text and document (``parsed``: documents already read, by their text), or a
        ToolError saying why there is none (with the log tail)."""
        tail = outcome.log_tail()
        if outcome.timed_out:
            raise ToolTimeout(self.timeout_message() + (f"\nThe end of its log:\n{tail}" if tail else ""))
        if outcome.cancelled:
            raise ToolError(f"Rappture tool '{self.name}' was cancelled and stopped")
        source = self._read_run(outcome, workdir)
        root = (parsed[source] if source in parsed else self._parse(source)) if source else None
        status = text_of(root, "output/status") if root is not None else ""
        if outcome.status != 0 or status == "failed":
            log = text_of(root, "output/log") if root is not None and status == "failed" else ""
            why = f"exit status {outcome.status}" if outcome.status else "run status 'failed'"
            detail = "\n".join(t for t in (log[-4000:], tail) if t)
            raise ToolError(
                f"Rappture tool '{self.name}' failed ({why})." + (f"\nThe end of its log:\n{detail}" if detail else "")
            )
        if root is None:
            if outcome.refused_run_file is not None and outcome.run_file is None:
                why = (f"its program named the run file {outcome.refused_run_file!r} (=RAPPTURE-RUN=>), which is not "
                       "a file name in its working directory: a path is never read")
            elif outcome.run_file is not None and not self.rappture:
                why = (f"its program named the run file {outcome.run_file.name} (=RAPPTURE-RUN=>), which "
                       f"{'is empty' if outcome.run_file.is_file() else 'does not exist'}")
            elif self.rappture:
                why = "rappture -execute printed no run file's XML on its standard output"
            else:
                why = ("its program printed no =RAPPTURE-RUN=> line: does it call Rappture.result(driver) "
                       "or rx.close()?")
            raise ToolError(
                f"Rappture tool '{self.name}' wrote no run file ({why})"
                + (f"\nThe end of its log:\n{tail}" if tail else "")
            )
        return source, root

    def timeout_message(self) -> str:
        """The answer of a run past :attr:`limit`, shaped as a call past ``tool_timeout`` is answered: which limit
        ran out, what raises it, and that the run was stopped."""
        which = "its timeout" if self.limit_given else "its tool.xml's <limits><cputime>"
        return (f"Rappture tool '{self.name}' did not finish within {self.limit:g} s ({which}; raise it with "
                "timeout= or --timeout, inf for no limit); its run was stopped")

    def _read_run(self, outcome: Outcome, workdir: Path) -> str:
        try:
            if self.rappture:  # rappture -execute prints the run file itself
                text = read_run_file(workdir / "stdout.log")
                start = text.find("<?xml")
                start = text.find("<run") if start < 0 else start
                return text[start:] if start >= 0 else ""
            return read_run_file(outcome.run_file) if outcome.run_file is not None else ""
        except RunFileRefused as exc:
            raise ToolError(f"Rappture tool '{self.name}': its run file is not read: {exc}") from None

    def _parse(self, source: str) -> ET.Element:
        try:
            return ET.fromstring(source.encode("utf-8"))
        except ET.ParseError as exc:
            raise ToolError(f"Rappture tool '{self.name}': its run file is not XML ({exc})") from None


def load_rappture_tool(
    path: str | Path,
    *,
    name: str | None = None,
    timeout: float | None = None,
    rappture: str | None = None,
    long: bool | None = None,
) -> RapptureTool:
    """Read a Rappture tool.xml.

    Args:
        path: the tool.xml file, or a directory holding ``tool.xml`` or ``rappture/tool.xml``.
        name: the MCP tool name (default: ``<tool><id>``, else the tool's directory name, skipping
            ``rappture``, ``current``, ``dev`` and ``rNN`` as in ``/apps/<tool>/current/rappture``).
        timeout: seconds a run may take. Left out (None), the tool's ``<limits><cputime>`` (see
            :func:`time_limit`); ``inf`` (or a number past any wait, ``1e308``: the one rule,
            :func:`~nanohubmcp.protocol.seconds.limit_seconds`): no limit of ours, the run ends when its program
            does, or when its call is cancelled (a ``tool_timeout`` too).
        rappture: the ``rappture`` program, a path or a name on ``PATH`` (default: ``rappture`` on
            ``PATH``, i.e. on a hub, else run ``<command>`` directly; ``""``: always run ``<command>``
            directly).
        long: run as a job; default when the time limit in force is over :data:`PROXY_TIMEOUT`: the
            ``timeout`` given (``inf`` is over it; 5 is not, whatever tool.xml says), else tool.xml's
            ``<limits><cputime>`` (a tool.xml without one: not a job).
    Raises:
        RegistrationError: a timeout that is not a positive number of seconds (0, negative, NaN, a bool,
            a string), no such file, not
            XML, not a Rappture tool (no ``<tool>``), no ``<command>``, a ``<limits><cputime>`` that
            is not a time limit (without ``timeout``), or an input whose limits/default do not fit its
            units (the message names the file and the input); a ``rappture`` given that is no
            program.
    """
    given = limit_or_default(timeout, f"Rappture tool {path}: timeout", RegistrationError)  # inf: no limit
    file = Path(path)
    if file.is_dir():
        file = next((f for f in (file / "tool.xml", file / "rappture" / "tool.xml") if f.is_file()), file / "tool.xml")
    if not file.is_file():
        raise RegistrationError(_not_found(Path(path)))
    try:
        root = ET.parse(file).getroot()
    except ET.ParseError as exc:
        raise RegistrationError(f"Rappture tool {str(file)!r}: not valid XML ({exc})") from None
    if root.tag != "run" or root.find("tool") is None:
        raise RegistrationError(f"Rappture tool {str(file)!r}: not a Rappture tool.xml (no <run><tool>)")
    command = text_of(root, "tool/command")
    if not command:
        raise RegistrationError(f"Rappture tool {str(file)!r}: tool.xml has no <command>")
    tool_name = name or _default_name(file, root)
    inputs = read_inputs(root, file.parent)
    try:
        schema = input_schema(inputs.arguments, tool_name)
    except ValueError as exc:
        raise RegistrationError(f"{exc} (in {file})") from None
    declared = text_of(root, "tool/limits/cputime")
    try:
        declared_limit = time_limit(declared)
    except ValueError as exc:
        if given is None:
            raise RegistrationError(f"Rappture tool {tool_name!r}: {exc}, or give timeout= (in {file})") from None
        declared_limit = given  # (the limit given replaces the one tool.xml cannot say)
    limit = given if given is not None else declared_limit
    # A job when the limit in force allows a run longer than a proxy waits: the timeout given (inf: no limit,
    # over), else tool.xml's <cputime> (a tool.xml without one is a call, as it always was).
    in_force = given if given is not None else declared_limit if declared else None
    is_long = long if long is not None else in_force is not None and in_force > PROXY_TIMEOUT
    if rappture is not None and not isinstance(rappture, (str, os.PathLike)):
        raise RegistrationError(
            f"Rappture tool {tool_name!r}: rappture={rappture!r} is not a path or a program name")
    program = find_rappture(rappture)
    if rappture and program is None:  # a path or name given, and no program: not "run off a hub"
        raise RegistrationError(
            f"Rappture tool {tool_name!r}: rappture={rappture!r} is not a program (no executable file there, nor "
            "of that name on PATH); give the rappture program's path, leave rappture= out to use the one on PATH, "
            "or give rappture='' to run the tool's <command> directly")
    return RapptureTool(
        path=file.resolve(),
        root=root,
        name=tool_name,
        title=text_of(root, "tool/title"),
        about=text_of(root, "tool/about"),
        command=command,
        limit=limit,
        long=is_long,
        inputs=inputs,
        schema=schema,
        rappture=program,
        limit_given=given is not None,
    )
