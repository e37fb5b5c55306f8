"""Sparse fieldsets: ``?fields=`` on evaluations, batches and rankings answers exactly the
named members of the full answer (Zalando guideline 157)."""

from __future__ import annotations

import random
from itertools import combinations
from typing import Any

import pytest
from flask.testing import FlaskClient

from service.engine.rules import PROFILES
from service.serialize import EVALUATION_FIELDS

DECK = [r + s for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K") for s in "SHDC"]


def hands(n: int, seed: int) -> list[list[str]]:
    rng = random.Random(seed)
    return [rng.sample(DECK, 5) for _ in range(n)]


def subset(evaluation: dict[str, Any], fields: tuple[str, ...]) -> dict[str, Any]:
    return {f: evaluation[f] for f in EVALUATION_FIELDS if f in fields}


@pytest.mark.parametrize("profile", list(PROFILES))
@pytest.mark.parametrize("fields", [("label", "score"), ("category",), ("payout",), ("label", "score", "payout"),
                                    ("hand", "ox", "power"), ("nenku", "suited"), EVALUATION_FIELDS])
def test_a_batch_with_fields_is_the_full_answers_subset(client: FlaskClient, profile: str,
                                                        fields: tuple[str, ...]) -> None:
    body = {"hands": hands(300, seed=len(fields))}
    full = client.post(f"/v1/evaluations/batch?profile={profile}", json=body).get_json()
    sparse = client.post(f"/v1/evaluations/batch?profile={profile}&fields={','.join(fields)}", json=body).get_json()
    assert sparse["profile"] == full["profile"]
    assert sparse["rules_digest"] == full["rules_digest"]
    assert sparse["evaluations"] == [subset(e, fields) for e in full["evaluations"]]
    assert all(list(e) == [f for f in EVALUATION_FIELDS if f in fields] for e in sparse["evaluations"])


def test_fields_under_a_suited_bonus_and_custom_rules(client: FlaskClient) -> None:
    body: dict[str, Any] = {"hands": [*hands(200, seed=4), ["AS", "KS", "QS", "JS", "10S"]],
                            "rules": {"suited_bonus": "hand", "suited_multiplier": 3}}
    full = client.post("/v1/evaluations/batch", json=body).get_json()
    for combo in combinations(("label", "score", "payout", "suited"), 2):
        sparse = client.post(f"/v1/evaluations/batch?fields={','.join(combo)}", json=body).get_json()
        assert sparse["evaluations"] == [subset(e, combo) for e in full["evaluations"]]
        assert sparse["rules"] == full["rules"]


def test_single_evaluations_and_rankings_take_fields(client: FlaskClient) -> None:
    hand = ["3S", "6H", "8D", "4C", "8H"]
    full = client.post("/v1/evaluations", json={"hand": hand}).get_json()
    sparse = client.post("/v1/evaluations?fields=score,label,score", json={"hand": hand}).get_json()
    assert sparse == {"profile": "standard", "rules_digest": full["rules_digest"], "label": "Double-Ox 8",
                      "score": full["score"]}
    body = {"hands": [{"id": str(i), "hand": h} for i, h in enumerate(hands(50, seed=9))]}
    full_ranking = client.post("/v1/rankings", json=body).get_json()["ranking"]
    sparse_ranking = client.post("/v1/rankings?fields=label", json=body).get_json()["ranking"]
    assert [(r["index"], r["position"], r["id"]) for r in sparse_ranking] == \
        [(r["index"], r["position"], r["id"]) for r in full_ranking]
    assert [r["evaluation"] for r in sparse_ranking] == [{"label": r["evaluation"]["label"]} for r in full_ranking]


@pytest.mark.parametrize(("query", "detail"), [
    ("fields=label,colour", "unknown field 'colour'"),
    ("fields=", "give one or more of"),
    ("fields=label,,score", "give one or more of"),
    ("fields=label&fields=score", "give fields once"),
    ("fields=" + "label," * 40 + "score", "at most 200 characters, got 245"),  # the contract's maxLength
])
def test_bad_fields_are_a_400_naming_the_parameter(client: FlaskClient, query: str, detail: str) -> None:
    response = client.post(f"/v1/evaluations/batch?{query}", json={"hands": hands(2, seed=1)})
    assert response.status_code == 400
    problem = response.get_json()
    assert [e["parameter"] for e in problem["errors"]] == ["fields"]
    assert detail in problem["errors"][0]["detail"]


def test_only_answers_with_evaluations_take_fields(client: FlaskClient) -> None:
    body = {"dealer": {"hand": ["3S", "6H", "8D", "4C", "8H"]},
            "players": [{"hand": ["10H", "9C", "8S", "4S", "4D"], "stake": 10}]}
    response = client.post("/v1/settlements?fields=label", json=body)
    assert response.status_code == 400
    assert response.get_json()["errors"] == [{"parameter": "fields",
                                              "detail": "unknown query parameter; this operation takes lang and profile"}]


@pytest.mark.parametrize("profile", ["standard", "niu-niu", "liberal"])
def test_fields_with_several_decks_and_repeated_cards(client: FlaskClient, profile: str) -> None:
    rng = random.Random(profile)
    shoe = DECK * 3
    body = {"decks": 3, "hands": [rng.sample(shoe, 5) for _ in range(400)] + [["KS", "KS", "KS", "QS", "QS"]]}
    full = client.post(f"/v1/evaluations/batch?profile={profile}", json=body).get_json()
    for fields in (("label", "score"), ("category", "payout"), ("hand", "power", "suited"), ("score",)):
        sparse = client.post(f"/v1/evaluations/batch?profile={profile}&fields={','.join(fields)}", json=body)
        assert sparse.get_json()["evaluations"] == [subset(e, fields) for e in full["evaluations"]]
