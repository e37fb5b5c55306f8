"""What a rule knob is: its declaration (:class:`Knob`), its check and its messages.

:class:`~service.engine.rules.Rules` declares each knob once, as a dataclass field whose
metadata is a :class:`Knob` (:func:`knob_field`); :func:`declared_knobs` collects them.
Everything that checks or describes overrides reads those declarations:
:func:`~service.engine.rules.apply_overrides`, the API's ``RulesOverridesSchema`` and
openapi.yaml's ``RulesOverrides`` and ``Rules`` (written by ``make spec``).

>>> flag = Knob("bool", "The Bomb category exists.")
>>> flag.check("bomb", "yes", False)
(None, [(['bomb'], 'must be true or false')])
>>> Knob("int", "Basis points.", high=10_000, unit="basis points").message
'must be an integer from 0 to 10000 (basis points)'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any, Literal, get_args

__all__ = [
    "Effect",
    "Knob",
    "KnobKind",
    "Problems",
    "bool_field",
    "choice_field",
    "declared_knobs",
    "frozen_map",
    "knob_field",
]

#: What a knob holds: ``bool``; ``int`` (``low`` .. ``high``, and ``None`` when ``nullable``);
#: ``choice`` (one of ``choices``); ``ranking`` (each of ``choices`` once, the last one last);
#: ``payouts`` (a map from some of ``choices`` to integers ``low`` .. ``high``, merged into
#: the current map key by key).
KnobKind = Literal["bool", "int", "choice", "ranking", "payouts"]
#: ``(path, message)`` pairs: the keys from the overrides object to a bad value, and why.
Problems = list[tuple[list[str | int], str]]
#: What a knob acts on, which tells every analysis how to take it into account:
#: ``hands`` (what a hand evaluates to: category, label, score, payout; the class tables
#: express it), ``payouts`` (what one hand collects beyond its class: the suited bonus,
#: applied per hand), ``comparisons`` (how two hands compare beyond their scores),
#: ``settlement`` (the amounts a settled pair moves: bets, commission).
Effect = Literal["hands", "payouts", "comparisons", "settlement"]

_METADATA_KEY = "knob"


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def frozen_map(mapping: Mapping[str, int]) -> Mapping[str, int]:
    """A read-only copy of ``mapping``, its keys sorted (the form a ``payouts`` knob holds).

    >>> dict(frozen_map({"b": 1, "a": 2}))
    {'a': 2, 'b': 1}
    """
    return MappingProxyType(dict(sorted(mapping.items())))


@dataclass(frozen=True)
class Knob:
    """One rule knob's declaration (RULES.md section 7): the metadata of its field.

    :param kind: see :data:`KnobKind`.
    :param doc: one line for people (the knob's description in openapi.yaml's ``Rules``).
    :param low: the smallest integer (``int``, each ``payouts`` value) or the list length
        (``ranking``).
    :param high: the largest, likewise.
    :param choices: the allowed strings (``choice``), categories (``ranking``, strongest
        first as in the standard game) or keys (``payouts``).
    :param nullable: ``int`` only: ``None`` (JSON ``null``) is allowed too.
    :param unit: said after the range when an integer is out of it, e.g. ``basis points``.
    :param always_digested: ``True`` for the knobs that existed when answers began to carry
        ``rules_digest``. Any later knob enters :meth:`~service.engine.rules.Rules.digest`
        only while it differs from its default, so every rule set that leaves it alone keeps
        the digest it had before the knob existed.
    :param effect: what the knob acts on (:data:`Effect`).
    :param suits: the knob's values under which results depend on suits, not on ranks
        alone: the analyses then visit card multisets (the card-multiset walk) for that
        effect instead of summing over rank classes.
    :param suits_if: the knob that must be on (true, or above 0) for the values in
        ``suits`` to read suits at all (``bomb_order: high_card`` orders nothing without
        ``bomb``): what decides whether rank-only cards are accepted (RULES.md 1.1,
        :attr:`~service.engine.rules.Rules.suit_reader`).
    :param suit_effect: what depends on suits under those values, when it is not the
        knob's own effect (``bomb_order: high_card`` changes the Bombs' scores, a ``hands``
        effect, and orders them by their suits too, a ``comparisons`` effect).
    :param analysed: whether the analyses (odds, house edge, distributions) take the knob
        into account. ``False`` for a knob that bounds or settles a whole round (balance
        caps, showdowns without a dealer, RULES.md 6.5-6.6) rather than one pair of random
        hands: the analyses then answer as under its default and name it in their
        ``ignored_knobs`` member while the rules set it (DECISIONS 30).
    :param listed_at_default: whether the ``rules`` objects of the answers (and of the
        profiles) list the knob at its default. ``False`` for the knobs of the round forms
        added in 1.2 (RULES.md 6.4-6.6): listed only while set away from the default, so
        every earlier answer stays byte for byte as it was.
    """

    kind: KnobKind
    doc: str
    low: int = 0
    high: int = 0
    choices: tuple[str, ...] = ()
    nullable: bool = False
    unit: str = ""
    always_digested: bool = False
    effect: Effect = "hands"
    suits: tuple[Any, ...] = ()
    suit_effect: Effect | None = None
    suits_if: str | None = None
    analysed: bool = True
    listed_at_default: bool = True

    @property
    def message(self) -> str:
        """What a value of the wrong type (or out of range) is told."""
        if self.kind == "bool":
            return "must be true or false"
        if self.kind == "choice":
            return "must be one of " + ", ".join(self.choices)
        if self.kind == "ranking":
            return "must be a list of category names"
        if self.kind == "payouts":
            return "must be an object of payout keys to integers"
        text = f"must be {'null or ' if self.nullable else ''}an integer from {self.low} to {self.high}"
        return f"{text} ({self.unit})" if self.unit else text

    def check(self, name: str, value: Any, current: Any) -> tuple[Any, Problems]:
        """Check an override of this knob, called ``name``, given as JSON data.

        :param current: the knob's value in the rules overridden (``payouts`` merges into it).
        :return: the value to store (for ``ranking`` a tuple of the ``choices`` objects, e.g.
            :class:`~service.engine.rules.Category` members; for ``payouts`` a :func:`frozen_map`) and no problems, or ``None`` and every problem found.

        >>> Knob("int", "", 0, 50, nullable=True).check("five_small_max_points", None, 10)
        (None, [])
        >>> Knob("ranking", "", 3, 3, ("a", "b", "z")).check("ranking", ["z", "a", "b"], ())
        (None, [(['ranking'], 'z must be last')])
        """
        if self.kind == "payouts":
            return self._payouts(name, value, current)
        if self.kind == "ranking":
            problem = self._ranking_problem(value)
            if problem is not None:
                return None, [([name], problem)]
            return tuple(self.choices[self.choices.index(v)] for v in value), []  # the choices' own objects
        if self.kind == "bool":
            good = isinstance(value, bool)
        elif self.kind == "choice":
            good = isinstance(value, str) and value in self.choices
        else:
            good = (value is None and self.nullable) or (_is_int(value) and self.low <= value <= self.high)
        return (value, []) if good else (None, [([name], self.message)])

    def _ranking_problem(self, value: object) -> str | None:
        """A ranking's own shape (RULES.md 7): known categories, each once, the last choice
        last and the one before it above it (``single_ox`` above ``no_ox``). Which
        categories it must list depends on the other knobs
        (:func:`~service.engine.rules.apply_overrides` checks that)."""
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
            return self.message
        unknown = [v for v in value if v not in self.choices]
        if unknown:
            return "unknown categor" + ("ies " if len(unknown) > 1 else "y ") + ", ".join(map(repr, unknown[:5])) + \
                "; the categories are " + ", ".join(self.choices)
        repeated = sorted({v for v in value if value.count(v) > 1})
        if repeated:
            return "lists " + ", ".join(repeated) + " more than once"
        last, before = self.choices[-1], self.choices[-2]
        if not value or value[-1] != last:
            return f"{last} must be last"
        if before not in value:
            return f"must list {before} (above {last})"
        return None

    def _payouts(self, name: str, value: Any, current: Mapping[str, int]) -> tuple[Any, Problems]:
        if not isinstance(value, Mapping):
            return None, [([name], self.message)]
        problems: Problems = []
        merged = dict(current)
        for key, amount in value.items():
            if key not in self.choices:
                problems.append(([name, key], "unknown payout key; use a category or single_ox_0 .. single_ox_9"))
            elif not (_is_int(amount) and self.low <= amount <= self.high):
                problems.append(([name, key], f"must be an integer from {self.low} to {self.high}"))
            else:
                merged[key] = amount
        return (None, problems) if problems else (frozen_map(merged), [])


def knob_field(default: Any, kind: KnobKind, doc: str, **declaration: Any) -> Any:
    """A dataclass field declaring a knob: ``default``, and a :class:`Knob` of ``kind``, ``doc``
    and ``declaration`` (its other fields) as metadata. A mapping default is shared, so it must
    be read-only (:func:`frozen_map`)."""
    metadata = {_METADATA_KEY: Knob(kind, doc, **declaration)}
    if isinstance(default, Mapping):
        return field(default_factory=lambda: default, hash=False, metadata=metadata)
    return field(default=default, metadata=metadata)


def bool_field(default: bool, doc: str, **declaration: Any) -> Any:
    """A :func:`knob_field` of kind ``bool``."""
    return knob_field(default, "bool", doc, **declaration)


def choice_field(options: Any, default: str, doc: str, **declaration: Any) -> Any:
    """A :func:`knob_field` of kind ``choice`` whose choices are the values of ``options``, a
    ``Literal`` type (so the field's type and its choices are written once)."""
    return knob_field(default, "choice", doc, choices=get_args(options), **declaration)


def declared_knobs(cls: type[Any]) -> Mapping[str, Knob]:
    """The knobs a dataclass declares with :func:`knob_field`, by name, in field order.

    >>> from service.engine.rules import Rules
    >>> list(declared_knobs(Rules))[:3]
    ['three_six_swap', 'triple_ox', 'tens_are_dukes']
    """
    return MappingProxyType({f.name: f.metadata[_METADATA_KEY] for f in fields(cls)
                             if _METADATA_KEY in f.metadata})
