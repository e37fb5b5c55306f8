"""Drives every operation of a live server with the client generated from openapi.yaml.

Run by ``tests/live/test_generated_client.py`` inside the temporary environment the generated
client was installed into: ``python generated_client_driver.py BASE_URL OUT.json``. It
writes what it saw (status codes, headers and the parsed models turned back into data with
``to_dict()``) to ``OUT.json``; the test asserts on it. The client is imported inside
:func:`drive`, so importing this module (pytest's doctest collection) needs no client.
"""

from __future__ import annotations

import hashlib
import json
import sys
from types import SimpleNamespace
from typing import Any

import yaml

__all__ = ["drive", "verify_receipt"]

#: RULES.md section 8's worked deal.
SERVER_SEED = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
COMMITMENT = "sha256:630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"


def verify_receipt(jwks: dict[str, Any], request: Any, answer: dict[str, Any]) -> dict[str, bool]:
    """What a client does with a receipt (RULES.md 9.2), with a JOSE library (joserfc) and an
    RFC 8785 one (rfc8785), nothing of the service: check the signature against the JWK
    Set, then the hashes of what was sent and received; and that a tampered answer or
    request fails.

    :return: ``signature`` (verified), ``request`` and ``response`` (their hashes match),
        ``tampered_answer`` and ``tampered_request`` (each *fails*, as it must).
    """
    import rfc8785  # type: ignore[import-not-found, unused-ignore]
    from joserfc import jws  # type: ignore[import-not-found, unused-ignore]
    from joserfc.jwk import KeySet  # type: ignore[import-not-found, unused-ignore]

    def sha(value: Any) -> str:
        return "sha256:" + hashlib.sha256(rfc8785.dumps(value)).hexdigest()

    keys = KeySet.import_key_set(jwks)  # type: ignore[arg-type, unused-ignore]
    payload = json.loads(jws.deserialize_compact(answer["receipt"], keys, algorithms=["Ed25519"]).payload)
    unsigned = {k: v for k, v in answer.items() if k != "receipt"}
    digest = unsigned["rules_digest"]
    tampered = unsigned | {"rules_digest": digest[:-1] + ("1" if digest[-1] == "0" else "0")}
    changed = request | {"decks": request.get("decks", 1) % 8 + 1}
    return {"signature": True, "request": payload["request_sha256"] == sha(request),
            "response": payload["response_sha256"] == sha(unsigned),
            "tampered_answer": tampered != unsigned and payload["response_sha256"] != sha(tampered),
            "tampered_request": changed != request and payload["request_sha256"] != sha(changed),
            "operation": payload["operation"]}

DEALER = ["3S", "6H", "8D", "4C", "8H"]  # Double-Ox 8
PLAYERS = [("seat-1", ["10H", "9S", "8S", "4D", "4H"], 250),  # No Ox: pays 250 x 2
           ("seat-2", ["JS", "QH", "KD", "JC", "QD"], 100)]  # Five Dukes: collects 100 x 10


def drive(base_url: str) -> dict[str, Any]:
    """Call every operation once or more; return ``{operationId: [observation, ...]}``."""
    from gnau_scoring_client import Client  # type: ignore[import-not-found]
    from gnau_scoring_client.api.analysis import (  # type: ignore[import-not-found]
        analyse_distribution,
        analyse_house_edge,
        get_profile_distribution,
        get_profile_house_edge,
        odds_against_dealer,
    )
    from gnau_scoring_client.api.deals import deal_hands, verify_deal  # type: ignore[import-not-found]
    from gnau_scoring_client.api.documentation import (  # type: ignore[import-not-found]
        docs_asset,
        docs_page,
        home,
    )
    from gnau_scoring_client.api.operations import (  # type: ignore[import-not-found]
        health,
        metrics,
        openapi_document,
        readiness,
    )
    from gnau_scoring_client.api.profiles import get_profile, list_profiles  # type: ignore[import-not-found]
    from gnau_scoring_client.api.receipts import get_receipt_keys  # type: ignore[import-not-found]
    from gnau_scoring_client.api.scoring import (  # type: ignore[import-not-found]
        evaluate_hand,
        evaluate_hands,
        rank_hands,
        settle_round,
        settle_showdown,
        table_exposures,
    )
    from gnau_scoring_client.models import (  # type: ignore[import-not-found]
        AnalysisRequest,
        BatchRequest,
        DealerRequest,
        DealRequest,
        EvaluationRequest,
        ExposureDealerRequest,
        ExposureRequest,
        ExposureSeatRequest,
        HouseEdgeRequest,
        OddsRequest,
        OpenapiDocumentResponse200,
        PlayerRequest,
        RankingEntryRequest,
        RankingRequest,
        RulesOverrides,
        SettlementRequest,
        ShowdownPlayerRequest,
        ShowdownRequest,
        VerifyDealRequest,
    )

    seen: dict[str, list[dict[str, Any]]] = {}

    def record(operation: str, response: Any, **extra: Any) -> None:
        parsed = response.parsed
        seen.setdefault(operation, []).append({
            "status": int(response.status_code),
            "content_type": response.headers.get("Content-Type", ""),
            "location": response.headers.get("Location"),
            "request_id": response.headers.get("X-Request-ID"),
            "content_language": response.headers.get("Content-Language"),
            "model": type(parsed).__name__,
            "body": parsed.to_dict() if hasattr(parsed, "to_dict") else parsed,
            **extra,
        })

    with Client(base_url=base_url, raise_on_unexpected_status=True, timeout=30) as client:
        record("evaluateHand", evaluate_hand.sync_detailed(
            client=client, body=EvaluationRequest(hand=["10S", "7H", "3D", "KC", "7D"]),
            x_request_id="generated-client-1"))
        record("evaluateHand", evaluate_hand.sync_detailed(
            client=client, body=EvaluationRequest(hand=["10S", "7H", "3D", "KC", "7D"],
                                                  rules=RulesOverrides(three_six_swap=False))))
        record("evaluateHand", evaluate_hand.sync_detailed(
            client=client, profile="niu-niu", body=EvaluationRequest(hand=["JS", "JH", "JC", "JD", "QH"])))
        record("evaluateHand", evaluate_hand.sync_detailed(  # a poker shape, labels in Chinese (issue 24)
            client=client, profile="niu-niu-plus", lang="zh-Hans",
            body=EvaluationRequest(hand=["7S", "7H", "7D", "9C", "9H"])))
        # Bad input: the models do not check card spellings when sending, so a bad card
        # goes out as written; decks is out of range.
        record("evaluateHand", evaluate_hand.sync_detailed(
            client=client, body=EvaluationRequest(hand=["10S", "1S", "3D", "KC", "7D"], decks=9)))

        record("evaluateHands", evaluate_hands.sync_detailed(
            client=client, body=BatchRequest(hands=[["10S", "9H", "8D", "4C", "4H"], ["3s", "6♥", "8D", "4C", "8h"]])))

        record("rankHands", rank_hands.sync_detailed(client=client, body=RankingRequest(hands=[
            RankingEntryRequest(id="ann", hand=["10S", "9H", "8D", "4C", "4H"]),
            RankingEntryRequest(id="bo", hand=["JS", "QH", "KD", "JC", "QD"]),
            RankingEntryRequest(hand=["10S", "9H", "AD", "7C", "4H"]),
        ])))

        record("settleRound", settle_round.sync_detailed(client=client, body=SettlementRequest(
            dealer=DealerRequest(hand=DEALER),
            players=[PlayerRequest(id=i, hand=h, stake=s) for i, h, s in PLAYERS])))
        record("settleRound", settle_round.sync_detailed(client=client, profile="bull-bull", body=SettlementRequest(
            dealer=DealerRequest(hand=["KH", "QS", "10D", "4C", "AC"]),
            players=[PlayerRequest(id="p1", hand=["JS", "9H", "AD", "5C", "5D"], stake=1000, bet="double"),
                     PlayerRequest(id="p2", hand=["7S", "3H", "JH", "8C", "10C"], stake=1000, bet="equal")])))
        # RULES.md section 8's bid for banker with table caps (issue 25).
        record("settleRound", settle_round.sync_detailed(client=client, profile="niu-niu", body=SettlementRequest(
            decks=2, base=100, rules=RulesOverrides(balance_caps="table"),
            dealer=DealerRequest(hand=["KH", "QS", "10D", "3C", "4C"], bid_multiple=3, balance=1000),
            players=[PlayerRequest(id=f"p{m}", hand=h, bet_multiple=m, balance=b) for m, h, b in (
                (1, ["JS", "9H", "AD", "5C", "5D"], 500), (2, ["9S", "9D", "KS", "2H", "4D"], 10_000),
                (3, ["KH", "QS", "10D", "3C", "4C"], 10_000), (4, ["7S", "3H", "JH", "8C", "10C"], 10_000))])))
        # A receipt, verified against the JWK Set the service publishes (the server signs
        # with the committed test-only key).
        keys = get_receipt_keys.sync_detailed(client=client)
        record("getReceiptKeys", keys)
        table = SettlementRequest(dealer=DealerRequest(hand=DEALER),
                                  players=[PlayerRequest(id=i, hand=h, stake=s) for i, h, s in PLAYERS])
        signed = settle_round.sync_detailed(client=client, receipt="true", body=table)
        record("settleRound", signed, verified=verify_receipt(json.loads(keys.content), table.to_dict(),
                                                               json.loads(signed.content)))
        showdown = ShowdownRequest(base=10, players=[
            ShowdownPlayerRequest(id="s1", hand=["JS", "9H", "AD", "5C", "5D"], bet_multiple=2),
            ShowdownPlayerRequest(id="s2", hand=["7S", "3H", "JH", "8C", "10C"]),
            ShowdownPlayerRequest(id="s3", hand=["9S", "9D", "KS", "2H", "4D"], bet_multiple=4),
            ShowdownPlayerRequest(id="s4", hand=["2S", "5H", "8D", "7C", "QH"], bet_multiple=3)])
        record("settleShowdown", settle_showdown.sync_detailed(client=client, profile="niu-niu", body=showdown))
        record("settleShowdown", settle_showdown.sync_detailed(client=client, body=ShowdownRequest(
            base=10, players=[ShowdownPlayerRequest(hand=["JS", "9H", "AD", "5C", "5D"])])))
        signed = settle_showdown.sync_detailed(client=client, profile="niu-niu", receipt="true", body=showdown)
        record("settleShowdown", signed, verified=verify_receipt(json.loads(keys.content), showdown.to_dict(),
                                                                 json.loads(signed.content)))
        evaluation = EvaluationRequest(hand=["10S", "7H", "3D", "KC", "7D"])
        signed = evaluate_hand.sync_detailed(client=client, receipt="true", fields="label", body=evaluation)
        record("evaluateHand", signed, verified=verify_receipt(json.loads(keys.content), evaluation.to_dict(),
                                                                json.loads(signed.content)))

        record("dealHands", deal_hands.sync_detailed(client=client, body=DealRequest(
            server_seed=SERVER_SEED, client_seed="player-1", nonce=1, hands=4)))
        record("dealHands", deal_hands.sync_detailed(client=client, body=DealRequest(
            server_seed=SERVER_SEED[:-1], client_seed="player-1", nonce=1, hands=11)))
        record("verifyDeal", verify_deal.sync_detailed(client=client, body=VerifyDealRequest(
            server_seed=SERVER_SEED, client_seed="player-1", nonce=0, commitment=COMMITMENT,
            hands=[["9D", "7H", "5S", "6C", "10D"], None, None, ["4C", "7S", "4D", "2D", "5H"]])))

        record("tableExposures", table_exposures.sync_detailed(client=client, profile="bull-bull", body=ExposureRequest(
            players=[ExposureSeatRequest(id="p1", stake=1000, bet="double"),
                     ExposureSeatRequest(id="p2", stake=1000, bet="equal")])))
        record("tableExposures", table_exposures.sync_detailed(client=client, profile="niu-niu", body=ExposureRequest(
            base=100, dealer=ExposureDealerRequest(bid_multiple=3, balance=10_000),
            players=[ExposureSeatRequest(id="p1", bet_multiple=1, balance=500),
                     ExposureSeatRequest(id="p2", bet_multiple=2, balance=10_000)])))

        record("listProfiles", list_profiles.sync_detailed(client=client))
        record("getProfile", get_profile.sync_detailed("niu-niu", client=client))
        record("getProfile", get_profile.sync_detailed("vegas", client=client))

        record("oddsAgainstDealer", odds_against_dealer.sync_detailed(
            client=client, body=OddsRequest(hand=["JS", "QH", "KD", "JC", "QD"])))
        record("oddsAgainstDealer", odds_against_dealer.sync_detailed(
            client=client, profile="liberal", body=OddsRequest(hand=["2S", "3S", "5S", "KH", "9D"], dead=["AS"])))
        record("oddsAgainstDealer", odds_against_dealer.sync_detailed(
            client=client, body=OddsRequest(hand=["10S", "7H", "3D", "KC", "7D"], dead=["7h"])))
        record("getProfileDistribution", get_profile_distribution.sync_detailed("standard", client=client))
        record("getProfileHouseEdge", get_profile_house_edge.sync_detailed("niu-niu", client=client))
        record("getProfileHouseEdge", get_profile_house_edge.sync_detailed("bull-bull", client=client, bet="equal"))
        record("getProfileHouseEdge", get_profile_house_edge.sync_detailed("vegas", client=client))
        record("analyseDistribution", analyse_distribution.sync_detailed(
            client=client, body=AnalysisRequest(rules=RulesOverrides(three_six_swap=False))))
        record("analyseHouseEdge", analyse_house_edge.sync_detailed(
            client=client, profile="casino", body=HouseEdgeRequest(rules=RulesOverrides(ties="push"))))
        record("analyseHouseEdge", analyse_house_edge.sync_detailed(
            client=client, profile="niu-niu", body=HouseEdgeRequest(  # bull-bull as RULES.md 7 has it
                rules=RulesOverrides(commission_bps=500, five_small=False, bomb=False, four_dukes=False), bet="equal")))

        record("health", health.sync_detailed(client=client))
        record("readiness", readiness.sync_detailed(client=client))
        record("metrics", metrics.sync_detailed(client=client))
        # The generator has no YAML decoder (openapi.yaml declares the document as the
        # mapping it is): the request is the generated one, the YAML is decoded here, and
        # the generated model is built from the mapping.
        raw = client.get_httpx_client().request(**openapi_document._get_kwargs())
        record("openapiDocument", SimpleNamespace(
            status_code=raw.status_code, headers=raw.headers,
            parsed=OpenapiDocumentResponse200.from_dict(yaml.safe_load(raw.text))))

        record("home", home.sync_detailed(client=client))
        record("docsPage", docs_page.sync_detailed(client=client))
        record("docsAsset", docs_asset.sync_detailed("index.css", client=client))
    return seen


if __name__ == "__main__":
    base, out = sys.argv[1], sys.argv[2]
    with open(out, "w", encoding="utf-8") as f:
        json.dump(drive(base), f, ensure_ascii=False, indent=1)
