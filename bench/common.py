"""What every benchmark shares: result rows, the table they print, the machine.

>>> rows = [Row("Engine", "reference", "20,000 hands/s"), Row("Engine", "ratio", "150x", "≥ 100x", True)]
>>> print(markdown_table(rows))
| Area | Measure | Result | Goal | Met |
|---|---|---|---|---|
| Engine | reference | 20,000 hands/s |  |  |
| Engine | ratio | 150x | ≥ 100x | yes |
"""

from __future__ import annotations

import datetime
import os
import platform
import statistics
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["ROOT", "Row", "machine", "markdown_table", "median", "rate"]

#: The repository's root folder.
ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Row:
    """One line of the result table.

    :param area: ``Engine`` or ``HTTP``.
    :param measure: what was measured, with its conditions (sample size, workers...).
    :param result: the figure, formatted.
    :param goal: the issue's goal for it, or empty.
    :param met: whether the goal was met; ``None`` when there is no goal.
    """

    area: str
    measure: str
    result: str
    goal: str = ""
    met: bool | None = None


def markdown_table(rows: Sequence[Row]) -> str:
    """The rows as a Markdown table (it reads fine as plain text too)."""
    lines = ["| Area | Measure | Result | Goal | Met |", "|---|---|---|---|---|"]
    for r in rows:
        met = "" if r.met is None else ("yes" if r.met else "**NO**")
        lines.append(f"| {r.area} | {r.measure} | {r.result} | {r.goal} | {met} |")
    return "\n".join(lines)


def median(values: Sequence[float]) -> float:
    """The median (of several short runs: robust against a noisy neighbour).

    >>> median([3.0, 1.0, 100.0])
    3.0
    """
    return float(statistics.median(values))


def rate(count: float, seconds: float, unit: str = "") -> str:
    """A throughput, rounded to three significant figures with thousands separators.

    >>> rate(2_598_960, 0.35, "hands"), rate(45, 1.0, "requests")
    ('7,430,000 hands/s', '45.0 requests/s')
    """
    per_second = count / seconds
    digits = len(str(int(per_second)))
    text = f"{round(per_second, 3 - digits):,.0f}" if digits > 3 else f"{per_second:.{max(0, 3 - digits)}f}"
    return f"{text} {unit}/s" if unit else f"{text}/s"


def machine() -> dict[str, str]:
    """Where the figures were taken: CPUs, CPU model, Python, OS, date (UTC)."""
    model = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        cpus = subprocess.run(["nproc"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        cpus = str(os.cpu_count())
    return {
        "CPUs (nproc)": cpus,
        "CPU model": model,
        "Python": platform.python_version(),
        "OS": platform.platform(),
        "Date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }
