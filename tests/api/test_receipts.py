"""Receipts (RULES.md 9.2, issue 26), verified outside the service: with joserfc against the
JWK Set the service publishes, with ``cryptography`` on the raw signature, and with the hashes
recomputed by ``rfc8785`` and :mod:`hashlib`; a tampered answer or request fails. Also the
keys: files checked at start, rotation, the development key, ``kid`` as RFC 7638 says."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import stat
from pathlib import Path
from typing import Any

import pytest
import rfc8785
import yaml
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.rsa import generate_private_key
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import given, settings
from hypothesis import strategies as st
from joserfc import jws
from joserfc.errors import BadSignatureError
from joserfc.jwk import KeySet

from service.engine.categories import SPECS
from service.engine.rules import PROFILES, RULE_KNOBS, Rules, apply_overrides
from service.http.app import create_app
from service.receipts import (
    DEVELOPMENT_MARKER,
    RECEIPT_OPERATIONS,
    ReceiptKeyError,
    load_keys,
    make_development_key,
)
from service.settings import SettingsError, from_environ
from tests import ROOT

KEYS = ROOT / "tests" / "keys"
TEST_KEY = KEYS / "receipt-test-key.pem"
OLD_PUBLIC = KEYS / "receipt-test-old-public-key.pem"
SPEC = yaml.safe_load((ROOT / "openapi.yaml").read_text(encoding="utf-8"))

SETTLEMENT = {"dealer": {"hand": ["3S", "6H", "8D", "4C", "8H"]},
              "players": [{"id": "seat-1", "hand": ["10H", "9S", "8S", "4D", "4H"], "stake": 250},
                          {"id": "seat-2", "hand": ["JS", "QH", "KD", "JC", "QD"], "stake": 100, "bet": "equal"}]}
#: One request per operation that signs: (path with query, body, operationId).
SIGNED = [
    ("/v1/evaluations?receipt=true", {"hand": ["10S", "7H", "3D", "KC", "7D"]}, "evaluateHand"),
    ("/v1/evaluations?fields=label,score&profile=niu-niu&receipt=true", {"hand": ["JS", "JH", "JC", "JD", "QH"]},
     "evaluateHand"),
    ("/v1/rankings?receipt=true", {"hands": [{"id": "ann", "hand": ["10S", "9H", "8D", "4C", "4H"]},
                                             {"hand": ["JS", "QH", "KD", "JC", "QD"]}], "decks": 1}, "rankHands"),
    ("/v1/settlements?receipt=true", SETTLEMENT, "settleRound"),
    ("/v1/settlements?profile=bull-bull&receipt=true", SETTLEMENT | {"rules": {"dealer_commission_bps": 100}},
     "settleRound"),
]


@pytest.fixture(scope="module")
def signing_app() -> Flask:
    """An app signing with the committed test-only key and publishing an older public key."""
    return create_app({"TESTING": True, "PROFILES_FILE": None, "RECEIPT_KEY_FILE": str(TEST_KEY),
                       "RECEIPT_PUBLIC_KEYS": str(OLD_PUBLIC)})


@pytest.fixture
def signer(signing_app: Flask) -> FlaskClient:
    return signing_app.test_client()


def b64(text: str) -> bytes:
    """base64url without padding, decoded."""
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def sha(value: Any) -> str:
    return "sha256:" + hashlib.sha256(rfc8785.dumps(value)).hexdigest()


def verify(jwks: dict[str, Any], token: str, request: Any, answer: dict[str, Any]) -> dict[str, Any]:
    """What a client does: check the signature with a JOSE library against the JWK Set, then
    that the signed hashes are those of what it sent and got. Returns the payload.

    :raises joserfc.errors.BadSignatureError: the signature does not verify.
    :raises AssertionError: a hash differs (the request or the answer is not the one signed).
    """
    keys = KeySet.import_key_set(jwks)  # type: ignore[arg-type]
    payload: dict[str, Any] = json.loads(jws.deserialize_compact(token, keys, algorithms=["Ed25519"]).payload)
    assert payload["request_sha256"] == sha(request), "the request is not the one signed"
    assert payload["response_sha256"] == sha({k: v for k, v in answer.items() if k != "receipt"}), \
        "the answer is not the one signed"
    return payload


@pytest.mark.parametrize(("path", "body", "operation"), SIGNED)
def test_a_receipt_verifies_outside_the_service(signer: FlaskClient, path: str, body: dict[str, Any],
                                                operation: str) -> None:
    jwks = signer.get("/.well-known/jwks.json").get_json()
    response = signer.post(path, json=body)
    assert response.status_code == 200
    answer = response.get_json()
    token = answer["receipt"]
    assert list(answer)[-1] == "receipt"
    payload = verify(jwks, token, body, answer)
    rules = PROFILES[answer["profile"]].rules
    if "rules" in body:
        rules = apply_overrides(rules, body["rules"])
    assert payload == {"operation": operation, "profile": answer["profile"], "request_sha256": sha(body),
                       "response_sha256": sha({k: v for k, v in answer.items() if k != "receipt"}),
                       "rules_sha256": rules.sha256(), "service_version": SPEC["info"]["version"]}
    assert payload["rules_sha256"].startswith(answer["rules_digest"])
    # The header and the payload are RFC 8785 bytes; the header names the key by its thumbprint.
    header, body_part, signature = token.split(".")
    assert b64(header) == rfc8785.dumps({"alg": "Ed25519", "kid": jwks["keys"][0]["kid"]})
    assert b64(body_part) == rfc8785.dumps(payload)
    # The same signature checks with cryptography alone, from the JWK's x.
    public = Ed25519PublicKey.from_public_bytes(b64(jwks["keys"][0]["x"]))
    public.verify(b64(signature), f"{header}.{body_part}".encode("ascii"))
    # No time, no caller: the same request gives the same receipt.
    assert signer.post(path, json=body, headers={"X-Request-ID": "another"}).get_json()["receipt"] == token
    # Without receipt=true the answer is the same, without the receipt.
    plain = signer.post(path.replace("receipt=true", "receipt=false"), json=body).get_json()
    assert plain == {k: v for k, v in answer.items() if k != "receipt"}


def test_a_tampered_answer_or_request_fails(signer: FlaskClient, tmp_path: Path) -> None:
    jwks = signer.get("/.well-known/jwks.json").get_json()
    answer = signer.post("/v1/settlements?receipt=true", json=SETTLEMENT).get_json()
    verify(jwks, answer["receipt"], SETTLEMENT, answer)
    tampered = json.loads(json.dumps(answer))
    tampered["players"][0]["amount"] = 500
    with pytest.raises(AssertionError, match="the answer is not the one signed"):
        verify(jwks, answer["receipt"], SETTLEMENT, tampered)
    other = json.loads(json.dumps(SETTLEMENT))
    other["players"][0]["stake"] = 25
    with pytest.raises(AssertionError, match="the request is not the one signed"):
        verify(jwks, answer["receipt"], other, answer)
    # A payload rewritten to match the tampered answer no longer carries a valid signature.
    header, payload, signature = answer["receipt"].split(".")
    claims = json.loads(b64(payload)) | {"response_sha256": sha({k: v for k, v in tampered.items()
                                                                 if k != "receipt"})}
    forged = ".".join([header, base64.urlsafe_b64encode(rfc8785.dumps(claims)).rstrip(b"=").decode(), signature])
    with pytest.raises(BadSignatureError):
        verify(jwks, forged, SETTLEMENT, tampered)
    # Another key's JWK Set does not verify it.
    stranger = load_keys(str(_key_file(tmp_path / "stranger-receipt-key.pem")))
    with pytest.raises(BadSignatureError):
        verify(stranger.jwk_set() | {"keys": [k | {"kid": jwks["keys"][0]["kid"]} for k in stranger.jwk_set()["keys"]]},
               answer["receipt"], SETTLEMENT, answer)


def test_the_jwk_set(signer: FlaskClient, client: FlaskClient) -> None:
    jwks = signer.get("/.well-known/jwks.json").get_json()
    assert [list(k) for k in jwks["keys"]] == [["kty", "crv", "x", "kid", "alg", "use"]] * 2
    for key in jwks["keys"]:
        assert (key["kty"], key["crv"], key["alg"], key["use"]) == ("OKP", "Ed25519", "Ed25519", "sig")
        assert len(b64(key["x"])) == 32
        assert "d" not in key
        # RFC 7638: SHA-256 of the required members in lexicographic order, no whitespace.
        canonical = json.dumps({"crv": "Ed25519", "kty": "OKP", "x": key["x"]}, separators=(",", ":"), sort_keys=True)
        assert key["kid"] == base64.urlsafe_b64encode(hashlib.sha256(canonical.encode()).digest()).rstrip(b"=").decode()
    old = serialization.load_pem_public_key(OLD_PUBLIC.read_bytes())
    assert isinstance(old, Ed25519PublicKey)
    assert b64(jwks["keys"][1]["x"]) == old.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    assert client.get("/.well-known/jwks.json").get_json() == {"keys": []}  # no key configured


def test_without_a_key_receipt_true_is_a_503(client: FlaskClient) -> None:
    response = client.post("/v1/settlements?receipt=true", json=SETTLEMENT)
    assert response.status_code == 503
    assert response.get_json()["type"] == "/problems/receipts-not-configured"
    assert client.post("/v1/settlements?receipt=false", json=SETTLEMENT).status_code == 200
    assert client.post("/v1/settlements?receipt=true", json={}).status_code == 400  # the request first


@pytest.mark.parametrize("value", ["yes", "True", "1", ""])
def test_receipt_takes_true_or_false(signer: FlaskClient, value: str) -> None:
    response = signer.post(f"/v1/rankings?receipt={value}", json={"hands": []})
    errors = response.get_json()["errors"]
    assert errors[0] == {"parameter": "receipt", "detail": "must be true or false"}
    assert errors[1]["pointer"] == "/hands"


def test_receipt_elsewhere_is_an_unknown_parameter(signer: FlaskClient) -> None:
    for path, body in [("/v1/evaluations/batch", {"hands": [["AS", "2S", "3S", "4S", "5S"]]}),
                       ("/v1/exposures", {"players": [{"stake": 1}]}), ("/v1/odds", {"hand": ["AS", "2S", "3S"]})]:
        response = signer.post(f"{path}?receipt=true", json=body)
        assert response.status_code == 400
        assert response.get_json()["errors"][0]["parameter"] == "receipt"
    assert signer.get("/v1/profiles?receipt=true").status_code == 400


def test_the_contract_lists_receipt_on_exactly_the_signing_operations() -> None:
    """One list in code (RECEIPT_OPERATIONS); openapi.yaml's ``receipt`` parameter and 503
    answer on the same operations (an operation not yet in the contract, e.g. a future
    showdown, is the one entry to add to both)."""
    declared = set()
    for item in SPEC["paths"].values():
        for operation in item.values():
            names = {p.get("$ref", "").rsplit("/", 1)[-1] for p in operation.get("parameters", [])}
            if "Receipt" in names:
                declared.add(operation["operationId"])
                assert "503" in operation["responses"], operation["operationId"]
    assert declared == RECEIPT_OPERATIONS


def test_rules_sha256_is_the_whole_digest_and_rfc8785() -> None:
    """rules_sha256 (docs/deals-and-receipts.md, normative): SHA-256 of the RFC 8785 JSON of
    the rules without the knobs added after the first release that hold their default, and
    without the categories added after it in ranking and payouts while they are off; the
    page lists exactly those knobs and categories."""
    page = (ROOT / "docs" / "deals-and-receipts.md").read_text()
    late_knobs = dict(re.findall(r"`(\w+)` \(`?([^)`]+)`?\)",
                                 page[page.index("<!-- late-knobs -->"):page.index("<!-- /late-knobs -->")]))
    late_categories = re.findall(r"`(\w+)`", page[page.index("<!-- late-categories -->"):
                                                   page.index("<!-- /late-categories -->")])
    assert list(late_knobs) == [n for n, k in RULE_KNOBS.items() if not k.always_digested]
    assert late_categories == [c.value for c, spec in SPECS.items() if not spec.legacy]
    defaults = Rules().as_dict()
    assert late_knobs == {n: json.dumps(defaults[n]).strip('"') for n in late_knobs}
    samples = [p.rules for p in PROFILES.values()] + [
        Rules(commission_bps=500), Rules(dealer_commission_bps=1),
        apply_overrides(Rules(), {"straight": True, "payouts": {"flush": 9}}),
        apply_overrides(Rules(), {"five_small_max_rank": 5, "bomb_order": "high_card"}),
        Rules(balance_caps="table", tie_payout="stake")]
    for rules in samples:
        data = {k: v for k, v in rules.as_dict().items() if not (k in late_knobs and v == defaults[k])}
        off = [c for c in late_categories if not data.get(c, False)]
        data["ranking"] = [c for c in data["ranking"] if c not in off]
        data["payouts"] = {k: v for k, v in data["payouts"].items() if k not in off}
        assert rules.sha256() == "sha256:" + hashlib.sha256(rfc8785.dumps(data)).hexdigest()
        assert rules.digest() == rules.sha256()[:23]
    assert PROFILES["standard"].rules.sha256() == (
        "sha256:f95d84ea30e9fbbcc0af48d99c93760bf25b70f215d032f362098d174c9b2565")  # unchanged since 1.0


def _key_file(path: Path, marker: str = "") -> Path:
    pem = Ed25519PrivateKey.generate().private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                     serialization.NoEncryption())
    path.write_bytes(marker.encode() + pem)
    return path


def test_key_files_are_checked_at_start(tmp_path: Path) -> None:
    rsa = generate_private_key(public_exponent=65537, key_size=2048).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    (tmp_path / "rsa.pem").write_bytes(rsa)
    encrypted = Ed25519PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.BestAvailableEncryption(b"secret"))
    (tmp_path / "encrypted.pem").write_bytes(encrypted)
    (tmp_path / "public.pem").write_bytes(OLD_PUBLIC.read_bytes())
    (tmp_path / "junk.pem").write_text("not a key\n")
    (tmp_path / "empty").mkdir()
    cases = {
        ("GNAU_RECEIPT_KEY_FILE", str(tmp_path / "missing.pem")): "cannot read: No such file or directory",
        ("GNAU_RECEIPT_KEY_FILE", str(tmp_path / "rsa.pem")): "it holds another kind of key",
        ("GNAU_RECEIPT_KEY_FILE", str(tmp_path / "encrypted.pem")): "must hold one unencrypted Ed25519 private key",
        ("GNAU_RECEIPT_KEY_FILE", str(tmp_path / "public.pem")): "must hold one unencrypted Ed25519 private key",
        ("GNAU_RECEIPT_KEY_FILE", str(tmp_path / "junk.pem")): "in PKCS#8 PEM (-----BEGIN PRIVATE KEY-----)",
        ("GNAU_RECEIPT_PUBLIC_KEYS", str(tmp_path / "junk.pem")): "holds no PEM public key",
        ("GNAU_RECEIPT_PUBLIC_KEYS", str(tmp_path / "empty")): "holds no PEM public key (no *.pem file)",
        ("GNAU_RECEIPT_PUBLIC_KEYS", str(tmp_path / "rsa.pem")): "PEM block 1 is not an Ed25519 key",
    }
    for (name, value), message in cases.items():
        with pytest.raises(SettingsError) as caught:
            from_environ({name: value})
        text = str(caught.value)
        assert text.startswith(f"{name}: {value}"), text
        assert message in text, text
        assert "\n" not in text
        assert "PRIVATE KEY-----\n" not in text
    assert from_environ({"GNAU_RECEIPT_KEY_FILE": str(TEST_KEY)}).receipt_key_file == str(TEST_KEY)
    assert from_environ({"GNAU_RECEIPT_KEY_FILE": ""}).receipt_key_file is None


def test_rotation_publishes_older_keys_from_a_file_or_a_folder(tmp_path: Path) -> None:
    folder = tmp_path / "keys"
    folder.mkdir()
    current = _key_file(folder / "receipt-key.pem")
    older = _key_file(tmp_path / "old.pem")
    (folder / "b-old-public.pem").write_bytes(
        serialization.load_pem_private_key(older.read_bytes(), None).public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo) + OLD_PUBLIC.read_bytes())
    (folder / "notes.txt").write_text("not read")
    keys = load_keys(str(current), str(folder))
    # The signing key first, each key once (its own file in the folder publishes nothing new).
    assert len(keys.published) == 3
    assert keys.kid == keys.published[0]["kid"]
    assert keys.published[2]["kid"] == load_keys(None, str(OLD_PUBLIC)).published[0]["kid"]
    assert load_keys(None, None).jwk_set() == {"keys": []}
    with pytest.raises(ReceiptKeyError):
        load_keys(None, None).sign({"a": "b"})


def test_the_development_key(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / ".dev" / "receipt-key.pem"
    assert make_development_key(path) is True
    assert make_development_key(path) is False  # made once, then kept
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_text().startswith(DEVELOPMENT_MARKER + "\n-----BEGIN PRIVATE KEY-----")
    assert load_keys(str(path)).development is True
    assert load_keys(str(TEST_KEY)).development is False
    with caplog.at_level("WARNING", logger="service.receipts"):
        create_app({"TESTING": True, "PROFILES_FILE": None, "RECEIPT_KEY_FILE": str(path)})
    assert any("DEVELOPMENT key" in r.getMessage() for r in caplog.records)


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**60), 2**60) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet=st.characters(codec="utf-8") | st.sampled_from("\u2028\u2029\x7f\U0001f600\ufb01")),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(alphabet=st.characters(codec="utf-8") | st.sampled_from("\U0001f600\ufb01é"), max_size=4),
                      children, max_size=4),
    max_leaves=20)


@settings(max_examples=600, deadline=None)
@given(_JSON_VALUES)
def test_canonical_json_is_rfc8785_byte_for_byte(value: Any) -> None:
    """canonical_json (orjson with sorted keys where it writes the same bytes, else the
    reference) gives exactly what ``rfc8785`` gives, or fails as it does: floats, keys
    beyond the Basic Multilingual Plane, integers beyond ±(2^53 − 1), control characters,
    U+2028 and U+2029, lone surrogates."""
    from service.receipts import canonical_json

    try:
        expected: bytes | type[Exception] = rfc8785.dumps(value)
    except Exception as exc:  # the reference's own error is what is compared
        expected = type(exc)
    try:
        got: bytes | type[Exception] = canonical_json(value)
    except Exception as exc:
        got = type(exc)
    assert got == expected
