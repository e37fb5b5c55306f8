"""Hand categories as declared data (RULES.md sections 4, 4.1, 4.2 and 7).

Each category is one :class:`CategorySpec` in :data:`SPECS`: what orders two hands of it
(its :data:`StrengthKind`), whether its hands report an ox formation, the knob that switches
it on, whether two of it push, whether it depends on suits, whether it is one of the first
eight (which always count in ``score``) and its standard payout. Labels are data too: one
row per label key in :data:`LABEL_ROWS` (RULES.md 4.2's table), in every language offered.

Everything that names, scores, labels, detects, counts or prints a category reads these
declarations: :class:`~service.engine.rules.Rules` (switches, ranking, payouts, scores),
the reference evaluator's detectors, the tables, the distributions and the ``gnau``
command. No other module of the service spells a category's name.

>>> SPECS[Category.DOUBLE_OX].strength, SPECS[Category.FIVE_SMALL].formed
('pair_rank', False)
>>> label_key(Category.DOUBLE_OX, "10"), label_key(Category.SINGLE_OX, "0"), label_key(Category.NO_OX, None)
('double_ox_10', 'single_ox_0', 'no_ox')
>>> label_text("double_ox_10", "en"), label_text("single_ox_7", "zh-Hans"), label_text("single_ox_0", "zh-Hant")
('Double-Ox 10', '牛七', '牛牛')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Literal

from service.engine.cards import Rank

__all__ = [
    "CATEGORIES",
    "KEY_CATEGORY",
    "LABELS",
    "LABEL_ROWS",
    "LANGUAGES",
    "SPECS",
    "Category",
    "CategorySpec",
    "StrengthKind",
    "label_key",
    "label_text",
    "rank_token",
    "ranks_named",
]


class Category(StrEnum):
    """A hand category; the value is the API name (RULES.md section 4). The members are
    listed in the standard ranking order of RULES.md section 7, strongest first."""

    FIVE_DUKES = "five_dukes"
    FIVE_SMALL = "five_small"
    BOMB = "bomb"
    FOUR_DUKES = "four_dukes"
    STRAIGHT_FLUSH = "straight_flush"
    DRAGON = "dragon"
    FULL_HOUSE = "full_house"
    FLUSH = "flush"
    STRAIGHT = "straight"
    NGAU_TONKU = "ngau_tonku"
    DOUBLE_OX = "double_ox"
    SINGLE_OX = "single_ox"
    NO_OX = "no_ox"


#: What orders two hands of one category (the ``sub`` strength of a score, RULES.md 5):
#: ``none`` (all equal), ``ox_points`` (a Single-Ox: 0 strongest, then 9 .. 1), ``pair_rank``
#: (the power pair's rank, ``double_ox_order``), ``quad_rank`` (the four's rank, K high),
#: ``run_top`` (a run's top card, 5 lowest, A above K), ``trips_rank`` (the three's rank).
StrengthKind = Literal["none", "ox_points", "pair_rank", "quad_rank", "run_top", "trips_rank"]


@dataclass(frozen=True)
class CategorySpec:
    """One hand category's declaration.

    :param category: the category (its value is the API name and the label key's stem).
    :param strength: what orders two hands of it (:data:`StrengthKind`).
    :param formed: its hands report an ox formation (ox and power cards); ``False`` for the
        categories that need no ox (Five Small, Bomb, No Ox, the poker shapes).
    :param knob: the boolean knob of :class:`~service.engine.rules.Rules` that switches it
        on, or ``None`` when it always exists (Single-Ox, No Ox).
    :param payout: its standard stake multiplier (the ``payouts`` knob's default).
    :param push_knob: the boolean knob under which two hands of it push whatever the tie
        rule (RULES.md section 6: ``five_dukes_push``), or ``None``.
    :param suits: whether a hand belongs to it by its suits too (not by its ranks alone).
    :param legacy: one of the first eight categories: it always counts in ``score``, on or
        off, so that scores and digests stay as they were (a later category counts only
        while it is on).
    :param bonus: the suited bonus may apply to its hands (RULES.md 4.1: never to the poker
        shapes, whose shape is the reward).
    """

    category: Category
    strength: StrengthKind
    formed: bool
    knob: str | None
    payout: int
    push_knob: str | None = None
    suits: bool = False
    legacy: bool = True
    bonus: bool = True


#: Every category's declaration, in the standard ranking order (RULES.md sections 4 and 7).
SPECS: Mapping[Category, CategorySpec] = MappingProxyType({spec.category: spec for spec in (
    CategorySpec(Category.FIVE_DUKES, "none", formed=True, knob="five_dukes", payout=10, push_knob="five_dukes_push"),
    CategorySpec(Category.FIVE_SMALL, "none", formed=False, knob="five_small", payout=10),
    CategorySpec(Category.BOMB, "quad_rank", formed=False, knob="bomb", payout=10),
    CategorySpec(Category.FOUR_DUKES, "none", formed=True, knob="four_dukes", payout=10),
    CategorySpec(Category.STRAIGHT_FLUSH, "run_top", formed=False, knob="straight_flush", payout=10, suits=True,
                 legacy=False, bonus=False),
    CategorySpec(Category.DRAGON, "none", formed=False, knob="dragon", payout=8, legacy=False, bonus=False),
    CategorySpec(Category.FULL_HOUSE, "trips_rank", formed=False, knob="full_house", payout=6, legacy=False,
                 bonus=False),
    CategorySpec(Category.FLUSH, "none", formed=False, knob="flush", payout=5, suits=True, legacy=False, bonus=False),
    CategorySpec(Category.STRAIGHT, "run_top", formed=False, knob="straight", payout=5, legacy=False, bonus=False),
    CategorySpec(Category.NGAU_TONKU, "none", formed=True, knob="ngau_tonku", payout=5),
    CategorySpec(Category.DOUBLE_OX, "pair_rank", formed=True, knob="double_ox", payout=2),
    CategorySpec(Category.SINGLE_OX, "ox_points", formed=True, knob=None, payout=1),
    CategorySpec(Category.NO_OX, "none", formed=False, knob=None, payout=0),
)})

#: The categories in the standard ranking order (RULES.md section 7).
CATEGORIES: tuple[Category, ...] = tuple(SPECS)

#: The languages labels are offered in (RULES.md section 4.2), English first (the default).
LANGUAGES: tuple[str, ...] = ("en", "zh-Hans", "zh-Hant")

#: RULES.md 4.2's label table: ``(category, key, en, zh-Hans, zh-Hant)``. In a key ``{N}`` is a
#: Single-Ox digit and ``{R}`` a rank token (:func:`rank_token`); in a label ``{N}`` is the
#: digit (English) or its Chinese numeral, ``{R}`` the rank as cards write it. A row
#: without a placeholder after a row with one overrides the pattern for its one key.
LABEL_ROWS: tuple[tuple[Category, str, str, str, str], ...] = (
    (Category.NO_OX, "no_ox", "No Ox", "无牛", "無牛"),
    (Category.SINGLE_OX, "single_ox_{N}", "Single-Ox {N}", "牛{N}", "牛{N}"),
    (Category.SINGLE_OX, "single_ox_0", "Single-Ox 0", "牛牛", "牛牛"),
    (Category.DOUBLE_OX, "double_ox_{R}", "Double-Ox {R}", "孖宝 {R}", "孖寶 {R}"),
    (Category.NGAU_TONKU, "ngau_tonku", "Ngau Tonku", "牛冬菇", "牛冬菇"),
    (Category.FIVE_SMALL, "five_small", "Five Small", "五小牛", "五小牛"),
    (Category.FIVE_DUKES, "five_dukes", "Five Dukes", "五花牛", "五花牛"),
    (Category.FOUR_DUKES, "four_dukes", "Four Dukes", "四花牛", "四花牛"),
    (Category.BOMB, "bomb_{R}", "Bomb {R}", "炸弹 {R}", "炸彈 {R}"),
    (Category.STRAIGHT, "straight_{R}", "Straight {R}", "顺子牛 {R}", "順子牛 {R}"),
    (Category.FLUSH, "flush", "Flush", "同花牛", "同花牛"),
    (Category.FULL_HOUSE, "full_house_{R}", "Full House {R}", "葫芦牛 {R}", "葫蘆牛 {R}"),
    (Category.STRAIGHT_FLUSH, "straight_flush_{R}", "Straight Flush {R}", "同花顺 {R}", "同花順 {R}"),
    (Category.DRAGON, "dragon", "Dragon", "一条龙", "一條龍"),
)

_NUMERALS = "〇一二三四五六七八九"


#: The ranks a category's label may name, by its strength kind: a run's top card is 5 (for
#: A-2-3-4-5) to K, or A (10-J-Q-K-A); the other kinds name any rank.
_RUN_TOPS = (Rank.FIVE, Rank.SIX, Rank.SEVEN, Rank.EIGHT, Rank.NINE, Rank.TEN, Rank.JACK, Rank.QUEEN, Rank.KING,
             Rank.ACE)


def ranks_named(category: Category) -> tuple[Rank, ...]:
    """The ranks a category's labels name (RULES.md 4.1, 4.2): every rank, or for a run the
    top cards it can have.

    >>> [r.value for r in ranks_named(Category.STRAIGHT)][:2], len(ranks_named(Category.BOMB))
    (['5', '6'], 13)
    """
    return _RUN_TOPS if SPECS[category].strength == "run_top" else tuple(Rank)


def rank_token(rank: Rank) -> str:
    """A rank as label keys write it: lower case, ten as ``10`` (RULES.md 4.2).

    >>> rank_token(Rank.ACE), rank_token(Rank.TEN), rank_token(Rank.KING)
    ('a', '10', 'k')
    """
    return rank.value.lower()


def _expand() -> dict[str, tuple[Category, dict[str, str]]]:
    """Every label key with its category and its label in every language, from :data:`LABEL_ROWS`."""
    out: dict[str, tuple[Category, dict[str, str]]] = {}
    for category, key, *texts in LABEL_ROWS:
        if "{N}" in key:
            for n in range(1, 10):
                out[key.replace("{N}", str(n))] = (category, {
                    lang: text.replace("{N}", str(n) if lang == "en" else _NUMERALS[n])
                    for lang, text in zip(LANGUAGES, texts, strict=True)})
        elif "{R}" in key:
            for rank in ranks_named(category):
                out[key.replace("{R}", rank_token(rank))] = (category, {
                    lang: text.replace("{R}", rank.value) for lang, text in zip(LANGUAGES, texts, strict=True)})
        else:
            out[key] = (category, dict(zip(LANGUAGES, texts, strict=True)))
    return out


_EXPANDED = _expand()
#: Every label key to its label per language (RULES.md 4.2), read-only.
LABELS: Mapping[str, Mapping[str, str]] = MappingProxyType(
    {key: MappingProxyType(texts) for key, (_, texts) in _EXPANDED.items()})
#: Every label key to its category.
KEY_CATEGORY: Mapping[str, Category] = MappingProxyType({key: c for key, (c, _) in _EXPANDED.items()})


def label_key(category: Category, token: str | None) -> str:
    """A result's stable label key: the category's name, then ``_`` and the ``token`` of its
    strength when it has one (a Single-Ox digit, or a rank as cards write it).

    >>> label_key(Category.BOMB, "J"), label_key(Category.FIVE_DUKES, None)
    ('bomb_j', 'five_dukes')
    """
    return category.value if token is None else f"{category.value}_{token.lower()}"


def label_text(key: str, lang: str = "en") -> str:
    """The label of ``key`` in ``lang`` (one of :data:`LANGUAGES`).

    :raises KeyError: an unknown key or language.

    >>> label_text("bomb_j"), label_text("bomb_j", "zh-Hant")
    ('Bomb J', '炸彈 J')
    """
    return LABELS[key][lang]
