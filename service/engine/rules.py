"""Rule knobs, rules profiles and the built-in profiles (RULES.md section 7).

A :class:`Rules` value is immutable data holding every knob; a :class:`Profile` is a
named, described :class:`Rules`. Variants are data, never ``if profile == ...`` branches.
Each knob is declared once, as a :class:`Rules` field whose metadata is a :class:`Knob`
(type, range, choices, one-line doc): :func:`apply_overrides`, the API's schema and the
tests that hold openapi.yaml to the knobs all read :data:`RULE_KNOBS`.

>>> PROFILES["standard"].rules.ties
'dealer'
>>> PROFILES["niu-niu"].rules.ranking[:2]
(<Category.FIVE_SMALL: 'five_small'>, <Category.BOMB: 'bomb'>)
>>> PROFILES["casino"].rules.payout("double_ox")
3
>>> PROFILES["bull-bull"].rules.commission_bps, PROFILES["bull-bull"].rules.max_payout
(500, 5)
>>> RULE_KNOBS["suited_multiplier"].kind, RULE_KNOBS["suited_multiplier"].high
('int', 10)
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from types import MappingProxyType
from typing import Any, Literal

from service.engine.bets import TIE_COSTS, TieCost
from service.engine.caps import Shortfall
from service.engine.categories import CATEGORIES, SPECS, Category, label_key
from service.engine.knobs import (
    Knob,
    Problems,
    bool_field,
    choice_field,
    declared_knobs,
    frozen_map,
    knob_field,
)

__all__ = [
    "KNOBS",
    "MAX_BPS",
    "MAX_MIN_COMMISSION",
    "MAX_PAYOUT",
    "MAX_SUITED_MULTIPLIER",
    "PAYOUT_KEYS",
    "PROFILES",
    "RULE_KNOBS",
    "SUIT_READERS",
    "Profile",
    "Rules",
    "RulesError",
    "apply_overrides",
    "standard_rules",
]


#: Keys the ``payouts`` knob accepts: every category, and the label keys of a Single-Ox's
#: strengths (``single_ox_0`` .. ``single_ox_9``), which override its category's payout.
PAYOUT_KEYS: tuple[str, ...] = (*CATEGORIES, *(label_key(c, str(n)) for c in CATEGORIES
                                              if SPECS[c].strength == "ox_points" for n in range(10)))

DoubleOxOrder = Literal["king_high", "ace_high"]
TieRule = Literal["dealer", "push", "high_card"]
SuitedBonus = Literal["none", "ox", "hand"]
BombOrder = Literal["quad_rank", "high_card"]
BalanceCaps = Literal["none", "players", "table"]
ShowdownRule = Literal["winner_takes_all", "all_pairs"]
ShowdownStake = Literal["loser", "loser_x_winner"]
ShowdownWinnerCap = Literal["total", "per_loser"]
FullHouseOrder = Literal["trips_rank", "high_card"]

# Bounds chosen so that every amount fits a signed 64-bit integer (clients' int64):
# stake 10^12 x payout 10^3 x suited multiplier 10 = 10^16 a player; 82 players < 9.2 x 10^18.
MAX_PAYOUT = 1_000
MAX_SUITED_MULTIPLIER = 10
#: Basis points in a whole (RULES.md section 6.2): a commission knob is 0..10,000.
MAX_BPS = 10_000
#: The largest ``min_commission`` (RULES.md 7), in minor units.
MAX_MIN_COMMISSION = 1_000_000

#: Every category's standard payout (its declaration's); the house decision
#: (docs/rules-decisions.md) pays Bomb and Four Dukes, off in the standard game, like the other whole-hand
#: specials when a profile switches them on.
_STANDARD_PAYOUTS: Mapping[str, int] = frozen_map({c.value: SPECS[c].payout for c in CATEGORIES})

#: Spread into the knobs of the first release: they are always digested (:class:`Knob`).
_V1: dict[str, Any] = {"always_digested": True}
#: Spread into the knobs of the round forms (RULES.md 6.4-6.6): they settle, and they are
#: listed in answers only while set (every earlier answer unchanged).
_ROUND: dict[str, Any] = {"effect": "settlement", "listed_at_default": False}


@dataclass(frozen=True)
class Rules:
    """Every rule knob of RULES.md section 7; the defaults are the ``standard`` profile.

    Each field declares its knob: a :class:`Knob` in the field's metadata, collected in
    :data:`RULE_KNOBS`. A new knob is a new field here plus the one place it acts (for a
    category switch, :meth:`enabled`); ``make spec`` writes its lines in openapi.yaml's
    ``RulesOverrides`` and ``Rules`` (``tests/api/test_knobs.py`` compares them with the metadata).

    Instances are immutable and hashable, so they can key caches. Build variants with
    :func:`apply_overrides` (validated) or :func:`dataclasses.replace` (trusted input).

    >>> Rules().payout("single_ox", "0"), Rules().payout("ngau_tonku")
    (1, 5)
    """

    three_six_swap: bool = bool_field(True, "3 and 6 may each count as 3 or 6.", **_V1)
    triple_ox: bool = bool_field(True, "Three cards of one rank form an ox.", **_V1)
    tens_are_dukes: bool = bool_field(False, "10 counts as a duke.", **_V1)
    five_dukes: bool = bool_field(True, "The Five Dukes category exists.", **_V1)
    five_small: bool = bool_field(True, "The Five Small category exists.", **_V1)
    five_small_max_points: int | None = knob_field(
        None, "int", "If set, Five Small also needs the cards' points to total at most this.",
        low=0, high=50, nullable=True, **_V1)
    five_small_max_rank: int | None = knob_field(
        4, "int", "The highest rank a Five Small card may have: 4 (A-4), 5 (A-5), or null (any; then "
        "five_small_max_points limits it).", low=4, high=5, nullable=True)
    bomb_order: BombOrder = choice_field(  # noqa: RUF009 (a dataclasses.field)
        BombOrder, "quad_rank", "How two Bombs compare: by the four's rank, or by the high card of the whole hands.",
        suits=("high_card",), suit_effect="comparisons", suits_if=SPECS[Category.BOMB].knob)
    five_dukes_push: bool = bool_field(True, "Two Five Dukes push whatever the tie rule.", effect="comparisons")
    ngau_tonku: bool = bool_field(True, "The Ngau Tonku category exists.", **_V1)
    double_ox: bool = bool_field(True, "A pair of power cards is a Double-Ox.", **_V1)
    double_ox_order: DoubleOxOrder = choice_field(  # noqa: RUF009 (a dataclasses.field)
        DoubleOxOrder, "king_high", "The order of Double-Ox pairs: kings highest, or aces above kings.", **_V1)
    three_six_pair: bool = bool_field(False, "Two power cards from {3, 6} form Double-Ox 6.", **_V1)
    bomb: bool = bool_field(False, "The Bomb category exists.", **_V1)
    four_dukes: bool = bool_field(False, "The Four Dukes category exists.", **_V1)
    ranking: tuple[Category, ...] = knob_field(
        CATEGORIES, "ranking", "The categories, strongest first: every category that is on, each once; no_ox last.",
        low=2, high=len(CATEGORIES), choices=CATEGORIES, **_V1)
    ties: TieRule = choice_field(  # noqa: RUF009 (a dataclasses.field)
        TieRule, "dealer", "How equal hands settle: the dealer wins, a push, or the higher card wins.",
        effect="comparisons", suits=("high_card",), **_V1)
    payouts: Mapping[str, int] = knob_field(
        _STANDARD_PAYOUTS, "payouts", "Stake multiplier per category, with optional `single_ox_N` overrides.",
        low=0, high=MAX_PAYOUT, choices=PAYOUT_KEYS, **_V1)
    suited_bonus: SuitedBonus = choice_field(  # noqa: RUF009 (a dataclasses.field)
        SuitedBonus, "none", "Pay suited_multiplier times for a one-suit ox (ox) or hand (hand).",
        effect="payouts", suits=("ox", "hand"), **_V1)
    suited_multiplier: int = knob_field(
        2, "int", "The suited bonus's stake multiplier.", low=1, high=MAX_SUITED_MULTIPLIER, effect="payouts",
        **_V1)
    commission_bps: int = knob_field(
        0, "int", "The house's share of each player's winning gross, in basis points (500 = 5 %).",
        high=MAX_BPS, unit="basis points", effect="settlement")
    dealer_commission_bps: int = knob_field(
        0, "int", "The house's share of the dealer's positive gross for the round, in basis points.",
        high=MAX_BPS, unit="basis points", effect="settlement")
    straight: bool = bool_field(False, "The Straight category exists (five consecutive ranks).")
    straight_ace_high: bool = bool_field(False, "10-J-Q-K-A is a straight (and the strongest one).")
    flush: bool = bool_field(False, "The Flush category exists (five cards of one suit).", suits=(True,))
    full_house: bool = bool_field(False, "The Full House category exists (three of one rank, two of another).")
    straight_flush: bool = bool_field(False, "The Straight Flush category exists.", suits=(True,))
    dragon: bool = bool_field(False, "The Dragon category exists (exactly A, 2, 3, 4, 5).")
    tie_payout: str = knob_field(
        "hand", "choice", "What a tie the dealer takes costs: the dealer's payout (hand) or one stake (stake).",
        choices=tuple(TIE_COSTS), **_ROUND)
    balance_caps: BalanceCaps = choice_field(  # noqa: RUF009 (a dataclasses.field)
        BalanceCaps, "none", "Results bounded by balances: none, every player's (players), or the dealer's too (table).",
        analysed=False, **_ROUND)
    showdown: ShowdownRule = choice_field(  # noqa: RUF009 (a dataclasses.field)
        ShowdownRule, "winner_takes_all", "How a showdown without a dealer settles: the strongest hand takes all, "
        "or every pair settles.", analysed=False, **_ROUND)
    showdown_stake: ShowdownStake = choice_field(  # noqa: RUF009 (a dataclasses.field)
        ShowdownStake, "loser", "Whether the winner's bet multiple also multiplies a showdown payment.",
        analysed=False, **_ROUND)
    dealer_shortfall: Shortfall = choice_field(  # noqa: RUF009 (a dataclasses.field)
        Shortfall, "scale_all", "Who absorbs a dealer's shortfall under table caps: every result scaled "
        "(scale_all), or the losers pay in full and the winners share (winners_share).",
        analysed=False, **_ROUND)
    showdown_winner_cap: ShowdownWinnerCap = choice_field(  # noqa: RUF009 (a dataclasses.field)
        ShowdownWinnerCap, "total", "Showdown caps: a winner's total at most its balance (total), or each "
        "loser's payment at most the winner's balance and the winner's total uncapped (per_loser).",
        analysed=False, **_ROUND)
    full_house_order: FullHouseOrder = choice_field(  # noqa: RUF009 (a dataclasses.field)
        FullHouseOrder, "trips_rank", "How two Full Houses compare: by the three's rank, or by the hand's "
        "highest card (aces low, then its suit).",
        suits=("high_card",), suit_effect="comparisons", suits_if=SPECS[Category.FULL_HOUSE].knob,
        listed_at_default=False)
    run_ox: bool = bool_field(False, "Three cards of consecutive ranks (A-2-3 to J-Q-K, and Q-K-A) form an ox.",
                              listed_at_default=False)
    min_commission: int = knob_field(
        0, "int", "The least commission a positive gross pays where a commission rate applies, in minor units "
        "(never more than the gross).", high=MAX_MIN_COMMISSION, unit="minor units", analysed=False, **_ROUND)

    def __hash__(self) -> int:
        return hash(self.digest())

    def __eq__(self, other: object) -> bool:
        # Equal digested data is equal knobs (a knob left out of the digest holds its default):
        # one cached comparison, not two as_dict() (tables and caches compare rules per request).
        return self is other or (isinstance(other, Rules) and self._sha256 == other._sha256)

    def enabled(self, category: str) -> bool:
        """Whether ``category`` (an API name) exists under these rules (its knob is on, or it
        has none).

        >>> Rules().enabled("bomb"), Rules().enabled("single_ox")
        (False, True)
        """
        return category in self._enabled

    @cached_property
    def _enabled(self) -> frozenset[str]:
        return frozenset(c.value for c, spec in SPECS.items() if spec.knob is None or getattr(self, spec.knob))

    @cached_property
    def suit_effects(self) -> frozenset[str]:
        """What depends on suits under these rules: the effects (:data:`~service.engine.knobs.Effect`)
        of every knob whose value makes it so (its declaration's ``suits``). Empty: every
        analysis may sum over rank classes.

        >>> sorted(PROFILES["liberal"].rules.suit_effects), sorted(PROFILES["niu-niu"].rules.suit_effects)
        (['payouts'], ['comparisons'])
        """
        return frozenset(knob.suit_effect or knob.effect for name, knob in RULE_KNOBS.items()
                         if getattr(self, name) in knob.suits)

    @cached_property
    def suit_reader(self) -> str | None:
        """The first knob in force that reads suits, in RULES.md 1.1's order
        (:data:`SUIT_READERS`), or ``None``: then rank-only cards are accepted. A knob reads
        suits while its value is one of its declaration's ``suits`` and the knob its
        ``suits_if`` names, if any, is on.

        >>> PROFILES["standard"].rules.suit_reader, PROFILES["niu-niu"].rules.suit_reader
        (None, 'ties')
        >>> PROFILES["liberal"].rules.suit_reader, apply_overrides(Rules(), {"bomb_order": "high_card"}).suit_reader
        ('suited_bonus', None)
        """
        for name in SUIT_READERS:
            knob = RULE_KNOBS.get(name)
            if knob is not None and getattr(self, name) in knob.suits and (
                    knob.suits_if is None or getattr(self, knob.suits_if)):
                return name
        return None

    @cached_property
    def pushing(self) -> frozenset[str]:
        """The categories two hands of which push whatever the tie rule (RULES.md 6): Five
        Dukes while ``five_dukes_push`` is on."""
        return frozenset(c.value for c, spec in SPECS.items()
                         if spec.push_knob is not None and getattr(self, spec.push_knob) and self.enabled(c))

    @cached_property
    def high_card_categories(self) -> frozenset[str]:
        """The categories whose equally strong hands are ordered by the high card (RULES.md 5,
        7): every one under ``ties: high_card``, Bombs under ``bomb_order: high_card`` and
        Full Houses under ``full_house_order: high_card`` whatever ``ties`` says. (A category that pushes still pushes in a settlement: the
        push is decided first.)

        >>> sorted(apply_overrides(Rules(), {"bomb_order": "high_card"}).high_card_categories)
        ['bomb']
        """
        if self.ties == "high_card":
            return frozenset(c.value for c in CATEGORIES)
        return frozenset({Category.BOMB.value} if self.bomb_order == "high_card" else ()) | self.top_card_categories

    @cached_property
    def top_card_categories(self) -> frozenset[str]:
        """The categories of :attr:`high_card_categories` whose hands compare by their highest
        card alone (its rank, then its suit), identical top cards falling to ``ties``: Full
        Houses under ``full_house_order: high_card`` (RULES.md 7) unless ``ties`` is
        ``high_card`` (which then compares the whole hands, the top card first).

        >>> sorted(apply_overrides(Rules(), {"full_house_order": "high_card"}).top_card_categories)
        ['full_house']
        >>> apply_overrides(Rules(), {"full_house_order": "high_card", "ties": "high_card"}).top_card_categories
        frozenset()
        """
        if self.full_house_order == "high_card" and self.ties != "high_card":
            return frozenset({Category.FULL_HOUSE.value})
        return frozenset()

    @cached_property
    def suit_categories(self) -> bool:
        """Whether a category that is on depends on suits (a flush): the tables then tell
        flushes from the other hands of their ranks."""
        return any(spec.suits and self.enabled(c) for c, spec in SPECS.items())

    @cached_property
    def score_bases(self) -> Mapping[Category, int]:
        """Each category's score before its strength (RULES.md 4.2): ``(n - position) * 100``
        over the ranking's categories that count, the first eight always and a later one
        only while it is on (so adding a category to the code changes no score).

        >>> Rules().score_bases[Category.FIVE_DUKES], Rules().score_bases[Category.NO_OX]
        (800, 100)
        """
        counted = [c for c in self.ranking if SPECS[c].legacy or self.enabled(c)]
        return MappingProxyType({c: (len(counted) - i) * 100 for i, c in enumerate(counted)})

    def payout(self, category: str, token: str | None = None) -> int:
        """The stake multiplier of a hand of ``category`` (RULES.md section 6), before any
        suited bonus. ``token`` (a Single-Ox's digit) selects its label key's override
        (``single_ox_N``), where the payouts give one.

        >>> Rules().payout("single_ox", "0"), Rules().payout("ngau_tonku")
        (1, 5)
        """
        if token is not None:
            specific = self.payouts.get(label_key(Category(category), token))
            if specific is not None:
                return specific
        return self.payouts[category]

    @cached_property
    def max_payout(self) -> int:
        """The largest stake multiplier any hand can collect (RULES.md section 6.3).

        The maximum of ``payout`` over every enabled category (every Single-Ox strength,
        ``single_ox_N`` overrides included), times ``suited_multiplier`` when a suited
        bonus is on and can apply to the category (never to the poker shapes, RULES.md
        4.1). An upper bound: a category that no hand can reach under the rules still counts
        while it is enabled.

        >>> Rules().max_payout, PROFILES["niu-niu"].rules.max_payout, PROFILES["liberal"].rules.max_payout
        (10, 5, 20)

        Computed once per rules value (a settlement asks for it once a seat).
        """
        multiplier = self.suited_multiplier if self.suited_bonus != "none" else 1
        best = 0
        for category in CATEGORIES:
            if not self.enabled(category):
                continue
            spec = SPECS[category]
            if spec.strength == "ox_points":
                most = max(self.payout(category, str(n)) for n in range(10))
            else:
                most = self.payouts[category]
            best = max(best, most * (multiplier if spec.bonus else 1))
        return best

    @cached_property
    def without_commission(self) -> Rules:
        """These rules with every knob that acts on settlement alone (effect ``settlement``:
        the commissions, ``tie_payout``, ``balance_caps``, the showdown knobs) at its default;
        ``self`` when they already are.

        Those knobs change what a settlement pays, never how a hand evaluates, so the
        evaluation tables are shared through this.

        >>> from service.engine.rules import apply_overrides
        >>> apply_overrides(Rules(), {"commission_bps": 500}).without_commission == Rules()
        True
        >>> replace(Rules(), balance_caps="table", tie_payout="stake").without_commission == Rules()
        True
        """
        changed = {name: _DEFAULT_RULES[name] for name, knob in RULE_KNOBS.items()
                   if knob.effect == "settlement" and getattr(self, name) != _DEFAULT_RULES[name]}
        return replace(self, **changed) if changed else self

    @cached_property
    def tie_cost(self) -> TieCost:
        """What a tie the dealer takes costs (the ``tie_payout`` knob, RULES.md 6.4)."""
        return TIE_COSTS[self.tie_payout]

    @cached_property
    def ignored_knobs(self) -> tuple[str, ...]:
        """The knobs set away from their default that the analyses do not take into account
        (:attr:`Knob.analysed` false: balance caps and showdowns settle a round, not a pair
        of random hands), in declaration order.

        >>> Rules().ignored_knobs, replace(Rules(), balance_caps="table").ignored_knobs
        ((), ('balance_caps',))
        """
        return tuple(name for name, knob in RULE_KNOBS.items()
                     if not knob.analysed and getattr(self, name) != _DEFAULT_RULES[name])

    @cached_property
    def analysed(self) -> Rules:
        """The rules the analyses compute under: these with every knob of
        :attr:`ignored_knobs` at its default (``self`` when there is none), so that they share
        the work done for the rules without them.

        >>> replace(PROFILES["niu-niu"].rules, showdown="all_pairs").analysed == PROFILES["niu-niu"].rules
        True
        """
        if not self.ignored_knobs:
            return self
        return replace(self, **{name: _DEFAULT_RULES[name] for name in self.ignored_knobs})

    def listed(self) -> dict[str, Any]:
        """:meth:`as_dict` as the answers' ``rules`` objects give it: without the knobs that are
        listed only while set (:attr:`Knob.listed_at_default` false) when they hold their
        default.

        >>> "balance_caps" in Rules().listed(), replace(Rules(), balance_caps="players").listed()["balance_caps"]
        (False, 'players')
        """
        data = self.as_dict()
        for name, knob in RULE_KNOBS.items():
            if not knob.listed_at_default and data[name] == _DEFAULTS[name]:
                del data[name]
        return data

    def as_dict(self) -> dict[str, Any]:
        """Every knob as plain JSON-ready data (a list of names for ``ranking``, a dict for
        ``payouts``)."""
        out: dict[str, Any] = {}
        for name, knob in RULE_KNOBS.items():
            value = getattr(self, name)
            out[name] = [str(c) for c in value] if knob.kind == "ranking" else (
                dict(value) if knob.kind == "payouts" else value)
        return out

    def digest(self) -> str:
        """A stable digest of every knob: ``sha256:`` and 16 hex digits.

        Equal rules give equal digests in every process and release of this service, so a
        response that carries the digest stays auditable. A knob added after the first
        release (the commission knobs, :attr:`Knob.always_digested` false) is left out of the
        digested data while it has its default, so every rule set that leaves it alone keeps
        the digest it had before the knob existed.

        >>> Rules().digest() == Rules().digest() != Rules(ties="push").digest()
        True
        >>> Rules().digest(), Rules(commission_bps=500).digest() != Rules().digest()
        ('sha256:f95d84ea30e9fbbc', True)
        """
        return self._digest

    def sha256(self) -> str:
        """The whole digest of which :meth:`digest` shows the first 16 hex digits:
        ``sha256:`` and 64 lower-case hex digits (a receipt's ``rules_sha256``, RULES.md 9.2).

        The digested data is :meth:`as_dict` without the knobs added after the first
        release that hold their default (:attr:`Knob.always_digested` false), written as
        RFC 8785 canonical JSON: members sorted, no whitespace; every knob name and value
        is ASCII and every number an integer, so that is ``json.dumps(data, sort_keys=True,
        separators=(",", ":"))`` (docs/deals-and-receipts.md states it as normative).

        >>> full = Rules().sha256()
        >>> len(full), full.startswith(Rules().digest())
        (71, True)
        """
        return self._sha256

    @cached_property
    def _sha256(self) -> str:
        data = self.as_dict()
        for name, knob in RULE_KNOBS.items():
            if not knob.always_digested and data[name] == _DEFAULTS[name]:
                del data[name]
        # A category added after the first release leaves the ranking and the payouts
        # while it is off, so that rules without it keep the digest they always had.
        absent = {c.value for c, spec in SPECS.items() if not spec.legacy and not self.enabled(c)}
        data["ranking"] = [c for c in data["ranking"] if c not in absent]
        data["payouts"] = {k: v for k, v in data["payouts"].items() if k not in absent}
        text = json.dumps(data, sort_keys=True, separators=(",", ":"))
        return "sha256:" + hashlib.sha256(text.encode()).hexdigest()

    @cached_property
    def _digest(self) -> str:
        return self._sha256[:len("sha256:") + 16]


#: Every knob's declaration by name, in the order of the :class:`Rules` fields.
RULE_KNOBS: Mapping[str, Knob] = declared_knobs(Rules)
#: The knobs' names, in order.
KNOBS: tuple[str, ...] = tuple(RULE_KNOBS)
#: The knobs that may read suits, in the order RULES.md 1.1 names them (a rank-only card's
#: refusal names the first that does, :attr:`Rules.suit_reader`); every knob declaring
#: ``suits`` is here (a test checks), and a name not (yet) a knob is skipped.
SUIT_READERS: tuple[str, ...] = tuple(
    name for name in ("ties", "bomb_order", "full_house_order", "suited_bonus", SPECS[Category.FLUSH].knob,
                      SPECS[Category.STRAIGHT_FLUSH].knob, "joker_as") if name)
#: The standard rules as data: a knob after the first release leaves the digest at its default.
_DEFAULTS: dict[str, Any] = Rules().as_dict()
#: The standard rules' knob values as held (what a knob at its default equals).
_DEFAULT_RULES: dict[str, Any] = {name: getattr(Rules(), name) for name in RULE_KNOBS}


@dataclass(frozen=True)
class Profile:
    """A named rules profile.

    :param name: the profile's name, e.g. ``'niu-niu'``.
    :param description: one or two sentences for people choosing a profile.
    :param rules: the knob values.
    :param builtin: ``True`` for the profiles that ship with the service.
    :param extends: for an operator-defined profile, the built-in profile it extends.
    """

    name: str
    description: str
    rules: Rules
    builtin: bool = True
    extends: str | None = None


class RulesError(ValueError):
    """Invalid knob overrides.

    :ivar problems: ``(path, message)`` pairs; ``path`` is a list of keys from the
        overrides object to the bad value, e.g. ``['payouts', 'single_ox']``.
    """

    def __init__(self, problems: Problems) -> None:
        self.problems = problems
        super().__init__("; ".join(f"{'.'.join(map(str, p)) or 'rules'}: {m}" for p, m in problems))


def apply_overrides(base: Rules, overrides: Mapping[str, Any]) -> Rules:
    """Apply knob overrides to ``base`` after checking every one of them (:meth:`Knob.check`).

    :param base: the rules to start from (a profile's rules).
    :param overrides: knob name to new value, as JSON data. ``payouts`` is merged into the
        base's map key by key; ``ranking`` must list all eight categories with ``no_ox``
        last; ``five_small_max_points`` is an integer 0..50 or ``None``.
    :return: the new rules.
    :raises RulesError: naming every unknown knob and bad value, in the overrides' order.

    >>> apply_overrides(Rules(), {"ties": "push", "payouts": {"single_ox_0": 3}}).payout("single_ox", "0")
    3
    >>> apply_overrides(Rules(), {"ties": "coin_flip", "jokers": True})
    Traceback (most recent call last):
        ...
    service.engine.rules.RulesError: ties: must be one of dealer, push, high_card; jokers: unknown knob
    """
    if not isinstance(overrides, Mapping):
        raise RulesError([([], "must be an object of knob overrides")])
    problems: Problems = []
    changes: dict[str, Any] = {}
    for name, value in overrides.items():
        knob = RULE_KNOBS.get(name)
        if knob is None:
            problems.append(([name], "unknown knob"))
            continue
        changes[name], found = knob.check(name, value, getattr(base, name))
        problems.extend(found)
    if problems:
        raise RulesError(problems)
    rules = replace(base, **changes)
    problems = joint_problems(rules)
    if problems:
        raise RulesError(problems)
    return rules


def joint_problems(rules: Rules) -> Problems:
    """What is wrong with knobs taken together (each one alone is valid), RULES.md 7: a
    category that is on must be in ``ranking``; ``five_small_max_rank: null`` needs
    ``five_small_max_points``.

    >>> joint_problems(replace(Rules(), ranking=Rules().ranking[:-3] + Rules().ranking[-2:]))
    [(['ranking'], 'lists no double_ox, which is on: every category that is on must be ranked')]
    """
    problems: Problems = []
    missing = [c.value for c in CATEGORIES if rules.enabled(c) and c not in rules.ranking]
    if missing:
        problems.append((["ranking"], f"lists no {', '.join(missing)}, which "
                                      f"{'is' if len(missing) == 1 else 'are'} on: every category that is on "
                                      "must be ranked"))
    if rules.five_small_max_rank is None and rules.five_small_max_points is None:
        problems.append((["five_small_max_rank"], "null (any rank) needs five_small_max_points set"))
    return problems


def standard_rules() -> Rules:
    """The ``standard`` profile's rules: the seeds' game (RULES.md section 7)."""
    return Rules()


def complete_ranking(ranking: Sequence[str]) -> list[str]:
    """A profile's ranking with every category listed (RULES.md 7): the categories it leaves
    out keep the standard order, the special ones (those the standard game ranks above Ngau
    Tonku) right after its last listed special category, the others among its own. Applied
    to the built-in and the operator's profiles, never to a request's ``ranking``.

    >>> complete_ranking(["five_dukes", "single_ox", "no_ox"])[:6]
    ['five_dukes', 'five_small', 'bomb', 'four_dukes', 'straight_flush', 'dragon']
    >>> complete_ranking(["five_dukes", "single_ox", "no_ox"])[-4:]
    ['ngau_tonku', 'double_ox', 'single_ox', 'no_ox']
    """
    specials = CATEGORIES[:CATEGORIES.index(Category.NGAU_TONKU)]
    head = [c for c in ranking if c in specials] + [c.value for c in specials if c not in ranking]
    listed = [c for c in ranking if c not in specials]
    given = iter(listed)  # the listed others, in their own order, where the standard order puts its own
    tail = [next(given) if c in listed else c.value for c in CATEGORIES[len(specials):]]
    return head + tail


def _profile(base: Rules, overrides: dict[str, Any]) -> Rules:
    """A built-in profile's rules: ``overrides`` on ``base``, its ranking completed."""
    if "ranking" in overrides:
        overrides = {**overrides, "ranking": complete_ranking(overrides["ranking"])}
    return apply_overrides(base, overrides)


def _builtin_profiles() -> dict[str, Profile]:
    std = standard_rules()
    casino = _profile(std, {"payouts": {"single_ox": 1, "double_ox": 3, "ngau_tonku": 5, "five_dukes": 7,
                                        "five_small": 7, "bomb": 7, "four_dukes": 7}})
    tens = _profile(std, {"tens_are_dukes": True})
    liberal = _profile(std, {"tens_are_dukes": True, "three_six_pair": True, "suited_bonus": "ox"})
    bull_payouts = {"no_ox": 1, "single_ox": 1, "single_ox_0": 3, **{f"single_ox_{n}": 2 for n in (7, 8, 9)}}
    niu_niu = _profile(std, {
        "three_six_swap": False, "triple_ox": False, "ngau_tonku": False, "double_ox": False, "bomb": True,
        "four_dukes": True, "five_small_max_points": 10, "ties": "high_card",
        "ranking": ["five_small", "bomb", "five_dukes", "four_dukes", "single_ox", "no_ox"],
        "payouts": {**dict.fromkeys(("five_dukes", "five_small", "bomb", "four_dukes", "ngau_tonku", "double_ox"), 5),
                    **bull_payouts}})
    bull_bull = _profile(niu_niu, {"bomb": False, "four_dukes": False, "five_small": False, "commission_bps": 500,
                                   "ranking": ["five_dukes", "single_ox", "no_ox"]})
    niu_niu_plus = _profile(niu_niu, {
        "straight": True, "flush": True, "full_house": True, "four_dukes": False,
        "ranking": ["straight_flush", "dragon", "five_small", "bomb", "full_house", "flush", "five_dukes", "straight",
                    "four_dukes", "ngau_tonku", "double_ox", "single_ox", "no_ox"],
        "payouts": {"single_ox_0": 4, "single_ox_9": 3, "single_ox_8": 2, "single_ox_7": 2, "straight": 5,
                    "five_dukes": 5, "flush": 5, "full_house": 6, "bomb": 6, "five_small": 8}})
    profiles = [
        Profile("standard", "The seeds' Malaysian Gnau: 3/6 swap, triple ox, Ngau Tonku, "
                "Double-Ox; dealer takes ties; pays 1/2/5/10.", std),
        Profile("casino", "Standard rules with the seeds' casino payout table: Single-Ox 1, "
                "Double-Ox 3, Ngau Tonku 5, Five Dukes and Five Small 7.", casino),
        Profile("tens-are-dukes", "Standard with tens counted as dukes (seeds, PS1).", tens),
        Profile("liberal", "Standard with tens as dukes, 3-6 pairs as Double-Ox 6 and a 2x "
                "bonus for a suited ox (seeds, PS2).", liberal),
        Profile("niu-niu", "Chinese Niu Niu (Bull-Bull): no 3/6 swap, Bomb and Four Dukes, "
                "Five Small up to 10 points, high-card ties, Bull-Bull pays 3x.", niu_niu),
        Profile("bull-bull", "Niu Niu as live-casino Bull Bull tables run it: one special hand, Five Dukes (5x); "
                "5% commission on players' wins (pays 0.95 to 1); players bet equal (1:1) or double.", bull_bull),
        Profile("niu-niu-plus", "Niu Niu as the private-room apps with poker shapes run it: Straight, Flush and "
                "Full House on, Four Dukes off; Bull-Bull pays 4x, Five Small 8x.", niu_niu_plus),
    ]
    return {p.name: p for p in profiles}


#: The built-in profiles by name (RULES.md section 7), read-only.
PROFILES: Mapping[str, Profile] = MappingProxyType(_builtin_profiles())
