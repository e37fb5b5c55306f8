"""Deals through the API and the ``gnau`` command (RULES.md 9.1, issue 26): section 8's worked
deal, verification, every bad input a 400 naming its field, and no seed in any answer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.api.helpers import gnau
from tests.engine.test_deal import COMMITMENT, NONCE_0, NONCE_1

SEED = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
SEEDS = {"server_seed": SEED, "client_seed": "player-1"}
DEALT_0 = [hand.split() for hand in NONCE_0]


@pytest.mark.parametrize(("nonce", "hands"), [(0, NONCE_0), (1, NONCE_1)])
def test_section_8_deal_through_the_api(client: FlaskClient, nonce: int, hands: list[str]) -> None:
    response = client.post("/v1/deals", json=SEEDS | {"nonce": nonce, "hands": 4})
    assert response.status_code == 200
    assert response.get_json() == {"algorithm": "gnau-deal-v1", "commitment": COMMITMENT,
                                   "hands": [hand.split() for hand in hands]}
    assert SEED.encode() not in response.data


@pytest.mark.parametrize("nonce", [0, 1])
def test_section_8_deal_through_the_cli(client: FlaskClient, capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch, nonce: int) -> None:
    seeds = tmp_path / "seeds.json"
    seeds.write_text(json.dumps(SEEDS))
    api = client.post("/v1/deals", json=SEEDS | {"nonce": nonce, "hands": 4}).get_json()
    status, out, _ = gnau(capsys, "deal", "--file", str(seeds), "--nonce", str(nonce), "--hands", "4", "--json")
    assert status == 0
    assert json.loads(out) == api
    # From standard input, the whole body there.
    monkeypatch.setattr("sys.stdin", __import__("io").StringIO(json.dumps(SEEDS | {"nonce": nonce, "hands": 4})))
    status, out, _ = gnau(capsys, "deal", "--json")
    assert status == 0
    assert json.loads(out) == api
    status, out, _ = gnau(capsys, "deal", "--file", str(seeds), "--nonce", str(nonce), "--hands", "4")
    assert status == 0
    assert out.splitlines()[0] == f"gnau-deal-v1, commitment {COMMITMENT}"
    assert out.splitlines()[2].split(None, 1)[1] == (NONCE_0 if nonce == 0 else NONCE_1)[0]
    assert SEED not in out


def test_verification_through_the_api(client: FlaskClient) -> None:
    body = SEEDS | {"nonce": 0, "commitment": COMMITMENT.upper().replace("SHA256", "sha256"),
                    "hands": [["9d", "7♥", "5S", "6C", "Td"], None, DEALT_0[2], None]}
    answer = client.post("/v1/deals/verify", json=body).get_json()
    assert answer == {"algorithm": "gnau-deal-v1", "commitment_matches": True, "hands_match": [True, None, True, None],
                      "match": True, "hands": DEALT_0}
    swapped = client.post("/v1/deals/verify", json=body | {"hands": [DEALT_0[1], DEALT_0[0], None, None]}).get_json()
    assert (swapped["hands_match"], swapped["match"]) == ([False, False, None, None], False)
    reordered = client.post("/v1/deals/verify", json=body | {"hands": [DEALT_0[0][::-1], None, None, None]}).get_json()
    assert reordered["hands_match"][0] is False  # card for card, in order
    other = client.post("/v1/deals/verify", json=body | {"commitment": "sha256:" + "ab" * 32}).get_json()
    assert (other["commitment_matches"], other["hands_match"], other["match"]) == (False, [True, None, True, None],
                                                                                   False)
    # The hands given are the deal's count: five hands deal differently from four.
    five = client.post("/v1/deals/verify", json=body | {"hands": [None] * 5}).get_json()
    assert five["hands"] != DEALT_0
    assert len(five["hands"]) == 5
    assert five["match"] is True


def test_verification_through_the_cli(client: FlaskClient, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    seeds = tmp_path / "seeds.json"
    seeds.write_text(json.dumps(SEEDS))
    args = ["verify-deal", "--file", str(seeds), "--nonce", "0", "--commitment", COMMITMENT,
            "--hand", NONCE_0[0], "--hand", "-", "--hand", "-", "--hand", NONCE_0[3]]
    api = client.post("/v1/deals/verify", json=SEEDS | {"nonce": 0, "commitment": COMMITMENT,
                                                        "hands": [DEALT_0[0], None, None, DEALT_0[3]]}).get_json()
    status, out, _ = gnau(capsys, *args, "--json")
    assert status == 0
    assert json.loads(out) == api
    status, out, _ = gnau(capsys, *args)
    assert status == 0
    assert out.splitlines()[-1] == "verified: the commitment and every hand given match"
    args[-1] = NONCE_1[3]
    status, out, _ = gnau(capsys, *args)
    assert status == 1
    assert out.splitlines()[-1] == "NOT VERIFIED: a hand given is not the hand dealt"


@pytest.mark.parametrize(("change", "pointer", "detail"), [
    ({"server_seed": "0" * 33}, "/server_seed", "must be an even number of hexadecimal digits (whole bytes), got 33"),
    ({"server_seed": "z" + SEED[1:]}, "/server_seed", "must hold hexadecimal digits only"),
    ({"server_seed": SEED[:30]}, "/server_seed", "must be 32 to 128 hexadecimal digits (16 to 64 bytes), got 30"),
    ({"server_seed": SEED * 2 + "00"}, "/server_seed", "must be 32 to 128 hexadecimal digits (16 to 64 bytes), got 130"),
    ({"server_seed": SEED * 10_000}, "/server_seed", "must hold hexadecimal digits only"),
    ({"server_seed": [SEED]}, "/server_seed", "must be a string of 32 to 128 hexadecimal digits"),
    ({"client_seed": "☃" * 257}, "/client_seed", "(Unicode code points), got 257"),
    ({"client_seed": ""}, "/client_seed", "got 0"),
    ({"nonce": 2**53}, "/nonce", "must be an integer from 0 to 9007199254740991"),
    ({"nonce": True}, "/nonce", "must be an integer from 0 to 9007199254740991"),
    ({"hands": 11}, "/hands", "1 deck deals at most 10 hands of five, got 11"),
    ({"decks": 2, "hands": 21}, "/hands", "2 decks deal at most 20 hands of five, got 21"),
    ({"decks": 0}, "/decks", "must be an integer from 1 to 8"),
])
def test_bad_input_is_a_400_naming_the_field_and_never_quotes_a_seed(client: FlaskClient, change: dict[str, Any],
                                                                   pointer: str, detail: str) -> None:
    body = SEEDS | {"nonce": 0, "hands": 4} | change
    response = client.post("/v1/deals", json=body)
    assert response.status_code == 400
    [error] = response.get_json()["errors"]
    assert error["pointer"] == pointer
    assert detail in error["detail"]
    seed = body["server_seed"] if isinstance(body["server_seed"], str) else SEED
    assert seed[:32].encode() not in response.data
    assert seed[:32].lower().encode() not in response.data
    verify = SEEDS | {"nonce": 0, "commitment": COMMITMENT, "hands": [None] * body.get("hands", 4)} | {
        k: v for k, v in change.items() if k != "hands"}
    response = client.post("/v1/deals/verify", json=verify)
    assert response.status_code == 400
    assert seed[:32].encode() not in response.data


def test_the_largest_inputs_are_accepted(client: FlaskClient) -> None:
    """256 code points (astral ones are 2 UTF-16 units each: still 256), 64 bytes, 2^53 − 1."""
    response = client.post("/v1/deals", json={"server_seed": "Ab" * 64, "client_seed": "😀" * 256,
                                              "nonce": 2**53 - 1, "decks": 8, "hands": 83})
    assert response.status_code == 200
    assert len(response.get_json()["hands"]) == 83


def test_verify_refuses_bad_hands_and_commitments(client: FlaskClient) -> None:
    body = SEEDS | {"nonce": 0, "commitment": "sha256:" + "0" * 63, "hands": [["AS", "1S", "2S", "3S", "4S"], ["AS"], 3]}
    errors = client.post("/v1/deals/verify", json=body).get_json()["errors"]
    assert [e["pointer"] for e in errors] == ["/commitment", "/hands/0/1", "/hands/1", "/hands/2"]
    errors = client.post("/v1/deals/verify", json=SEEDS | {"nonce": 0, "commitment": COMMITMENT,
                                                           "hands": [None] * 11}).get_json()["errors"]
    assert errors == [{"pointer": "/hands", "detail": "1 deck deals at most 10 hands of five, got 11"}]


def test_deals_take_no_query_parameter(client: FlaskClient) -> None:
    for path in ("/v1/deals", "/v1/deals/verify"):
        errors = client.post(f"{path}?receipt=true", json={}).get_json()["errors"]
        assert errors[0] == {"parameter": "receipt", "detail": "unknown query parameter; this operation takes none"}


def test_the_cli_never_takes_a_seed_as_an_argument(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, _, err = gnau(capsys, "deal", "--server-seed", SEED, "--nonce", "0", "--hands", "4")
    assert status == 2
    assert "No such option '--server-seed'" in err
    assert SEED not in err
    seeds = tmp_path / "seeds.json"
    seeds.write_text(json.dumps(SEEDS | {"nonce": 3}))
    status, _, err = gnau(capsys, "deal", "--file", str(seeds), "--nonce", "0", "--hands", "4")
    assert (status, err.strip()) == (2, f"gnau: nonce is given in {seeds} and as --nonce: give it once")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"server_seed": SEED[:-1], "client_seed": "x"}))
    status, _, err = gnau(capsys, "deal", "--file", str(bad), "--nonce", "0", "--hands", "4")
    assert status == 2
    assert err.startswith("gnau: /server_seed: must be an even number")
    assert SEED[:-1] not in err
