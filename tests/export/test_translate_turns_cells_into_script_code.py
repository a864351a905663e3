"""translate(): component cells become decorated functions with the magic's options, code stays in
order, %config becomes server arguments, IPython-only lines become comments, the header says where
the script came from.

Most tests pass ``format_code=False`` so they read the code exactly as the cells wrote it; the
registrations are checked by importing the script text (not as ``__main__``) and reading its
``server``.
"""

from __future__ import annotations

import datetime
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest
from export_roundtrip import script_server

from nanohubmcp import __version__
from nanohubmcp.jupyter.translate import SKIP_TAG, Script, looks_exported, translate


def notebook(*cells: Any) -> Any:
    """Code cells from strings; ``("markdown", text)``; ``(source, [tags])``; ``(source, [], count)``."""
    made = nbformat.v4.new_notebook()
    for cell in cells:
        if isinstance(cell, tuple) and cell[0] == "markdown":
            made.cells.append(nbformat.v4.new_markdown_cell(cell[1]))
        elif isinstance(cell, tuple):
            code = nbformat.v4.new_code_cell(cell[0], metadata={"tags": cell[1]})
            code.execution_count = cell[2] if len(cell) > 2 else None
            made.cells.append(code)
        else:
            made.cells.append(nbformat.v4.new_code_cell(cell))
    return made


def plain(*cells: Any, **options: Any) -> Script:
    return translate(notebook(*cells), source="work/demo.ipynb", format_code=False, **options)


def load(script: Script) -> Any:
    """Run the script as an imported module (its __main__ block stays quiet); its ``server``."""
    return script_server(script.text)


def test_tool_cells_get_server_tool_with_the_magic_options() -> None:
    script = plain(
        "%%mcp_tool --name plus --description 'Adds two numbers' --title Plus --tags math,basic "
        "--destructive --idempotent --open-world\n"
        "def add(a: int, b: int) -> int:\n    return a + b\n"
    )
    assert (
        '@server.tool(name="plus", description="Adds two numbers", title="Plus", '
        'tags={"basic", "math"}, annotations={"destructiveHint": True, '
        '"idempotentHint": True, "openWorldHint": True})\ndef add(' in script.text
    )
    tool = load(script).core.registry.tools.get("plus")
    assert tool.description == "Adds two numbers"
    assert tool.title == "Plus"
    assert tool.tags == frozenset({"math", "basic"})
    assert tool.annotations == {
        "destructiveHint": True,
        "idempotentHint": True,
        "openWorldHint": True,
    }
    assert script.tools == ("plus",)


def test_async_flag_makes_a_job_tool_and_main_is_noted_as_notebook_only() -> None:
    script = plain(
        "%%mcp_tool --async\ndef slow(n: int) -> int:\n    return n\n",
        "%%mcp_tool --main\ndef plot(n: int) -> int:\n    return n\n",
    )
    assert "@server.async_tool()\ndef slow(" in script.text
    assert "@server.tool()  # --main (the kernel's thread) applies in notebooks only\ndef plot(" in script.text
    tools = load(script).core.registry.tools
    assert tools.get("slow").background
    assert "get_job_result" in tools
    assert not tools.get("plot").background


def test_an_async_cells_executor_is_kept_in_the_script() -> None:
    script = plain("%%mcp_tool --async --executor processes\ndef crunch(n: int) -> int:\n    return n\n")
    assert '@server.async_tool(executor="processes")\ndef crunch(' in script.text
    tool = load(script).core.registry.tools.get("crunch")
    assert tool.background
    assert tool.extra["job_executor"] == "processes"


def test_resource_and_prompt_cells_keep_uri_mime_type_and_names() -> None:
    script = plain(
        "%%mcp_resource data://items/{item_id} --mime-type application/json --name item --title Item\n"
        "def read_item(item_id: str) -> dict:\n    return {'id': item_id}\n",
        "%%mcp_resource config://settings\ndef settings():\n    return 'x'\n",
        "%%mcp_prompt --name review --description 'Review code'\ndef ask(code: str) -> str:\n    return code\n",
    )
    assert '@server.resource("data://items/{item_id}", mime_type="application/json", name="item", title="Item")' in (
        script.text
    )
    assert '@server.prompt(name="review", description="Review code")\ndef ask(' in script.text
    registry = load(script).core.registry
    template = registry.templates.get("data://items/{item_id}")
    assert (template.name, template.mime_type, template.title) == ("item", "application/json", "Item")
    assert registry.resources.get("config://settings").name == "settings"
    assert registry.prompts.get("review").description == "Review code"
    assert script.resources == ("data://items/{item_id}", "config://settings")
    assert script.prompts == ("review",)


def test_the_decorator_goes_above_the_chosen_functions_own_decorators() -> None:
    script = plain(
        "import functools\n\n"
        "def _helper(x):\n    return x\n\n"
        "@functools.lru_cache\n"
        "def square(x: int) -> int:\n    return _helper(x) ** 2\n",
    )
    assert "@functools" in script.text  # an ordinary cell: nothing registered
    script = plain(
        "%%mcp_tool\nimport functools\n\ndef _helper(x):\n    return x\n\n"
        "@functools.lru_cache\ndef square(x: int) -> int:\n    return _helper(x) ** 2\n",
        "%%mcp_tool --name cube\ndef cube(x: int) -> int:\n    return x ** 3\n\ndef other(x: int) -> int:\n"
        "    return x\n",
    )
    assert "@server.tool()\n@functools.lru_cache\ndef square(" in script.text
    assert '@server.tool(name="cube")\ndef cube(' in script.text
    assert "def _helper(x):\n    return x\n\n@server.tool()" in script.text
    assert sorted(t.name for t in load(script).core.registry.tools.values()) == ["cube", "square"]


def test_ordinary_code_stays_in_order_and_skipped_markdown_and_raw_cells_are_left_out() -> None:
    raw = nbformat.v4.new_raw_cell("raw text")
    made = notebook(
        ("markdown", "# Demo\n\nWhat it does."),
        "import math\nSCALE = 2",
        ("print('only in the notebook')", [SKIP_TAG]),
        "%%mcp_tool\ndef scaled(x: float) -> float:\n    return math.sqrt(x) * SCALE",
        ("markdown", "## Later section"),
        "SCALE = 3  # changed after the tool, as in the notebook",
    )
    made.cells.append(raw)
    text = translate(made, source="demo.ipynb", format_code=False).text
    assert text.index("import math") < text.index("def scaled") < text.index("SCALE = 3")
    assert "only in the notebook" not in text
    assert "Later section" not in text
    assert "raw text" not in text
    assert text.startswith('"""Demo\n\nWhat it does.\n')
    server = load(Script(text, "", (), (), (), (), None))
    assert server.core.registry.tools.get("scaled").fn(16) == 12.0


def test_header_names_the_notebook_date_and_version_and_there_are_no_execution_counts() -> None:
    script = plain(
        ("x = 1", [], 7),
        ("%%mcp_tool\ndef f() -> int:\n    return x", [], 8),
        exported_on=datetime.date(2025, 3, 4),
        output="work/server.py",
    )
    header = script.text.split('"""')[1]
    assert "work/demo.ipynb" in header
    assert f"Exported: 2025-03-04 by nanohubmcp {__version__}." in header
    assert "python server.py" in header
    assert "start_mcp --app server.py" in header
    assert "In [" not in script.text
    assert "[7]" not in script.text
    assert "[8]" not in script.text
    assert looks_exported(script.text)
    assert not looks_exported('"""My own server."""\nserver = None\n')


def test_config_settings_become_constructor_run_and_port_arguments() -> None:
    script = plain(
        "%load_ext nanohubmcp\n"
        "%config NanohubMCP.port = 9123\n"
        "%config NanohubMCP.name = 'first'\n"
        "%config NanohubMCP.name = 'analysis'\n"
        "%config NanohubMCP.version = '2.1.0'\n"
        "%config NanohubMCP.instructions = 'Call mean first.'\n"
        "%config NanohubMCP.tool_timeout = 30.0\n"
        "%config NanohubMCP.host = '127.0.0.1'\n"
        "%config NanohubMCP.path_prefix = '/tools/x'\n"
        "%config NanohubMCP.allowed_origins = ['https://example.org']\n"
        "%config NanohubMCP.public_url = 'https://example.org/x/'\n"
        "%config NanohubMCP.mode = 'kernel'\n"
        "%config NanohubMCP\n"
        "%config InlineBackend.figure_format = 'svg'\n",
    )
    text = script.text
    assert 'server = MCPServer("analysis", version="2.1.0", instructions="Call mean first.", tool_timeout=30.0)' in text
    assert 'parser.add_argument("--host", default="127.0.0.1"' in text
    assert "add_port_option(parser, default=9123," in text
    assert (
        'server.run(**_command_line_options(), path_prefix="/tools/x", '
        'allowed_origins=["https://example.org"], public_url="https://example.org/x/")' in text
    )
    assert "# %config NanohubMCP.mode = 'kernel': a notebook-only setting, dropped" in text
    assert "# %load_ext nanohubmcp: not needed, the script imports nanohubmcp" in text
    assert "# %config NanohubMCP: dropped (it only displays the settings)" in text
    assert "# dropped (IPython only): %config InlineBackend.figure_format = 'svg'" in text
    assert script.server_name == "analysis"
    server = load(script)
    assert (server.name, server.version) == ("analysis", "2.1.0")


def test_state_and_job_settings_reach_the_constructor_and_env_settings_say_which_variable(tmp_path: Path) -> None:
    state = str(tmp_path / "qsstate")
    script = plain(
        f"%config NanohubMCP.state_dir = {state!r}\n"
        "%config NanohubMCP.job_executor = 'processes'\n"
        "%config NanohubMCP.executor_options = {'slurm': {'partition': 'debug'}}\n"
        "%config NanohubMCP.dask_address = 'tcp://127.0.0.1:8786'\n"
        "%config NanohubMCP.state_url = 'redis://127.0.0.1:6379/0'\n"
        "%config NanohubMCP.tracing = False\n"
        "%config NanohubMCP.token = 'change-me'\n"
        "%config NanohubMCP.switch_interval = 0.005\n"
    )
    text = script.text
    assert (
        f'server = MCPServer("demo", state_dir="{state}", job_executor="processes", '
        'executor_options={"slurm": {"partition": "debug"}}, dask_address="tcp://127.0.0.1:8786")'
    ) in text
    assert "# %config NanohubMCP.job_executor = 'processes': applied in MCPServer(...) at the top of the file" in text
    assert (
        "# %config NanohubMCP.state_url = 'redis://127.0.0.1:6379/0': not written into the script, whose "
        "environment decides: run it with NANOHUBMCP_STATE_URL set"
    ) in text
    assert "# %config NanohubMCP.tracing = False: not written into the script, whose environment decides: " \
        "run it with NANOHUBMCP_TRACING set" in text
    assert "# %config NanohubMCP.token = ...: not written into the script (a secret): run it with MCP_TOKEN set" in text
    assert "change-me" not in text  # nor in the comment (trial11 F12)
    assert "redis://" not in text.split("server = MCPServer")[1].split("\n")[0]
    assert "# %config NanohubMCP.switch_interval = 0.005: a notebook-only setting, dropped" in text
    server = load(script)
    assert server.core.first_use.state_directory() == state


def test_provenance_false_reaches_the_constructor_and_true_writes_nothing() -> None:
    # trial15 F1: provenance.md's %config line made the export fail ("NanohubMCP has no setting").
    off = plain("%config NanohubMCP.provenance = False")
    assert 'server = MCPServer("demo", provenance=False)' in off.text
    assert "# %config NanohubMCP.provenance = False: applied in MCPServer(...) at the top of the file" in off.text
    assert load(off).name == "demo"
    on = plain("%config NanohubMCP.provenance = False\n%config NanohubMCP.provenance = True")
    assert 'server = MCPServer("demo")' in on.text
    assert "# %config NanohubMCP.provenance = True: on, the default: nothing written (NANOHUBMCP_PROVENANCE=0 " \
        "turns it off)" in on.text


def test_without_config_the_name_is_the_notebooks_and_the_port_the_default() -> None:
    script = translate(notebook("x = 1"), source="/data/My Analysis.ipynb", format_code=False)
    assert script.server_name == "My-Analysis"
    assert 'server = MCPServer("My-Analysis")' in script.text
    assert "add_port_option(parser, default=8000," in script.text
    assert 'default="127.0.0.1"' in script.text  # as the notebook's server: this machine only
    assert "server.run(**_command_line_options())" in script.text


def test_magics_shell_escapes_and_display_only_statements_become_comments() -> None:
    script = plain(
        "%matplotlib inline\n!pip install numpy\nimport math\nmath\n",
        "for i in range(2):\n    %matplotlib inline\n",
        "values = [1, 2]\nvalues\ndisplay(values)\nprint(values)\n'a note'\n",
        "%%html\n<b>slow</b>\n",
        "%mcp status",
    )
    text = script.text
    assert "# dropped (IPython only): %matplotlib inline" in text
    assert "# dropped (IPython only): !pip install numpy" in text
    assert "# dropped (display only): math\n" in text
    assert "for i in range(2):\n    pass  # dropped (IPython only): %matplotlib inline" in text
    assert "# dropped (display only): values\n# dropped (display only): display(values)\nprint(values)" in text
    assert "'a note'" in text
    assert "# dropped a cell (IPython only): %%html" in text
    assert "slow" not in text
    assert "# dropped (IPython only): %mcp status" in text
    assert script.dropped == (
        "cell 1: %matplotlib inline",
        "cell 1: !pip install numpy",
        "cell 1: math (display only)",
        "cell 2: %matplotlib inline",
        "cell 3: values (display only)",
        "cell 3: display(values) (display only)",
        "cell 4: %%html",
        "cell 5: %mcp status",
    )
    load(script)  # still runs


def test_magics_inside_a_tool_cell_are_dropped_too() -> None:
    script = plain("%%mcp_tool\n%matplotlib inline\ndef f() -> int:\n    return 1\n")
    assert "# dropped (IPython only): %matplotlib inline\n@server.tool()\ndef f(" in script.text


def test_future_imports_move_to_the_top() -> None:
    script = plain("x = 1", "from __future__ import annotations\ndef f(a: 'int') -> int:\n    return a")
    lines = script.text.splitlines()
    assert lines.index("from __future__ import annotations") < lines.index("from nanohubmcp import MCPServer")
    assert "# moved to the top of the file: from __future__ import annotations" in script.text
    load(script)


def test_formatting_uses_an_installed_formatter_or_keeps_the_code() -> None:
    cells = ("x=1", "%%mcp_tool\ndef f(a:int)->int:\n    return a+x")
    kept = plain(*cells)
    assert "x=1" in kept.text
    assert "def f(a:int)->int:" in kept.text
    assert kept.formatter is None
    formatted = translate(notebook(*cells), source="demo.ipynb")
    if formatted.formatter is None:
        pytest.skip("no ruff or black installed here: the code is kept as written")
    assert "x = 1" in formatted.text
    assert "def f(a: int) -> int:" in formatted.text


def test_blank_lines_are_normalised() -> None:
    text = plain("\n\nx = 1   \n\n\n\n\n\ny = 2\n\n\n").text
    assert "x = 1\n\n\ny = 2\n" in text
    assert "\n\n\n\n" not in text
    assert " \n" not in text


@pytest.mark.slow
def test_the_script_takes_port_from_argument_then_environment_then_notebook(tmp_path: Path) -> None:
    script = plain("%config NanohubMCP.port = 9123")
    path = tmp_path / "start_mcp.py"
    path.write_text(script.text)

    def options(*args: str, **env: str) -> str:
        environment = {"PATH": "/usr/bin:/bin", "MCP_TOKEN": "t0ken", **env}
        if "PYTHONPATH" in os.environ:  # the nanohubmcp under test, which the script imports
            environment["PYTHONPATH"] = os.environ["PYTHONPATH"]
        code = (
            f"import runpy, sys; sys.argv = ['x', *{list(args)!r}]; "
            f"ns = runpy.run_path({str(path)!r}, run_name='exported'); print(ns['_command_line_options']())"
        )
        done = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            timeout=60,
            env=environment,
            check=True,
        )
        return done.stdout.strip().splitlines()[-1]

    assert options() == "{'host': '127.0.0.1', 'port': 9123, 'transport': 'http', 'token': 't0ken'}"
    assert options(MCP_PORT="8100") == "{'host': '127.0.0.1', 'port': 8100, 'transport': 'http', 'token': 't0ken'}"
    assert (options("--port", "7000", "--host", "0.0.0.0", MCP_PORT="8100")
            == "{'host': '0.0.0.0', 'port': 7000, 'transport': 'http', 'token': 't0ken'}")


@pytest.mark.slow
def test_a_notebook_served_on_all_interfaces_exports_a_script_that_binds_127_0_0_1(tmp_path: Path) -> None:
    """trial11 F12: a notebook on 0.0.0.0 is protected by its token; the token is not exported (a
    secret), so the script must not keep the exposure either: with no MCP_TOKEN, ``python
    start_mcp.py`` served every tool to the network. The script binds 127.0.0.1 and says how to serve
    other machines; ``--host 0.0.0.0`` still works when asked for."""
    script = plain("%config NanohubMCP.token = 'abc-secret'\n%config NanohubMCP.host = '0.0.0.0'\n"
                   "%config NanohubMCP.port = 18930")
    text = script.text
    assert "abc-secret" not in text
    assert ("# %config NanohubMCP.host = '0.0.0.0': not the default of --host, which stays 127.0.0.1 (the "
            "notebook's token is not carried over): to serve other machines, run the script with --host "
            "0.0.0.0 and MCP_TOKEN set") in text
    assert 'default="127.0.0.1"' in text
    assert 'default="0.0.0.0"' not in text
    assert "[--host 127.0.0.1]" in text
    path = tmp_path / "start_mcp.py"
    path.write_text(text)

    def run(*args: str) -> str:
        code = (f"import runpy, sys; sys.argv = ['x', *{list(args)!r}]; "
                f"ns = runpy.run_path({str(path)!r}, run_name='exported'); print(ns['_command_line_options']())")
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                              env={"PATH": "/usr/bin:/bin", "MCP_TOKEN": "t0ken"}, check=True).stdout.strip()

    assert run().splitlines()[-1] == "{'host': '127.0.0.1', 'port': 18930, 'transport': 'http', 'token': 't0ken'}"
    assert (run("--host", "0.0.0.0").splitlines()[-1]
            == "{'host': '0.0.0.0', 'port': 18930, 'transport': 'http', 'token': 't0ken'}")
    assert "the notebook served on 0.0.0.0: pass --host 0.0.0.0 with MCP_TOKEN set" in " ".join(run("--help").split())
    # A loopback host of the notebook stays the default, as before.
    assert 'default="127.0.0.2"' in plain("%config NanohubMCP.host = '127.0.0.2'").text


def test_a_statement_that_calls_something_is_kept_as_the_readme_says() -> None:
    """The README: `df`, `x.shape`, `display(fig)` are dropped; `df.head()`, a seed, `plt.show()` are kept
    (a call may matter to what follows). A fresh-user trial found the README said display cells were dropped."""
    readme = (Path(__file__).resolve().parents[2] / "docs" / "how-to" / "export.md").read_text()  # once the README
    assert "A\nstatement that calls something (`df.head()`, `np.random.seed(0)`, `plt.show()`) is kept" in readme
    script = plain("import random\nvalues = [3, 1]\nvalues\nvalues.__len__\ndisplay(values)\n"
                   "sorted(values)\nrandom.seed(0)\n")
    text = script.text
    assert "# dropped (display only): values\n" in text
    assert "# dropped (display only): values.__len__\n" in text
    assert "# dropped (display only): display(values)\n" in text
    assert "\nsorted(values)\nrandom.seed(0)\n" in text


def test_a_tool_defined_again_in_a_later_cell_is_registered_once_by_its_last_definition() -> None:
    # A trial finding: both definitions were registered (a RegistrationWarning at every start of the
    # script) and the export counted "2 tools" for the one the notebook serves.
    import warnings

    script = plain(
        "%%mcp_tool\ndef add(a: int, b: int) -> int:\n    '''Add.'''\n    return a + b\n",
        "%%mcp_tool\ndef add(a: int, b: int) -> int:\n    '''Add, corrected.'''\n    return a + b + 0\n",
    )
    assert script.tools == ("add",)
    assert script.text.count("@server.tool()") == 1
    assert "# (tool 'add' is registered again in cell 2)" in script.text
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        server = load(script)
    assert server.core.registry.tools.get("add").description == "Add, corrected."


def test_a_state_urls_password_is_not_copied_into_the_script() -> None:
    # A fresh-user trial: the comment that says the setting is "not written into the script" held the
    # Redis password verbatim, while the token on the next line was withheld.
    script = plain(
        "%config NanohubMCP.state_url = 'redis://:redispass-QQQQ@127.0.0.1:6431/0'\n"
        "%config NanohubMCP.token = 'nbtoken-SECRET-ZZZZ'\n"
    )
    text = script.text
    assert "redispass" not in text
    assert "nbtoken-SECRET" not in text
    assert (
        "# %config NanohubMCP.state_url = 'redis://:***@127.0.0.1:6431/0': not written into the script, whose "
        "environment decides: run it with NANOHUBMCP_STATE_URL set"
    ) in text
