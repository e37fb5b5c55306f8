"""A Python client generated from openapi.yaml drives every operation of a live gunicorn.

openapi-python-client (pinned in the dev extra) generates the client; generation must be
clean: no warning at all, so nothing in the spec is skipped or misread. Two settings are
generator choices, not spec fixes: ``literal_enums`` (the ``Card`` enum lists ``AC``,
``Ac``, ``aC`` and ``ac``, which would collide as Python enum member names) and treating
``application/yaml`` (``GET /openapi.yaml``) as structured data: the generator has no YAML
decoder, so the driver decodes the YAML and builds the generated model from it. The client is installed with pip into
a temporary venv (pip, setuptools to build it, and its dependencies httpx and attrs come
from the project's environment through a ``.pth`` file, so nothing is downloaded), and ``generated_client_driver.py`` runs
there against gunicorn on a free 127.0.0.1 port.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

import pytest
import yaml

from bench.harness import ROOT
from tests.doc_examples import Block, classified
from tests.live.helpers import live_server

#: The committed test-only receipt key: the live server signs receipts with it.
TEST_RECEIPT_KEY = ROOT / "tests" / "keys" / "receipt-test-key.pem"

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("generated-client")]

VENV_BIN = Path(sys.executable).parent
GENERATOR_CONFIG = {
    "project_name_override": "gnau-scoring-client",
    "package_name_override": "gnau_scoring_client",
    "literal_enums": True,
    "content_type_overrides": {"application/yaml": "application/json"},
}


def _run(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    result = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False)
    output = result.stdout + result.stderr
    assert result.returncode == 0, f"{' '.join(args)} exited {result.returncode}:\n{output}"
    return output


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The generated client project and the generator's output."""
    work = tmp_path_factory.mktemp("client")
    config = work / "config.yaml"
    config.write_text(yaml.safe_dump(GENERATOR_CONFIG), encoding="utf-8")
    env = os.environ | {"PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}"}  # it runs ruff
    output = _run([str(VENV_BIN / "openapi-python-client"), "generate", "--path", str(ROOT / "openapi.yaml"),
                   "--config", str(config), "--meta", "setup", "--output-path", str(work / "gnau-scoring-client")],
                  cwd=work, env=env)
    return work / "gnau-scoring-client", output


@pytest.fixture(scope="module")
def client_python(generated: tuple[Path, str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The python of a temporary venv with the generated client pip-installed in it."""
    project, _ = generated
    venv = tmp_path_factory.mktemp("venv")
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=venv)
    python = venv / "bin" / "python"
    site = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                     cwd=venv).strip())
    # pip, setuptools (the client's build backend), httpx and attrs: the project's pinned ones.
    (site / "gnau-project-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    _run([str(python), "-m", "pip", "install", "--quiet", "--no-index", "--no-deps", "--no-build-isolation",
          str(project)], cwd=venv)
    _run([str(python), "-m", "pip", "check"], cwd=venv)  # httpx and attrs satisfy the client's requirements
    return python


@pytest.fixture(scope="module")
def seen(client_python: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict[str, Any]]]:
    """What the generated client saw of every operation of a live server."""
    work = tmp_path_factory.mktemp("drive")
    with live_server(work / "gunicorn", env={"GNAU_RECEIPT_KEY_FILE": str(TEST_RECEIPT_KEY)}) as base:
        _run([str(client_python), str(Path(__file__).with_name("generated_client_driver.py")), base,
              str(work / "seen.json")], cwd=work)
    data: dict[str, list[dict[str, Any]]] = json.loads((work / "seen.json").read_text(encoding="utf-8"))
    return data


#: The page that shows how to generate and call the client.
CLIENTS_PAGE = ROOT / "docs" / "clients.md"


def _page_blocks(kind: str) -> list[Block]:
    return [block for block, found in classified([CLIENTS_PAGE]) if found == kind]


def test_the_pages_configuration_is_the_one_tested() -> None:
    """docs/clients.md's client-config.yaml is :data:`GENERATOR_CONFIG`."""
    [config] = [block for block in _page_blocks("yaml") if block.text.startswith("# client-config.yaml")]
    assert yaml.safe_load(config.text) == GENERATOR_CONFIG


def test_the_pages_snippet_prints_what_the_page_shows(client_python: Path, tmp_path: Path) -> None:
    """docs/clients.md's Python snippet, run with the generated client against a live server
    (its address instead of 127.0.0.1:8000), prints the console block under it."""
    [snippet] = _page_blocks("python")
    assert snippet.after is not None
    script = tmp_path / "snippet.py"
    with live_server(tmp_path / "gunicorn") as base:
        script.write_text(snippet.text.replace("http://127.0.0.1:8000", base), encoding="utf-8")
        printed = _run([str(client_python), str(script)], cwd=tmp_path)
    assert printed == snippet.after.text


def test_generation_is_clean(generated: tuple[Path, str]) -> None:
    project, output = generated
    assert "Generating" in output
    assert "warning" not in output.lower(), output
    assert "error" not in output.lower(), output
    package = project / "gnau_scoring_client"
    assert (package / "api" / "scoring" / "evaluate_hand.py").is_file()


def test_every_operation_is_driven(seen: dict[str, list[dict[str, Any]]]) -> None:
    spec = yaml.safe_load((ROOT / "openapi.yaml").read_text(encoding="utf-8"))
    operations = {op["operationId"] for path in spec["paths"].values() for op in path.values()}
    missing, unknown = sorted(operations - set(seen)), sorted(set(seen) - operations)
    assert not missing, f"add a call with real values to tests/live/generated_client_driver.py for {missing}"
    assert not unknown, f"the driver calls operations the spec no longer has: {unknown}"


def test_deals_and_receipts(seen: dict[str, list[dict[str, Any]]]) -> None:
    """Section 8's deal, its verification, a bad seed unquoted, and receipts verified by the
    client with joserfc from the JWK Set (a tampered answer or request fails)."""
    deal, bad = seen["dealHands"]
    assert (deal["status"], deal["model"]) == (200, "DealResponse")
    assert deal["body"]["commitment"] == "sha256:630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
    assert deal["body"]["hands"][0] == ["JC", "9D", "8D", "JS", "4S"]
    assert (bad["status"], bad["model"]) == (400, "Problem")
    assert {e["pointer"] for e in bad["body"]["errors"]} == {"/server_seed", "/hands"}
    assert "000102030405060708090a0b0c0d0e0f" not in json.dumps(bad["body"])
    (verified,) = seen["verifyDeal"]
    assert verified["body"]["hands_match"] == [True, None, None, True]
    assert verified["body"]["match"] is True
    (keys,) = seen["getReceiptKeys"]
    assert keys["model"] == "JwkSet"
    assert [k["alg"] for k in keys["body"]["keys"]] == ["Ed25519"]
    for observed, operation in ((seen["settleRound"][-1], "settleRound"), (seen["evaluateHand"][-1], "evaluateHand"),
                                (seen["settleShowdown"][-1], "settleShowdown")):
        assert observed["status"] == 200
        assert observed["body"]["receipt"].count(".") == 2
        assert observed["verified"] == {"signature": True, "request": True, "response": True, "tampered_answer": True,
                                        "tampered_request": True, "operation": operation}


def test_evaluations(seen: dict[str, list[dict[str, Any]]]) -> None:
    standard, no_swap, niu_niu, plus, bad, _ = seen["evaluateHand"]
    assert standard["status"] == 200
    assert standard["model"] == "EvaluationResponse"
    assert standard["request_id"] == "generated-client-1"
    body = standard["body"]
    assert (body["profile"], body["label"], body["category"], body["payout"]) == (
        "standard", "Single-Ox 0", "single_ox", 1)
    assert body["ox"] == {"cards": ["7H", "3D", "7D"], "points": [7, 6, 7]}
    assert body["power"] == {"cards": ["10S", "KC"], "points": [10, 10]}
    assert no_swap["body"]["label"] == "Single-Ox 7"
    assert no_swap["body"]["rules"]["three_six_swap"] is False
    assert (niu_niu["body"]["profile"], niu_niu["body"]["label"], niu_niu["body"]["payout"]) == (
        "niu-niu", "Bomb J", 5)
    assert (standard["content_language"], niu_niu["body"]["label_key"]) == ("en", "bomb_j")
    assert (plus["body"]["category"], plus["body"]["label"], plus["body"]["label_key"], plus["body"]["payout"]) == (
        "full_house", "葫芦牛 7", "full_house_7", 6)
    assert (plus["content_language"], plus["body"]["ox"], plus["body"]["power"]) == ("zh-Hans", None, None)

    assert bad["status"] == 400
    assert bad["model"] == "Problem"
    assert bad["content_type"] == "application/problem+json"
    problem = bad["body"]
    assert problem["type"] == "/problems/validation-error"
    details = {e["pointer"]: e["detail"] for e in problem["errors"]}
    assert set(details) == {"/hand/1", "/decks"}
    assert "'1S' is not a card" in details["/hand/1"]
    assert details["/decks"] == "must be an integer from 1 to 8"

    (batch,) = seen["evaluateHands"]
    assert [e["label"] for e in batch["body"]["evaluations"]] == ["No Ox", "Double-Ox 8"]
    assert batch["body"]["evaluations"][1]["hand"] == ["3S", "6H", "8D", "4C", "8H"]


def test_ranking(seen: dict[str, list[dict[str, Any]]]) -> None:
    (ranking,) = seen["rankHands"]
    assert ranking["model"] == "RankingResponse"
    assert [(r["id"], r["index"], r["position"], r["evaluation"]["label"]) for r in ranking["body"]["ranking"]] == [
        ("bo", 1, 1, "Five Dukes"), (None, 2, 2, "Single-Ox 1"), ("ann", 0, 3, "No Ox")]


def test_settlement(seen: dict[str, list[dict[str, Any]]]) -> None:
    settlement, bull_bull, banker, _ = seen["settleRound"]
    assert settlement["model"] == "SettlementResponse"
    body = settlement["body"]
    assert body["dealer"]["evaluation"]["label"] == "Double-Ox 8"
    assert [(p["id"], p["evaluation"]["label"], p["stake"], p["outcome"], p["amount"]) for p in body["players"]] == [
        ("seat-1", "No Ox", 250, "lose", -500), ("seat-2", "Five Dukes", 100, "win", 1000)]
    assert body["dealer"]["net"] == -500
    assert body["house"] == 0
    body = bull_bull["body"]
    assert [(p["bet"], p["gross"], p["commission"], p["amount"], p["exposure"]) for p in body["players"]] == [
        ("double", 3000, 150, 2850, {"max_loss": 5000, "max_win": 4750}),
        ("equal", 1000, 50, 950, {"max_loss": 1000, "max_win": 950})]
    assert (body["dealer"]["gross"], body["dealer"]["net"], body["house"]) == (-4000, -4000, 200)
    exposures, with_dealer = seen["tableExposures"]
    assert exposures["model"] == "ExposureResponse"
    assert exposures["body"]["max_payout"] == 5
    assert [p["exposure"] for p in exposures["body"]["players"]] == [p["exposure"] for p in body["players"]]
    # The round forms (issue 25): section 8's bid for banker with table caps, and the
    # largest multiples the balances allow.
    body = banker["body"]
    assert [(p["factors"]["bet_multiple"], p["gross_uncapped"], p["gross"], p["cap"]) for p in body["players"]] == [
        (1, 900, 294, "dealer_balance"), (2, -1200, -706, "dealer_balance"), (3, 0, 0, None),
        (4, 2400, 1412, "dealer_balance")]
    assert (body["dealer"]["gross"], body["dealer"]["sweep"]) == (-1000, None)
    assert [p["max_bet_multiple"] for p in with_dealer["body"]["players"]] == [0, 6]
    assert with_dealer["body"]["dealer"]["max_bid_multiple"] == 6


def test_showdown(seen: dict[str, list[dict[str, Any]]]) -> None:
    showdown, one, signed = seen["settleShowdown"]
    assert (showdown["status"], showdown["model"]) == (200, "ShowdownResponse")
    assert [p["gross"] for p in showdown["body"]["players"]] == [240, -30, -120, -90]
    assert showdown["body"]["strongest"] == [{"index": 0, "id": "s1"}]
    assert (one["status"], one["model"], one["body"]["errors"][0]["pointer"]) == (400, "Problem", "/players")
    assert signed["body"]["players"] == showdown["body"]["players"]


def test_profiles(seen: dict[str, list[dict[str, Any]]]) -> None:
    (listing,) = seen["listProfiles"]
    names = [p["name"] for p in listing["body"]["profiles"]]
    assert names[:6] == ["standard", "casino", "tens-are-dukes", "liberal", "niu-niu", "bull-bull"]
    niu_niu, unknown = seen["getProfile"]
    assert niu_niu["model"] == "Profile"
    assert niu_niu["body"]["rules"]["ties"] == "high_card"
    assert niu_niu["body"]["rules"]["bomb"] is True
    assert (unknown["status"], unknown["model"], unknown["body"]["type"]) == (404, "Problem", "/problems/unknown-profile")


def test_operations_and_docs(seen: dict[str, list[dict[str, Any]]]) -> None:
    assert seen["health"][0]["body"] == {"status": "ok"}
    assert seen["readiness"][0]["body"] == {"status": "ready"}
    assert 'gnau_evaluations_total{category="five_dukes",profile="standard"}' in seen["metrics"][0]["body"]
    (document,) = seen["openapiDocument"]
    assert (document["status"], document["model"]) == (200, "OpenapiDocumentResponse200")
    assert document["content_type"] == "application/yaml"
    assert document["body"]["openapi"] == "3.0.3"
    assert document["body"]["info"]["title"] == "Gnau scoring service"
    assert "/v1/settlements" in document["body"]["paths"]
    (home,) = seen["home"]
    assert (home["status"], home["location"]) == (302, "/docs")
    assert "/docs/swagger-ui-bundle.js" in seen["docsPage"][0]["body"]
    assert seen["docsPage"][0]["content_type"].startswith("text/html")
    assert "box-sizing" in seen["docsAsset"][0]["body"]


def test_analyses(seen: dict[str, list[dict[str, Any]]]) -> None:
    five_dukes, suited, dead_copy = seen["oddsAgainstDealer"]
    assert five_dukes["model"] == "OddsResponse"
    body = five_dukes["body"]
    assert (body["dealer_hands"], body["lose"]["hands"], body["push"]["hands"]) == (1533939, 0, 21)
    assert suited["body"]["method"] == "card_multisets"
    assert suited["body"]["evaluation"]["suited"] is True
    assert dead_copy["status"] == 400
    assert [e["pointer"] for e in dead_copy["body"]["errors"]] == ["/dead/0"]
    (distribution,) = seen["getProfileDistribution"]
    assert distribution["model"] == "DistributionResponse"
    assert distribution["body"]["labels"][0] == {"label": "Five Dukes", "label_key": "five_dukes",
                                                 "category": "five_dukes", "score": 800, "hands": 792,
                                                 "fraction": "33/108290", "probability": 792 / 2598960}
    niu_niu, bull_bull, unknown = seen["getProfileHouseEdge"]
    assert niu_niu["body"]["house_edge"] == {"fraction": "0/1", "value": 0.0}
    assert (bull_bull["body"]["bet"], bull_bull["body"]["commission_bps"]) == ("equal", 500)
    assert 0.0249 < bull_bull["body"]["house_edge"]["value"] < 0.025
    assert "exactly from the rate" in bull_bull["body"]["method"]
    assert unknown["status"] == 404
    (custom,) = seen["analyseDistribution"]
    assert custom["body"]["rules"]["three_six_swap"] is False
    push, commission = seen["analyseHouseEdge"]
    assert (push["body"]["profile"], push["body"]["house_edge"]["fraction"]) == ("casino", "0/1")
    assert commission["body"]["house_edge"] == bull_bull["body"]["house_edge"]  # niu-niu + 5 %, one special = bull-bull
