"""Request members declared once: each body's members (kind, bounds, required or default,
nested body), and the rules across members, each with its one-pass twin beside it.

Two readers load a request body, and both are built from these declarations, as the
rule-overrides schema is built from the knobs (:mod:`service.engine.knobs`):

* the marshmallow fields (:func:`service.schemas.fields_of`), which load any body and name
  every problem by its JSON pointer;
* the one-pass reader (:func:`service.one_pass.object_reader`), which loads a plainly valid
  body with plain checks, exactly as the fields load it, and leaves everything else to the
  fields (``None``).

A member is declared with :class:`Member`; a body is a :class:`Body`, its members in order.
A rule that spans members (distinct ids, repeated cards, seats, factor products) is written
here once as the fields' check (``*_errors``: marshmallow's nested messages, ``{}`` when it
holds) with its one-pass twin beside it (a ``bool``, on data the reader loaded).

>>> PLAYER["stake"].message
'must be an integer from 1 to 1000000000000'
>>> [name for name, member in SHOWDOWN.items() if member.required]
['base', 'players']
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from service.engine.bets import BETS, DEFAULT_BET
from service.engine.caps import MAX_BALANCE
from service.engine.cards import MAX_DECKS, count_excess, duplicate_message, seats
from service.engine.deal import (
    MAX_CLIENT_SEED_CODE_POINTS,
    MAX_NONCE,
    MAX_SEED_BYTES,
    MIN_HANDS,
    MIN_SEED_BYTES,
)
from service.engine.settle import MAX_MULTIPLE, MAX_STAKE

__all__ = [
    "BASE_AND_STAKE",
    "BATCH",
    "DEAL",
    "DEAL_INPUTS",
    "EVALUATION",
    "EXPOSURE",
    "MAX_BATCH",
    "MAX_ID_LENGTH",
    "MAX_RANKING",
    "NEEDS_BASE",
    "NO_DEFAULT",
    "PLAYER",
    "RANKING",
    "RANKING_ENTRY",
    "SCORING",
    "SETTLEMENT",
    "SHOWDOWN",
    "VERIFY_DEAL",
    "Body",
    "Member",
    "MemberKind",
    "bid_multiple",
    "distinct_ids",
    "duplicate_id_errors",
    "excess_errors",
    "product_errors",
    "products_hold",
    "seat_errors",
    "table_seats",
    "too_many_hands",
    "walk",
    "with_stakes",
]

#: What a member holds, and so which field loads it and which one-pass check reads it:
#: ``int`` (an integer ``low`` .. ``high``, never a boolean or a float); ``id`` (a string of
#: at most ``high`` characters); ``choice`` (one of ``choices``); ``hand`` (five cards in any
#: notation, loaded as codes; the one-pass reader reads a table's hands together);
#: ``hands`` (``low`` .. ``high`` hands, read in one pass by the field itself); ``body`` (an
#: object of ``body``'s members); ``list`` (``low`` .. ``high`` objects of ``body``'s
#: members); ``refused`` (any value is an error that gives ``reason``); ``overrides`` (rule
#: knob overrides, RULES.md section 7: the one-pass reader leaves a body holding them to the
#: fields); ``server_seed`` (``low`` .. ``high`` bytes as hex digits, loaded as bytes);
#: ``client_seed`` (a string of ``low`` .. ``high`` code points); ``commitment`` and
#: ``dealt_hands`` (the verification of a deal, RULES.md 9.1; fields only).
MemberKind = Literal["int", "id", "choice", "hand", "hands", "body", "list", "refused", "overrides", "server_seed",
                     "client_seed", "commitment", "dealt_hands"]


class _NoDefault:
    """The default of a member loaded only when given (:data:`NO_DEFAULT`)."""

    def __repr__(self) -> str:
        return "NO_DEFAULT"


#: No default: an absent member is not loaded at all.
NO_DEFAULT: Any = _NoDefault()


@dataclass(frozen=True)
class Member:
    """One request member's declaration: what both readers load and check.

    :param kind: see :data:`MemberKind`.
    :param low: the smallest integer (``int``), the fewest items (``list``, ``hands``,
        ``dealt_hands``), bytes (``server_seed``) or code points (``client_seed``).
    :param high: the largest, likewise (``id``: the most characters).
    :param required: an absent member is an error (``is required``).
    :param default: what an absent member loads as (:data:`NO_DEFAULT`: nothing); a callable
        is called for each body.
    :param choices: the allowed strings (``choice``).
    :param body: the members of the nested object (``body``) or of each item (``list``).
    :param what: what a ``list``'s items are, in its message (``players``).
    :param reason: why a ``refused`` member is refused.
    :param based: the member as declared when the body gives the table's ``base`` (RULES.md
        6.4; its own ``required`` and ``default`` are this member's).
    """

    kind: MemberKind
    low: int = 0
    high: int = 0
    required: bool = False
    default: Any = NO_DEFAULT
    choices: tuple[str, ...] = ()
    body: Body | None = None
    what: str = ""
    reason: str = ""
    based: Member | None = None

    @property
    def message(self) -> str:
        """What a value of the wrong type or out of range is told (``int``, ``choice``)."""
        if self.kind == "choice":
            return "must be one of " + ", ".join(self.choices)
        return f"must be an integer from {self.low} to {self.high}"

    @property
    def plain(self) -> Member:
        """The member without its ``base`` form, required or default (what a table without
        ``base`` loads, inside the member that chooses)."""
        return replace(self, required=False, default=NO_DEFAULT, based=None)


@dataclass(frozen=True)
class Body:
    """A request body's (or a nested object's) members, in order.

    :param name: the schema's name (e.g. ``PlayerSchema``).
    :param members: the members by name, in the order the fields load them.
    """

    name: str
    members: Mapping[str, Member] = field(default_factory=dict)

    def __getitem__(self, name: str) -> Member:
        return self.members[name]

    def __contains__(self, name: object) -> bool:
        return name in self.members

    def items(self) -> Iterator[tuple[str, Member]]:
        """The members by name, in order."""
        return iter(self.members.items())

    def with_members(self, name: str, **members: Member) -> Body:
        """This body under ``name`` with ``members`` added or replaced (in place, or last)."""
        return Body(name, {**self.members, **members})


def walk(body: Body, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Member]]:
    """Every member of ``body`` and of its nested bodies (both forms of a ``based`` member),
    with its path of names (a list's items add no name).

    >>> [".".join(path) for path, _ in walk(RANKING)]
    ['decks', 'rules', 'hands', 'hands.id', 'hands.hand']
    """
    for name, member in body.items():
        for form in (member, member.based) if member.based else (member,):
            yield (*path, name), form
            if form.body is not None:
                yield from walk(form.body, (*path, name))


# ---------------------------------------------------------------------------------------
# The members

#: The longest caller's id.
MAX_ID_LENGTH = 128
#: The most hands of a batch.
MAX_BATCH = 10_000
#: The most hands of a ranking.
MAX_RANKING = 1_000
#: What a multiple without the table's ``base`` is told (RULES.md 6.4).
NEEDS_BASE = "needs the table's base: with base, each stake is base × bid_multiple × bet_multiple"
#: What a stake beside the table's ``base`` is told (RULES.md 6.4).
BASE_AND_STAKE = ("give the table's base or each player's stake, not both: with base, each stake is "
                  "base × bid_multiple × bet_multiple")

_DECKS = Member("int", 1, MAX_DECKS, default=1)
_HAND = Member("hand", required=True)
_ID = Member("id", high=MAX_ID_LENGTH, default=None)
_STAKE = Member("int", 1, MAX_STAKE, required=True)
_BASE = Member("int", 1, MAX_STAKE)
_BET = Member("choice", choices=tuple(BETS), default=DEFAULT_BET)
_MULTIPLE = Member("int", 1, MAX_MULTIPLE)
_BALANCE = Member("int", 0, MAX_BALANCE)
_NEEDS_BASE = Member("refused", reason=NEEDS_BASE)
_MOST_PLAYERS = seats(MAX_DECKS) - 1


def _by_base(plain: Body, based: Body, **kwargs: Any) -> Member:
    return Member("body", body=plain, based=Member("body", body=based), **kwargs)


def _players(plain: Body, based: Body) -> Member:
    return Member("list", 1, _MOST_PLAYERS, body=plain, what="players", required=True,
                  based=Member("list", 1, _MOST_PLAYERS, body=based, what="players"))


#: What every scoring request may carry: ``decks`` (1..8, default 1) and ``rules`` (knob
#: overrides, RULES.md section 7).
SCORING = Body("ScoringRequestSchema", {"decks": _DECKS, "rules": Member("overrides", default=None)})
#: ``POST /v1/evaluations``.
EVALUATION = SCORING.with_members("EvaluationRequestSchema", hand=_HAND)
#: ``POST /v1/evaluations/batch``.
BATCH = SCORING.with_members("BatchRequestSchema", hands=Member("hands", 1, MAX_BATCH, required=True))
#: One hand to rank.
RANKING_ENTRY = Body("RankingEntrySchema", {"id": _ID, "hand": _HAND})
#: ``POST /v1/rankings``: 2 to 1,000 hands.
RANKING = SCORING.with_members("RankingRequestSchema", hands=Member("list", 2, MAX_RANKING, required=True,
                                                                    body=RANKING_ENTRY, what="hands"))

#: The dealer: its hand, and ``balance`` under ``table`` caps (RULES.md 6.5).
DEALER = Body("DealerSchema", {"hand": _HAND, "bid_multiple": _NEEDS_BASE, "balance": _BALANCE})
#: The dealer at a table with ``base``: also its ``bid_multiple`` (RULES.md 6.4).
BASE_DEALER = DEALER.with_members("BaseDealerSchema", bid_multiple=_MULTIPLE)
#: A player: id, hand, stake, bet; ``balance`` under caps (RULES.md 6.1, 6.5).
PLAYER = Body("PlayerSchema", {"id": _ID, "hand": _HAND, "stake": _STAKE, "bet": _BET, "bet_multiple": _NEEDS_BASE,
                               "balance": _BALANCE})
#: A player at a table with ``base``: ``bet_multiple`` instead of a stake (RULES.md 6.4).
BASE_PLAYER = PLAYER.with_members("BasePlayerSchema", stake=Member("refused", reason=BASE_AND_STAKE),
                                  bet_multiple=_MULTIPLE)
#: ``POST /v1/settlements``: a dealer and 1 to 82 players, a stake each or the table's base.
SETTLEMENT = SCORING.with_members("SettlementRequestSchema", dealer=_by_base(DEALER, BASE_DEALER, required=True),
                                  players=_players(PLAYER, BASE_PLAYER), base=_BASE)

#: A seat before the deal (RULES.md 6.3): a player without a hand.
EXPOSURE_SEAT = Body("ExposureSeatSchema", {k: v for k, v in PLAYER.items() if k != "hand"})
#: A seat at a table with ``base``.
BASE_EXPOSURE_SEAT = EXPOSURE_SEAT.with_members("BaseExposureSeatSchema", stake=BASE_PLAYER["stake"],
                                                bet_multiple=_MULTIPLE)
#: The dealer before the deal: a dealer without a hand.
EXPOSURE_DEALER = Body("ExposureDealerSchema", {"bid_multiple": _NEEDS_BASE, "balance": _BALANCE})
#: The dealer before the deal at a table with ``base``.
BASE_EXPOSURE_DEALER = EXPOSURE_DEALER.with_members("BaseExposureDealerSchema", bid_multiple=_MULTIPLE)
#: ``POST /v1/exposures``: 1 to 82 seats, no hands (RULES.md 6.3, 6.5).
EXPOSURE = SCORING.with_members("ExposureRequestSchema", players=_players(EXPOSURE_SEAT, BASE_EXPOSURE_SEAT),
                                dealer=_by_base(EXPOSURE_DEALER, BASE_EXPOSURE_DEALER), base=_BASE)

#: A player of a showdown: no stake and no bet type (RULES.md 6.6).
SHOWDOWN_PLAYER = Body("ShowdownPlayerSchema", {"id": _ID, "hand": _HAND, "bet_multiple": _MULTIPLE,
                                                "balance": _BALANCE})
#: ``POST /v1/showdowns``: ``base`` and 2 to 83 players, no dealer (RULES.md 6.6).
SHOWDOWN = SCORING.with_members("ShowdownRequestSchema", base=Member("int", 1, MAX_STAKE, required=True),
                                players=Member("list", 2, seats(MAX_DECKS), required=True, body=SHOWDOWN_PLAYER,
                                               what="players"))

#: What both deal operations take: the seeds, the nonce and the decks (RULES.md 9.1).
DEAL_INPUTS = Body("DealInputs", {
    "server_seed": Member("server_seed", MIN_SEED_BYTES, MAX_SEED_BYTES, required=True),
    "client_seed": Member("client_seed", 1, MAX_CLIENT_SEED_CODE_POINTS, required=True),
    "nonce": Member("int", 0, MAX_NONCE, required=True),
    "decks": _DECKS})
#: ``POST /v1/deals``: the inputs and how many hands to deal.
DEAL = DEAL_INPUTS.with_members("DealRequestSchema", hands=Member("int", MIN_HANDS, seats(MAX_DECKS), required=True))
#: ``POST /v1/deals/verify``: the inputs, the published commitment and the hands as dealt.
VERIFY_DEAL = DEAL_INPUTS.with_members("VerifyDealRequestSchema", commitment=Member("commitment", required=True),
                                       hands=Member("dealt_hands", MIN_HANDS, seats(MAX_DECKS), required=True))


# ---------------------------------------------------------------------------------------
# The rules across members: the fields' check, its one-pass twin beside it

def table_seats(decks: int, dealer: bool) -> int:
    """How many players a table of ``decks`` seats (:func:`~service.engine.cards.seats`):
    one hand fewer when a dealer sits too (RULES.md 6; a showdown has none, 6.6).

    >>> table_seats(1, dealer=True), table_seats(8, dealer=False)
    (9, 83)
    """
    return seats(decks) - dealer


def seat_errors(data: Mapping[str, Any], decks: int, dealer: bool) -> dict[Any, Any]:
    """The problem of more players than ``decks`` seat (:func:`table_seats`), as marshmallow
    messages (the one-pass twin: ``len(players) <= table_seats(decks, dealer)``).

    >>> seat_errors({"players": [{}] * 10}, 1, dealer=True)
    {'players': {'_self': ['1 deck can seat at most 9 players besides the dealer, got 10']}}
    """
    players, most = data.get("players"), table_seats(decks, dealer)
    if isinstance(players, list) and len(players) > most:
        return {"players": {"_self": [f"{decks} deck{'s' if decks > 1 else ''} can seat at most {most} players"
                                      f"{' besides the dealer' if dealer else ''}, got {len(players)}"]}}
    return {}


def duplicate_id_errors(data: Mapping[str, Any]) -> dict[Any, Any]:
    """Each player whose ``id`` repeats an earlier player's (a ledger keys a table's results
    by id): the error names the later one, ``/players/i/id``, and says which player had it
    first. Players without an id are never duplicates (one-pass twin: :func:`distinct_ids`).

    >>> duplicate_id_errors({"players": [{"id": "a"}, {"id": "b"}, {}, {"id": "a"}]})
    {'players': {3: {'id': ["repeats the id of /players/0: each player's id must be unique"]}}}
    """
    players = data.get("players")
    first: dict[str, int] = {}
    errors: dict[Any, Any] = {}
    for i, player in enumerate(players if isinstance(players, list) else []):
        id_ = player.get("id") if isinstance(player, dict) else None
        if isinstance(id_, str):
            if id_ in first:
                errors[i] = {"id": [f"repeats the id of /players/{first[id_]}: each player's id must be unique"]}
            else:
                first[id_] = i
    return {"players": errors} if errors else {}


def distinct_ids(players: Sequence[Mapping[str, Any]]) -> bool:
    """Whether no two loaded players give the same ``id`` (those without one aside): the
    one-pass twin of :func:`duplicate_id_errors`.

    >>> distinct_ids([{"id": "a"}, {"id": None}, {"id": None}]), distinct_ids([{"id": "a"}, {"id": "a"}])
    (True, False)
    """
    ids = [player["id"] for player in players if player["id"] is not None]
    return len(set(ids)) == len(ids)


def excess_errors(path: Callable[[int], tuple[object, ...]], hands: Sequence[Sequence[int | None]], decks: int,
                  shared: bool) -> dict[Any, Any]:
    """Errors for cards beyond ``decks`` copies (:func:`~service.engine.cards.count_excess`),
    nested by path. Its one-pass twin is :func:`service.one_pass.plain_hands`, which counts
    with the same counter.

    :param path: the path of the hand at an index of ``hands``.
    :param hands: codes per hand; a code is ``None`` where the card was bad.
    :param shared: count across all hands (a table) rather than within each hand.

    >>> excess_errors(lambda h: ("hand",), [[3, 3, 4, 5, 6]], 1, shared=False)
    {'hand': {1: ['AS appears more than once (1 deck in play)']}}
    """
    errors: dict[Any, Any] = {}
    for h, i, code in count_excess(hands, decks, shared=shared):
        node = errors
        for part in path(h):
            node = node.setdefault(part, {})
        node[i] = [duplicate_message(code, decks)]
    return errors


def product_errors(data: Mapping[str, Any], bid: int | None) -> dict[Any, Any]:
    """With a valid ``base``: each player whose stake, ``base × bid × bet_multiple``, is over
    the stake bound (the error names ``/players/i/bet_multiple``); ``bid`` is ``None`` at a
    showdown (no dealer: ``base × bet_multiple``). One-pass twin: :func:`products_hold`.

    >>> product_errors({"base": 10**11, "players": [{"bet_multiple": 2}, {"bet_multiple": 11}]}, 1)
    {'players': {1: {'bet_multiple': ['base × bid_multiple × bet_multiple is 1100000000000, over the stake bound 1000000000000']}}}
    """
    product = "base × bet_multiple" if bid is None else "base × bid_multiple × bet_multiple"
    bid = 1 if bid is None else bid
    base, players = data.get("base"), data.get("players")
    errors: dict[Any, Any] = {}
    if type(base) is not int or not isinstance(players, list):
        return errors
    for i, player in enumerate(players):
        multiple = player.get("bet_multiple", 1) if isinstance(player, dict) else 1
        if type(multiple) is int and base * bid * multiple > MAX_STAKE:
            errors[i] = {"bet_multiple": [f"{product} is {base * bid * multiple}, over the stake bound {MAX_STAKE}"]}
    return {"players": errors} if errors else {}


def products_hold(base: int, bid: int, players: Sequence[Mapping[str, Any]]) -> bool:
    """Whether every loaded player's ``base × bid × bet_multiple`` is within the stake bound:
    the one-pass twin of :func:`product_errors` (a showdown's ``bid`` is 1).

    >>> products_hold(10**10, 1, [{"bet_multiple": 100}]), products_hold(10**10, 1, [{"bet_multiple": 101}])
    (True, False)
    """
    most = MAX_STAKE // (base * bid)
    return all(player.get("bet_multiple", 1) <= most for player in players)


def too_many_hands(decks: int, hands: int) -> str | None:
    """The problem of a deal of more hands than ``decks`` deal (RULES.md 9.1), or ``None``
    (the one-pass twin: ``hands <= seats(decks)``).

    >>> too_many_hands(1, 11)
    '1 deck deals at most 10 hands of five, got 11'
    """
    if hands <= seats(decks):
        return None
    return (f"{decks} deck{'s' if decks > 1 else ''} deal{'' if decks > 1 else 's'} at most {seats(decks)} "
            f"hands of five, got {hands}")


def bid_multiple(data: Mapping[str, Any]) -> int:
    """The dealer's ``bid_multiple`` as loaded (1 when absent or not an integer).

    >>> bid_multiple({"dealer": {"bid_multiple": 3}}), bid_multiple({})
    (3, 1)
    """
    dealer = data.get("dealer")
    bid = dealer.get("bid_multiple", 1) if isinstance(dealer, dict) else 1
    return bid if type(bid) is int else 1


def with_stakes(data: dict[str, Any]) -> dict[str, Any]:
    """A loaded table with ``base``: each player's ``stake`` set to ``base × bid_multiple ×
    bet_multiple`` (RULES.md 6.4); a table without ``base`` as it is. Both readers end with it.

    >>> with_stakes({"base": 10, "dealer": {"bid_multiple": 3}, "players": [{"bet_multiple": 2}, {}]})["players"]
    [{'bet_multiple': 2, 'stake': 60}, {'stake': 30}]
    """
    if "base" in data:
        bid = bid_multiple(data)
        for player in data["players"]:
            player["stake"] = data["base"] * bid * player.get("bet_multiple", 1)
    return data
