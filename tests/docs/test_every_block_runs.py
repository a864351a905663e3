"""Every python and bash block of the README and of docs/ runs, page by page, in order (docs/contributing.md
says how blocks declare a server or a file, or why they cannot run)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from docs_blocks import ROOT, fences, page_id, pages, run_page

pytestmark = pytest.mark.slow


# What a page's blocks write on purpose beside the reader's own files (their project, not the checkout).
WRITTEN_BESIDE_THE_READERS_FILES = {
    "docs/how-to/discovery.md": {"server.json"},  # `-o server.json`, beside the page's weather.py
}


@pytest.mark.parametrize("path", pages(), ids=page_id)
def test_the_blocks_of_the_page_run(path: Path) -> None:
    """... and leave where they started (the reader's checkout) only the files the reader saves (the page's
    `file:` blocks, or another page's it names) and what it writes beside them: a rehearsal that reads the
    checkout works in a scratch folder (trial55 F7: hub-tools.md left `apps/`, notebook.md `check_tools.ipynb`,
    untracked files in `git status`; trial58 F1: nanohub.md `session/` and `start_mcp.py`)."""
    page = run_page(path)
    print(f"{page_id(path)}: {page.ran} run, {len(page.not_run)} marked not-run, left {page.left}")
    saved = set(WRITTEN_BESIDE_THE_READERS_FILES.get(page_id(path), ()))
    for fence in fences(path):
        kind, value = fence.marker or ("", "")
        if kind == "file":
            saved.add(value)
        elif kind in ("needs", "serves"):  # another page's file block (PAGE:FILE), written here
            saved.update(re.findall(r"\S+\.md:(\S+)", value))
    assert set(page.left) <= saved, f"{page_id(path)} leaves {sorted(set(page.left) - saved)} in the checkout"


def test_a_failing_block_fails_the_page(tmp_path: Path) -> None:
    """The runner can fail: a bash block that exits non-zero and a python block that raises."""
    page = tmp_path / "page.md"
    page.write_text("```bash\nfalse\n```\n")
    with pytest.raises(Exception, match="exited with 1"):
        run_page(page)
    page.write_text("```python\nraise ValueError('broken example')\n```\n")
    with pytest.raises(ValueError, match="broken example"):
        run_page(page)
    page.write_text("<!-- serves: port 8000 -->\n```bash\necho no server on 8000; exit 3\n```\n")
    with pytest.raises(AssertionError, match="exited with 3 before serving"):
        run_page(page)


def test_the_quick_start_runs_as_a_reader_runs_it(tmp_path: Path) -> None:
    """`python3 start_mcp.py` serves (on a free port, in the background) and the client block calls it."""
    page = tmp_path / "page.md"
    quick_start = (ROOT / "docs" / "getting-started" / "script.md").read_text().split("## Quick start", 1)[1]
    page.write_text(quick_start.split("`scripts/demo_client.py URL`", 1)[0])
    ran = run_page(page)
    assert ran.ran == 3  # the file, `python3 start_mcp.py`, the client call
    assert ran.not_run == []


APP = '''from nanohubmcp import MCPServer

server = MCPServer("t")


@server.tool()
def twice(x: int) -> int:
    """Twice x."""
    return 2 * x
'''


def test_a_needs_server_block_gets_the_file_served_on_a_free_port(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    call = "curl -X POST http://127.0.0.1:8000/tools/twice -H 'Content-Type: application/json' -d '{\"x\": 21}'"
    page.write_text(
        f"<!-- file: app.py -->\n```python\n{APP}```\n\n"
        f"<!-- needs: server app.py -->\n```bash\n{call} | grep -q 42\n```\n"
    )
    assert run_page(page).ran == 2


def test_a_cd_moves_the_later_blocks_and_a_scratch_folder_is_the_pages_own(tmp_path: Path) -> None:
    """As in one terminal, a bash block's `cd` holds for the blocks after it (bash, python, a served file);
    `mktemp -d` makes the folder in the page's own $TMPDIR, removed with the page; the checkout's stand-in
    keeps only what a block wrote there."""
    page = tmp_path / "page.md"
    page.write_text(
        "```bash\ncheckout=$PWD\ntouch kept.txt\ncd \"$(mktemp -d)\"\n"
        'cp "$checkout"/examples/simple/start_mcp.py app.py\ntest "$(dirname "$PWD")" = "$TMPDIR"\n```\n\n'
        "```bash\ntest -f app.py && test ! -e examples\n```\n\n"
        "```python\nfrom pathlib import Path\n\nassert Path('app.py').is_file()\n```\n\n"
        "<!-- needs: server app.py -->\n```bash\ncurl -s -X POST http://127.0.0.1:8000/tools/add "
        "-H 'Content-Type: application/json' -d '{\"a\": 2, \"b\": 3}' | grep -q 5\n```\n"
    )
    ran = run_page(page)
    assert ran.ran == 4
    assert ran.left == ["kept.txt"]
    assert not ran.directory.exists()
    assert not ran.own.exists()


def test_a_write_through_the_checkouts_folders_is_left_there_and_not_in_the_checkout(tmp_path: Path) -> None:
    """A block that `cd examples` and writes (and every later block, carried there) writes into the page's copy
    of the folder, counted in `left`; the real checkout stays clean (review r30 F2: through the links they wrote
    into the repository and `left` did not see it)."""
    page = tmp_path / "page.md"
    page.write_text(
        "```bash\ncd examples\necho leaked > docs_runner_leaked.txt\necho changed >> simple/start_mcp.py\n```\n\n"
        "```bash\ntouch docs_runner_second.txt\nrm -r ../notebooks\n```\n"
    )
    notebooks = sorted(path.relative_to(ROOT).as_posix() for path in (ROOT / "notebooks").rglob("*")
                       if path.is_file() and "__pycache__" not in path.parts)
    before = (ROOT / "examples" / "simple" / "start_mcp.py").read_bytes()
    ran = run_page(page)
    assert ran.ran == 2
    assert ran.left == sorted(["examples/docs_runner_leaked.txt", "examples/docs_runner_second.txt",
                               "examples/simple/start_mcp.py", *(f"{name} (removed)" for name in notebooks)])
    assert not list((ROOT / "examples").glob("docs_runner_*"))
    assert (ROOT / "examples" / "simple" / "start_mcp.py").read_bytes() == before
    assert (ROOT / "notebooks").is_dir()


def test_a_blocks_own_exit_trap_runs_and_its_cd_still_holds(tmp_path: Path) -> None:
    """A block that sets its own `trap ... EXIT` (the usual way to stop what it started) still moves the blocks
    after it (review r30 F2: its trap replaced the runner's, and the next block ran in the old folder)."""
    page = tmp_path / "page.md"
    page.write_text(
        "```bash\ncd \"$(mktemp -d)\"\ntrap 'echo ran > \"$PWD/trap.ran\"' EXIT\ntouch made_here.txt\n```\n\n"
        "```bash\ntest -f made_here.txt && test -f trap.ran\n```\n"
    )
    ran = run_page(page)
    assert ran.ran == 2
    assert ran.left == []
