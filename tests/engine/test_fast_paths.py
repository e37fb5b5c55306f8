"""The one resolver and the one formatter give exactly what the literal evaluator gives.

* :func:`service.engine.tables.resolve` (classes from weights for a few hands, numpy for many;
  tables complete or filled class by class) written by each of the formatter's outputs
  (:func:`service.serialize.evaluation_data`, :func:`~service.serialize.evaluation_texts`,
  :func:`~service.serialize.evaluations_json`, class-only fieldsets too) against
  ``evaluation_dict(evaluate_reference(...))`` hand by hand, under every built-in profile,
  with one, two and eight decks, suited hands for the suited bonuses, and rules never seen;
* the endpoints that use it, end to end, byte for byte after parsing;
* the one-pass batch validation (:class:`service.schemas.HandsField` over
  :func:`service.engine.cards.read_hands`): every bad card of every hand named by its exact
  JSON pointer, and the same data and messages as reading hand by hand, bad hands mixed in,
  several decks, repeats anywhere in a hand (numpy's repeat check against the loop);
* the collector pause the batch view runs under;
* the settlement and ranking answers (written straight into dicts, each evaluation a text of
  the one formatter) against the same data dumped by the response schemas from the reference.

No timings here: bench/ measures speed.
"""

from __future__ import annotations

import gc
import random
import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

import orjson
import pytest
from flask.testing import FlaskClient

from service.engine.cards import CARDS, Card, parse_card
from service.engine.reference import evaluate_reference
from service.engine.rules import PROFILES, Rules, apply_overrides
from service.engine.tables import (
    ORDERS,
    PLACEMENTS,
    Table,
    built_table,
    evaluate,
    resolve,
    resolved,
    table_for,
)
from service.http import gc_pause
from service.serialize import evaluation_data, evaluation_dict, evaluation_texts, evaluations_json, select

PROFILE_NAMES = sorted(PROFILES)


def random_hands(n: int, decks: int, seed: int) -> list[list[int]]:
    """``n`` hands of codes dealt from ``decks`` decks; every seventh is all one suit."""
    rng = random.Random(seed)
    shoe = [c for c in range(52) for _ in range(decks)]
    hands: list[list[int]] = []
    for i in range(n):
        if i % 7 == 0:
            suit = rng.randrange(4)
            hands.append([rank * 4 + suit for rank in rng.sample(range(13), 5)])
        elif i % 11 == 0 and decks > 1:  # a repeated card, allowed with several decks
            hand = rng.sample(range(52), 4)
            hands.append([*hand[:2], hand[0], *hand[2:4]])
        else:
            hands.append(rng.sample(shoe, 5))
    return hands


def cards_of(codes: list[int]) -> tuple[Card, ...]:
    return tuple(CARDS[c] for c in codes)


def expected(hands: list[list[int]], rules: Rules, fields: tuple[str, ...] | None = None) -> list[dict[str, Any]]:
    return [select(evaluation_dict(evaluate_reference(cards_of(h), rules)), fields) for h in hands]


FIELDSETS: list[tuple[str, ...] | None] = [
    None, ("label", "score"), ("category",), ("payout",), ("category", "label", "score", "payout"),
    ("hand", "ox", "power"), ("nenku", "suited"), ("ox",), ("label", "suited", "payout"),
]


def formatted(hands: list[list[int]], rules: Rules, fields: tuple[str, ...] | None) -> list[bytes]:
    """Every output of the one formatter for ``hands``, each as the JSON bytes of its list."""
    resolution = resolved(hands, rules)
    outputs = [orjson.dumps([evaluation_data(row, fields) for row in resolution.rows()]),
               orjson.dumps([orjson.Fragment(t) for t in evaluation_texts(resolution, fields)]),
               orjson.dumps(evaluations_json(resolution, fields))]
    if hands:
        as_batch = read(hands)
        if hasattr(as_batch, "by_code"):  # read in one pass: numpy's classes and orders
            outputs.append(orjson.dumps(evaluations_json(resolved(as_batch, rules, by_code=as_batch.by_code,
                                                                  array=as_batch.array), fields)))
    return outputs


def assert_formatter_equals_the_reference(hands: list[list[int]], rules: Rules) -> None:
    for fields in FIELDSETS:
        want = orjson.dumps(expected(hands, rules, fields))
        for i, got in enumerate(formatted(hands, rules, fields)):
            assert got == want, (fields, i)


@pytest.mark.parametrize("decks", [1, 2, 8])
@pytest.mark.parametrize("profile", PROFILE_NAMES)
def test_the_formatter_equals_the_reference(profile: str, decks: int) -> None:
    rules = PROFILES[profile].rules
    assert_formatter_equals_the_reference(random_hands(1_500, decks, seed=hash((profile, decks)) % 10_000), rules)


def test_the_samples_exercise_what_they_should() -> None:
    """The random hands above do reach the suited bonus, the Nenku and every category."""
    liberal = [evaluation_data(r) for r in resolved(random_hands(3_000, 1, seed=1), PROFILES["liberal"].rules).rows()]
    assert any(e["suited"] for e in liberal)
    assert any(e["nenku"] for e in liberal)
    assert any(e["payout"] != 0 and e["suited"] for e in liberal)
    standard = [evaluation_data(r) for r in resolved(random_hands(3_000, 2, seed=2), PROFILES["standard"].rules).rows()]
    assert {e["category"] for e in standard} >= {"no_ox", "single_ox", "double_ox"}


@pytest.mark.parametrize("bonus", ["ox", "hand"])
def test_suited_bonuses(bonus: str) -> None:
    rules = apply_overrides(PROFILES["standard"].rules, {"suited_bonus": bonus, "suited_multiplier": 3, "bomb": True})
    hands = random_hands(1_000, 2, seed=3)
    assert_formatter_equals_the_reference(hands, rules)
    assert any(e["suited"] for e in expected(hands, rules))


def test_never_seen_rules_fill_only_the_classes_their_hands_need() -> None:
    """Under rules without a table, hands are resolved class by class: a few hands fill a
    few entries, and what they give equals the reference; completing the table later
    changes nothing."""
    rules = apply_overrides(Rules(), {"bomb": True, "ties": "push", "double_ox_order": "ace_high",
                                      "payouts": {"single_ox_7": 3}})
    assert built_table(rules) is None
    hands = random_hands(40, 2, seed=4)
    assert_formatter_equals_the_reference(hands, rules)
    table = built_table(rules)
    assert table is not None
    assert not table.is_complete
    assert 0 < table.filled <= len(hands)
    table.complete()
    assert table.is_complete
    assert table.filled == len(table.entries)
    assert_formatter_equals_the_reference(hands, rules)


def test_a_lazy_table_and_a_complete_one_agree_on_every_class() -> None:
    rules = apply_overrides(Rules(), {"five_small_max_points": 9, "suited_bonus": "ox", "four_dukes": True})
    lazy, complete = Table(rules), Table(rules).complete()
    for k in random.Random(5).sample(range(len(complete.entries)), 500):
        assert lazy.entry(k) == complete.entry(k)


@pytest.mark.parametrize("profile", PROFILE_NAMES)
def test_evaluate_equals_the_reference(profile: str) -> None:
    rules = PROFILES[profile].rules
    for codes in random_hands(2_000, 2, seed=6):
        assert evaluate(cards_of(codes), rules) == evaluate_reference(cards_of(codes), rules)


def test_every_input_order_of_one_hand() -> None:
    """Each of the 120 orders of a Double-Ox hand: the same result, cards in input order."""
    from itertools import permutations

    rules = PROFILES["standard"].rules
    base = [CARDS.index(c) for c in CARDS if c.text in ("3S", "6H", "8D", "4C", "8H")]
    for order in permutations(base):
        hand = list(order)
        [got] = [evaluation_data(r) for r in resolved([hand], rules).rows()]
        assert got == evaluation_dict(evaluate_reference(cards_of(hand), rules))
        assert got["label"] == "Double-Ox 8"


def test_sort_hands_is_a_stable_sort_of_each_hand() -> None:
    """The sorting network against Python's stable sort: every one of the 120 orders of five
    distinct codes, and random hands with repeats (several decks) and few distinct codes."""
    from itertools import permutations

    import numpy as np

    from service.engine.classes import sort_hands

    rng = random.Random(11)
    hands = [list(p) for p in permutations([40, 7, 29, 3, 18])]
    hands += [[rng.choice(pool) for _ in range(5)] for pool in ([0, 51], [3, 4, 5], list(range(52))) for _ in range(300)]
    ordered, positions = sort_hands(np.array(hands, dtype=np.uint8))
    assert ordered.dtype == np.uint8
    assert positions.shape == (len(hands), 5)
    for hand, got, at in zip(hands, ordered.tolist(), positions.tolist(), strict=True):
        assert at == sorted(range(5), key=hand.__getitem__)
        assert got == sorted(hand)


def test_placements_map_sorted_positions_back_to_input() -> None:
    hand = [40, 7, 29, 3, 18]  # codes; sorted: 3, 7, 18, 29, 40
    order = ORDERS.index(tuple(sorted(range(5), key=hand.__getitem__)))
    for ox, placements in PLACEMENTS.items():
        ox_at, ox_from, power_at, power_from = placements[order]
        sorted_codes = sorted(hand)
        assert [hand[i] for i in ox_at] == sorted((sorted_codes[p] for p in ox), key=hand.index)
        assert [sorted_codes[ox[k]] for k in ox_from] == [hand[i] for i in ox_at]
        power = [p for p in range(5) if p not in ox]
        assert [sorted_codes[power[k]] for k in power_from] == [hand[i] for i in power_at]


def test_the_resolver_reports_the_chosen_slot() -> None:
    rules = PROFILES["liberal"].rules
    hands = random_hands(500, 1, seed=7)
    for result in resolve(hands, table_for(rules)).results():
        reference = evaluate_reference(cards_of(list(result.codes)), rules)
        assert (result.category, result.suited, result.payout) == (reference.category, reference.suited,
                                                                    reference.payout)
        assert (result.slot is None) == (reference.ox is None)
        assert result.evaluation() == reference


# ---------------------------------------------------------------------------------------
# End to end


def texts(hands: list[list[int]]) -> list[list[str]]:
    return [[CARDS[c].text for c in h] for h in hands]


@pytest.mark.parametrize("profile", PROFILE_NAMES)
def test_batch_endpoint_equals_the_reference(client: FlaskClient, profile: str) -> None:
    rules = PROFILES[profile].rules
    hands = random_hands(400, 2, seed=8)
    response = client.post(f"/v1/evaluations/batch?profile={profile}", json={"hands": texts(hands), "decks": 2})
    assert response.status_code == 200, response.get_data(as_text=True)
    body = orjson.loads(response.get_data())
    assert list(body) == ["profile", "rules_digest", "evaluations"]
    assert body["profile"] == profile
    assert body["rules_digest"] == rules.digest()
    assert body["evaluations"] == expected(hands, rules)


def test_batch_endpoint_with_overrides(client: FlaskClient) -> None:
    overrides = {"suited_bonus": "hand", "suited_multiplier": 4, "bomb": True}
    rules = apply_overrides(PROFILES["standard"].rules, overrides)
    hands = random_hands(300, 1, seed=9)
    body = client.post("/v1/evaluations/batch", json={"hands": texts(hands), "rules": overrides}).get_json()
    assert list(body) == ["profile", "rules_digest", "rules", "max_payout", "evaluations"]
    assert body["rules"] == rules.listed()
    assert body["evaluations"] == expected(hands, rules)


def test_batch_accepts_every_spelling(client: FlaskClient) -> None:
    body = client.post("/v1/evaluations/batch",
                       json={"hands": [["Ts", "0h", "10♦", "k♣", "aS"], ["10S", "7H", "3D", "KC", "7D"]]}).get_json()
    assert [e["hand"] for e in body["evaluations"]] == [["10S", "10H", "10D", "KC", "AS"],
                                                         ["10S", "7H", "3D", "KC", "7D"]]


@pytest.mark.parametrize("profile", PROFILE_NAMES)
def test_single_evaluation_equals_the_reference(client: FlaskClient, profile: str) -> None:
    rules = PROFILES[profile].rules
    for codes in random_hands(40, 1, seed=10):
        body = client.post(f"/v1/evaluations?profile={profile}", json={"hand": texts([codes])[0]}).get_json()
        want = evaluation_dict(evaluate_reference(cards_of(codes), rules))
        assert body == {"profile": profile, "rules_digest": rules.digest()} | want
        assert list(body) == ["profile", "rules_digest", *want]


def test_batch_error_pointers_are_exact(client: FlaskClient) -> None:
    hands: list[Any] = [["AS", "2D", "3C", "4H", "5S"] for _ in range(20)]
    hands[3][1] = "1S"
    hands[7] = ["AS", "AS", "2D", "3C", "4H"]
    hands[9] = ["AS", "2D", "3C", "4H"]
    hands[12] = "AS"
    hands[15][2] = 5
    hands[16][0] = []
    hands[18] = ["KS", "KS", "KS", "1X", "QQ"]
    response = client.post("/v1/evaluations/batch", json={"hands": hands})
    assert response.status_code == 400
    assert response.mimetype == "application/problem+json"
    bad_card = "is not a card: write a rank (A 2-9 10 T 0 J Q K) then a suit (S H D C or ♠ ♥ ♦ ♣), e.g. 'AS' or '10H'"
    assert response.get_json()["errors"] == [
        {"pointer": "/hands/3/1", "detail": f"'1S' {bad_card}"},
        {"pointer": "/hands/9", "detail": "a hand is exactly 5 cards, got 4"},
        {"pointer": "/hands/12", "detail": "a hand must be an array of 5 cards"},
        {"pointer": "/hands/15/2", "detail": "a card must be a string such as 'AS' or '10H', not a number"},
        {"pointer": "/hands/16/0", "detail": "a card must be a string such as 'AS' or '10H', not an array"},
        {"pointer": "/hands/18/3", "detail": f"'1X' {bad_card}"},
        {"pointer": "/hands/18/4", "detail": f"'QQ' {bad_card}"},
        {"pointer": "/hands/18/1", "detail": "KS appears more than once (1 deck in play)"},
        {"pointer": "/hands/18/2", "detail": "KS appears more than once (1 deck in play)"},
        {"pointer": "/hands/7/1", "detail": "AS appears more than once (1 deck in play)"},
    ]


def test_batch_duplicates_count_per_deck(client: FlaskClient) -> None:
    hands = [["AS", "AS", "2D", "3C", "4H"], ["KS", "KS", "KS", "2D", "3C"]]
    response = client.post("/v1/evaluations/batch", json={"hands": hands, "decks": 2})
    assert response.status_code == 400
    assert response.get_json()["errors"] == [
        {"pointer": "/hands/1/2", "detail": "KS appears more than twice (2 decks in play)"},
    ]


def test_batch_error_in_one_hand_of_a_large_batch(client: FlaskClient) -> None:
    hands = texts(random_hands(10_000, 1, seed=11))
    hands[9_876][4] = "ZZ"
    response = client.post("/v1/evaluations/batch", json={"hands": hands})
    assert response.status_code == 400
    assert [e["pointer"] for e in response.get_json()["errors"]] == ["/hands/9876/4"]


def test_batch_size_limits(client: FlaskClient) -> None:
    for hands in ([], [["AS", "2D", "3C", "4H", "5S"]] * 10_001):
        response = client.post("/v1/evaluations/batch", json={"hands": hands})
        assert response.status_code == 400
        assert [e["pointer"] for e in response.get_json()["errors"]] == ["/hands"]


def test_batch_leaves_the_collector_on(client: FlaskClient) -> None:
    assert gc.isenabled()
    client.post("/v1/evaluations/batch", json={"hands": [["AS", "2D", "3C", "4H", "5S"]]})
    client.post("/v1/evaluations/batch", json={"hands": [["AS", "AS", "3C", "4H", "5S"]]})
    assert gc.isenabled()


# ---------------------------------------------------------------------------------------
# The collector pause


def test_pause_nests_and_restores() -> None:
    assert gc.isenabled()
    with gc_pause.paused():
        with gc_pause.paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_pause_keeps_a_disabled_collector_disabled() -> None:
    gc.disable()
    try:
        with gc_pause.paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_pause_restores_after_an_error() -> None:
    with pytest.raises(ValueError, match="boom"), gc_pause.paused():
        raise ValueError("boom")
    assert gc.isenabled()


def test_pause_across_threads() -> None:
    inside = threading.Barrier(2)
    leave = threading.Event()

    def hold() -> None:
        with gc_pause.paused():
            inside.wait()
            leave.wait(10)

    thread = threading.Thread(target=hold)
    thread.start()
    with gc_pause.paused():
        inside.wait()
    assert not gc.isenabled()  # the other thread is still inside
    leave.set()
    thread.join(10)
    assert gc.isenabled()


# ---------------------------------------------------------------------------------------
# The single-hand request fast path


def _plain_data(value: Any) -> Any:
    """``value`` with every mapping a dict and every sequence (strings aside) a list."""
    from collections.abc import Mapping, Sequence

    if isinstance(value, Mapping):
        return {k: _plain_data(v) for k, v in value.items()}
    if isinstance(value, Sequence) and not isinstance(value, str):
        return [_plain_data(v) for v in value]
    return value


def _load_both(body: Any, schema: Any = None) -> tuple[Any, Any]:
    """The schema's read (one-pass reader first) and marshmallow's load, result or messages,
    as plain JSON data (a hand read in one pass is a tuple of codes, one read by the fields a
    list: the same codes)."""
    from marshmallow import ValidationError

    from service.schemas import EvaluationRequestSchema

    schema = schema or EvaluationRequestSchema()
    out: list[Any] = []
    for load in (schema.read, schema.load):
        try:
            out.append(_plain_data(load(body)))
        except ValidationError as exc:
            out.append(("error", exc.messages))
    return out[0], out[1]


def test_single_hand_fast_load_equals_the_fields() -> None:
    from service.engine.cards import accepted_spellings

    rng = random.Random(12)
    spellings = accepted_spellings()
    bodies: list[Any] = [{"hand": [rng.choice(spellings) for _ in range(5)]} for _ in range(300)]
    bodies += [
        {"hand": ["AS", "AS", "2D", "3C", "4H"]},
        {"hand": ["AS", "2D", "3C", "4H"]},
        {"hand": ["AS", "2D", "3C", "4H", "5S", "6S"]},
        {"hand": ["AS", "2D", "3C", "4H", 5]},
        {"hand": ["AS", "2D", "3C", "4H", ["5S"]]},
        {"hand": ["AS", "2D", "3C", "4H", "1S"]},
        {"hand": "AS 2D 3C 4H 5S"},
        {"hand": None},
        {"hands": ["AS", "2D", "3C", "4H", "5S"]},
        {"hand": ["AS", "2D", "3C", "4H", "5S"], "decks": 2},
        {"hand": ["AS", "2D", "3C", "4H", "5S"], "rules": {"bomb": True}},
        {"hand": ["AS", "2D", "3C", "4H", "5S"], "x": 1},
        {},
    ]
    fast_taken = 0
    for body in bodies:
        fast, fields = _load_both(body)
        assert fast == fields, body
        fast_taken += isinstance(fast, dict) and set(body) == {"hand"}
    assert fast_taken > 100


def _variants(body: dict[str, Any], entries: str, rng: random.Random) -> list[Any]:
    """``body`` and bodies that differ from it in one way each (most of them invalid), the
    way a client gets a request wrong: members of an entry changed, removed or added."""
    out: list[Any] = [body, [body], {**body, "decks": 2}, {**body, "decks": True}, {**body, "decks": 9},
                      {**body, "rules": {"bomb": True}}, {**body, "x": 1}, {k: v for k, v in body.items() if k != entries}]
    changes: list[Any] = [None, 7, "", "x" * 129, "x" * 128, True, 10**12, 10**12 + 1, 0, -1, 2.0, "equal", "triple",
                          ["AS", "AS", "2D", "3C", "4H"], ["AS", "2D", "3C", "4H"], ["AS", "2D", "3C", "4H", "1S"],
                          "AS 2D 3C 4H 5S", {"hand": []}]
    for _ in range(80):
        items = [dict(e) for e in body[entries]]
        item = rng.choice(items)
        key = rng.choice(["id", "hand", "stake", "bet", "extra"])
        if rng.random() < 0.2:
            item.pop(key, None)
        else:
            item[key] = rng.choice(changes)
        out.append({**body, entries: items})
    out.append({**body, entries: body[entries][:1]})
    out.append({**body, entries: [*body[entries], "not an object"]})
    return out


def _repeat_id(body: dict[str, Any]) -> dict[str, Any]:
    """``body`` with its last player given its first player's id."""
    players = [dict(p) for p in body["players"]]
    players[-1]["id"] = players[0]["id"]
    return {**body, "players": players}


def test_ranking_fast_load_equals_the_fields() -> None:
    from service.schemas import RankingRequestSchema

    rng = random.Random(21)
    schema = RankingRequestSchema()
    taken = 0
    named: dict[str, Callable[[int], bool]] = {"every": lambda i: True, "none": lambda i: False,
                                               "two of three": lambda i: i % 3 > 0}
    for n, ids in ((2, "every"), (3, "two of three"), (47, "none"), (48, "two of three"), (200, "every"),
                   (200, "two of three")):
        hands = [[CARDS[c].text for c in h] for h in random_hands(n, 1, seed=n)]
        body = {"hands": [({"id": f"h{i}"} if named[ids](i) else {}) | {"hand": h} for i, h in enumerate(hands)]}
        for variant in _variants(body, "hands", rng):
            fast, fields = _load_both(variant, schema)
            assert fast == fields, variant
            taken += schema.one_pass(variant) is not None
    assert taken > 60


def test_settlement_fast_load_equals_the_fields() -> None:
    from service.schemas import SettlementRequestSchema

    rng = random.Random(22)
    schema = SettlementRequestSchema()
    taken = 0
    for players, decks in ((1, 1), (9, 1), (10, 2), (30, 4)):
        shoe = rng.sample([c for c in range(52) for _ in range(decks)], 5 * (players + 1))
        text = [CARDS[c].text for c in shoe]
        body: dict[str, Any] = {"dealer": {"hand": text[:5]}, "players": [
            {"id": f"p{i}", "hand": text[5 * i:5 * i + 5], "stake": 10 * i} | ({"bet": "equal"} if i % 2 else {})
            for i in range(1, players + 1)]} | ({"decks": decks} if decks > 1 else {})
        # The round forms (RULES.md 6.4-6.5): the one-pass reader takes the valid ones, and loads them as the
        # fields do.
        unstaked = [{k: v for k, v in p.items() if k != "stake"} for p in body["players"]]
        round_forms: list[Any] = [
            {**body, "base": 10}, {**body, "base": 10, "players": [p | {"bet_multiple": 2} for p in unstaked]},
            {**body, "base": 10, "dealer": {**body["dealer"], "bid_multiple": 3, "balance": 9}, "players": unstaked},
            {**body, "dealer": {**body["dealer"], "bid_multiple": 2}}, {**body, "dealer": {**body["dealer"], "balance": 5}},
            {**body, "players": [p | {"balance": 5} for p in body["players"]]},
            {**body, "players": [p | {"bet_multiple": 2} for p in body["players"]]},
            {**body, "base": 10**12, "players": [p | {"bet_multiple": 2} for p in unstaked]}]
        # A repeated id (DECISIONS 10) is left to the fields, which name it.
        repeats = [_repeat_id(body), _repeat_id({**body, "base": 10, "players": unstaked})] if players > 1 else []
        for variant in [*_variants(body, "players", rng), {**body, "dealer": {"hand": text[5:10]}},
                        {**body, "dealer": {"hand": text[:5], "id": "d"}}, *round_forms, *repeats]:
            fast, fields = _load_both(variant, schema)
            assert fast == fields, variant
            taken += schema.one_pass(variant) is not None
        assert all(schema.one_pass(variant) is None for variant in repeats)
        assert [schema.one_pass(variant) is not None for variant in round_forms] == [
            False, True, True, False, True, True, False, False]
    assert taken > 40


def test_showdown_fast_load_equals_the_fields() -> None:
    from service.one_pass import plain_showdown
    from service.schemas import ShowdownRequestSchema

    rng = random.Random(23)
    schema = ShowdownRequestSchema()
    taken = 0
    for players, decks in ((2, 1), (10, 1), (11, 2), (30, 4)):
        shoe = rng.sample([c for c in range(52) for _ in range(decks)], 5 * players)
        text = [CARDS[c].text for c in shoe]
        body: dict[str, Any] = {"base": 10, "players": [
            {"id": f"p{i}", "hand": text[5 * i:5 * i + 5]} | ({"bet_multiple": i % 100 + 1} if i % 2 else {})
            | ({"balance": 10 * i} if i % 3 else {}) for i in range(players)]} | ({"decks": decks} if decks > 1 else {})
        variants = [*_variants(body, "players", rng), {k: v for k, v in body.items() if k != "base"},
                    {**body, "base": 0}, {**body, "base": 10**12}, {**body, "base": True}, {**body, "dealer": {}},
                    {**body, "players": [p | {"bet_multiple": 101} for p in body["players"]]},
                    {**body, "players": [p | {"balance": -1} for p in body["players"]]},
                    {**body, "players": [p | {"stake": 5} for p in body["players"]]},
                    {**body, "players": body["players"][:1]}, _repeat_id(body)]
        for variant in variants:
            fast, fields = _load_both(variant, schema)
            assert fast == fields, variant
            taken += plain_showdown(variant) is not None
        assert plain_showdown(body) is not None
        assert plain_showdown(_repeat_id(body)) is None
    assert taken > 12


def test_deal_fast_load_equals_the_fields() -> None:
    """A deal body read in one pass (:func:`~service.one_pass.plain_deal`) is what the
    fields load, on valid bodies and on bodies wrong in one way each."""
    from service.deal_schemas import DealRequestSchema
    from service.one_pass import plain_deal

    schema = DealRequestSchema()
    body: dict[str, Any] = {"server_seed": "5eEd" * 16, "client_seed": "player-1", "nonce": 123_456, "hands": 10}
    valid = [body, {**body, "decks": 1}, {**body, "decks": 8, "hands": 83}, {**body, "server_seed": "ab" * 16},
             {**body, "server_seed": "ab" * 64}, {**body, "client_seed": "é" * 256}, {**body, "nonce": 0},
             {**body, "nonce": 2**53 - 1}, {**body, "hands": 2}]
    wrong: list[Any] = [
        [body], None, {}, {**body, "x": 1}, {k: v for k, v in body.items() if k != "hands"},
        {k: v for k, v in body.items() if k != "server_seed"}, {**body, "server_seed": "ab" * 15},
        {**body, "server_seed": "ab" * 65}, {**body, "server_seed": "abc" * 11}, {**body, "server_seed": "xy" * 16},
        {**body, "server_seed": 5}, {**body, "client_seed": ""}, {**body, "client_seed": "é" * 257},
        {**body, "client_seed": 5}, {**body, "nonce": -1}, {**body, "nonce": 2**53}, {**body, "nonce": True},
        {**body, "nonce": 1.0}, {**body, "nonce": "1"}, {**body, "decks": 0}, {**body, "decks": 9},
        {**body, "decks": True}, {**body, "hands": 11}, {**body, "hands": 1}, {**body, "decks": 2, "hands": 21},
        {**body, "hands": 10.0}]
    for variant in valid:
        assert plain_deal(variant) is not None, variant
        fast, fields = _load_both(variant, schema)
        assert fast == fields, variant
    for variant in wrong:
        assert plain_deal(variant) is None, variant
        fast, fields = _load_both(variant, schema)
        assert fast == fields, variant
        assert fast[0] == "error", variant


@pytest.mark.parametrize("profile", PROFILE_NAMES)
def test_settlement_answer_is_the_schema_dump(profile: str) -> None:
    """The hot path's answer (dicts and formatter texts) is what the response schema dumps
    from the reference evaluator's results, member for member and in order."""
    from service.engine.settle import settle
    from service.operations.scoring import load_body, settlement_answer
    from service.profiles import ProfileRegistry
    from service.response_schemas import SettlementResponseSchema
    from service.schemas import SettlementRequestSchema

    rng = random.Random(f"settle-{profile}")
    for players, rules in ((1, None), (9, {"commission_bps": 250, "dealer_commission_bps": 700}), (40, None)):
        decks = 1 if players < 10 else 5
        shoe = rng.sample([c for c in range(52) for _ in range(decks)], 5 * (players + 1))
        text = [CARDS[c].text for c in shoe]
        body: dict[str, Any] = {"decks": decks, "dealer": {"hand": text[:5]}, "players": [
            {"id": f"p{i}", "hand": text[5 * i:5 * i + 5], "stake": rng.choice([1, 19, 100, 10**12])}
            | ({"bet": rng.choice(["double", "equal"])} if i % 3 else {})
            for i in range(1, players + 1)]}
        if rules is not None:
            body["rules"] = rules
        errors: list[Any] = []
        s = load_body(SettlementRequestSchema(), body, profile, ProfileRegistry(), errors)
        assert s is not None, errors
        answer, _ = settlement_answer(s)
        reference = [evaluate_reference(cards_of(shoe[5 * i:5 * i + 5]), s.rules) for i in range(players + 1)]
        seats = s.data["players"]
        result = settle(reference[0], [(e, p["stake"]) for e, p in zip(reference[1:], seats, strict=True)], s.rules,
                        [p["bet"] for p in seats])
        from service.engine.settle import table_exposure
        exposure = table_exposure([(p["stake"], p["bet"]) for p in seats], s.rules)
        dumped = SettlementResponseSchema().dump(s.context | {
            "dealer": {"evaluation": result.dealer, "gross": result.dealer_gross, "commission": result.dealer_commission,
                       "net": result.dealer_net, "exposure": exposure.dealer},
            "players": [{"id": p["id"], "evaluation": r.evaluation, "stake": r.stake, "bet": r.bet,
                         "outcome": r.outcome, "gross": r.gross, "commission": r.commission, "amount": r.amount,
                         "exposure": x} for p, r, x in zip(seats, result.players, exposure.players, strict=True)],
            "house": result.house})
        assert orjson.dumps(answer) == orjson.dumps(dumped)  # same data, same order


#: Ids of ranked hands: some absent, all plain, one needing escapes in each style (written as
#: JSON text), one that holds the text ``null`` (no escape, but written as JSON text too).
RANKING_IDS: dict[str, Callable[[int], str | None]] = {
    "some absent": lambda i: f"h{i}" if i % 5 else None,
    "all plain": lambda i: f"h{i} ♦/'<>&\u2028" if i % 2 else str(i),
    "escapes": lambda i: ['q"', "b\\s", "nl\n", "tab\t", "nul\x00", "del\x7f", "é"][i % 7] + str(i),
    "null text": lambda i: "null" if i == 7 else f",null{i}",
}


@pytest.mark.parametrize("profile", PROFILE_NAMES)
@pytest.mark.parametrize("ids", list(RANKING_IDS))
def test_ranking_answer_is_the_schema_dump(profile: str, ids: str) -> None:
    from service.engine.compare import rank_hands
    from service.operations.scoring import load_body, ranking_answer
    from service.profiles import ProfileRegistry
    from service.response_schemas import RankingResponseSchema
    from service.schemas import RankingRequestSchema

    codes = random_hands(300, 2, seed=hash(("rank", profile)) % 1000)
    entries: list[dict[str, Any]] = [({} if (name := RANKING_IDS[ids](i)) is None else {"id": name})
                                     | {"hand": [CARDS[c].text for c in h]} for i, h in enumerate(codes)]
    body = {"decks": 2, "hands": entries}
    errors: list[Any] = []
    s = load_body(RankingRequestSchema(), body, profile, ProfileRegistry(), errors)
    assert s is not None, errors
    for fields in (None, ("label", "score"), ("hand", "ox")):
        answer, _ = ranking_answer(s, fields)
        reference = [evaluate_reference(cards_of(h), s.rules) for h in codes]
        ranking = [{"index": r.index, "id": entries[r.index].get("id"), "position": r.position,
                    "evaluation": r.evaluation} for r in rank_hands(reference, s.rules)]
        dumped = RankingResponseSchema().dump(s.context | {"ranking": ranking})
        for item in dumped["ranking"]:
            item["evaluation"] = select(dict(item["evaluation"]), fields)
        assert orjson.dumps(answer) == orjson.dumps(dumped)


def test_commission_shares_the_evaluation_table() -> None:
    """Commission never changes an evaluation: bull-bull without its commission evaluates
    with bull-bull's table, and a per-request commission override needs no table of its own."""
    bull_bull = PROFILES["bull-bull"].rules
    niu_niu = apply_overrides(bull_bull, {"commission_bps": 0})  # bull-bull's hands, no commission
    assert table_for(bull_bull) is table_for(niu_niu)
    custom = apply_overrides(PROFILES["standard"].rules, {"commission_bps": 123, "dealer_commission_bps": 45})
    standard = table_for(PROFILES["standard"].rules)
    assert resolved([[0, 1, 2, 3, 4]], custom).table is standard
    hands = random_hands(50, 1, seed=13)
    assert formatted(hands, bull_bull, None) == formatted(hands, niu_niu, None)
    assert_formatter_equals_the_reference(hands, bull_bull)


# ---------------------------------------------------------------------------------------
# The batch reader and JSON writer: one pass for valid batches, numpy for repeats and
# class-only fields, text templates for full answers


def read(codes: list[list[int]]) -> Any:
    from service.engine.batch import AT_ONCE_FROM, Hands, read_hands

    hands, problems = read_hands(texts(codes))
    assert not problems
    assert isinstance(hands, Hands) == (len(codes) >= AT_ONCE_FROM)
    return hands


@pytest.mark.parametrize("extra", [-1, 0, 1, 255])
@pytest.mark.parametrize("chunks", [0, 1, 2])
def test_batch_json_at_the_writers_chunk_boundaries(chunks: int, extra: int) -> None:
    """The full writer joins its texts a chunk at a time: sizes on and beside the
    boundaries give the same text as the reference (no hand lost, doubled or left without
    its comma), and the hands are counted by category."""
    from service import serialize

    n = max(0, chunks * serialize._CHUNK + extra)
    rules = PROFILES["standard"].rules
    codes = random_hands(n, 1, seed=n)
    want = expected(codes, rules)
    assert formatted(codes, rules, None)[2] == orjson.dumps(want)
    categories = resolved(codes, rules).categories()
    assert categories == Counter(e["category"] for e in want)
    assert sum(categories.values()) == n
    assert 0 not in categories.values()


@pytest.mark.parametrize("overrides", [{}, {"double_ox_order": "ace_high"}, {"three_six_pair": True, "bomb": True},
                                       {"tens_are_dukes": True, "four_dukes": True, "bomb": True}])
@pytest.mark.parametrize("profile", PROFILE_NAMES)
def test_a_score_names_one_label_category_and_payout(profile: str, overrides: dict[str, Any]) -> None:
    """What the class-only JSON relies on: under one set of rules, equal scores are the
    same category, label and payout."""
    rules = apply_overrides(PROFILES[profile].rules, overrides) if overrides else PROFILES[profile].rules
    seen: dict[int, tuple[str, str, int]] = {}
    for entry in table_for(rules).every:
        assert seen.setdefault(entry.score, (entry.category, entry.label, entry.payout)) == (
            entry.category, entry.label, entry.payout)


def test_labels_and_card_texts_need_no_json_escapes() -> None:
    """What the templates rely on: these strings go into the JSON text as they are."""
    strings = {c.text for c in CARDS} | {e.label for p in PROFILES.values() for e in table_for(p.rules).every}
    strings |= {e.category for e in table_for(PROFILES["niu-niu"].rules).every}
    assert all(orjson.dumps(s) == b'"' + s.encode() + b'"' for s in strings)


def test_count_excess_with_numpy_equals_the_loop() -> None:
    from service.engine.cards import count_excess

    rng = random.Random(16)
    for decks in range(1, 9):
        codes = [[rng.randrange(52) for _ in range(5)] for _ in range(500)]
        codes += [[7] * 5, [7, 8, 7, 8, 7], [1, 2, 3, 4, 1]]
        hands = read(codes)
        assert count_excess(hands, decks, shared=False) == count_excess(codes, decks, shared=False)
        assert count_excess(hands, decks, shared=True) == count_excess(codes, decks, shared=True)


def _slow_batch_messages(hands: list[Any], decks: int) -> dict[Any, Any]:
    """The batch's messages read hand by hand (no fast path), repeats counted naively,
    merged the way marshmallow merges a schema validator's errors into the fields'."""
    from service.engine.cards import duplicate_message, read_hand

    errors: dict[Any, Any] = {}
    codes = []
    for i, hand in enumerate(hands):
        found_codes, problems = read_hand(hand)
        codes.append(found_codes)
        if problems:
            errors[i] = {"_self" if k is None else k: [m] for k, m in problems.items()}
    repeats: dict[Any, Any] = {}
    for i, found_codes in enumerate(codes):
        seen: dict[int, int] = {}
        for k, code in enumerate(found_codes):
            if code is not None:
                seen[code] = seen.get(code, 0) + 1
                if seen[code] > decks:
                    repeats.setdefault(i, {})[k] = [duplicate_message(code, decks)]
    for i, found in repeats.items():
        errors.setdefault(i, {}).update(found)
    return {"hands": errors} if errors else {}


@pytest.mark.parametrize("decks", [1, 2, 3, 5])
def test_batch_reading_equals_hand_by_hand(decks: int) -> None:
    """Valid batches (fast path) and batches with bad hands mixed in (the per-hand path):
    the same data and the same messages, in the same order, as reading hand by hand."""
    from marshmallow import ValidationError

    from service.engine.cards import read_hand
    from service.schemas import BatchRequestSchema

    rng = random.Random(f"batch-{decks}")
    schema = BatchRequestSchema()
    bad: list[Any] = [["AS", "AS", "2D", "3C", "4H"], ["KS", "KH", "KS", "KS", "KS"], "AS", ["AS"], ["1S"] * 5,
                      ["AS", 5, None, ["x"], {"a": 1}], ["AS", "2D", "3C", "4H", "5S", "6S"], ["AS"] * 11, [],
                      ["AS", "as", "A♠", "aS", "2D"], ["10H", "TH", "0h", "10♥", "T♥"], ["ZZ", "AS", "AS", "AS", "AS"]]
    for round_ in range(40):
        codes = random_hands(rng.randrange(1, 60), decks, seed=round_)
        hands: list[Any] = [[rng.choice([t, t.lower()]) for t in h] for h in texts(codes)]
        if round_ % 2:
            for _ in range(rng.randrange(1, 5)):
                hands.insert(rng.randrange(len(hands) + 1), rng.choice(bad))
        want = _slow_batch_messages(hands, decks)
        messages: Any = {}
        try:
            loaded = schema.load({"hands": hands, "decks": decks})
        except ValidationError as exc:
            loaded, messages = None, exc.messages
        assert messages == want, hands
        if want:
            assert list(messages["hands"]) == list(want["hands"])  # the order of the pointers
        else:
            assert loaded is not None
            assert [tuple(h) for h in loaded["hands"]] == [tuple(read_hand(h)[0]) for h in hands]


def test_batch_endpoint_with_mixed_bad_hands_and_decks(client: FlaskClient) -> None:
    hands = texts(random_hands(3_000, 2, seed=17))
    hands[10] = ["AS", "AS", "AS", "2D", "3C"]   # three of a card with two decks
    hands[2_000][3] = "AX"
    response = client.post("/v1/evaluations/batch", json={"hands": hands, "decks": 2})
    assert response.status_code == 400
    assert response.get_json()["errors"] == [
        {"pointer": "/hands/2000/3", "detail": "'AX' is not a card: write a rank (A 2-9 10 T 0 J Q K) then a suit "
                                               "(S H D C or ♠ ♥ ♦ ♣), e.g. 'AS' or '10H'"},
        {"pointer": "/hands/10/2", "detail": "AS appears more than twice (2 decks in play)"},
    ]
    hands[10], hands[2_000][3] = ["AS", "AS", "2D", "2D", "3C"], "AH"
    sparse = client.post("/v1/evaluations/batch?fields=label,score", json={"hands": hands, "decks": 2}).get_json()
    full = client.post("/v1/evaluations/batch", json={"hands": hands, "decks": 2}).get_json()
    assert sparse["evaluations"][10] == {"label": "Five Small", "score": 700}
    assert sparse["evaluations"] == [{"label": e["label"], "score": e["score"]} for e in full["evaluations"]]
    assert full["evaluations"] == expected([[CARDS.index(c) for c in (parse_card(t) for t in h)] for h in hands],
                                           PROFILES["standard"].rules)


@pytest.mark.parametrize("profile", ["standard", "liberal"])
def test_formations_keep_their_positions(profile: str) -> None:
    """The engine keeps where the ox and power cards sit in the hand as given (nothing
    finds them again by matching text): both evaluators, equal positions, right cards."""
    rules = PROFILES[profile].rules
    for codes in random_hands(500, 2, seed=18):
        hand = cards_of(codes)
        fast, reference = evaluate(hand, rules), evaluate_reference(hand, rules)
        assert fast == reference
        for formation in (fast.ox, fast.power):
            if formation is not None:
                assert [hand[i] for i in formation.positions] == list(formation.cards)
                assert list(formation.positions) == sorted(formation.positions)
        if fast.ox is not None and fast.power is not None:
            assert sorted(fast.ox.positions + fast.power.positions) == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("caps", ["none", "players", "table"])
@pytest.mark.parametrize("showdown", [False, True])
def test_balance_problems_fast_path_equals_the_walk(caps: str, showdown: bool,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Capped tables with every balance given skip the walk over the players: the walk itself
    (the check switched off) finds the same problems, on tables with and without balances,
    dealers of each shape and players that are not objects."""
    from service.engine.rules import Rules, apply_overrides
    from service.operations import rounds

    rules = apply_overrides(Rules(), {"balance_caps": caps})
    pairs = apply_overrides(rules, {"showdown": "all_pairs"}) if caps != "none" and showdown else None
    players: list[Any] = [[{"balance": 5}, {"balance": 0}], [{"balance": 5}, {}], [{"balance": 5}, 7], [], "x"]
    dealers: list[Any] = [{"balance": 9}, {}, None, 3, "absent"]
    bodies: list[Any] = [None, [], {"players": 3}]
    bodies += [{"players": p} | ({} if d == "absent" else {"dealer": d}) for p in players for d in dealers]
    every = rounds._every_balance
    taken = []

    def counted(body: Any, *, dealer: bool) -> bool:
        taken.append(every(body, dealer=dealer))
        return taken[-1]

    for body in bodies:
        for r in (rules, pairs) if pairs else (rules,):
            with monkeypatch.context() as m:
                m.setattr(rounds, "_every_balance", counted)
                fast = rounds.balance_problems(body, r, showdown=showdown)
                m.setattr(rounds, "_every_balance", lambda *_, **__: False)
                assert rounds.balance_problems(body, r, showdown=showdown) == fast, body
    assert (sum(taken) >= 2) == (caps != "none")  # the fast path was taken where caps are on
