"""MkDocs hooks of this site.

- The API reference page is generated from the package's public names: ``<!-- api-reference -->`` in a page
  becomes one mkdocstrings ``:::`` block per public name: every name of ``nanohubmcp.__all__`` (from the module
  that defines it), then each public subpackage with the names of its ``__all__``. A name added to ``__all__``
  is documented without editing the page.
- A page that exists but is missing from ``nav`` is added where it belongs instead of failing the strict build:
  ``how-to/*.md`` at the end of the How-to section, ``architecture.md`` after Home, any other page at the end.
  Its title is the page's first heading.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from typing import Any

MARKER = "<!-- api-reference -->"

# Subpackages a user imports from directly (extension points and helpers), beyond the top-level names.
PUBLIC_MODULES = {
    "nanohubmcp.auth.verifiers": "Token verifiers",
    "nanohubmcp.server.executors": "Job executors",
    "nanohubmcp.jupyter.config": "Notebook settings",
    "nanohubmcp.nanohub": "nanoHUB sessions",
    "nanohubmcp.transports.discovery": "Discovery documents",
    "nanohubmcp.cli": "The nanohubmcp command",
    "nanohubmcp.testing": "Testing",
}

_TOP_GROUPS = {
    ".facade": "The server",
    ".decorators": "Module-level decorators",
    ".server.middleware": "Middleware",
    ".server.calls.context": "The call's context",
    ".server.registry.components": "Registered components",
    ".server.registry.resources": "Registered components",
    ".server.registry.prompts": "Registered components",
    ".server.registry.skills": "Skills",
    ".server.wire.principal": "Callers",
    ".server.asks.input_requests": "Multi-round-trip input",
    ".auth.jwt": "Authorization",
    ".auth.verifiers": "Authorization",
    ".protocol.content": "Content",
    ".protocol.result_types": "Results",
    ".errors": "Errors",
}


def api_reference() -> str:
    """The Markdown of the API reference: headings and ``:::`` identifiers (see the module doc)."""
    package = importlib.import_module("nanohubmcp")
    lazy: dict[str, str] = package._LAZY
    groups: dict[str, list[str]] = {}
    for name in sorted(lazy):
        module = lazy[name]
        groups.setdefault(_TOP_GROUPS.get(module, module), []).append(f"nanohubmcp{module}.{name}")
    extension = [f"nanohubmcp.{name}" for name in package.__all__ if name.endswith("ipython_extension")]
    groups.setdefault("The IPython extension", []).extend(extension)
    lines = ["## The package: `nanohubmcp`", ""]
    for title, identifiers in groups.items():
        lines += [f"### {title}", ""]
        lines += [f"::: {identifier}\n" for identifier in identifiers]
    for module, title in PUBLIC_MODULES.items():
        names = getattr(importlib.import_module(module), "__all__", [])
        lines += [f"## {title}: `{module}`", "", f"::: {module}", "    options:", "      members:"]
        lines += [f"        - {name}" for name in names]
        lines.append("")
    return "\n".join(lines)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    return markdown.replace(MARKER, api_reference()) if MARKER in markdown else markdown


def _listed(nav: Any) -> set[str]:
    found: set[str] = set()
    for item in nav or []:
        value = next(iter(item.values())) if isinstance(item, dict) else item
        if isinstance(value, list):
            found |= _listed(value)
        elif isinstance(value, str):
            found.add(value)
    return found


def _title(page: Path) -> str:
    heading = re.search(r"^# (.+)$", page.read_text(encoding="utf-8"), re.M)
    return heading.group(1).strip() if heading else page.stem.replace("-", " ").capitalize()


def on_config(config: Any) -> Any:
    nav = config["nav"]
    if not nav:
        return config
    docs = Path(config["docs_dir"])
    listed = _listed(nav)
    for page in sorted(docs.rglob("*.md")):
        path = page.relative_to(docs).as_posix()
        if path in listed:
            continue
        entry = {_title(page): path}
        section = next((item for item in nav if isinstance(item, dict) and "How-to" in item), None)
        if path.startswith("how-to/") and section is not None:
            section["How-to"].append(entry)
        elif path == "architecture.md":
            nav.insert(1, entry)
        else:
            nav.append(entry)
    return config
