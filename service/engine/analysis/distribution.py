"""How many hands fall in each label: :func:`distribution` and :func:`labels_of` (RULES.md
section 4), labels named by their stable keys (RULES.md 4.2).

Exact: each hand class's count is a product of binomials over the cards of one deck
(:func:`~service.engine.classes.class_weights`), summed per label of the rules' table.
Cached per rules in the engine's cache (section ``distributions``); a profile's is pinned
(:func:`pinned_distribution`, from :func:`service.engine.analysis.cost.prepare`).

>>> from service.engine.rules import PROFILES
>>> d = distribution(PROFILES["standard"].rules)
>>> d.total, d.counts["five_dukes"], d.counts["no_ox"]
(2598960, 792, 568928)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import comb

from service.engine.analysis.odds import FULL_DECK, deck_available
from service.engine.cache import CACHE, BoundedCache
from service.engine.cards import HAND_SIZE
from service.engine.categories import Category
from service.engine.classes import table_weights
from service.engine.hand import labelled, score_of, strength_sub, strengths
from service.engine.rules import Rules
from service.engine.tables import table_for

__all__ = ["Distribution", "distribution", "distribution_ready", "labels_of", "pinned_distribution"]


def labels_of(rules: Rules) -> list[tuple[str, str, int]]:
    """Every label the rules' enabled categories can give, strongest first, by label key.

    :param rules: the rules.
    :return: ``(label key, category, score)`` triples, by score descending. Some may be
        impossible under the rules (``Double-Ox 3`` with ``three_six_pair``); they are
        listed all the same, so two profiles' lists line up.

    >>> from service.engine.rules import PROFILES
    >>> [key for key, _, _ in labels_of(PROFILES["standard"].rules)][:4]
    ['five_dukes', 'five_small', 'ngau_tonku', 'double_ox_k']
    >>> len(labels_of(PROFILES["standard"].rules)), len(labels_of(PROFILES["niu-niu"].rules))
    (27, 27)
    """
    out: list[tuple[str, str, int]] = []
    for category in rules.ranking:
        if not rules.enabled(category):
            continue
        for strength in strengths(Category(category), rules):
            key, _ = labelled(Category(category), strength)
            out.append((key, category.value, score_of(rules, category, strength_sub(category, strength, rules))))
    out.sort(key=lambda t: -t[2])
    return out


@dataclass(frozen=True)
class Distribution:
    """How many hands of one deck fall in each label.

    :param total: how many hands were counted (2,598,960 for one full deck).
    :param counts: label key to count, every label of :func:`labels_of` (zero counts
        included), strongest first.
    :param categories: category to count, the enabled categories strongest first.
    """

    total: int
    counts: dict[str, int]
    categories: dict[str, int]

    def probability(self, label: str) -> Fraction:
        """The exact probability of the label of key ``label``.

        >>> from service.engine.rules import PROFILES
        >>> distribution(PROFILES["standard"].rules).probability("five_dukes")
        Fraction(33, 108290)
        """
        return Fraction(self.counts[label], self.total)


_DISTRIBUTIONS: BoundedCache[tuple[Rules, tuple[int, ...]], Distribution] = CACHE.section("distributions", 32)


def distribution(rules: Rules, deck: Sequence[int] | None = None) -> Distribution:
    """The exact number of hands per label over all 5-card hands of one deck (RULES.md s. 4).

    Each class's count is ``prod_p C(n[p], l[p])``, its one-suit hands counted apart where
    the rules tell them apart (:func:`~service.engine.classes.table_weights`); the suited bonus
    never changes a label. Cached per rules.

    :param rules: the rules.
    :param deck: the cards (codes, each at most once) to deal from; the full 52 by default.
        A smaller deck is for tests against brute force.
    :return: the distribution; ``total == C(len(deck), 5)``.
    :raises OddsError: a card repeated in ``deck``.

    >>> from service.engine.rules import PROFILES
    >>> d = distribution(PROFILES["standard"].rules)
    >>> d.counts["five_small"], d.counts["ngau_tonku"], d.categories["no_ox"]
    (4368, 26539, 568928)
    >>> distribution(PROFILES["standard"].rules, deck=range(12)).total  # the 12 cards A-3
    792
    """
    key = (rules, tuple(FULL_DECK if deck is None else sorted(deck)))
    found = _DISTRIBUTIONS.get(key)
    if found is not None:
        return found
    deck_available(key[1])  # checks the deck: each card at most once
    table = table_for(rules)
    weights = table_weights([int(c in key[1]) for c in range(52)], table.suited)
    labels = labels_of(rules)
    counts = {label: 0 for label, _, _ in labels}
    categories = {category: 0 for _, category, _ in labels}
    for entry, w in zip(table.every, weights.tolist(), strict=True):
        if w:
            counts[entry.label_key] = counts.get(entry.label_key, 0) + w
            categories[entry.category] = categories.get(entry.category, 0) + w
    result = Distribution(total=comb(len(key[1]), HAND_SIZE), counts=counts, categories=categories)
    return _DISTRIBUTIONS.put(key, result)


def pinned_distribution(rules: Rules) -> Distribution:
    """:func:`distribution` of a profile's rules over one deck, kept for good (profiles are
    few, so this is bounded; custom rules go through the bounded cache)."""
    return _DISTRIBUTIONS.pin((rules, FULL_DECK), distribution(rules))


def distribution_ready(rules: Rules) -> bool:
    """Whether the one-deck distribution of ``rules`` is computed (callers budgeting time ask)."""
    return (rules, FULL_DECK) in _DISTRIBUTIONS
