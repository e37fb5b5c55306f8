"""The Gnau engine: plain Python, no web framework (RULES.md is the specification).

Modules, one concept deep, dependencies running one way:
``cards`` (notation) → ``rules`` (knobs, profiles) → ``hand`` (what an evaluation gives)
→ ``reference`` (the literal evaluator) → ``classes`` (hand classes, counted) → ``tables``
(the precomputed fast path) → ``evaluate`` (the fastest evaluator for the rules) →
``compare`` (ordering, ranking) → ``caps`` (balances, largest remainders) → ``settle``
(bets, multiples, commission, caps) → ``exposure`` (what a table can lose before the deal)
and ``showdown`` (every hand against every other, no dealer). The analyses are a package over
this core, which never imports them (:mod:`service.engine.analysis`).
Apart: ``deal`` (deals from seeds, ``gnau-deal-v1``, RULES.md 9.1; over ``cards`` only).
Every cache is a section of one locked object, ``cache.CACHE``.

>>> from service.engine import PROFILES, evaluate, parse_hand
>>> evaluate(parse_hand("KS 9H 7D AS 4C".split()), PROFILES["standard"].rules).label
'Ngau Tonku'
"""

from service.engine.cards import CARDS, Card, CardError, HandError, Rank, Suit, parse_card, parse_hand
from service.engine.categories import Category
from service.engine.compare import RankedHand, compare, rank_hands
from service.engine.evaluate import evaluate, evaluate_codes
from service.engine.exposure import Exposure, TableExposure, player_exposure, table_exposure
from service.engine.hand import Evaluation, Formation
from service.engine.reference import evaluate_reference
from service.engine.rules import PROFILES, Profile, Rules, RulesError, apply_overrides
from service.engine.settle import PlayerResult, Settlement, settle
from service.engine.showdown import Showdown, showdown
from service.engine.tables import evaluate_many

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
    "Showdown",
    "Suit",
    "TableExposure",
    "apply_overrides",
    "compare",
    "evaluate",
    "evaluate_codes",
    "evaluate_many",
    "evaluate_reference",
    "parse_card",
    "parse_hand",
    "player_exposure",
    "rank_hands",
    "settle",
    "showdown",
    "table_exposure",
]
