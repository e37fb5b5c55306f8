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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

__all__ = ["PAIRS", "ROOT", "Pairs", "Row", "alternate", "machine", "markdown_table", "median", "rate"]

#: How many alternating pairs (or rounds) a comparison takes: the median of their ratios
#: is the figure, and a neighbour's burst spoils one pair, not the comparison.
PAIRS = 9

T = TypeVar("T")

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


def alternate(measures: Sequence[Callable[[], T]], rounds: int = PAIRS, start: int = 0) -> list[list[T]]:
    """Run every measure once per round, ``rounds`` times; each round starts one measure
    further on (two measures: AB, BA, AB...), so that neither is always the one that runs
    first after a pause; the first round starts at measure ``start`` (modulo their count).
    Returns one list of results per measure, in round order.

    >>> seen = []
    >>> alternate([lambda: seen.append("a") or 1, lambda: seen.append("b") or 2], 3)
    [[1, 1, 1], [2, 2, 2]]
    >>> "".join(seen)
    'abbaab'
    >>> _ = alternate([lambda: seen.append("c"), lambda: seen.append("d")], 1, start=1)
    >>> seen[-2:]
    ['d', 'c']
    """
    results: list[list[T]] = [[] for _ in measures]
    for r in range(start, start + rounds):
        for k in range(len(measures)):
            i = (r + k) % len(measures)
            results[i].append(measures[i]())
    return results


@dataclass(frozen=True)
class Pairs:
    """A figure and its reference, taken in alternating runs of one comparison: the
    figure is the median of the per-round ratios (each from two runs next to each other).

    :param subject: the figure's value in each round (requests/s, hands/s or ms).
    :param reference: the reference's value in the same rounds.

    >>> p = Pairs((9.0, 8.0, 12.0), (10.0, 10.0, 10.0))
    >>> p.ratio, p.spread, p.subject_median, p.reference_median
    (0.9, (0.8, 1.2), 9.0, 10.0)
    >>> p.ratio_text()
    '0.90 (median of 3 pairs; 0.80-1.20)'
    """

    subject: tuple[float, ...]
    reference: tuple[float, ...]

    @property
    def ratios(self) -> list[float]:
        """Each round's subject over its reference."""
        return [s / r for s, r in zip(self.subject, self.reference, strict=True)]

    @property
    def ratio(self) -> float:
        """The median of the per-round ratios."""
        return median(self.ratios)

    @property
    def spread(self) -> tuple[float, float]:
        """The lowest and highest per-round ratio."""
        return min(self.ratios), max(self.ratios)

    @property
    def subject_median(self) -> float:
        """The subject's median value."""
        return median(self.subject)

    @property
    def reference_median(self) -> float:
        """The reference's median value."""
        return median(self.reference)

    def ratio_text(self) -> str:
        """The ratio with how it was taken and the range of the rounds' ratios."""
        low, high = self.spread
        return f"{self.ratio:.2f} (median of {len(self.subject)} pairs; {low:.2f}-{high:.2f})"


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
