"""Build hooks: the package's description for an index, and no wheel without the prebuilt JupyterLab panel.

The panel is built by ``scripts/build-labextension`` (node from the npm registry) into
``nanohubmcp/labextension/``; a wheel built before that would silently ship without it.
Editable installs (development) do not need it. Set ``NANOHUBMCP_SKIP_LABEXTENSION=1`` to build a
wheel without the panel on purpose.

The long description is README.md, whose links into the repository (``docs/how-to/jobs.md``) mean nothing on
a package index's page. With ``NANOHUBMCP_SITE_URL`` (where the documentation site is published, the
variable ``mkdocs.yml`` reads too) they become links into that site and the metadata gains its
Documentation and Changelog URLs; ``NANOHUBMCP_SOURCE_URL`` adds a Source URL. Without them a relative link
becomes its text and the path in the source distribution, never a broken link.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface
from hatchling.metadata.plugin.interface import MetadataHookInterface

HTML_COMMENT = re.compile(r"<!--.*?-->\n?", re.S)
# [text](target): a Markdown inline link whose target has no scheme and is not an in-page anchor.
RELATIVE_LINK = re.compile(r"\[([^\]\n]+)\]\((?![a-z][a-z0-9+.-]*:|#)([^)\s]+)\)")


def site_page(site: str, target: str) -> str | None:
    """The published page of a ``docs/…`` target (mkdocs' directory URLs), or None for any other path."""
    path, _, anchor = target.partition("#")
    if not path.startswith("docs/") or not path.endswith(".md"):
        return None
    page = path[len("docs/"):-len(".md")]
    page = "" if page == "index" else page + "/"
    return site.rstrip("/") + "/" + page + (f"#{anchor}" if anchor else "")


def index_description(readme: str, site: str | None) -> str:
    """README.md as an index shows it: its title and what follows its first rule (``---``), without the
    checkout's own commands above it (``scripts/demo``, which a wheel does not have); each relative link
    made absolute (into ``site``) or plain text; no HTML comments."""
    title, rule, rest = readme.partition("\n---\n")
    if rule:
        readme = title.split("\n", 1)[0] + "\n" + rest
    readme = HTML_COMMENT.sub("", readme)  # the docs tests' markers (<!-- not-run: ... -->)

    def absolute(match: re.Match[str]) -> str:
        text, target = match.group(1), match.group(2)
        url = site_page(site, target) if site else None
        return f"[{text}]({url})" if url else f"{text} (`{target.partition('#')[0]}` in the source distribution)"

    return RELATIVE_LINK.sub(absolute, readme)


class IndexMetadata(MetadataHookInterface):  # type: ignore[misc]
    """Sets ``readme`` (README.md, links resolved) and ``urls`` (from the environment; see the module's text)."""

    PLUGIN_NAME = "custom"

    def update(self, metadata: dict[str, Any]) -> None:
        site = os.environ.get("NANOHUBMCP_SITE_URL") or None
        source = os.environ.get("NANOHUBMCP_SOURCE_URL") or None
        readme = (Path(self.root) / "README.md").read_text(encoding="utf-8")
        metadata["readme"] = {"content-type": "text/markdown", "text": index_description(readme, site)}
        urls: dict[str, str] = {}
        if site:
            urls["Documentation"] = site
            urls["Changelog"] = site.rstrip("/") + "/changelog/"
        if source:
            urls["Source"] = source
        metadata["urls"] = urls


class LabExtensionCheck(BuildHookInterface):  # type: ignore[misc]
    """Fails a standard wheel build when the panel was not built first."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version == "editable":
            return
        if os.environ.get("NANOHUBMCP_SKIP_LABEXTENSION") == "1":
            return
        built = Path(self.root) / "nanohubmcp" / "labextension" / "package.json"
        if not built.is_file():
            raise RuntimeError(
                "the JupyterLab panel is not built: run scripts/build-labextension first "
                "(or set NANOHUBMCP_SKIP_LABEXTENSION=1 to build a wheel without it)")
