"""docs/architecture.md names the package as it is: every module path it names exists, and every package of
``nanohubmcp/`` (a directory with an ``__init__.py``) is named on it, so the page cannot drift from the code.

The page's rule is "change the code and this page together"; several sessions of changes had left it naming
modules that were gone or moved and leaving packages out (review r30). A module path on the page is written
as a path under ``nanohubmcp/`` (``transports/gate``, ``errors/sent_text``) or, inside ``server/``, under
``nanohubmcp/server/`` (``wire/pending``, ``calls/invoke``); ``.py`` and a trailing ``/`` are allowed, and an
attribute after a dot (``calls/progress.ran_here``) must be defined at the top of that module. A dotted
``nanohubmcp.x.y.Name`` must be a module, or a name defined in one. The paths of the request path's ``text``
block count too; ``bench/`` and ``tests/`` paths are looked up from the repository's root. MCP method names
(``tools/call``, ``server/discover``, ``notifications/...``), which share the slash, are not module paths.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest
from support import ROOT

from nanohubmcp.server.methods import TABLES

PAGE = ROOT / "docs" / "architecture.md"
PACKAGE = ROOT / "nanohubmcp"
# Where a path written on the page is looked for, in this order.
BASES = (PACKAGE, PACKAGE / "server")
REPO_ROOTS = ("bench", "tests")

_SEGMENT = r"[A-Za-z_*][\w*]*"
# A module path, perhaps ending in `/` or `.py`, perhaps with an attribute after a dot.
MODULE_PATH = re.compile(rf"(?P<path>{_SEGMENT}(?:/{_SEGMENT})+)(?P<slash>/)?(?P<py>\.py)?(?:\.(?P<attr>\w+))?")
DOTTED = re.compile(r"nanohubmcp(?:\.\w+)+")
BACKTICKED = re.compile(r"`([^`\n]+)`")


def _methods() -> set[str]:
    return {*TABLES.handshake, *TABLES.modern, *TABLES.notifications}


def _page_tokens(text: str) -> list[str]:
    """The backticked tokens of the page, and the first word of each line of its ``text`` blocks."""
    tokens = BACKTICKED.findall(text)
    for block in re.findall(r"```text\n(.*?)```", text, flags=re.DOTALL):
        tokens += [line.split()[0] for line in block.splitlines() if line.strip() and not line.startswith(" ")]
    return tokens


def _candidates(base: Path, path: str) -> list[Path]:
    """The files or package directories a path names under ``base`` (a ``*`` in it matching any name)."""
    if "*" in path:
        return list(base.glob(path + ".py")) + [p for p in base.glob(path) if (p / "__init__.py").is_file()]
    found = [base / f"{path}.py"] if (base / f"{path}.py").is_file() else []
    if (base / path / "__init__.py").is_file():
        found.append(base / path)
    return found


@cache
def _defined(module: Path) -> frozenset[str]:
    """The names a module defines at its top level (functions, classes, assignments, imports)."""
    source = module / "__init__.py" if module.is_dir() else module
    names: set[str] = set()
    for node in ast.parse(source.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return frozenset(names)


def _resolve(token: str) -> tuple[list[Path], str | None] | None:
    """What a module path names (the files or packages, and the attribute), or None for no module path."""
    match = MODULE_PATH.fullmatch(token)
    if match is None or token in _methods() or token.startswith("notifications/"):
        return None
    path = match["path"].removeprefix("nanohubmcp/")
    if path.split("/")[0] in REPO_ROOTS:
        suffix = (match["slash"] or "") + (match["py"] or "") + (f".{match['attr']}" if match["attr"] else "")
        return ([ROOT / (path + suffix)] if (ROOT / (path + suffix)).exists() else []), None
    for base in BASES:
        found = _candidates(base, path)
        if match["slash"]:
            found = [p for p in found if p.is_dir()]
        if found:
            return found, match["attr"]
    return [], match["attr"]


def _resolve_dotted(token: str) -> bool:
    """Whether ``nanohubmcp.a.b[.Name]`` is a module or package, or a name defined at the top of one."""
    parts = token.split(".")
    for split in range(len(parts), 1, -1):
        path = "/".join(parts[1:split])
        found = _candidates(PACKAGE, path) if path else [PACKAGE]
        if found:
            rest = parts[split:]
            return not rest or (len(rest) == 1 and rest[0] in _defined(found[0]))
    return False


def _named_packages(tokens: list[str]) -> set[Path]:
    named: set[Path] = set()
    for token in tokens:
        resolved = _resolve(token)
        if resolved is not None:
            named |= {p for p in resolved[0] if p.is_dir()}
        elif re.fullmatch(r"\w+/?", token):
            name = token.rstrip("/")
            named |= {base / name for base in BASES if (base / name / "__init__.py").is_file()}
        elif DOTTED.fullmatch(token):
            named |= {PACKAGE / "/".join(token.split(".")[1:split]) for split in range(2, len(token.split(".")) + 1)}
    return named


def test_every_module_path_the_page_names_exists() -> None:
    tokens = _page_tokens(PAGE.read_text(encoding="utf-8"))
    missing: list[str] = []
    for token in tokens:
        if DOTTED.fullmatch(token):
            if not _resolve_dotted(token):
                missing.append(token)
            continue
        resolved = _resolve(token)
        if resolved is None:
            continue
        found, attr = resolved
        if not found or (attr is not None and not any(attr in _defined(p) for p in found if p.suffix != ".md")):
            missing.append(token)
    assert not missing, f"docs/architecture.md names what nanohubmcp/ does not hold: {sorted(set(missing))}"


def test_every_package_of_nanohubmcp_is_named_on_the_page() -> None:
    named = _named_packages(_page_tokens(PAGE.read_text(encoding="utf-8")))
    packages = {init.parent for init in PACKAGE.rglob("__init__.py")} - {PACKAGE}
    unnamed = sorted(str(p.relative_to(PACKAGE)) for p in packages if p not in named)
    assert not unnamed, f"docs/architecture.md does not name these packages of nanohubmcp/: {unnamed}"


def _table_rows(text: str, heading: str) -> list[set[str]]:
    """The names in the first column of the table under ``heading``, one set per row, top row first."""
    section = text.split(heading, 1)[1].split("\n## ", 1)[0]
    rows = [line.split("|")[1] for line in section.splitlines() if line.startswith("| `")]
    return [{name.rstrip("/") for name in BACKTICKED.findall(row)} for row in rows]


def _contract_layers(name_start: str) -> list[set[str]]:
    """A layers contract of pyproject.toml as sets of names, bottom layer first, the root's prefix removed."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (contract,) = [c for c in config["tool"]["importlinter"]["contracts"] if c["name"].startswith(name_start)]
    return [{n.strip().removeprefix("nanohubmcp.") for n in layer.split("|")} for layer in reversed(contract["layers"])]


def test_the_pages_layers_are_the_import_contracts() -> None:
    """Both tables list the layers of their contract, bottom to top, a row per layer with its modules."""
    text = PAGE.read_text(encoding="utf-8")
    assert _table_rows(text, "## Packages, bottom to top") == _contract_layers("Layers: ")
    assert _table_rows(text, "## Inside `server/`, bottom to top") == _contract_layers("Layers inside server/")


def _members(package: Path) -> set[str]:
    """The modules and packages directly in ``package`` (its ``__init__`` aside)."""
    modules = {path.stem for path in package.glob("*.py") if path.name != "__init__.py"}
    return modules | {path.name for path in package.iterdir() if (path / "__init__.py").is_file()}


def test_every_module_is_in_a_layer_of_its_contract() -> None:
    """A module in no layer is held by no layers contract: it may import anything (review r42: ``served_name``)."""
    assert _members(PACKAGE) - set().union(*_contract_layers("Layers: ")) == set()
    assert _members(PACKAGE / "server") - set().union(*_contract_layers("Layers inside server/")) == set()
