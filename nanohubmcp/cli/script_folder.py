"""The working directory of an exported notebook's ``start_mcp.py``: the notebook's folder, as in its kernel.

A notebook's kernel starts in the notebook's folder, so its cells read data by a relative path
(``open("data.txt")``). An exported script calls :func:`work_in_notebook_folder` before its cells'
code, so they find the same files however it is started: ``python start_mcp.py`` from another
directory, ``nanohubmcp run /path/start_mcp.py`` (what ``nanohubmcp desktop-config`` gives a desktop
client, which starts it from a directory of its own), ``start_mcp --app /path/start_mcp.py``. Those
commands import the script into the process that serves it, so the tools' calls run there too, as
they ran in the kernel. A path the caller gave before the change keeps meaning what it meant: this
function makes a relative ``$NANOHUBMCP_STATE_DIR`` absolute first, and returns the caller's
directory, against which the script reads a relative ``--token-file`` (the serving commands resolve
their own options before they import the script).
"""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import ConfigurationError

__all__ = ["work_in_notebook_folder"]


def work_in_notebook_folder(script: str | os.PathLike[str], notebook_folder: str = ".") -> str:
    """Change the process's working directory to the notebook's folder; return the one it had.

    Args:
        script: the exported script's own path (its ``__file__``); symbolic links are resolved.
        notebook_folder: the notebook's folder relative to the script's (``"."``: the script is beside
            the notebook, where the export writes it by default; ``".."`` for ``--output-dir out``).

    Returns:
        The working directory before the change (absolute): the caller's, for the paths on its command line.

    Raises:
        ConfigurationError: the notebook's folder does not exist (the script was moved without it); the
            message names the folder and says how to export the notebook again.

    Example:
        ```python
        from nanohubmcp.cli import work_in_notebook_folder

        caller_directory = work_in_notebook_folder(__file__)  # now open("data.txt") reads the notebook's
        ```
    """
    from ..server.wire.state_dir import ENV_STATE_DIR

    caller = os.getcwd()
    folder = (Path(script).resolve().parent / notebook_folder).resolve()
    if not folder.is_dir():
        name = Path(script).name
        raise ConfigurationError(f"{name} runs its cells in the notebook's folder {folder} ({notebook_folder} from "
                                 f"the script's), which does not exist: export the notebook again beside {name} "
                                 "(nanohubmcp export NOTEBOOK -o FILE)")
    state_dir = os.environ.get(ENV_STATE_DIR, "").strip()
    if state_dir:  # resolved when the server first stores a job: the caller's relative path, not the notebook's
        os.environ[ENV_STATE_DIR] = os.path.abspath(os.path.expanduser(state_dir))
    os.chdir(folder)
    return caller
