"""Agent skills: a folder with a ``SKILL.md`` published as ``skill://`` resources (SEP-2640).

:func:`load_skill` reads a skill folder once: ``SKILL.md``'s YAML front matter (parsed with
PyYAML, YAML 1.2 scalars: ``yes``/``on`` stay strings, dates stay strings, so the JSON form is
what any YAML 1.2 reader sees), and every file with its SHA-256 digest and size. The bytes are
kept, so what is read is exactly what the digest describes; call ``server.skill(path)`` again
to publish changes.

A skill named ``plot-data`` is served as ``skill://plot-data/SKILL.md`` (or, with a prefix,
``skill://<prefix>/plot-data/SKILL.md``) and its other files below that directory. The
:class:`SkillCatalog` answers ``skills/list``, ``skills/get`` and directory reads.

Source: MCP skills extension ``io.modelcontextprotocol/skills`` (SEP-2640); Agent Skills
specification (``SKILL.md`` front matter: ``name`` 1-64 lowercase letters, digits and single
hyphens; ``description`` 1-1024 characters).
"""

from __future__ import annotations

import functools
import hashlib
import mimetypes
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from ...errors import RegistrationError

SKILL_FILE = "SKILL.md"
SCHEME = "skill://"
DIRECTORY_MIME = "inode/directory"
MARKDOWN_MIME = "text/markdown"
MAX_FILES = 512
MAX_BYTES = 16 * 1024 * 1024
NAME = re.compile(r"^(?!.*--)[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?\Z")
PREFIX_SEGMENT = re.compile(r"^[A-Za-z0-9._~-]+\Z")
_FRONT_MATTER = re.compile(r"\A\ufeff?---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.DOTALL)


@functools.lru_cache(maxsize=1)
def _yaml12_loader() -> type[Any]:
    """A ``yaml.SafeLoader`` with YAML 1.2 core scalars: only true/false are booleans, no timestamps.

    Built on first use, so importing nanohubmcp does not import PyYAML.
    """
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers
                if tag not in ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:timestamp")]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    Loader.add_implicit_resolver(
        "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))
    return Loader


@dataclass(frozen=True)
class SkillFile:
    """One file of a skill: path relative to the skill folder (POSIX), bytes, digest, size."""

    path: str
    data: bytes
    mime_type: str | None

    @property
    def digest(self) -> str:
        """``sha256:<64 lowercase hex>`` of the raw bytes."""
        return "sha256:" + hashlib.sha256(self.data).hexdigest()

    @property
    def size(self) -> int:
        """Length of the raw bytes."""
        return len(self.data)

    def content(self) -> str | bytes:
        """Text when the file is UTF-8 text, else the bytes (read as a blob)."""
        text_like = self.mime_type is None or self.mime_type.startswith("text/") or self.mime_type in (
            "application/json", "application/x-yaml", "application/yaml", "application/xml")
        if text_like:
            try:
                return self.data.decode("utf-8")
            except UnicodeDecodeError:
                pass
        return self.data


@dataclass
class Skill:
    """A loaded skill.

    Attributes:
        name: the front matter ``name`` (also the last segment of its path).
        path: the skill path in URIs, e.g. ``plot-data`` or ``nanohub/plot-data``.
        frontmatter: the front matter as JSON values, exactly as written.
        files: every file by relative POSIX path, ``SKILL.md`` included.
    """

    name: str
    path: str
    frontmatter: dict[str, Any]
    files: dict[str, SkillFile] = field(default_factory=dict)

    @property
    def base(self) -> str:
        """The skill directory's URI, ``skill://<path>``."""
        return SCHEME + self.path

    @property
    def uri(self) -> str:
        """The ``SKILL.md`` URI, which names the skill."""
        return f"{self.base}/{SKILL_FILE}"

    def file_uri(self, rel: str) -> str:
        """URI of the file at ``rel``."""
        return f"{self.base}/{rel}"

    def entry(self) -> dict[str, Any]:
        """The ``skills/list`` / ``skills/get`` entry: ``{uri, frontmatter, resources}``."""
        return {
            "uri": self.uri,
            "frontmatter": self.frontmatter,
            "resources": [{"uri": self.file_uri(rel), "digest": f.digest, "size": f.size}
                          for rel, f in self.files.items()],
        }

    def directory(self, uri: str) -> list[dict[str, Any]] | None:
        """Direct children of the directory ``uri`` as Resource objects; None if not a directory."""
        if uri.rstrip("/") == self.base:
            prefix = ""
        elif uri.startswith(self.base + "/"):
            prefix = uri[len(self.base) + 1:].strip("/") + "/"
        else:
            return None
        children: dict[str, dict[str, Any]] = {}
        for rel, f in self.files.items():
            if not rel.startswith(prefix):
                continue
            head, _, rest = rel[len(prefix):].partition("/")
            if rest:
                children.setdefault(head, {"uri": self.file_uri(prefix + head), "name": head,
                                           "mimeType": DIRECTORY_MIME})
            else:
                item: dict[str, Any] = {"uri": self.file_uri(rel), "name": head, "size": f.size}
                if f.mime_type:
                    item["mimeType"] = f.mime_type
                children[head] = item
        if not children and prefix:
            return None  # not a directory of this skill (a file, or nothing at all)
        return [children[k] for k in sorted(children)]


def parse_front_matter(text: str, where: str) -> dict[str, Any]:
    """The YAML front matter at the top of ``SKILL.md`` as a dict.

    Raises:
        RegistrationError: no ``---`` block, invalid YAML, or not a mapping.
    """
    match = _FRONT_MATTER.match(text)
    if match is None:
        raise RegistrationError(
            f"skill {where}: SKILL.md must start with YAML front matter between '---' lines")
    import yaml

    try:
        data = yaml.load(match.group(1), Loader=_yaml12_loader())  # a SafeLoader: builds no objects
    except yaml.YAMLError as exc:
        raise RegistrationError(
            f"skill {where}: the front matter of SKILL.md is not valid YAML: {exc}") from None
    if not isinstance(data, dict) or not all(isinstance(k, str) for k in data):
        raise RegistrationError(f"skill {where}: the front matter of SKILL.md must be a mapping of names")
    return data


def _check_front_matter(front: dict[str, Any], where: str) -> str:
    name = front.get("name")
    if not isinstance(name, str) or not NAME.match(name):
        raise RegistrationError(
            f"skill {where}: front matter 'name' must be 1-64 lowercase letters, digits and single hyphens, "
            f"not starting or ending with a hyphen (got {name!r})")
    description = front.get("description")
    if not isinstance(description, str) or not description.strip() or len(description) > 1024:
        raise RegistrationError(f"skill {where}: front matter 'description' must be 1-1024 characters")
    return name


def _mime(rel: str) -> str | None:
    if rel.endswith(".md"):
        return MARKDOWN_MIME
    return mimetypes.guess_type(rel, strict=False)[0]


def _walk(root: Path, where: str) -> dict[str, SkillFile]:
    files: dict[str, SkillFile] = {}
    total = 0
    real_root = root.resolve()
    for item in sorted(root.rglob("*")):
        rel_parts = item.relative_to(root).parts
        if any(part.startswith(".") or part == "__pycache__" for part in rel_parts) or not item.is_file():
            continue
        if not item.resolve().is_relative_to(real_root):
            raise RegistrationError(f"skill {where}: {item} links outside the skill folder")
        rel = PurePosixPath(*rel_parts).as_posix()
        data = item.read_bytes()
        total += len(data)
        files[rel] = SkillFile(rel, data, _mime(rel))
        if len(files) > MAX_FILES or total > MAX_BYTES:
            raise RegistrationError(
                f"skill {where}: a skill may hold at most {MAX_FILES} files and {MAX_BYTES // (1 << 20)} MiB")
    # SKILL.md first: the entry's own file leads its resources.
    return {SKILL_FILE: files.pop(SKILL_FILE), **files}


def load_skill(folder: str | Path, *, prefix: str | None = None) -> Skill:
    """Read the skill in ``folder`` (it must hold ``SKILL.md``).

    Args:
        folder: the skill's directory.
        prefix: optional leading path segments (``"nanohub"`` → ``skill://nanohub/<name>/...``).
    Raises:
        RegistrationError: no ``SKILL.md``, bad front matter, a name or prefix that breaks
            the naming rules, or more than 512 files / 16 MiB.
    """
    root = Path(folder)
    where = f"'{root}'"
    skill_md = root / SKILL_FILE
    if not skill_md.is_file():
        raise RegistrationError(f"skill {where}: no {SKILL_FILE} in that folder")
    try:
        text = skill_md.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise RegistrationError(f"skill {where}: {SKILL_FILE} must be UTF-8 text") from None
    front = parse_front_matter(text, where)
    name = _check_front_matter(front, where)
    path = name
    if prefix:
        segments = prefix.strip("/").split("/")
        if not all(PREFIX_SEGMENT.match(s) for s in segments):
            raise RegistrationError(
                f"skill {where}: prefix {prefix!r} must be '/'-separated plain URI segments")
        path = "/".join([*segments, name])
    return Skill(name=name, path=path, frontmatter=front, files=_walk(root, where))
