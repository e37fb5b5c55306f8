"""Cost curves: time per request against the work in it, through one gunicorn worker.

For each kind of request the benchmark sends sizes from small to the largest the API
accepts, one request at a time on one keep-alive connection to a server started with the
repository's gunicorn.conf.py and ``GNAU_WORKERS=1``, and takes the median of several
requests per size:

* ``POST /v1/evaluations/batch``: 1 to 10,000 hands;
* ``POST /v1/rankings``: 2 to 1,000 hands;
* ``POST /v1/settlements``: 1 to 82 players (8 decks, the most a table seats);
* ``POST /v1/odds``: 5 known cards, and 4 and 3 where the service takes them.

It draws ``docs/cost-curves.png`` (matplotlib, log-log) and returns, per kind, the slope
of log(time) against log(size) over the upper half of the sizes: about 1 means the time
grows linearly with the work, about 0 that a fixed per-request cost dominates.

Run alone with ``python -m bench.curves``.
"""

from __future__ import annotations

import http.client
import json
import math
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bench.common import ROOT, Row
from bench.http import SINGLE_BODY, gunicorn

__all__ = ["KINDS", "PLOT", "Curve", "bodies", "measure", "plot", "rows"]

#: Where the plot goes.
PLOT = ROOT / "docs" / "cost-curves.png"
_DECK = [r + s for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K") for s in "SHDC"]


@dataclass(frozen=True)
class Curve:
    """One kind of request: sizes, the median milliseconds per request at each, and the
    log-log slope over the upper half of the sizes."""

    name: str
    unit: str
    sizes: list[int]
    ms: list[float]

    @property
    def slope(self) -> float:
        """d log(ms) / d log(size) between the middle size and the largest (1: linear)."""
        pairs = [(s, m) for s, m in zip(self.sizes, self.ms, strict=True) if s > 0 and m > 0]
        if len(pairs) < 2:
            return 0.0
        (s0, m0), (s1, m1) = pairs[len(pairs) // 2], pairs[-1]
        if s1 == s0:
            return 0.0
        return math.log(m1 / m0) / math.log(s1 / s0)


def bodies(seed: int = 9) -> dict[str, Callable[[int], bytes]]:
    """Request bodies by kind: a function from the size to the body (random, seeded)."""
    rng = random.Random(seed)

    def batch(n: int) -> bytes:
        return json.dumps({"hands": [rng.sample(_DECK, 5) for _ in range(n)]}).encode()

    def ranking(n: int) -> bytes:
        return json.dumps({"hands": [{"hand": rng.sample(_DECK, 5)} for _ in range(n)]}).encode()

    def settlement(n: int) -> bytes:
        cards = _DECK * 8
        rng.shuffle(cards)
        hands = [cards[5 * i:5 * i + 5] for i in range(n + 1)]
        return json.dumps({"decks": 8, "dealer": {"hand": hands[0]},
                           "players": [{"hand": h, "stake": 100} for h in hands[1:]]}).encode()

    def odds(known: int) -> bytes:
        return json.dumps({"hand": ["AS", "KH", "10D", "4C", "7S"][:known]}).encode()

    return {"batch": batch, "ranking": ranking, "settlement": settlement, "odds": odds}


#: Each curve: name, path, unit of work, sizes.
KINDS = [
    ("batch", "/v1/evaluations/batch", "hands", [1, 10, 100, 1000, 3000, 10000]),
    ("ranking", "/v1/rankings", "hands", [2, 10, 100, 300, 1000]),
    ("settlement", "/v1/settlements", "players", [1, 5, 10, 20, 40, 82]),
    ("odds", "/v1/odds", "known cards", [3, 4, 5]),
]


def _time(conn: http.client.HTTPConnection, path: str, body: bytes, repeat: int) -> float | None:
    """Median milliseconds of ``repeat`` requests; ``None`` when the request is refused."""
    times = []
    for _ in range(repeat + 1):
        started = time.perf_counter()
        conn.request("POST", path, body=body, headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        response.read()
        if response.status != 200:
            return None
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times[1:])  # the first warms caches


def measure(workdir: Path, repeat: int = 7) -> list[Curve]:
    """Measure every curve through one worker."""
    makers = bodies()
    curves = []
    with gunicorn("curves", ("/v1/evaluations", SINGLE_BODY), workdir, GNAU_WORKERS="1") as server:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=120)
        try:
            for name, path, unit, sizes in KINDS:
                kept, ms = [], []
                for size in sizes:
                    result = _time(conn, path, makers[name](size), repeat if size < 3000 else max(3, repeat // 2))
                    if result is not None:
                        kept.append(size)
                        ms.append(result)
                curves.append(Curve(name, unit, kept, ms))
        finally:
            conn.close()
    return curves


def plot(curves: list[Curve], path: Path = PLOT) -> Path:
    """Draw the curves (one panel each, log-log) to ``path`` (PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(curves), figsize=(4 * len(curves), 3.4))
    for ax, curve in zip(axes, curves, strict=True):
        ax.plot(curve.sizes, curve.ms, marker="o")
        if len(curve.sizes) >= 3 and curve.name != "odds":
            ax.set_xscale("log")
            ax.set_yscale("log")
        ax.set_title(f"{curve.name} (slope {curve.slope:.2f})")
        ax.set_xlabel(curve.unit)
        ax.set_ylabel("ms per request (median)")
        ax.grid(True, which="both", alpha=0.3)
    fig.suptitle("Time per request against work, one gunicorn worker, one connection")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def rows(curves: list[Curve]) -> list[Row]:
    """One table row per curve: its range and how it grows."""
    out = []
    for curve in curves:
        if not curve.sizes:
            continue
        if curve.name == "odds" or len(curve.sizes) < 3:  # odds: by known cards, not a size
            out.append(Row("HTTP", f"cost curve `{curve.name}` (docs/cost-curves.png)", "; ".join(
                f"{s} {curve.unit}: {m:.1f} ms" for s, m in zip(curve.sizes, curve.ms, strict=True))))
            continue
        growth = "linear" if 0.8 <= curve.slope <= 1.2 else "sub-linear" if curve.slope < 0.8 else "super-linear"
        out.append(Row("HTTP", f"cost curve `{curve.name}`: {curve.sizes[0]} to {curve.sizes[-1]} {curve.unit} "
                       f"(docs/cost-curves.png)",
                       f"{curve.ms[0]:.1f} to {curve.ms[-1]:.1f} ms; slope {curve.slope:.2f} ({growth})"))
    return out


def main() -> None:
    """``python -m bench.curves``: measure, draw, print the rows."""
    from bench.common import markdown_table

    with tempfile.TemporaryDirectory(prefix="gnau-curves-") as tmp:
        curves = measure(Path(tmp))
    plot(curves)
    print(markdown_table(rows(curves)))


if __name__ == "__main__":
    main()
