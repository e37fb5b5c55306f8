"""An evaluation as JSON-ready data (the ``Evaluation`` schema of openapi.yaml).

The one place an :class:`~service.engine.evaluate.Evaluation` is turned into data: the
response schemas wrap it in a field, so a single answer, a batch, a ranking and a
settlement all write evaluations the same way, and the batch path stays fast.
"""

from __future__ import annotations

from typing import Any

from service.engine.evaluate import Evaluation, Formation

__all__ = ["evaluation_dict"]


def _formation(f: Formation | None) -> dict[str, Any] | None:
    if f is None:
        return None
    return {"cards": [c.text for c in f.cards], "points": list(f.points)}


def evaluation_dict(e: Evaluation) -> dict[str, Any]:
    """The ``Evaluation`` schema of openapi.yaml, canonical cards in input order."""
    return {
        "hand": [c.text for c in e.hand],
        "category": e.category,
        "label": e.label,
        "score": e.score,
        "payout": e.payout,
        "ox": _formation(e.ox),
        "power": _formation(e.power),
        "nenku": e.nenku,
        "suited": e.suited,
    }
