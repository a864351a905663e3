"""The package checked like a release: the sdist and the wheel build, pass ``twine check``, hold what they
should (the panel, the server-extension config, the console scripts; no tests, no caches), and the wheel alone,
installed into a fresh virtual environment outside the checkout, runs ``nanohubmcp --help``, ``start_mcp
--help`` and the README's quick start, which the official client calls."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import venv
import zipfile
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from support import mcp_client

from nanohubmcp import __version__

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

ROOT = Path(__file__).resolve().parents[2]
PANEL = ROOT / "nanohubmcp" / "labextension" / "package.json"
DATA = f"nanohub_mcp-{__version__}.data/data/"
SITE = "https://docs.example.org/nanohub-mcp/"
SOURCE = "https://git.example.org/nanohub-mcp"


def outside_the_checkout() -> dict[str, str]:
    """This process's environment without ``PYTHONPATH``: a developer running the tests of a work tree with
    ``PYTHONPATH=<tree>`` would otherwise have the fresh environment import the tree, not the wheel."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def run(*command: str | Path, cwd: Path, timeout: float = 600, env: dict[str, str] | None = None) -> str:
    done = subprocess.run([str(part) for part in command], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL,
                          env=outside_the_checkout() if env is None else env)  # fmt: skip
    assert done.returncode == 0, f"{command} exited {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not PANEL.is_file():
        if os.environ.get("CI") == "true":
            pytest.fail("the JupyterLab panel is not built (scripts/build-labextension runs before the tests in CI)")
        pytest.skip("the JupyterLab panel is not built: run scripts/build-labextension")
    out = tmp_path_factory.mktemp("dist")
    env = {k: v for k, v in os.environ.items() if k != "NANOHUBMCP_SKIP_LABEXTENSION"}
    env["NANOHUBMCP_SITE_URL"] = SITE  # as a release for a package index is built
    env["NANOHUBMCP_SOURCE_URL"] = SOURCE
    run(sys.executable, "-m", "build", "--no-isolation", "--sdist", "--wheel", "--outdir", out, ROOT, cwd=out, env=env)
    run(sys.executable, "-m", "twine", "check", "--strict", *sorted(out.iterdir()), cwd=out)
    return out


def wheel_of(dist: Path) -> Path:
    (wheel,) = dist.glob("nanohub_mcp-*.whl")
    return wheel


def test_the_wheel_holds_the_package_the_panel_and_the_server_extension_config(dist: Path) -> None:
    names = zipfile.ZipFile(wheel_of(dist)).namelist()
    print(f"\n{len(names)} files in {wheel_of(dist).name}")
    assert "nanohubmcp/__init__.py" in names
    assert "nanohubmcp/py.typed" in names
    assert f"{DATA}share/jupyter/labextensions/nanohub-mcp/package.json" in names
    assert f"{DATA}share/jupyter/labextensions/nanohub-mcp/install.json" in names
    assert any(n.startswith(f"{DATA}share/jupyter/labextensions/nanohub-mcp/static/") for n in names)
    assert f"{DATA}etc/jupyter/jupyter_server_config.d/nanohubmcp.json" in names
    unwanted = [
        n
        for n in names
        if n.startswith(("tests/", "docs/", "bench/", "scripts/", "examples/"))
        or "__pycache__" in n
        or n.endswith((".pyc", ".pyo"))
        or "/.ruff_cache/" in n
        or "node_modules" in n
        or "/.mypy_cache/" in n
    ]
    assert not unwanted, unwanted
    assert not [n for n in names if n.startswith("nanohubmcp/labextension/")], "the panel is shipped twice"
    info = f"nanohub_mcp-{__version__}.dist-info/"
    entry_points = zipfile.ZipFile(wheel_of(dist)).read(f"{info}entry_points.txt").decode()
    assert "nanohubmcp = nanohubmcp.__main__:main" in entry_points
    assert "nanohub-mcp = nanohubmcp.__main__:main" in entry_points  # what server.json's package runs (uvx)
    assert "start_mcp = nanohubmcp.nanohub.launcher:main" in entry_points
    assert "mcp = nanohubmcp.jupyter.exporter:MCPExporter" in entry_points
    metadata = zipfile.ZipFile(wheel_of(dist)).read(f"{info}METADATA").decode()
    assert "Provides-Extra: docs" in metadata
    assert "Requires-Python: >=3.10" in metadata
    # MIT's terms: the notice ships with every copy (a trial found no license text anywhere).
    assert "License-Expression: MIT" in metadata
    assert f"{info}licenses/LICENSE" in names
    # Only the package's modules and its typing marker (a trial found an editor's child.py.orig shipped).
    strays = [n for n in names if n.startswith("nanohubmcp/") and not n.endswith((".py", "/py.typed"))]
    assert not strays, strays
    # What an index shows (a trial found no URLs and README links that were broken off the repository).
    for classifier in ("Programming Language :: Python :: 3.10", "Development Status :: ", "Typing :: Typed"):
        assert f"Classifier: {classifier}" in metadata, classifier
    assert f"Project-URL: Documentation, {SITE}" in metadata
    assert f"Project-URL: Changelog, {SITE}changelog/" in metadata
    assert f"Project-URL: Source, {SOURCE}" in metadata
    description = metadata.split("\n\n", 1)[1]
    assert "](docs/" not in description, "a README link into the repository reached the index"
    assert f"]({SITE}how-to/jobs/)" in description
    assert f"]({SITE}api/reference" in description  # the API reference page, made absolute
    # not the checkout's own commands (a wheel has no scripts/), nor the docs tests' markers (trial17 F3, F4)
    assert description.startswith("# nanohub-mcp\n\n**nanohubmcp** turns"), description[:200]
    assert "<!--" not in description


def test_the_sdist_holds_the_sources_and_no_caches(dist: Path) -> None:
    import tarfile

    (sdist,) = dist.glob("nanohub_mcp-*.tar.gz")
    with tarfile.open(sdist) as archive:
        names = archive.getnames()
    assert f"nanohub_mcp-{__version__}/pyproject.toml" in names
    assert f"nanohub_mcp-{__version__}/nanohubmcp/labextension/package.json" in names
    assert f"nanohub_mcp-{__version__}/LICENSE" in names
    assert f"nanohub_mcp-{__version__}/bench/results.md" in names, "the docs' benchmark page includes it"
    assert not [n for n in names if n.startswith(f"nanohub_mcp-{__version__}/.ci/")], "CI's runner is not a source"
    unwanted = [
        n
        for n in names
        if "__pycache__" in n
        or "/.venv" in n
        or "node_modules" in n
        or n.endswith(".pyc")
        or "/.ruff_cache" in n
        or "/.mypy_cache" in n
        or "/.pytest_cache" in n
    ]
    assert not unwanted, unwanted[:20]


def test_without_a_site_url_a_readme_link_is_its_text_and_path_never_a_broken_link() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("hatch_build", ROOT / "hatch_build.py")
    assert spec
    assert spec.loader
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    readme = ("# T\n\n```bash\nscripts/demo\n```\n\n---\n\n<!-- not-run: x -->\n"
              "See [jobs](docs/how-to/jobs.md#a), [home](docs/index.md), [demo](scripts/demo), [x](https://x.org), "
              "[top](#t).")
    assert hooks.index_description(readme, None) == "# T\n\n" + (
        "See jobs (`docs/how-to/jobs.md` in the source distribution), home (`docs/index.md` in the source "
        "distribution), demo (`scripts/demo` in the source distribution), [x](https://x.org), [top](#t).")
    assert hooks.index_description(readme, "https://d.org/p") == "# T\n\n" + (
        "See [jobs](https://d.org/p/how-to/jobs/#a), [home](https://d.org/p/), demo (`scripts/demo` in the source "
        "distribution), [x](https://x.org), [top](#t).")


@pytest.fixture(scope="module")
def installed(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment outside the checkout with the wheel alone (and its dependencies).

    pip installs them from the test's own interpreter into that environment (``--python``): the environment
    needs no pip of its own (ensurepip took 6 s), and nothing is byte-compiled at install (``--no-compile``:
    what the commands below import is compiled as it is imported), about 12 s in all where it took 28 s."""
    home = tmp_path_factory.mktemp("fresh")
    venv.create(home / "env", with_pip=False)
    run(sys.executable, "-m", "pip", "--python", home / "env" / "bin" / "python", "install", "--quiet", "--no-compile",
        wheel_of(dist), cwd=home)
    return home


def test_the_console_scripts_run_from_the_fresh_environment(installed: Path) -> None:
    bin_dir = installed / "env" / "bin"
    assert "server-json" in run(bin_dir / "nanohubmcp", "--help", cwd=installed)
    assert "--app" in run(bin_dir / "start_mcp", "--help", cwd=installed)
    where = run(bin_dir / "python", "-c", "import nanohubmcp; print(nanohubmcp.__file__)", cwd=installed)
    assert where.strip().startswith(str(installed / "env")), where
    assert not where.strip().startswith(str(ROOT))
    panel = installed / "env" / "share" / "jupyter" / "labextensions" / "nanohub-mcp" / "package.json"
    assert panel.is_file()
    assert (installed / "env" / "etc" / "jupyter" / "jupyter_server_config.d" / "nanohubmcp.json").is_file()


def test_the_server_json_package_entry_runs_as_a_registry_client_runs_it(installed: Path) -> None:
    """``uvx IDENTIFIER==VERSION ARGUMENTS`` runs the command named like the package (trial34 X1: the
    package had none, only ``nanohubmcp``): the command, with the entry's arguments, serves over stdio."""
    (installed / "app.py").write_text('from nanohubmcp import MCPServer\nserver = MCPServer("reg")\n\n\n'
                                      '@server.tool()\ndef one() -> int:\n    """One."""\n    return 1\n')
    document = json.loads(run(installed / "env" / "bin" / "nanohubmcp", "server-json", "app.py", "--name",
                              "io.github.example/reg", "-o", "-", cwd=installed))
    package = document["packages"][0]
    assert (package["registryType"], package["runtimeHint"]) == ("pypi", "uvx")
    arguments = [part for argument in package["packageArguments"]
                 for part in ([argument["name"]] if argument["type"] == "named" else []) + [argument["value"]]]
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "registry", "version": "1"}}}
    done = subprocess.run([installed / "env" / "bin" / package["identifier"], *arguments], cwd=installed,
                          input=json.dumps(initialize) + "\n", capture_output=True, text=True, timeout=60,
                          env=outside_the_checkout())
    answer = json.loads(done.stdout.splitlines()[0])
    assert answer["result"]["serverInfo"]["name"] == "reg", (done.stdout, done.stderr)


@pytest.fixture
def quick_start(installed: Path) -> Iterator[str]:
    """The README's quick start, served by the fresh environment's nanohubmcp; its MCP URL."""
    readme = (ROOT / "README.md").read_text()
    app = re.search(r"<!-- file: start_mcp.py -->\n```python\n(.*?)```", readme, re.S)
    assert app, "the README has a start_mcp.py block"
    (installed / "start_mcp.py").write_text(app.group(1))
    process = subprocess.Popen(
        [installed / "env" / "bin" / "nanohubmcp", "run", "start_mcp.py", "--port", "0"], cwd=installed,
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**outside_the_checkout(), "PYTHONUNBUFFERED": "1"})  # fmt: skip
    try:
        assert process.stdout is not None
        banner = ""
        for line in process.stdout:
            banner += line
            if "listening on 127.0.0.1:" in line:
                break
        port = banner.rsplit("127.0.0.1:", 1)[-1].split()[0]
        assert port.isdigit(), banner
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.mark.anyio
async def test_the_quick_start_serves_the_official_client_from_the_fresh_environment(quick_start: str) -> None:
    with anyio.fail_after(30):
        async with mcp_client(quick_start) as client:
            result = await client.call_tool("add", {"a": 2, "b": 3})
            assert result.content[0].text == "5.0"
