"""The engine's analyses: what the game's rules give over many deals (docs/odds.md).

Built over the game core (``service.engine``: cards, rules, the evaluators, settlement),
which never imports this package (tests/test_layers.py checks both directions):
``walk`` (every card multiset, for rules that use suits) → ``odds`` (five known cards)
→ ``distribution``, ``house_edge``, ``partial_walk`` → ``partial`` (fewer known cards,
the suited hands among them) → ``cost`` (what an analysis costs now, ``prepare``).
"""
