"""No log line holds a seed (RULES.md 9.1, issue 26), checked on a real gunicorn: seeds in
valid and invalid deal bodies, and one misplaced in a query string, never reach the access
log or the error log, and no answer quotes them."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from bench.harness import Server
from tests import ROOT
from tests.live.helpers import wait_until

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("server"), pytest.mark.timeout(300)]

SEED = "5ec7e75eed5ec7e75eed5ec7e75eed5ec7e75eed5ec7e75eed5ec7e75eed5ec7"
CLIENT = "client-seed-7f3a9c"


def test_no_log_line_or_answer_holds_a_seed(serve: Callable[..., Server]) -> None:
    server = serve("deals", GNAU_LOG_LEVEL="debug",
                   GNAU_RECEIPT_KEY_FILE=str(ROOT / "tests" / "keys" / "receipt-test-key.pem"))
    seeds = {"server_seed": SEED, "client_seed": CLIENT}
    bodies = [
        ("/v1/deals", seeds | {"nonce": 0, "hands": 4}, 200),
        ("/v1/deals", seeds | {"server_seed": SEED[:-1], "nonce": 0, "hands": 4}, 400),
        ("/v1/deals", seeds | {"server_seed": SEED.upper() + "zz", "nonce": -1, "hands": 99}, 400),
        (f"/v1/deals?server_seed={SEED}&client_seed={CLIENT}", seeds | {"nonce": 0, "hands": 4}, 400),
        ("/v1/deals/verify", seeds | {"nonce": 0, "commitment": "sha256:" + SEED, "hands": [None, None]}, 200),
        ("/v1/deals/verify", seeds | {"nonce": 0, "commitment": SEED, "hands": [None]}, 400),
    ]
    answers = []
    for path, body, status in bodies:
        reply = server.post(path, json.dumps(body).encode())
        assert reply.status == status, reply.body[:500]
        answers.append(reply.body.decode())
    for text in answers:
        assert SEED not in text.lower()
        assert SEED[:-1] not in text.lower()
    def deal_records() -> list[dict[str, object]]:
        return [r for r in server.access() if str(r.get("path", "")).startswith("/v1/deals")]

    wait_until(lambda: len(deal_records()) == len(bodies), 10, "every deal request in the access log")
    records = deal_records()
    assert [r["query"] for r in records if r.get("query")] == ["(not logged on this path)"]
    logs = server.access_log.read_text(errors="replace") + server.error_log.read_text(errors="replace")
    for secret in (SEED, SEED[:32], SEED.upper()[:32], CLIENT):
        assert secret not in logs
