"""A byte limit below its least value is a usage error of ``nanohubmcp run`` and ``start_mcp --app``: the
subcommand's usage, one line naming the option and its real least value, exit status 2, before the app is
imported. ``--max-unsent-bytes-per-principal 0`` was that ("must be 1 or more") while ``100``, the same mistake
(the least is 1 MiB), exited 1 without usage in ``run()``'s words ("max_unsent_bytes_per_principal must be None
or an integer ..."), as did ``--max-buffered-bytes`` below ``--max-request-bytes`` (trial33 W4).

A per-principal share at or above its whole is taken: it is the whole (no per-principal bound), as the help says.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from nanohubmcp.cli import main as nanohubmcp
from nanohubmcp.nanohub.launcher import main as start_mcp
from nanohubmcp.transports.config import TransportConfig

MiB = 1024 * 1024
# The app would say so if imported: a refused limit must not get that far.
APP = 'raise SystemExit("imported")\n'

REFUSED = [
    (["--max-unsent-bytes-per-principal", "0"], "--max-unsent-bytes-per-principal must be at least 1 MiB (1048576), "
                                                "not 0"),
    (["--max-unsent-bytes-per-principal", "100"], "--max-unsent-bytes-per-principal must be at least 1 MiB "
                                                  "(1048576), not 100"),
    (["--max-unsent-bytes", "-5"], "--max-unsent-bytes must be at least 1 MiB (1048576), not -5"),
    (["--max-request-bytes", "1000"], "--max-request-bytes must be at least 1024, not 1000"),
    (["--max-buffered-bytes-per-principal", "1000"], "--max-buffered-bytes-per-principal must be at least "
     "--max-request-bytes (16777216), not 1000: a body of the largest size must fit in one principal's share"),
    (["--max-buffered-bytes", "1000"], "--max-buffered-bytes must be at least --max-request-bytes (16777216), not "
                                       "1000: a body of the largest size must fit"),
    (["--max-buffered-bytes-per-principal", "20000000", "--max-request-bytes", "30000000"],
     "--max-buffered-bytes-per-principal must be at least --max-request-bytes (30000000), not 20000000"),
]


@pytest.mark.parametrize(("options", "message"), REFUSED)
@pytest.mark.parametrize(("command", "prefix"), [
    (lambda app, options: nanohubmcp(["run", app, "--port", "0", *options]), "nanohubmcp run"),
    (lambda app, options: start_mcp(["--app", app, "--port", "0", *options]), "start_mcp"),
], ids=["nanohubmcp-run", "start_mcp"])
def test_the_usage_and_the_option_with_its_least_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: Callable[[str, list[str]], int], prefix: str,
    options: list[str], message: str,
) -> None:
    (tmp_path / "app.py").write_text(APP)
    with pytest.raises(SystemExit) as done:
        command(str(tmp_path / "app.py"), options)
    assert done.value.code == 2
    said = capsys.readouterr()
    assert said.out == ""
    assert said.err.startswith(f"usage: {prefix} "), said.err
    assert f"{prefix}: error: {message}" in said.err
    assert "None" not in said.err
    assert "imported" not in said.err


def test_run_names_its_arguments_with_the_same_rule() -> None:
    from nanohubmcp import ConfigurationError

    with pytest.raises(ConfigurationError) as refused:
        TransportConfig(max_unsent_bytes_per_principal=100)
    assert str(refused.value) == "max_unsent_bytes_per_principal must be at least 1 MiB (1048576), not 100"
    with pytest.raises(ConfigurationError) as refused:
        TransportConfig(max_unsent_bytes_per_principal="big")  # type: ignore[arg-type]
    assert str(refused.value) == ("max_unsent_bytes_per_principal must be a number of bytes >= 1 MiB (1048576), "
                                  "or None, not 'big'")


def test_a_share_above_its_whole_is_the_whole() -> None:
    assert TransportConfig(max_buffered_bytes_per_principal=10**12).buffered_share == 256 * MiB
    assert TransportConfig(max_unsent_bytes=MiB, max_unsent_bytes_per_principal=2 * MiB).unsent.share == MiB
