"""Running the code blocks of the documentation and the README (the convention is in docs/contributing.md).

Sybil parses each page into its fenced blocks; the evaluators here run a ``python`` block in the page's
namespace and a ``bash`` block with ``bash -e -o pipefail``, both in the page's own temporary directory, which
stands for the reader's checkout (it holds copies of the repository's ``examples/``, ``notebooks/`` and
``tests/hpc/standin``: a block writing there never writes into the real checkout). As in one terminal, a ``cd`` in a
bash block moves the blocks after it (``cd "$(mktemp -d)"``: ``$TMPDIR`` is the page's own, removed with it), its own
``trap ... EXIT`` too (a block that ends by ``exit`` leaves the next where it started); what a page leaves in the
checkout's place, in those folders too (``examples/NAME``), is ``Page.left``.
An HTML comment on the line before a block says what it needs:

- ``<!-- file: NAME -->``: the block is written to ``NAME`` (a Python file's definitions are also run, with the
  page's directory on ``sys.path``, as ``python NAME`` has it: it may import the page's other files).
- ``<!-- needs: server NAME [VAR=value ...] -->``: ``nanohubmcp run NAME`` serves on a free port first,
  and ``8000`` in the block becomes that port.
- ``<!-- serves: port 8000 -->``: a command that serves until stopped: run in the background with ``8000``
  made a free port (in the block and in the files the page's ``file:`` blocks wrote), and counted as run once
  that port answers; later blocks of the page get the same substitution; stopped after the page.
  ``serves: port 8000 with PAGE:FILE`` first writes another page's ``file:`` block here.
- ``<!-- not-run: REASON -->``: not run; counted.
"""

from __future__ import annotations

import contextlib
import os
import re
import runpy
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sybil import Document, Example, Sybil
from sybil.parsers.markdown import CodeBlockParser

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
RUN_LANGUAGES = ("python", "bash")
MARKER = re.compile(r"^<!--\s*(?P<kind>[a-z-]+):\s*(?P<value>.*?)\s*-->$")
KINDS = ("file", "needs", "serves", "not-run")
COPIED = ("examples", "notebooks", "tests/hpc/standin")  # repository folders a page's directory has copies of
UNSEEN = "__pycache__"  # what Python writes beside a module it imports, ignored by git: not counted as left
BLOCK_TIMEOUT = 120.0


def pages() -> list[Path]:
    """README.md and every page under docs/, in a stable order."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def page_id(path: Path) -> str:
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)


def marker_of(example: Example) -> tuple[str, str] | None:
    """The marker comment on the line before the block, as (kind, value), or None."""
    before = example.document.text[: example.start].rstrip("\n").rsplit("\n", 1)[-1].strip()
    found = MARKER.match(before)
    return (found["kind"], found["value"]) if found else None


@dataclass
class Page:
    """What the blocks of one page share: a directory, the files they wrote, the servers they started."""

    path: Path
    directory: Path  # the checkout's stand-in: where the page's blocks start
    own: Path  # the runner's files (curl's settings, server logs, $TMPDIR), outside the checkout's stand-in
    servers: dict[tuple[str, tuple[str, ...]], tuple[subprocess.Popen[bytes], int]] = field(default_factory=dict)
    ran: int = 0
    not_run: list[str] = field(default_factory=list)
    background: list[subprocess.Popen[bytes]] = field(default_factory=list)
    ports: dict[str, str] = field(default_factory=dict)  # a served block's port as written -> where it serves
    logs: list[Any] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)  # written by this page's 'file:' blocks
    cwd: Path = field(default=Path())  # where the next block runs: the directory, until a bash block's `cd`
    left: list[str] = field(default_factory=list)  # what the blocks left in the directory, once closed
    copied: dict[str, bytes] = field(default_factory=dict)  # the copied folders' files as copied, by relative path

    @classmethod
    def open(cls, path: Path) -> Page:
        directory = Path(tempfile.mkdtemp(prefix="docs-page-"))
        for name in COPIED:
            shutil.copytree(ROOT / name, directory / name, symlinks=True, ignore=shutil.ignore_patterns(UNSEEN))
        own = Path(tempfile.mkdtemp(prefix="docs-runner-"))
        (own / "tmp").mkdir()
        # curl in a block fails on an HTTP error status, as a reader would notice one.
        (own / ".curlrc").write_text("fail-with-body\nshow-error\n")
        return cls(path, directory, own, cwd=directory, copied=copied_files(directory))

    def close(self) -> None:
        for group in self.background:  # a shell and the server it started: the whole process group
            with contextlib.suppress(ProcessLookupError):
                os.killpg(group.pid, signal.SIGTERM)
        for process, _port in self.servers.values():
            process.terminate()
        for process in [*self.background, *(process for process, _port in self.servers.values())]:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        for log in self.logs:
            log.close()
        made = {Path(name).parts[0] for name in COPIED}  # the copies (and tests/ holding one) the runner made
        # __pycache__: Python's own, written beside an imported file unless PYTHONDONTWRITEBYTECODE is set
        left = [path.name for path in self.directory.iterdir() if path.name not in made | {"__pycache__"}]
        now = copied_files(self.directory)
        left += [name for name, data in now.items() if self.copied.get(name) != data]  # written, or rewritten
        left += [f"{name} (removed)" for name in self.copied.keys() - now.keys()]
        self.left = sorted(left)
        shutil.rmtree(self.directory, ignore_errors=True)
        shutil.rmtree(self.own, ignore_errors=True)

    def environment(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        path = f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"
        env = {**os.environ, "PATH": path, "CURL_HOME": str(self.own), "TMPDIR": str(self.own / "tmp")}
        env.pop("MCP_TOKEN", None)
        env.pop("MCP_PORT", None)
        return {**env, **(extra or {})}

    def serve(self, spec: str) -> int:
        """Serve the file ``spec`` names (see the module doc); the port it listens on."""
        name, *assignments = spec.split()
        variables = dict(item.split("=", 1) for item in assignments)
        key = (name, tuple(sorted(assignments)))
        if key in self.servers:
            return self.servers[key][1]
        app = self.resolve(name)
        port = free_port()
        log = self.log_file()
        process = subprocess.Popen(
            [sys.executable, "-m", "nanohubmcp", "run", str(app), "--port", str(port)],
            cwd=self.cwd,
            env=self.environment(variables),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        self.servers[key] = (process, port)
        wait_for_port(process, port, f"nanohubmcp run {name}", Path(log.name))
        return port

    def log_file(self) -> Any:
        """A file for a server's output (a pipe nobody reads could fill and stall the server)."""
        log = tempfile.NamedTemporaryFile(prefix="server-", suffix=".log", dir=self.own, delete=False)  # noqa: SIM115
        self.logs.append(log)
        return log

    def serve_in_background(self, source: str, value: str, line: int) -> None:
        """Run a block that serves until stopped (``serves: port N``); return once its port answers."""
        found = re.fullmatch(r"port (\d+)(?: with (\S+))?", value)
        assert found, f"{page_id(self.path)}:{line}: write the marker as 'serves: port 8000 [with PAGE:FILE]'"
        if found[2]:  # another page's file block, written here first
            self.files.append(self.resolve(found[2]))
        port = free_port()
        for file in self.files:  # `python3 start_mcp.py` serves where the file's server.run(port=...) says
            file.write_text(file.read_text().replace(found[1], str(port)))
        log = self.log_file()
        process = subprocess.Popen(
            ["bash", "-e", "-o", "pipefail", "-c", source.replace(found[1], str(port))],
            cwd=self.cwd,
            env=self.environment(),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.background.append(process)
        wait_for_port(process, port, f"{page_id(self.path)}:{line}", Path(log.name))
        self.ports[found[1]] = str(port)

    def resolve(self, name: str) -> Path:
        """A ``file:`` block of this page, ``PAGE:NAME`` of another page, or a file of the repository."""
        if ":" in name:
            page, _, file = name.partition(":")
            source = ROOT / "docs" / page
            target = self.cwd / file
            if not target.exists():
                target.write_text(file_block(source, file))
            return target
        for candidate in (self.cwd / name, ROOT / name):
            if candidate.is_file():
                return candidate
        raise AssertionError(
            f"{page_id(self.path)}: needs a server for {name!r}, but no file block or repository file has that name"
        )


def copied_files(directory: Path) -> dict[str, bytes]:
    """Every file (or link) under the copied folders of a page's ``directory``, by its path relative to it:
    its bytes (a link's target)."""
    found: dict[str, bytes] = {}
    for name in COPIED:
        for path in sorted((directory / name).rglob("*")):
            if UNSEEN in path.parts or (path.is_dir() and not path.is_symlink()):
                continue
            data = os.readlink(path).encode() if path.is_symlink() else path.read_bytes()
            found[path.relative_to(directory).as_posix()] = data
    return found


def file_block(page: Path, name: str) -> str:
    """The text of the ``file: name`` block of ``page``."""
    for example in parse(page).examples():
        if marker_of(example) == ("file", name):
            return str(example.parsed)
    raise AssertionError(f"{page_id(page)} has no block marked 'file: {name}'")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for_port(
    process: subprocess.Popen[bytes], port: int, what: str, log: Path | None = None, timeout: float = 60.0
) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            error = log.read_text(errors="replace") if log is not None else ""
            raise AssertionError(f"{what} exited with {process.returncode} before serving:\n{error}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"{what} did not listen on port {port} within {timeout:.0f} s")


def _prepare(example: Example) -> tuple[Page, str] | None:
    """The page and the block's source ready to run, or None for a block marked not-run."""
    page: Page = example.namespace["__page__"]
    source = str(example.parsed)
    for written, actual in page.ports.items():  # later blocks reach what a 'serves:' block serves
        source = source.replace(written, actual)
    marker = marker_of(example)
    if marker is None:
        return page, source
    kind, value = marker
    if kind == "not-run":
        page.not_run.append(f"{page_id(page.path)}:{example.line} ({value})")
        return None
    if kind == "serves":
        page.serve_in_background(source, value, example.line)
        page.ran += 1
        return None
    if kind == "file":
        (page.cwd / value).write_text(source)
        page.files.append(page.cwd / value)
    elif kind == "needs":
        what, _, spec = value.partition(" ")
        assert what == "server", f"{page_id(page.path)}:{example.line}: unknown need {value!r}"
        source = source.replace("8000", str(page.serve(spec)))
    return page, source


def evaluate_python(example: Example) -> str | None:
    if (marker_of(example) or ("", ""))[0] == "serves":
        return f"{example.path}:{example.line}: 'serves:' is for bash blocks (a command that serves until stopped)"
    prepared = _prepare(example)
    if prepared is None:
        return None
    page, source = prepared
    marker = marker_of(example)
    code = compile("\n" * example.line + source, str(page.path), "exec")
    here = os.getcwd()
    os.chdir(page.cwd)
    sys.path.insert(0, str(page.cwd))  # as `python FILE` has: a file block imports its page's others
    try:
        if marker is not None and marker[0] == "file":
            runpy.run_path(str(page.cwd / marker[1]), run_name="docs_file")
        else:
            exec(code, example.namespace)
    finally:
        sys.path.remove(str(page.cwd))
        for name, module in list(sys.modules.items()):  # the page's own modules are not another page's
            if str(getattr(module, "__file__", None) or "").startswith((str(page.directory), str(page.own))):
                del sys.modules[name]
        os.chdir(here)
    page.ran += 1
    return None


def evaluate_bash(example: Example) -> str | None:
    prepared = _prepare(example)
    if prepared is None:
        return None
    page, source = prepared
    where = page.own / "cwd"  # where the block ended: the next block starts there, as in one terminal
    where.unlink(missing_ok=True)
    block = page.own / "block.sh"  # sourced, so bash's line numbers are the block's own
    block.write_text(source)
    # The cwd is recorded after the block, not by a trap: a block's own `trap ... EXIT` would replace it.
    done = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", f"source {shlex.quote(str(block))}; pwd > {shlex.quote(str(where))}"],
        cwd=page.cwd,
        env=page.environment(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=BLOCK_TIMEOUT,
    )
    sys.stdout.write(done.stdout)
    page.ran += 1
    if where.is_file():
        page.cwd = Path(where.read_text().rstrip("\n"))
    if done.returncode != 0:
        return (
            f"{page_id(page.path)}:{example.line}: the bash block exited with {done.returncode}\n"
            f"--- stdout\n{done.stdout}--- stderr\n{done.stderr}"
        )
    return None


SYBIL = Sybil(parsers=[CodeBlockParser("python", evaluate_python), CodeBlockParser("bash", evaluate_bash)])


def parse(path: Path) -> Document:
    return SYBIL.parse(path)


def run_page(path: Path) -> Page:
    """Run every block of the page in order; the page's counts. Raises on the first failing block."""
    document = parse(path)
    page = Page.open(path)
    document.namespace["__page__"] = page
    document.namespace["__name__"] = "docs_page"
    try:
        for example in document.examples():
            example.evaluate()
    finally:
        page.close()
    return page


@dataclass
class Fence:
    """A fenced block as written: its language, its line and the marker before it."""

    path: Path
    line: int
    language: str
    marker: tuple[str, str] | None


_FENCE = re.compile(r"^(?P<fence>```+|~~~+)(?P<info>[^\n`]*)$")


def fences(path: Path) -> Iterator[Fence]:
    """Every fenced block of a page (a plain scan, independent of Sybil's lexer)."""
    lines = path.read_text(encoding="utf-8").split("\n")
    index = 0
    while index < len(lines):
        opened = _FENCE.match(lines[index])
        if opened is None:
            index += 1
            continue
        previous = lines[index - 1].strip() if index else ""
        found = MARKER.match(previous)
        language = opened["info"].strip().split(" ")[0]
        yield Fence(path, index + 1, language, (found["kind"], found["value"]) if found else None)
        closing = opened["fence"]
        index += 1
        while index < len(lines) and not lines[index].startswith(closing):
            index += 1
        index += 1
