"""A fresh-user trial (round 3, NIT): ``resources/read`` of ``SKILL://plot-data/SKILL.md`` read the skill's
manifest (a skill's files are registered resources, compared as RFC 3986 § 6.2.2 compares URIs), but
``skills/get`` and ``resources/directory/read`` looked the URI up as written, so the same spelling was
"Unknown skill" and "Not a directory". They now compare URIs in the one form ``resources/read`` does; the
path keeps its case (``skill.md`` is not ``SKILL.md``)."""

from __future__ import annotations

from pathlib import Path

from modern_wire import Wire
from support import serve

from nanohubmcp import MCPServer

INVALID_PARAMS = -32602


def test_skills_get_and_directory_read_take_every_spelling_resources_read_takes(tmp_path: Path) -> None:
    folder = tmp_path / "plot-data"
    (folder / "references").mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: plot-data\ndescription: Plot a CSV file.\n---\n# Plot\n")
    (folder / "references" / "style.md").write_text("Use large fonts.\n")
    server = MCPServer("skills")
    server.skill(folder, prefix="nanohub")
    with serve(server) as url:
        wire = Wire(url + "mcp")
        [entry] = wire.call("skills/list").result["skills"]
        assert entry["uri"] == "skill://nanohub/plot-data/SKILL.md"
        listing = wire.call("resources/directory/read", {"uri": "skill://nanohub/plot-data"}).result["resources"]

        for spelling in ("SKILL://nanohub/plot-data/SKILL.md", "skill://nanohub/plot-data/%53KILL.md",
                         "Skill://%6Eanohub/plot%2ddata/SKILL.md"):
            assert wire.call("resources/read", {"uri": spelling}).result["contents"][0]["text"].endswith("# Plot\n")
            assert wire.call("skills/get", {"uri": spelling}).result["skill"] == entry, spelling
        for spelling in ("SKILL://nanohub/plot-data", "skill://nanohub/plot-%64ata/", "Skill://%6eanohub/plot-data"):
            answer = wire.call("resources/directory/read", {"uri": spelling}).result
            assert answer["resources"] == listing, spelling
        references = wire.call("resources/directory/read", {"uri": "SKILL://nanohub/plot-data/%72eferences"}).result
        assert [child["uri"] for child in references["resources"]] == [
            "skill://nanohub/plot-data/references/style.md"]

        unknown = wire.call("skills/get", {"uri": "skill://nanohub/plot-data/skill.md"})  # the path has case
        assert unknown.error["code"] == INVALID_PARAMS
        assert unknown.error["data"] == {"uri": "skill://nanohub/plot-data/skill.md"}
        missing = wire.call("resources/directory/read", {"uri": "skill://nanohub/Plot-data"})
        assert missing.error["code"] == INVALID_PARAMS
