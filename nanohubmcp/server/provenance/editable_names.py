"""The import names of editable installs, which ``importlib.metadata.packages_distributions()`` misses.

An editable install (``pip install -e .``, PEP 660) records no package files: its ``RECORD`` lists a ``.pth``
file that puts the project's folder on ``sys.path`` (hatchling, this package's own install, flit, setuptools'
``src`` layouts) or one that imports a finder mapping each top-level name to its folder (setuptools'
``__editable___*_finder.py``; setuptools also writes a ``top_level.txt``, which the standard table reads). So the
standard table had no entry for a scientist's own package installed from its checkout, and provenance records
listed none of its version (trial 58, F8). :func:`editable_names` reads them the installer's way:

- the keys of a finder's ``MAPPING`` (read as a literal, never imported);
- the packages (a folder with ``__init__.py``) and modules (``*.py``) in each folder a ``.pth`` file of its
  ``RECORD`` names.

A distribution is editable when its ``direct_url.json`` says ``"dir_info": {"editable": true}``. Only the
standard library: :mod:`.distributions_read` runs this in its child process (``python -I``). Cost: one small
file read per installed distribution, and a folder listing per editable one (milliseconds).
"""

from __future__ import annotations

import ast
import json
import os
from typing import Any

FINDER_PREFIX = "__editable__"
"""How setuptools names an editable install's finder module (``__editable___<name>_<version>_finder.py``)."""


def editable_names(metadata: Any) -> dict[str, list[str]]:
    """``{import name: sorted distribution names}`` of the editable distributions on ``sys.path``
    (``metadata``: :mod:`importlib.metadata`); ``{}`` when none is. A distribution whose files cannot be read
    is left out (never raises for one)."""
    found: dict[str, set[str]] = {}
    for dist in metadata.distributions():
        try:
            if not _is_editable(dist.read_text("direct_url.json")):
                continue
            name = dist.metadata["Name"]
            names = _names_of(dist)
        except (OSError, ValueError, TypeError, SyntaxError):
            continue
        for top in names:
            found.setdefault(top, set()).add(name)
    return {top: sorted(dists) for top, dists in found.items()}


def _is_editable(text: str | None) -> bool:
    if not text:
        return False
    info = json.loads(text)
    folder = info.get("dir_info") if isinstance(info, dict) else None
    return isinstance(folder, dict) and folder.get("editable") is True


def _names_of(dist: Any) -> set[str]:
    names: set[str] = set()
    for path in dist.files or ():
        if path.name.endswith(".pth"):
            for folder in _pth_folders(str(path.locate())):
                names |= _importable_in(folder)
        elif path.name.startswith(FINDER_PREFIX) and path.name.endswith("_finder.py"):
            names |= _finder_names(str(path.locate()))
    return {name for name in names if name.isidentifier()}


def _pth_folders(pth: str) -> list[str]:
    """The folders a ``.pth`` file adds to ``sys.path`` (its lines that are not ``import`` lines or comments),
    relative ones against the file's own folder, as ``site`` reads them."""
    with open(pth, encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    base = os.path.dirname(pth)
    folders = []
    for line in lines:
        line = line.strip()
        if line and not line.startswith(("#", "import ", "import\t")):
            folder = os.path.join(base, line)
            if os.path.isdir(folder):
                folders.append(folder)
    return folders


def _importable_in(folder: str) -> set[str]:
    names: set[str] = set()
    for entry in os.scandir(folder):
        if entry.name.endswith(".py") and entry.is_file():
            names.add(entry.name[:-3])
        elif entry.is_dir() and os.path.isfile(os.path.join(entry.path, "__init__.py")):
            names.add(entry.name)
    return names


def _finder_names(finder: str) -> set[str]:
    """The keys of a setuptools finder's ``MAPPING = {...}`` (or ``MAPPING: dict[str, str] = {...}``)."""
    with open(finder, encoding="utf-8") as handle:
        tree = ast.parse(handle.read(), finder)
    for node in tree.body:
        if isinstance(node, ast.AnnAssign):
            targets: list[ast.expr] = [node.target]
            value = node.value
        elif isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        else:
            continue
        if value is not None and any(isinstance(target, ast.Name) and target.id == "MAPPING" for target in targets):
            mapping = ast.literal_eval(value)
            return {str(key) for key in mapping} if isinstance(mapping, dict) else set()
    return set()
