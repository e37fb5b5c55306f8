"""The house-edge table of the built-in profiles: ``python -m bench.edge_table``.

Prints the markdown table of docs/odds.md ("Odds and house edge"; tests/engine/test_odds.py
checks the page's copy against :func:`edge_table`): the ``double`` bet of each built-in
profile, and the ``equal`` bet too where the profile takes a commission (without one, an
equal bet's edge is the tie rule's alone). Takes a few seconds (the commission's
winnings).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Sequence

from service.engine.analysis.house_edge import house_edge
from service.engine.rules import PROFILES

__all__ = ["edge_table", "main"]


def edge_table(names: Iterable[str] | None = None) -> str:
    """The markdown table of the house edge of the built-in profiles ``names`` (all by default).

    >>> print(edge_table(["standard"]).splitlines()[2])  # doctest: +ELLIPSIS
    | `standard` | double | ... | ...% | ... | 0 |
    """
    lines = [
        "| profile | bet | player's expected net per unit stake (exact) | house edge | ties | commission (bps) |",
        "|---|---|---|---|---|---|",
    ]
    for name in names or PROFILES:
        rules = PROFILES[name].rules
        for bet in ("double", "equal") if rules.commission_bps else ("double",):
            he = house_edge(rules, bet=bet)
            value = he.player_expected_net
            lines.append(f"| `{name}` | {bet} | {value.numerator}/{value.denominator} | {float(he.edge) * 100:.4f}% | "
                         f"{rules.ties} | {rules.commission_bps} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m bench.edge_table``: print docs/odds.md's house-edge table."""
    parser = argparse.ArgumentParser(prog="python -m bench.edge_table", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.parse_args(argv)
    sys.stdout.write(edge_table() + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
