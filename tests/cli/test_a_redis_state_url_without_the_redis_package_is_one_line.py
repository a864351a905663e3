"""A Redis state URL on an install without the ``redis`` extra is one line naming the extra.

Found by a fresh-user trial (trial34 X2): from a wheel installed without extras, ``nanohubmcp run
app.py --state-url redis://…`` (or ``MCPServer(state_url=…).start()``) died with a 31-line
traceback ending in ``ModuleNotFoundError: No module named 'redis'``: a module of the Redis store
imported ``redis`` at its top, before the store could check for the package and name the extra.
``--workers 2`` and the other extras (tracing, Slurm, Dask) already said it in one line.

The test's process hides the installed ``redis`` package (an import hook refusing it), as an
install without the extra lacks it.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

HIDE_REDIS = textwrap.dedent("""
    import sys
    class NoRedis:
        def find_spec(self, name, path=None, target=None):
            if name == "redis" or name.startswith("redis."):
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
    sys.meta_path.insert(0, NoRedis())
""")

APP = textwrap.dedent('''
    from nanohubmcp import MCPServer
    server = MCPServer("no-redis")

    @server.tool()
    def one() -> int:
        """One."""
        return 1
''')


def run(code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", HIDE_REDIS + code], capture_output=True, text=True, timeout=60,
                          cwd=tmp_path)


def test_nanohubmcp_run_names_the_extra_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(APP)
    done = run("from nanohubmcp.cli import main; sys.exit(main(['run', 'app.py', '--port', '0', "
               "'--state-url', 'redis://:secret@127.0.0.1:1/0']))", tmp_path)
    assert done.returncode != 0
    lines = [line for line in done.stderr.strip().splitlines() if not line.startswith("warning: --state-url")]
    assert "Traceback" not in done.stderr, done.stderr
    assert lines == ["nanohubmcp run: error: state_url redis://:***@127.0.0.1:1/0 needs the redis package: "
                     "pip install 'nanohub-mcp[redis]'"], done.stderr
    assert "secret" not in done.stderr


def test_start_raises_the_configuration_error(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(APP)
    done = run("from nanohubmcp.errors import ConfigurationError\n"
               "from nanohubmcp import MCPServer\n"
               "s = MCPServer('no-redis', state_url='redis://127.0.0.1:1/0')\n"
               "try:\n    s.start(port=0)\nexcept ConfigurationError as exc:\n    print('refused:', exc)\n", tmp_path)
    assert done.returncode == 0, done.stderr
    assert "refused: state_url redis://127.0.0.1:1/0 needs the redis package" in done.stdout, done.stdout
