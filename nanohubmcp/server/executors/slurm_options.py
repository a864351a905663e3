"""The options of ``job_executor="slurm"``: what each sets, and their values checked.

Owns ``OPTIONS`` (option name -> what it sets; :class:`~.job_files.FolderJobExecutor` refuses
any other name), :func:`slurm_minutes` (Slurm's time forms in whole minutes), :func:`slurm_memory` and
:func:`check_values` (each value's kind, the time normalised). Submitting, watching and
collecting jobs is :mod:`.slurm`'s, whose module docstring describes each option for users.
"""

from __future__ import annotations

import math
import re
from typing import Any

from ...errors import ConfigurationError
from ...protocol.message_values import shown_value
from .job_files import poll_seconds, positive_ints

__all__ = ["OPTIONS", "check_values", "slurm_memory", "slurm_minutes"]

OPTIONS: dict[str, str] = {
    "partition": "the partition (sbatch --partition)",
    "time": "the time limit (sbatch --time), e.g. 30, 2:00:00 or 1-12",
    "cpus_per_task": "CPUs for the job (sbatch --cpus-per-task)",
    "mem": "memory for the job (sbatch --mem): a whole number, K, M (the default), G or T after it, e.g. 4G",
    "gpus": "GPUs for the job (sbatch --gpus)",
    "account": "the account charged (sbatch --account)",
    "qos": "the quality of service (sbatch --qos)",
    "sbatch": "more sbatch options as a dict, e.g. {'constraint': 'haswell'}",
    "setup": "shell lines run in the job before the tool, e.g. ['module load python']",
    "job_dir": "the folder of the job folders (on a filesystem the compute nodes share)",
    "python": "the Python command on the compute nodes",
    "poll_interval": "seconds between squeue looks (default 1; from 1 to 300)",
}
MIN_POLL_SECONDS = 1.0
"""The shortest ``poll_interval``: every look is an ``squeue`` call the site's controller answers (a busy loop
of them is what sites ask users not to run), and Slurm itself acts on a job's time about every 30 s."""
_MEM = re.compile(r"^\d+(?:[KMGT]B?)?\Z", re.ASCII | re.IGNORECASE)  # sbatch --mem's forms
_TIME = re.compile(r"^(?:(\d+)-)?(\d+)(?::(\d+))?(?::(\d+))?\Z", re.ASCII)  # (ASCII digits: Slurm reads no others)


def slurm_minutes(value: object) -> int:
    """Slurm's time forms (``M``, ``M:S``, ``H:M:S``, ``D-H``, ``D-H:M``, ``D-H:M:S``) in whole
    minutes, rounded up.

    Raises:
        ConfigurationError: not one of those forms, or not positive.
    """
    if isinstance(value, float) and not math.isfinite(value):
        raise ConfigurationError(f"slurm time {value!r} is not a number of minutes")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        minutes = math.ceil(value)
    else:
        found = _TIME.match(str(value).strip())
        if not found:
            raise ConfigurationError(
                f"slurm time {shown_value(value)} is not a Slurm time: use minutes, M:S, H:M:S, D-H, D-H:M or D-H:M:S"
            )
        days, first, second, third = found.groups()
        parts = [int(p) for p in (first, second, third) if p is not None]
        if days is not None:  # D-H, D-H:M, D-H:M:S
            hours, mins, secs = [*parts, 0, 0][:3]
            seconds = ((int(days) * 24 + hours) * 60 + mins) * 60 + secs
        elif len(parts) == 1:
            seconds = parts[0] * 60
        elif len(parts) == 2:  # M:S
            seconds = parts[0] * 60 + parts[1]
        else:
            seconds = (parts[0] * 60 + parts[1]) * 60 + parts[2]
        minutes = math.ceil(seconds / 60)
    if minutes < 1:
        raise ConfigurationError(f"slurm time {shown_value(value)} must be at least one minute")
    return minutes


def slurm_memory(value: object) -> str:
    """``mem`` as sbatch's ``--mem`` reads it: a whole number (megabytes), or one with a ``K``, ``M``, ``G`` or ``T``
    suffix, a ``B`` after it or not, either case (``500M``, ``4G``, ``4GB``); an int becomes its text.

    Raises:
        ConfigurationError: any other value ("lots", "1.5G", "4GiB", -1), which sbatch would refuse at every call.
    """
    text = str(value).strip() if isinstance(value, (int, str)) and not isinstance(value, bool) else ""
    if not _MEM.match(text):
        raise ConfigurationError(
            f"slurm option mem must be memory as sbatch --mem takes it: a whole number of megabytes, or one with "
            f"K, M, G or T after it (500M, 4G or 4GB), not {shown_value(value)}"
        )
    return text


def check_values(checked: dict[str, Any]) -> dict[str, Any]:
    """Slurm options' values checked and normalised (time in whole minutes).

    Raises:
        ConfigurationError: a value of the wrong kind (the message says which).
    """
    if "time" in checked:
        checked["time"] = slurm_minutes(checked["time"])
    positive_ints(checked, ("cpus_per_task", "gpus"), "slurm option")
    if "mem" in checked:
        checked["mem"] = slurm_memory(checked["mem"])
    poll_seconds(checked, MIN_POLL_SECONDS, "slurm option", "squeue is asked")
    if "sbatch" in checked and not isinstance(checked["sbatch"], dict):
        raise ConfigurationError("slurm option sbatch must be a dict of sbatch option names to values")
    if "setup" in checked and (
        isinstance(checked["setup"], str) or not all(isinstance(line, str) for line in checked["setup"])
    ):
        raise ConfigurationError("slurm option setup must be a list of shell lines")
    return checked
