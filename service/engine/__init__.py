"""The Gnau engine: plain Python, no web framework (RULES.md is the specification).

Modules, one concept deep, dependencies running one way:
``cards`` (notation) → ``rules`` (knobs, profiles) → ``evaluate`` (reference evaluator)
→ ``tables`` (precomputed fast path) → ``compare`` (ordering, ranking) → ``settle``
(bets, commission) → ``exposure`` (what a table can lose before the deal).

>>> from service.engine import PROFILES, evaluate, parse_hand
>>> evaluate(parse_hand("KS 9H 7D AS 4C".split()), PROFILES["standard"].rules).label
'Ngau Tonku'
"""

from service.engine.cards import CARDS, Card, CardError, HandError, Rank, Suit, parse_card, parse_hand
from service.engine.compare import RankedHand, compare, rank_hands
from service.engine.evaluate import Evaluation, Formation, evaluate_reference
from service.engine.exposure import Exposure, TableExposure, player_exposure, table_exposure
from service.engine.rules import PROFILES, Category, Profile, Rules, RulesError, apply_overrides
from service.engine.settle import PlayerResult, Settlement, settle
from service.engine.tables import evaluate, evaluate_many, evaluator

__all__ = [
    "CARDS",
    "PROFILES",
    "Card",
    "CardError",
    "Category",
    "Evaluation",
    "Exposure",
    "Formation",
    "HandError",
    "PlayerResult",
    "Profile",
    "Rank",
    "RankedHand",
    "Rules",
    "RulesError",
    "Settlement",
    "Suit",
    "TableExposure",
    "apply_overrides",
    "compare",
    "evaluate",
    "evaluate_many",
    "evaluate_reference",
    "evaluator",
    "parse_card",
    "parse_hand",
    "player_exposure",
    "rank_hands",
    "settle",
    "table_exposure",
]
