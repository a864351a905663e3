"""``nanohubmcp hub-tools`` on a hub's tool tree (a fake ``/apps`` under tmp, laid out as a hub
installs tools: ``<tool>/<revision>/rappture/tool.xml``, ``<name>/<revision>/simtool/<name>.ipynb``,
``current`` a link to an ``rNN``): it lists what is installed and serves the tools named (a Sim2L
and a Rappture tool); and ``nanohubmcp sim2l NOTEBOOK --transport stdio`` serves a Sim2L to the
official stdio client, the papermill run printing nothing into the protocol stream."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from nanohubmcp.cli import main
from nanohubmcp.sources.hub import find_hub_tools, pick, served_names

NOTEBOOK = Path(__file__).parent / "data" / "allkinds" / "allkinds.ipynb"
ROOT = Path(__file__).resolve().parents[2]
FERMI = ROOT / "tests" / "rappture" / "tools" / "fermi"  # a Rappture tool written for the Rappture tests


def _apps(base: Path) -> Path:
    apps = base / "apps"
    for revision in ("r3", "dev"):
        folder = apps / "allkinds" / revision / "simtool"
        folder.mkdir(parents=True)
        shutil.copy(NOTEBOOK, folder / "allkinds.ipynb")
    os.symlink("r3", apps / "allkinds" / "current")
    for revision in ("r7", "r12", "dev"):
        folder = apps / "fermi" / revision / "rappture"
        folder.mkdir(parents=True)
        for name in ("tool.xml", "fermi.py"):
            shutil.copy(FERMI / name, folder / name)
    (apps / "empty" / "r1" / "rappture").mkdir(parents=True)  # no tool.xml: not a tool
    (apps / "fermi" / "r12" / "simtool").mkdir()  # a simtool folder without its notebook: no Sim2L
    (apps / "notes.txt").write_text("not a tool")
    return apps


def test_the_installed_tools_are_found_with_their_default_revision(tmp_path: Path) -> None:
    apps = _apps(tmp_path)
    tools = find_hub_tools(apps)
    assert [(t.name, t.kind, t.revision) for t in tools] == [
        ("allkinds", "sim2l", "current"),
        ("fermi", "rappture", "r12"),
    ]
    assert list(tools[0].revisions) == ["current", "r3", "dev"]
    assert tools[0].path == str(apps / "allkinds" / "current" / "simtool" / "allkinds.ipynb")
    assert list(tools[1].revisions) == ["r12", "r7", "dev"]
    assert [(t.name, t.revision) for t in pick(apps, ["fermi/r7", "allkinds/dev"])] == [
        ("fermi", "r7"),
        ("allkinds", "dev"),
    ]
    with pytest.raises(LookupError, match="did you mean fermi"):
        pick(apps, ["fermy"])
    shutil.copy(NOTEBOOK, apps / "fermi" / "r12" / "simtool" / "fermi.ipynb")  # fermi as a Sim2L too
    with pytest.raises(LookupError, match=r"did you mean fermi\?"):  # named once (a trial read "fermi, fermi?")
        pick(apps, ["fermy"])
    (apps / "fermi" / "r12" / "simtool" / "fermi.ipynb").unlink()
    with pytest.raises(LookupError, match=r"no revision 'r9' \(installed: r12, r7, dev\)"):
        pick(apps, ["fermi/r9"])
    assert find_hub_tools(tmp_path / "no-such-root") == []


def test_hub_tools_lists_what_is_installed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    apps = _apps(tmp_path)
    assert main(["hub-tools", "--root", str(apps)]) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert len(lines) == 2
    # current is a link to r3 (as a hub publishes): said so, and r3 is not listed as another revision
    # (a fresh-user trial read "current ... (also r3, dev)" as three revisions)
    assert lines[0].split()[:5] == ["allkinds", "sim2l", "current", "->", "r3"]
    assert lines[0].endswith("allkinds.ipynb  (also dev)")
    assert lines[1].split()[:4] == ["fermi", "rappture", "r12", str(apps / "fermi" / "r12" / "rappture" / "tool.xml")]
    assert "nanohubmcp hub-tools NAME" in err
    assert main(["hub-tools", "--root", str(apps), "nothing"]) == 1
    assert "no Rappture tool or Sim2L named 'nothing'" in capsys.readouterr().err
    (apps / "allkinds" / "current").unlink()  # a current folder of its own is no other revision's
    shutil.copytree(apps / "allkinds" / "r3", apps / "allkinds" / "current")
    assert main(["hub-tools", "--root", str(apps)]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.split()[:3] == ["allkinds", "sim2l", "current"]
    assert "->" not in first
    assert first.endswith("(also r3, dev)")


def test_a_root_that_does_not_exist_is_an_error_not_an_empty_hub(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found by a fresh-user trial: a typo in --root exited 0 with "No ... installed"."""
    missing = tmp_path / "no-such-root"
    assert main(["hub-tools", "--root", str(missing)]) == 1
    assert capsys.readouterr().err == f"nanohubmcp hub-tools: error: --root {missing}: no such directory\n"
    assert main(["hub-tools", "--root", str(missing), "fermi"]) == 1
    assert "no such directory" in capsys.readouterr().err


def test_two_revisions_of_one_tool_are_served_under_names_of_their_own(tmp_path: Path) -> None:
    """Found by a fresh-user trial: ``cooling cooling/r1`` served only the last (one name, replaced)."""
    apps = _apps(tmp_path)
    named = [(t.revision, name) for t, name in served_names(pick(apps, ["fermi", "fermi/r7", "fermi/r12"])).named]
    assert named == [("r12", "fermi_r12"), ("r7", "fermi_r7")]  # fermi is fermi/r12: asked twice, served once
    assert [name for _, name in served_names(pick(apps, ["fermi/r7", "allkinds"])).named] == ["fermi", "allkinds"]


def _odd_names(apps: Path) -> None:
    """Tools whose directory names are no MCP tool names: one with a space (and one already named
    as its tool name would be), one with no character a tool name can hold."""
    for name in ("sp ace", "sp_ace", "日本"):
        folder = apps / name / "r1" / "rappture"
        folder.mkdir(parents=True)
        for file in ("tool.xml", "fermi.py"):
            shutil.copy(FERMI / file, folder / file)


def test_a_directory_name_that_is_no_tool_name_is_served_under_one_made_from_it_or_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found by a fresh-user trial (trial28 T10): ``apps/sp ace`` stopped ``hub-tools`` serving anything,
    with advice (``name=``) the command has no option for."""
    apps = _apps(tmp_path)
    _odd_names(apps)
    served = served_names(pick(apps, ["sp ace", "日本", "fermi/r7", "sp_ace"]))
    assert [(t.name, name) for t, name in served.named] == [("fermi", "fermi"), ("sp_ace", "sp_ace")]
    assert [(t.name, why) for t, why in served.skipped] == [
        ("sp ace", f"its tool name 'sp_ace' is that of {apps / 'sp_ace' / 'r1' / 'rappture' / 'tool.xml'}, "
                   "served already"),
        ("日本", "'日本' has no character an MCP tool name can hold (ASCII letters, digits, '_-.')"),
    ]
    assert [name for _, name in served_names(pick(apps, ["sp ace", "fermi"])).named] == ["sp_ace", "fermi"]
    assert main(["hub-tools", "--root", str(apps)]) == 0
    lines = capsys.readouterr().out.splitlines()
    # The made name is the other tool's: the listing says so (a fresh-user trial: it promised the name).
    assert next(line for line in lines if line.startswith("sp ace ")).endswith(
        "  (served as sp_ace, but not beside the tool sp_ace)")
    assert next(line for line in lines if line.startswith("日本 ")).endswith("  (cannot be served)")
    assert main(["hub-tools", "--root", str(apps), "日本"]) == 1
    err = capsys.readouterr().err
    assert f"warning: not serving {apps / '日本' / 'r1' / 'rappture'}: '日本' has no character" in err
    assert "none of the tools named can be served" in err


@pytest.mark.slow
@pytest.mark.timeout(180)
@pytest.mark.anyio
async def test_hub_tools_serves_the_others_and_says_which_it_skips(tmp_path: Path) -> None:
    import subprocess

    apps = _apps(tmp_path)
    _odd_names(apps)
    command = [sys.executable, "-m", "nanohubmcp", "hub-tools", "--root", str(apps), "sp ace", "日本", "fermi/r7",
               "--transport", "stdio"]  # fmt: skip
    done = subprocess.run(command, cwd=ROOT, input="", capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert f"warning: not serving {apps / '日本' / 'r1' / 'rappture'}: '日本' has no character" in done.stderr
    assert done.stdout == ""

    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=command[0], args=command[1:], cwd=str(ROOT))
    with anyio.fail_after(90):
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            assert sorted(t.name for t in (await session.list_tools()).tools) == ["fermi", "sp_ace"]
            result = await session.call_tool("sp_ace", {"temperature": "77K", "points": 11})
    assert not result.is_error, result.content


async def _stdio(command: list[str], *, call: bool) -> tuple[list[Any], Any]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=command[0], args=command[1:], cwd=str(ROOT))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = (await session.list_tools()).tools
        if call:
            result = await session.call_tool("allkinds", {"label": "stdio"})
        elif any(t.name.startswith("fermi") for t in tools):
            fermi = next(t.name for t in tools if t.name.startswith("fermi"))
            result = await session.call_tool(fermi, {"temperature": "77K", "points": 11})
        else:
            result = None
        return list(tools), result


@pytest.mark.slow
@pytest.mark.timeout(240)
@pytest.mark.anyio
async def test_hub_tools_serves_a_named_sim2l_and_the_sim2l_command_runs_one_over_stdio(tmp_path: Path) -> None:
    apps = _apps(tmp_path)
    with anyio.fail_after(90):
        hub_tools = [sys.executable, "-m", "nanohubmcp", "hub-tools", "--root", str(apps), "allkinds/r3", "fermi/r7",
                     "fermi/r12"]  # fmt: skip
        tools, fermi = await _stdio([*hub_tools, "--transport", "stdio"], call=False)
    assert sorted(t.name for t in tools) == ["allkinds", "fermi_r12", "fermi_r7"]  # two revisions side by side
    assert "Every Sim2L input type" in next(t.description for t in tools if t.name == "allkinds")
    assert fermi is not None
    assert not fermi.is_error, fermi.content  # the Rappture tool ran from the hub's tree
    with anyio.fail_after(180):
        tools, result = await _stdio(
            [
                sys.executable,
                "-m",
                "nanohubmcp",
                "sim2l",
                str(NOTEBOOK),
                "--results-dir",
                str(tmp_path / "runs"),
                "--transport",
                "stdio",
            ],
            call=True,
        )
    assert [t.name for t in tools] == ["allkinds"]
    assert result is not None
    assert not result.is_error, result.content
    assert result.structured_content["outputs"]["banner"] == "STDIO!"
    assert any((tmp_path / "runs" / "allkinds" / "r3").iterdir())  # the run is stored where asked


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_the_sim2l_command_says_at_once_what_it_does_on_stderr_not_on_the_protocol_stream() -> None:
    # trial21 F12: nothing was printed for ~17 s (papermill, simtool, the notebook) before the banner.
    import subprocess

    command = [sys.executable, "-m", "nanohubmcp", "sim2l", str(NOTEBOOK), "--transport", "stdio"]
    # Input ends at once, so the stdio server stops after it started; its first stderr line precedes
    # everything it prints, the banner included.
    done = subprocess.run(command, cwd=ROOT, input="", capture_output=True, text=True, timeout=150)
    first = done.stderr.splitlines()[0] if done.stderr else ""
    assert first.startswith("nanohubmcp sim2l: reading allkinds.ipynb and loading papermill"), done.stderr[:500]
    assert done.stdout == ""  # nothing on the protocol stream


def test_a_tool_is_picked_by_the_name_the_listing_says_it_is_served_as(tmp_path: Path) -> None:
    """Found by a fresh-user trial (trial34 X3): ``hub-tools`` listed ``ünï`` "(served as uni)", then
    refused ``uni`` as a name (no tool named so), without a hint. A directory of that very name wins."""
    apps = _apps(tmp_path)
    for name in ("ünï", "sp ace"):
        folder = apps / name / "r1" / "rappture"
        folder.mkdir(parents=True)
        for file in ("tool.xml", "fermi.py"):
            shutil.copy(FERMI / file, folder / file)
    assert [(t.name, name) for t, name in served_names(pick(apps, ["uni"])).named] == [("ünï", "uni")]
    assert [t.name for t in pick(apps, ["sp_ace/r1"])] == ["sp ace"]
    shutil.copytree(apps / "sp ace", apps / "sp_ace")  # now a directory sp_ace exists too: the name is its own
    assert [t.name for t in pick(apps, ["sp_ace"])] == ["sp_ace"]
    with pytest.raises(LookupError, match="no Rappture tool or Sim2L named 'unx'"):
        pick(apps, ["unx"])


def test_a_name_over_128_characters_is_listed_as_cut_and_two_cut_alike_are_told_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found by a fresh-user trial (trial35 Y12): a directory name over 128 characters is served cut to
    128, and the listing did not say so; two names cut alike each promised the same tool name."""
    apps = _apps(tmp_path)
    long, longer = "a" * 135, "a" * 140
    for name in (longer, long):
        folder = apps / name / "r1" / "rappture"
        folder.mkdir(parents=True)
        for file in ("tool.xml", "fermi.py"):
            shutil.copy(FERMI / file, folder / file)
    assert main(["hub-tools", "--root", str(apps)]) == 0
    lines = capsys.readouterr().out.splitlines()
    cut = "a" * 128
    assert next(line for line in lines if line.startswith(long + " ")).endswith(
        f"  (served as {cut}, cut to 128 characters)")
    assert next(line for line in lines if line.startswith(longer + " ")).endswith(
        f"  (served as {cut}, cut to 128 characters, but not beside the tool {long})")
    for asked in ([longer, long], [long, longer]):  # the one the listing promised, whatever the order asked
        served = served_names(pick(apps, asked))
        assert [(t.name, name) for t, name in served.named] == [(long, cut)]
        assert [t.name for t, _ in served.skipped] == [longer]
