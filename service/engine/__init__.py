"""The Gnau engine: plain Python, no web framework (RULES.md is the specification).

Modules, one concept deep, dependencies running one way:
``cards`` (notation) → ``rules`` (knobs, profiles) → ``hand`` (what an evaluation gives)
→ ``reference`` (the literal evaluator) → ``classes`` (hand classes, counted) → ``tables``
(the precomputed fast path, and ``evaluate``, the fastest evaluator for the rules) →
``compare`` (ordering, ranking) → ``caps`` (balances, largest remainders) → ``settle``
(bets, multiples, commission, caps; what a table can lose before the deal, its exposure)
and ``showdown`` (every hand against every other, no dealer). The analyses are a package over
this core, which never imports them (:mod:`service.engine.analysis`).
Apart: ``deal`` (deals from seeds, ``gnau-deal-v1``, RULES.md 9.1; over ``cards`` only).
Every cache is a section of one locked object, ``cache.CACHE``.

There is no façade: import each name from the module that owns it (the import then says
where the concept lives), for example

>>> from service.engine.cards import parse_hand
>>> from service.engine.tables import evaluate
>>> from service.engine.rules import PROFILES
>>> evaluate(parse_hand("KS 9H 7D AS 4C".split()), PROFILES["standard"].rules).label
'Ngau Tonku'
"""
