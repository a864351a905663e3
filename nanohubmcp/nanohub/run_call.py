"""The app file's own ``server.run(...)`` call, read from its source without running it: which arguments it
passes, so that ``nanohubmcp run`` and ``start_mcp --app`` (which serve the file's ``server`` themselves and never
make that call) can say in one line which of them they leave out (:func:`skipped_keywords_note`).

The server's names. Besides ``server.run(...)`` / ``server.start(...)``, the call is found under the names the
file gives the same server by plain assignment at module level (in ``if``/``try``/``with`` blocks too, not in a
function or class), in either direction and in any order:

- another name for the server: ``srv = server``, ``server = app`` (then ``app.run(...)`` counts; ``app =
  MCPServer(...)`` before it or not), ``server = app = MCPServer(...)``, ``srv: MCPServer = server``;
- a name for its verb: ``run = server.run``, then ``run(...)``; ``go = run`` too.

A name bound more than once at module level (``srv = server`` and later ``srv = other``; a ``for`` target; a
``def``) is not followed: which object it holds at the call is not known from the source. Not followed
either: attributes (``self.server``, ``app.server``), tuple unpacking (``a, b = server, x``), names bound in
functions (``global``) or imported from another module, ``getattr(server, "run")``, ``functools.partial``,
and an ``MCPServer(...)`` no name links to ``server`` (the commands do not serve it). A followed name is
matched wherever it is called, a function's own variable of that name included.

The script's own command line. A ``**`` argument of a serving call on the line below a comment that starts
with :data:`OWN_COMMAND_LINE` is the script's own command line (its ``--host``, ``--port``, ``--transport``,
token), which the commands give by their own options: not counted. The exporter (``nanohubmcp export``,
``nbconvert --to mcp``) writes it above every script's ``server.run(**_command_line_options())``, and a
hand-written script may use it the same way. Named keywords and values by position of that call still
count (an exported ``max_request_bytes=4096`` is one). Scripts exported before the marker existed
(known by their header's ``Exported: <day> by nanohubmcp <version>`` line) have
``**_command_line_options()`` unmarked: that one argument is their command line too. Elsewhere that name
means nothing: a hand-written script's own ``_command_line_options()`` counts like any ``**options``.
A comment rather than a name the script defines: it sits where a reader of the call looks and explains
itself there, binds nothing the script's own code could clash with, and speaks for the one call below it.
"""

from __future__ import annotations

import ast
import itertools
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from ..protocol import ast_guard

__all__ = [
    "OWN_COMMAND_LINE", "UNREAD", "AskedToken", "asked_token", "server_names", "serving_keywords",
    "skipped_keywords_note",
]

OWN_COMMAND_LINE = "# nanohubmcp: own command line"
"""Start of the comment line directly above a serving call whose ``**`` arguments are the script's own
command line, not arguments the commands leave out."""

UNREAD = "*"
""":func:`serving_keywords`' key for arguments the source does not name (``**options``, by position)."""

VERBS = ("run", "start")
"""The serving methods of ``MCPServer`` whose arguments the commands leave out."""

_EXPORTED_BEFORE = re.compile(r"^Exported: \S+ by nanohubmcp ", re.MULTILINE)
"""The header line of every exported script, those written before :data:`OWN_COMMAND_LINE` included."""
_EXPORTED_OPTIONS = "_command_line_options"
"""What scripts exported before :data:`OWN_COMMAND_LINE` call for their command line (``**NAME()``)."""

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.ListComp, ast.SetComp,
           ast.DictComp, ast.GeneratorExp)


def serving_keywords(file: Path) -> dict[str, int]:
    """The keyword arguments ``file`` passes to its server's ``run(...)`` / ``start(...)`` (under the names of
    :func:`server_names`), each with the line of its call, guarded by ``if __name__ == "__main__":`` or not.
    Arguments it cannot name are keyed :data:`UNREAD` (``**options``, a value by position); a ``**``
    argument that is the script's own command line is left out (see the module's docstring). Empty when
    the file cannot be read or parsed."""
    found: dict[str, int] = {}
    named = _named_values(file)
    for node, keywords in _serving_calls(file):
        for keyword in keywords:
            names = [keyword.arg] if keyword.arg is not None else _unpacked_names(keyword.value, named)
            for name in names if names is not None else [UNREAD]:
                found.setdefault(name, node.lineno)
        if node.args:
            found.setdefault(UNREAD, node.lineno)
    return found


@dataclass(frozen=True)
class AskedToken:
    """A ``token=`` of the file's serving call that asks for a token (:func:`asked_token`)."""

    line: int
    """The call's line."""
    known: bool
    """False when the file computes it (``get_token()``, a name bound twice): what it passes is not known
    without making the call."""
    unpacked: bool = False
    """The call's ``**`` argument may pass one (``**options``, ``**settings()``): not known."""

    def reason(self, file_name: str) -> str:
        """Why the served server requires a token, said after "this server requires a bearer token, "."""
        if self.known:
            return f"as {file_name}'s server.run(token=...) on line {self.line} does, a call this command does not make"
        if self.unpacked:
            return (f"as {file_name}'s server.run(**...) on line {self.line} may (what it unpacks is not known: this "
                    f"command does not make that call; server.require_token() at module level says so in the file, "
                    f"and a line `{OWN_COMMAND_LINE}` above the call marks a ** as the script's own command line)")
        return (f"as {file_name}'s server.run(token=...) on line {self.line} may (what it passes is not known: this "
                "command does not make that call; server.require_token() at module level says so in the file)")


_A_TOKEN, _NO_TOKEN, _UNKNOWN = "a token", "no token", "not known"


def asked_token(file: Path, environ: Mapping[str, str] | None = os.environ) -> AskedToken | None:
    """The first serving call of ``file`` (as :func:`serving_keywords` finds them) whose ``token=`` asks for a token,
    else None. The commands, which do not make that call, must not drop such a token by serving without one
    (:func:`~.child.load_app` makes the server require one).

    Asks for one, known: a string written there (not ``""``, which asks for no authorization), an f-string,
    ``os.environ["NAME"]``; ``os.environ.get("NAME"[, default])`` / ``os.getenv(...)`` when it gives a token read in
    ``environ`` (the serving process's environment; None: always, as ``server-json`` declares the header whatever
    the serving process holds); a name the file binds once, at its top level, to one of those. Asks for none:
    ``None``, ``""``, such a read giving None or ``""``, ``args.token`` (the script's own ``--token-file``, which
    the commands' own options give; its note stays). Any other value (a call such as ``get_token()``, a name bound
    twice or in a function) asks for one, not known.

    A ``**`` argument (not the script's own command line: :data:`OWN_COMMAND_LINE`) is read when it is a dict
    literal or ``dict(...)`` of named keys, or a name bound once at the top level to one and used nowhere else
    (``SETTINGS = {...}`` ... ``server.run(**SETTINGS)``): its ``"token"`` is read as ``token=`` is. Any other
    ``**`` (``**options``, ``**settings()``, a key computed) may pass a token: asks for one, not known."""
    named = _named_values(file)
    asked: list[AskedToken] = []
    for node, keywords in _serving_calls(file):
        for keyword in keywords:
            if keyword.arg == "token":
                value = _token_value(keyword.value, named, environ)
            elif keyword.arg is None:
                value = _unpacked_token(keyword.value, named, environ)
            else:
                continue
            if value != _NO_TOKEN:
                asked.append(AskedToken(node.lineno, value == _A_TOKEN, keyword.arg is None and value == _UNKNOWN))
    return min(asked, key=lambda found: found.line, default=None)


def _unpacked_items(value: ast.expr, named: dict[str, ast.expr], depth: int = 0
                    ) -> list[tuple[str | None, ast.expr]] | None:
    """The ``(key, value)`` items a ``**value`` of a serving call passes (key None: a ``**`` inside it), when it is a
    dict literal or ``dict(...)`` of named keys, or a name bound once to one (:func:`_named_values`); else None (what
    it passes is not known without making the call)."""
    if isinstance(value, ast.Name) and value.id in named and depth < 8:
        return _unpacked_items(named[value.id], named, depth + 1)
    if isinstance(value, ast.Dict):
        items: list[tuple[str | None, ast.expr]] = []
        for key, item in zip(value.keys, value.values, strict=True):
            if key is not None and not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                return None  # a computed key may be "token"
            items.append((str(key.value) if isinstance(key, ast.Constant) else None, item))
        return items
    if (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict"
            and not value.args and "dict" not in named):
        return [(keyword.arg, keyword.value) for keyword in value.keywords]
    return None


def _unpacked_names(value: ast.expr, named: dict[str, ast.expr], depth: int = 0) -> list[str] | None:
    """The keyword names a ``**value`` passes (:func:`_unpacked_items`), or None when they are not known."""
    items = _unpacked_items(value, named)
    if items is None or depth >= 8:
        return None
    names: list[str] = []
    for key, item in items:
        inner = [key] if key is not None else _unpacked_names(item, named, depth + 1)
        if inner is None:
            return None
        names.extend(inner)
    return names


def _unpacked_token(value: ast.expr, named: dict[str, ast.expr], environ: Mapping[str, str] | None,
                    depth: int = 0) -> str:
    """What a ``**value`` of a serving call passes as ``token=`` (:func:`asked_token`): :data:`_A_TOKEN`,
    :data:`_NO_TOKEN` or :data:`_UNKNOWN`."""
    items = _unpacked_items(value, named)
    if items is None:
        return _UNKNOWN
    found = [_token_value(item, named, environ) if key == "token" else
             _unpacked_token(item, named, environ, depth + 1) if key is None and depth < 8 else
             _UNKNOWN if key is None else _NO_TOKEN for key, item in items]
    return _A_TOKEN if _A_TOKEN in found else _UNKNOWN if _UNKNOWN in found else _NO_TOKEN


def _named_values(file: Path) -> dict[str, ast.expr]:
    """What each name ``file`` binds once, at its top level, is bound to: ``TOKEN = "s3cret"`` before
    ``server.run(token=TOKEN)``. A name bound anywhere else too (a second assignment, a loop, a function's
    ``global``) may hold anything then: not one. Nor a dict (``SETTINGS = {...}``) whose name is read more than
    once: ``SETTINGS["token"] = ...`` or ``SETTINGS.update(...)`` may change it (one read: the ``**`` itself)."""
    try:
        tree = ast_guard.parse(file.read_text(encoding="utf-8", errors="replace"), filename=str(file))
    except (OSError, SyntaxError, ValueError):
        return {}
    bound: dict[str, int] = {}
    reads: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            bound[node.id] = bound.get(node.id, 0) + 1
        elif isinstance(node, ast.Name):
            reads[node.id] = reads.get(node.id, 0) + 1
        elif isinstance(node, ast.Global | ast.Nonlocal):
            for name in node.names:
                bound[name] = bound.get(name, 0) + 2
    values: dict[str, ast.expr] = {}
    for statement in tree.body:
        targets, value = _assignment(statement)
        values.update((target, value) for target in targets if value is not None and bound.get(target) == 1
                      and (reads.get(target) == 1 or not _dict_display(value)))
    return values


def _dict_display(value: ast.expr) -> bool:
    """``value`` builds a dict: ``{...}`` or ``dict(...)``."""
    return isinstance(value, ast.Dict) or (
        isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict")


def _token_value(value: ast.expr, named: dict[str, ast.expr], environ: Mapping[str, str] | None,
                 depth: int = 0) -> str:
    """What ``value``, a ``token=`` (:func:`asked_token`), passes: :data:`_A_TOKEN`, :data:`_NO_TOKEN` or
    :data:`_UNKNOWN`."""
    if isinstance(value, ast.Constant):
        if value.value is None or value.value == "":
            return _NO_TOKEN
        return _A_TOKEN if isinstance(value.value, str) else _UNKNOWN
    if isinstance(value, ast.JoinedStr) or (isinstance(value, ast.Subscript) and _environ(value.value)):
        return _A_TOKEN  # (os.environ["NAME"]: a KeyError, not None, when unset)
    read = _environment_read(value)
    if read is not None:
        variable, default = read
        found = None if environ is None else environ.get(variable)
        if environ is None or found:
            return _A_TOKEN
        if found is not None or default is None:  # "": no authorization; unset: run()'s default
            return _NO_TOKEN
        value = default
    elif isinstance(value, ast.Name) and value.id in named:
        value = named[value.id]
    elif isinstance(value, ast.Attribute) and value.attr == "token" and isinstance(value.value, ast.Name):
        return _NO_TOKEN  # args.token: the script's own --token-file, which the commands' own options give
    else:
        return _UNKNOWN
    return _token_value(value, named, environ, depth + 1) if depth < 8 else _UNKNOWN


def _environ(value: ast.expr) -> bool:
    """``value`` is ``os.environ``."""
    return (isinstance(value, ast.Attribute) and value.attr == "environ" and isinstance(value.value, ast.Name)
            and value.value.id == "os")


def _environment_read(value: ast.expr) -> tuple[str, ast.expr | None] | None:
    """The variable and the default (None: none given) of ``os.environ.get("NAME"[, default])`` or
    ``os.getenv("NAME"[, default])``, the default given by position or as ``default=``; else None."""
    if not isinstance(value, ast.Call) or not isinstance(value.func, ast.Attribute):
        return None
    func = value.func
    reads = (func.attr == "get" and _environ(func.value)) or (
        func.attr == "getenv" and isinstance(func.value, ast.Name) and func.value.id == "os")
    defaults = [*value.args[1:], *(keyword.value for keyword in value.keywords if keyword.arg == "default")]
    if not reads or not value.args or len(defaults) > 1 or any(k.arg != "default" for k in value.keywords):
        return None
    variable = value.args[0]
    if not (isinstance(variable, ast.Constant) and isinstance(variable.value, str)):
        return None
    return variable.value, (defaults[0] if defaults else None)


def _serving_calls(file: Path) -> Iterator[tuple[ast.Call, list[ast.keyword]]]:
    """Each serving call of ``file`` (source order not promised) with its keywords, less a ``**`` that is the
    script's own command line; nothing when the file cannot be read or parsed."""
    try:
        source = file.read_text(encoding="utf-8", errors="replace")
        tree = ast_guard.parse(source, filename=str(file))
    except (OSError, SyntaxError, ValueError):
        return
    servers, verbs = server_names(tree)
    lines = source.splitlines()
    exported_before = _EXPORTED_BEFORE.search(source[:4000]) is not None
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and _serves(node.func, servers, verbs)):
            continue
        marked = node.lineno >= 2 and lines[node.lineno - 2].strip().startswith(OWN_COMMAND_LINE)
        # a ** that is the script's own command line (host, port, transport, token) is left out
        yield node, [keyword for keyword in node.keywords if not (keyword.arg is None and (
            marked or (exported_before and _exported_options(keyword.value))))]


def server_names(tree: ast.Module) -> tuple[frozenset[str], frozenset[str]]:
    """The module's names for its ``server`` (``server`` always among them) and for that server's ``run`` /
    ``start``, from plain assignments at module level (what is followed and what not: the module's docstring)."""
    bindings: dict[str, int] = {}
    links: list[tuple[str, str]] = []  # two names for one object: `a = b`, `a = b = ...`
    values: dict[str, ast.expr] = {}  # what each name a plain assignment binds is bound to (`run = server.run`)
    for node in _module_scope(tree):
        for name in _bound_names(node):
            bindings[name] = bindings.get(name, 0) + 1
        targets, value = _assignment(node)
        if value is None:
            continue
        links += list(itertools.pairwise(targets))
        if isinstance(value, ast.Name):
            links += [(target, value.id) for target in targets]
        for target in targets:
            values[target] = value

    def followed(name: str) -> bool:
        return name == "server" or bindings.get(name) == 1

    servers = {"server"}
    verbs: set[str] = set()
    grew = True
    while grew:
        before = len(servers) + len(verbs)
        for a, b in links:
            if followed(a) and followed(b) and (a in servers or b in servers):
                servers |= {a, b}
        for target, value in values.items():
            if followed(target) and target not in servers and _serves(value, servers, verbs):
                verbs.add(target)
        grew = len(servers) + len(verbs) > before
    return frozenset(servers), frozenset(verbs)


def _serves(func: ast.expr, servers: frozenset[str] | set[str], verbs: frozenset[str] | set[str]) -> bool:
    """``func`` is a server's serving method: ``<server name>.run`` / ``.start``, or a name for one."""
    if isinstance(func, ast.Attribute):
        return func.attr in VERBS and isinstance(func.value, ast.Name) and func.value.id in servers
    return isinstance(func, ast.Name) and func.id in verbs


def _module_scope(tree: ast.Module) -> Iterator[ast.AST]:
    """Every node run in the module's own scope: not the bodies of functions, classes and comprehensions
    (their ``def``/``class`` statements themselves are, binding their names)."""
    todo: list[ast.AST] = [tree]
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, _SCOPES):
            todo.extend(ast.iter_child_nodes(node))


def _bound_names(node: ast.AST) -> list[str]:
    """The names ``node`` itself binds in the scope it runs in."""
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
        return [node.id]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [alias.asname or alias.name.split(".")[0] for alias in node.names]
    if isinstance(node, ast.ExceptHandler) and node.name:
        return [node.name]
    return []


def _assignment(node: ast.AST) -> tuple[list[str], ast.expr | None]:
    """The targets and value of ``a = b = value`` / ``a: T = value`` when every target is a plain name, else
    ``([], None)``."""
    if isinstance(node, ast.Assign) and all(isinstance(target, ast.Name) for target in node.targets):
        return [target.id for target in node.targets if isinstance(target, ast.Name)], node.value
    if isinstance(node, ast.AnnAssign) and node.value is not None and isinstance(node.target, ast.Name):
        return [node.target.id], node.value
    return [], None


def _exported_options(value: ast.expr) -> bool:
    """``**_command_line_options()``, as scripts exported before :data:`OWN_COMMAND_LINE` pass their command line."""
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == _EXPORTED_OPTIONS


_UNNAMED = ("port", "quiet")
"""Keywords no note names: the banner shows the port served; ``quiet`` changes nothing served."""
_FROM_VARIABLES = ("public_url", "path_prefix", "allowed_origins", "token")
"""Keywords whose options default to an ``MCP_*`` environment variable."""


def skipped_keywords_note(file: Path, command: str, options: dict[str, str], given: set[str]) -> str | None:
    """The note saying which keywords of ``file``'s ``server.run(...)`` call ``command`` leaves out (it
    serves the server itself), with the options that give them (``options``: keyword -> option), leaving
    out those the command line gives (``given``) and port/quiet; None when it leaves out none. A ``token=``
    :func:`asked_token` sees is not named either: the server then requires a token (:func:`~.child.load_app`),
    refusing to serve without one in a line of its own.
    """
    left = {k: line for k, line in serving_keywords(file).items() if k not in given and k not in _UNNAMED}
    if "token" in left and asked_token(file) is not None:
        del left["token"]
    unread = left.pop(UNREAD, None)
    if not left:
        if unread is None:
            return None
        return (f"{file.name} passes arguments to server.run() that this note cannot name (line {unread}: by position "
                f"or **options); {command} serves the server itself and does not make that call: give the options "
                "for those that must apply (see --help)")
    names = ", ".join(f"{k}=" for k in left) + (" and arguments it cannot name (by position or **)" if unread else "")
    note = (f"{file.name} passes {names} to server.run() (line {min(left.values())}); {command} serves the server "
            "itself and does not make that call")
    with_option = [options[k] for k in left if k in options]
    if with_option:
        variables = " (or the MCP_* variables they default to)" if any(k in _FROM_VARIABLES for k in left) else ""
        note += f": give {', '.join(with_option)}{variables} for {'it' if len(with_option) == 1 else 'them'} to apply"
    without = [f"{k}=" for k in left if k not in options]
    if without:
        note += f"{'; it has no option for ' if with_option else ', and has no option for '}{', '.join(without)}"
    return note
