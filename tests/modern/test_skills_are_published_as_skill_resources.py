"""``server.skill(path)``: a folder with a ``SKILL.md`` served as ``skill://`` resources in every era,
and through ``skills/list``, ``skills/get`` and ``resources/directory/read`` in 2026-07-28."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from modern_wire import Wire
from support import mcp_client, serve

from nanohubmcp import MCPServer
from nanohubmcp.errors import RegistrationError

SKILL_MD = """---
name: plot-data
description: Plot a CSV file with matplotlib; use when asked for a chart.
license: MIT
allowed-tools: [run_python]
metadata:
  reviewed: yes
  since: 2024-05-01
  stable: true
---

# Plot data

Read `references/style.md` first.
"""


def make_skill(root: Path, name: str = "plot-data", body: str = SKILL_MD) -> Path:
    folder = root / name
    (folder / "references").mkdir(parents=True)
    (folder / "scripts").mkdir()
    (folder / "SKILL.md").write_text(body)
    (folder / "references" / "style.md").write_text("Use large fonts.\n")
    (folder / "scripts" / "plot.py").write_text("print('plot')\n")
    (folder / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\nnot really")
    (folder / ".hidden").write_text("secret")
    return folder


def digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def test_skills_are_listed_got_and_browsed(tmp_path: Path) -> None:
    folder = make_skill(tmp_path)
    server = MCPServer("skills")
    skill = server.skill(folder, prefix="nanohub")
    assert skill.uri == "skill://nanohub/plot-data/SKILL.md"
    with serve(server) as url:
        wire = Wire(url + "mcp")
        discover = wire.call("server/discover").result
        extensions = discover["capabilities"]["extensions"]
        assert extensions["io.modelcontextprotocol/skills"] == {"directoryRead": True}

        listing = wire.call("skills/list").result
        assert (listing["ttlMs"], listing["cacheScope"]) == (0, "public")
        [entry] = listing["skills"]
        assert entry["uri"] == "skill://nanohub/plot-data/SKILL.md"
        # YAML 1.2 scalars: "yes" and dates stay strings, as any 1.2 reader sees them
        assert entry["frontmatter"]["metadata"] == {"reviewed": "yes", "since": "2024-05-01", "stable": True}
        assert entry["frontmatter"]["allowed-tools"] == ["run_python"]
        files = {r["uri"]: r for r in entry["resources"]}
        base = "skill://nanohub/plot-data/"
        names = ("SKILL.md", "logo.png", "references/style.md", "scripts/plot.py")
        assert set(files) == {base + p for p in names}
        assert files[base + "SKILL.md"] == {"uri": base + "SKILL.md", "digest": digest(SKILL_MD.encode()),
                                            "size": len(SKILL_MD.encode())}

        got = wire.call("skills/get", {"uri": entry["uri"]}).result
        assert got["skill"] == entry
        assert "nextCursor" not in got
        unknown = wire.call("skills/get", {"uri": "skill://nope/SKILL.md"})
        assert unknown.error["code"] == -32602

        top = wire.call("resources/directory/read", {"uri": "skill://nanohub/plot-data"}).result
        kinds = {child["name"]: child.get("mimeType") for child in top["resources"]}
        assert kinds == {"SKILL.md": "text/markdown", "logo.png": "image/png",
                         "references": "inode/directory", "scripts": "inode/directory"}
        sub = wire.call("resources/directory/read", {"uri": "skill://nanohub/plot-data/references"}).result
        assert [c["uri"] for c in sub["resources"]] == [base + "references/style.md"]
        for not_a_directory in (base + "SKILL.md", "skill://nanohub/other", base + "references/style.md"):
            assert wire.call("resources/directory/read", {"uri": not_a_directory}).error["code"] == -32602

        read = wire.call("resources/read", {"uri": base + "SKILL.md"}).result
        assert read["contents"][0]["text"] == SKILL_MD
        assert read["contents"][0]["mimeType"] == "text/markdown"
        blob = wire.call("resources/read", {"uri": base + "logo.png"}).result["contents"][0]
        assert "blob" in blob


@pytest.mark.anyio
async def test_handshake_clients_see_the_files_as_plain_resources(tmp_path: Path) -> None:
    server = MCPServer("skills")
    server.skill(make_skill(tmp_path))
    with serve(server) as url:
        async with mcp_client(url + "mcp") as session:
            resources = {str(r.uri): r for r in (await session.list_resources()).resources}
            manifest = resources["skill://plot-data/SKILL.md"]
            assert manifest.name == "plot-data"
            assert manifest.description.startswith("Plot a CSV file")
            assert manifest.mime_type == "text/markdown"
            style = await session.read_resource("skill://plot-data/references/style.md")
            assert style.contents[0].text == "Use large fonts.\n"


def test_publishing_again_replaces_the_skill_and_its_files(tmp_path: Path) -> None:
    folder = make_skill(tmp_path)
    server = MCPServer("skills")
    server.skill(folder)
    (folder / "scripts" / "plot.py").unlink()
    (folder / "references" / "style.md").write_text("Use small fonts.\n")
    server.skill(folder)
    registry = server.core.registry
    assert "skill://plot-data/scripts/plot.py" not in registry.resources
    with serve(server) as url:
        wire = Wire(url + "mcp")
        [entry] = wire.call("skills/list").result["skills"]
        assert "skill://plot-data/scripts/plot.py" not in {r["uri"] for r in entry["resources"]}
        text = wire.call("resources/read", {"uri": "skill://plot-data/references/style.md"}).result
        assert text["contents"][0]["text"] == "Use small fonts.\n"


def test_a_server_without_skills_does_not_declare_the_extension() -> None:
    with serve(MCPServer("plain")) as url:
        caps = Wire(url + "mcp").call("server/discover").result["capabilities"]
        assert "io.modelcontextprotocol/skills" not in caps["extensions"]
        assert Wire(url + "mcp").call("skills/list").result["skills"] == []


@pytest.mark.parametrize(("body", "match"), [
    ("# no front matter\n", "front matter"),
    ("---\nname: [unclosed\n---\n", "not valid YAML"),
    ("---\n- a list\n---\n", "mapping"),
    ("---\nname: Plot_Data\ndescription: x\n---\n", "lowercase"),
    ("---\nname: plot--data\ndescription: x\n---\n", "lowercase"),
    ("---\nname: plot-data\n---\n", "description"),
])
def test_bad_skills_are_refused_at_registration(tmp_path: Path, body: str, match: str) -> None:
    folder = make_skill(tmp_path, body=body)
    with pytest.raises(RegistrationError, match=match):
        MCPServer("skills").skill(folder)


def test_a_folder_without_skill_md_is_refused(tmp_path: Path) -> None:
    with pytest.raises(RegistrationError, match=r"no SKILL\.md"):
        MCPServer("skills").skill(tmp_path)


def test_the_uri_follows_the_front_matter_name_not_the_folder(tmp_path: Path) -> None:
    skill = MCPServer("skills").skill(make_skill(tmp_path, name="some-folder"))
    assert skill.uri == "skill://plot-data/SKILL.md"


def test_a_long_unknown_skill_uri_is_echoed_cut_short(tmp_path: Path) -> None:
    """``skills/get`` and ``resources/directory/read`` of a 50,000-character URI answered -32602 with
    the whole URI in the message and again in ``data``: both are cut to the 300 characters other
    "Unknown tool:" answers keep of a client-sent name, with "…"."""
    server = MCPServer("skills")
    server.skill(make_skill(tmp_path))
    long_uri = "skill://" + "x" * 50_000
    with serve(server) as url:
        wire = Wire(url + "mcp")
        for method, start in (("skills/get", "Unknown skill: skill://xxx"),
                              ("resources/directory/read", "Not a directory: skill://xxx")):
            error = wire.call(method, {"uri": long_uri}).error
            assert error["code"] == -32602
            assert error["message"].startswith(start), error["message"][:100]
            assert "…" in error["message"]
            assert len(str(error)) < 1000, len(str(error))
        assert wire.call("skills/list").result["skills"]  # still serving
