"""The benchmark's own pieces: its request bodies are valid requests, its echo floor echoes,
its load script and report render. (Timings are bench/'s business, never asserted here.)"""

from __future__ import annotations

import doctest
import json
from pathlib import Path

import pytest
from flask.testing import FlaskClient

import bench.common
from bench import http
from bench.__main__ import section
from bench.common import Row
from bench.echo_app import app as echo_app


def test_common_doctests() -> None:
    assert doctest.testmod(bench.common).failed == 0


@pytest.mark.parametrize(("path", "body", "key", "count"), [
    ("/v1/evaluations", http.SINGLE_BODY, "label", None),
    ("/v1/evaluations/batch", http.batch_body(), "evaluations", 10_000),
    ("/v1/rankings", http.ranking_body(), "ranking", 1_000),
    ("/v1/settlements", http.settlement_body(), "players", 10),
])
def test_bench_bodies_are_valid_requests(client: FlaskClient, path: str, body: bytes, key: str,
                                         count: int | None) -> None:
    response = client.post(path, data=body, content_type="application/json")
    assert response.status_code == 200, response.get_data(as_text=True)[:500]
    answer = response.get_json()
    assert key in answer
    if count is not None:
        assert len(answer[key]) == count


def test_batch_body_is_random_hands_in_random_order() -> None:
    hands = json.loads(http.batch_body(200))["hands"]
    assert len({tuple(h) for h in hands}) == 200
    assert all(len(set(h)) == 5 for h in hands)
    codes = [http.CARD_TEXTS.index(c) for h in hands for c in h]
    assert any(codes[i] > codes[i + 1] for i in range(0, len(codes), 5))  # not pre-sorted


def test_echo_app_echoes_the_same_body() -> None:
    response = echo_app.test_client().post("/echo", data=http.SINGLE_BODY, content_type="application/json")
    assert response.status_code == 200
    assert response.get_json() == json.loads(http.SINGLE_BODY)
    assert echo_app.extensions["gnau.state"].draining is False  # what gunicorn.conf.py's hook needs


def test_wrk_script_renders_body_and_pacing(tmp_path: Path) -> None:
    driver = http.Driver("/usr/bin/wrk", tmp_path)
    plain = driver._script(b'{"hand": ["AS"]}', 0).read_text()
    assert 'wrk.body = [==[{"hand": ["AS"]}]==]' in plain
    assert 'wrk.method = "POST"' in plain
    assert "function delay" not in plain
    assert "WRKJSON" in plain
    paced = driver._script(b"{}", 12).read_text()
    assert "function delay() return 12 end" in paced


def test_performance_section() -> None:
    rows = [Row("Engine", "ratio", "900x", "≥ 100x", True), Row("HTTP", "batch", "90,000 hands/s", "≥ 150,000", False)]
    where = {"CPUs (nproc)": "2", "CPU model": "Test CPU"}
    text = section(rows, where, 120.0, "wrk")
    assert text.startswith("## Performance")
    assert "| Engine | ratio | 900x | ≥ 100x | yes |" in text
    assert "Goals **missed** in this run: batch." in text
    assert "- CPU model: Test CPU" in text
    assert "make bench" in text
    assert "wrk was not available" not in text
    assert "wrk was not available" in section(rows, where, 120.0, "Python client")
