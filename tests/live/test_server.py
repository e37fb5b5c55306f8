"""The service under real gunicorn, with the repository's gunicorn.conf.py (issue 3:
"Serving" and "Faults").

Every test starts its own server (:mod:`bench.harness`, through the ``serve`` fixture) on
127.0.0.1 and a free port, with two workers and a fresh Prometheus multiprocess folder,
and always stops it (SIGKILL of its process group after the test; the tests that stop it
themselves send SIGTERM). Load is a small thread pool of ``http.client``
requests; every loop is bounded in count and time, and only loopback is used.
"""

from __future__ import annotations

import functools
import http.client
import json
import os
import signal
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from bench.harness import START_TIMEOUT, STOP_TIMEOUT, WORKERS, Server, launch
from tests.live.helpers import TONKU, metric, random_hands, wait_until

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("server"), pytest.mark.timeout(180)]


# ---------------------------------------------------------------- a. metrics, logs


def test_metrics_count_requests_served_by_every_worker(serve: Callable[..., Server]) -> None:
    server = serve()
    hands = random_hands(400, seed=3)
    sent: Counter[str] = Counter()  # "profile" -> requests answered 200
    categories: Counter[tuple[str, str]] = Counter()  # (profile, category) -> hands
    lock = threading.Lock()

    def evaluate(i: int) -> None:
        profile = ("standard", "niu-niu")[i % 2]
        reply = server.call("POST", f"/v1/evaluations?profile={profile}", {"hand": hands[i]})
        assert reply.status == 200, reply.body
        with lock:
            sent[profile] += 1
            categories[profile, reply.json()["category"]] += 1

    # Rounds of concurrent requests until both workers have answered some (bounded).
    rounds = 0
    with ThreadPoolExecutor(max_workers=6) as pool:
        while rounds < 10:
            list(pool.map(evaluate, range(rounds * 40, rounds * 40 + 40)))
            rounds += 1
            pids = {r["pid"] for r in server.access() if r["path"] == "/v1/evaluations"}
            if len(pids) >= WORKERS:
                break
    total = rounds * 40

    batch = server.call("POST", "/v1/evaluations/batch?profile=casino", {"hands": hands[:50]})
    assert batch.status == 200
    for evaluation in batch.json()["evaluations"]:
        categories["casino", evaluation["category"]] += 1
    bad = [server.call("POST", "/v1/evaluations", {"hand": ["AS", "AS"]}) for _ in range(3)]
    assert [r.status for r in bad] == [400, 400, 400]

    # Every request is in the access log (written just after the response: wait for it).
    def logged() -> list[dict[str, Any]]:
        return [r for r in server.access() if r["path"] == "/v1/evaluations" and r["method"] == "POST"]

    wait_until(lambda: len(logged()) == total + 3, 10, "the access log lines")
    lines = logged()
    served_by = Counter(r["pid"] for r in lines if r["status"] == 200)
    assert set(served_by) <= set(server.booted_workers())
    assert len(served_by) >= WORKERS, f"one worker served everything: {served_by}"
    assert sum(served_by.values()) == total

    values = server.metrics()
    assert metric(values, "gnau_http_requests_total", route="/v1/evaluations", method="POST",
                  status="200") == total
    assert metric(values, "gnau_http_requests_total", route="/v1/evaluations", method="POST",
                  status="400") == 3
    assert metric(values, "gnau_http_requests_total", route="/v1/evaluations/batch", method="POST",
                  status="200") == 1
    assert metric(values, "gnau_http_request_duration_seconds_count", route="/v1/evaluations",
                  method="POST") == total + 3
    assert metric(values, "gnau_http_request_duration_seconds_bucket", route="/v1/evaluations",
                  method="POST", le="+Inf") == total + 3
    evaluated = {(dict(labels)["profile"], dict(labels)["category"]): value
                 for (name, labels), value in values.items() if name == "gnau_evaluations_total"}
    assert evaluated == {key: float(n) for key, n in categories.items()}
    assert sum(evaluated.values()) == total + 50
    assert sum(n for (profile, _), n in categories.items() if profile == "standard") == sent["standard"]


def test_logs_are_json_lines(serve: Callable[..., Server]) -> None:
    server = serve(GNAU_DRAIN_SECONDS="1")
    server.call("GET", "/healthz", headers={"User-Agent": "gnau-test"})
    wait_until(lambda: any(r["path"] == "/healthz" for r in server.access()), 10, "the access log line")
    assert server.terminate() == 0
    errors, access = server.errors(), server.access()  # every line parses as JSON
    for record in errors + access:
        assert {"time", "level", "name", "pid", "message"} <= set(record), record
        assert record["time"].endswith("+00:00")
    (line,) = [r for r in access if r["path"] == "/healthz"]
    assert (line["method"], line["status"], line["user_agent"]) == ("GET", 200, "gnau-test")
    assert line["pid"] in server.booted_workers()
    assert len(line["request_id"]) == 32
    messages = [r["message"] for r in errors]
    assert "Handling signal: term" in messages
    assert "Shutting down: Master" in messages


# ---------------------------------------------------------------- b. request ids


def test_request_id_round_trips(serve: Callable[..., Server]) -> None:
    server = serve()
    given = "trace-42.abc:XYZ_9"
    reply = server.call("POST", "/v1/evaluations", {"hand": ["AS", "ZZ"]}, {"X-Request-ID": given})
    assert reply.status == 400
    assert reply.headers["content-type"] == "application/problem+json"
    assert reply.headers["x-request-id"] == given
    assert reply.json()["request_id"] == given
    ok = server.call("GET", "/v1/profiles/standard", headers={"X-Request-ID": "x" * 128})
    assert (ok.status, ok.headers["x-request-id"]) == (200, "x" * 128)
    missing = server.call("GET", "/v1/profiles/vegas", headers={"X-Request-ID": "lookup-1"})
    assert missing.status == 404
    assert missing.headers["x-request-id"] == missing.json()["request_id"] == "lookup-1"

    generated: list[str] = []
    for bad in ("has space", "y" * 129, "a" * 200, "semi;colon", "ünïcode"):
        reply = server.call("POST", "/v1/evaluations", {"hand": []}, {"X-Request-ID": bad.encode().decode("latin-1")})
        assert reply.status == 400
        rid = reply.headers["x-request-id"]
        assert rid != bad
        assert len(rid) == 32
        assert int(rid, 16) >= 0  # 32 hex digits
        assert reply.json()["request_id"] == rid
        generated.append(rid)
    assert len(set(generated)) == len(generated)

    def logged(rid: str) -> list[dict[str, Any]]:
        return [r for r in server.access() if r.get("request_id") == rid]

    wait_until(lambda: all(logged(rid) for rid in [given, "lookup-1", *generated]), 10, "the access log lines")
    (line,) = logged(given)
    assert (line["method"], line["path"], line["status"]) == ("POST", "/v1/evaluations", 400)
    (line,) = logged("lookup-1")
    assert (line["path"], line["status"]) == ("/v1/profiles/vegas", 404)
    assert all(len(logged(rid)) == 1 for rid in generated)


# ---------------------------------------------------------------- c. PROFILES_FILE

GOOD_PROFILES = """\
profiles:
  house-no-tonku:
    extends: standard
    description: Standard without Ngau Tonku; a Single-Ox pays 2.
    rules: {ngau_tonku: false, payouts: {single_ox: 2}}
  bull-push:
    extends: niu-niu
    description: Niu Niu with tied hands pushed.
    rules: {ties: push}
"""


def test_bad_profiles_file_stops_start_up(tmp_path: Path) -> None:
    path = tmp_path / "profiles.yaml"
    path.write_text("profiles:\n  house-aces:\n    extends: standard\n    description: Aces high.\n"
                    "    rules: {double_ox_order: queen_high}\n")
    server = launch(tmp_path / "bad", PROFILES_FILE=str(path))
    try:
        status = server.proc.wait(timeout=START_TIMEOUT)
    finally:
        server.kill()
    assert status == 4  # gunicorn's "application failed to load"
    stderr = server.error_log.read_text()
    assert "Traceback" not in stderr
    (record,) = [r for r in server.errors() if r["level"] == "CRITICAL"]
    assert record["name"] == "service.http.wsgi"
    assert record["message"] == (
        f"invalid PROFILES_FILE, not starting: {path}: profile 'house-aces': "
        "knob double_ox_order: must be one of king_high, ace_high"
    )
    assert server.access() == []


@pytest.mark.parametrize("busy", ["GNAU_BIND", "GNAU_PROBE_BIND"])
def test_a_busy_port_stops_start_up_before_the_warm_up(tmp_path: Path, busy: str) -> None:
    """A second ``make run`` (either port already listened on): exit status 1 at once, before
    the warm-up, with one line naming the busy address and both settings."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as held:
        held.bind(("127.0.0.1", 0))
        held.listen(1)
        taken = f"127.0.0.1:{held.getsockname()[1]}"
        server = launch(tmp_path / "busy", **{busy: taken})
        try:
            status = server.proc.wait(timeout=START_TIMEOUT)
        finally:
            server.kill()
    assert status == 1
    output = server.error_log.read_text() + server.access_log.read_text()
    [line] = [line for line in output.splitlines() if "cannot listen" in line]
    assert line.startswith(f"cannot listen on {busy} {taken} (")
    assert "Address already in use" in line
    assert "GNAU_BIND=127.0.0.1:" in line
    assert "GNAU_PROBE_BIND=127.0.0.1:" in line
    assert "Warming" not in output  # stopped before the warm-up
    assert "warmed" not in output
    assert "Traceback" not in output


def test_start_up_says_what_the_warm_up_does(serve: Callable[..., Server]) -> None:
    """The warm-up's first line (README.md, "Quick start", quotes it)."""
    server = serve()
    messages = [r["message"] for r in server.errors()]
    [warming] = [m for m in messages if m.startswith("Warming ")]
    assert warming.startswith("Warming 7 profiles before serving: each one's evaluation table, hand distribution "
                              "and house edges are computed once")
    assert any(m.startswith("warmed 7 profiles in ") for m in messages)
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    assert "`Warming 7 profiles\nbefore serving`" in readme or "`Warming 7 profiles before serving`" in readme


def test_missing_profiles_file_stops_start_up(tmp_path: Path) -> None:
    path = tmp_path / "absent.yaml"
    server = launch(tmp_path / "missing", PROFILES_FILE=str(path))
    try:
        status = server.proc.wait(timeout=START_TIMEOUT)
    finally:
        server.kill()
    assert status == 4
    messages = [r["message"] for r in server.errors() if r["level"] == "CRITICAL"]
    assert messages == [f"invalid PROFILES_FILE, not starting: {path}: cannot read the profiles file: "
                        "No such file or directory"]


def test_good_profiles_file_adds_profiles(tmp_path: Path, serve: Callable[..., Server]) -> None:
    path = tmp_path / "profiles.yaml"
    path.write_text(GOOD_PROFILES)
    server = serve(PROFILES_FILE=str(path))
    listed = {p["name"]: p for p in server.call("GET", "/v1/profiles").json()["profiles"]}
    assert list(listed)[-2:] == ["house-no-tonku", "bull-push"]
    assert (listed["house-no-tonku"]["builtin"], listed["house-no-tonku"]["extends"]) == (False, "standard")
    assert (listed["bull-push"]["builtin"], listed["bull-push"]["extends"]) == (False, "niu-niu")
    assert listed["standard"]["builtin"] is True

    standard = server.call("POST", "/v1/evaluations", {"hand": TONKU}).json()
    house = server.call("POST", "/v1/evaluations?profile=house-no-tonku", {"hand": TONKU}).json()
    assert (standard["category"], standard["payout"]) == ("ngau_tonku", 5)
    assert (house["profile"], house["category"], house["payout"]) == ("house-no-tonku", "single_ox", 2)
    assert house["rules_digest"] == listed["house-no-tonku"]["rules_digest"] != standard["rules_digest"]

    spec = yaml.safe_load(server.call("GET", "/openapi.yaml").body)
    assert spec["components"]["parameters"]["Profile"]["schema"]["enum"][-2:] == ["house-no-tonku", "bull-push"]
    values = server.metrics()
    assert metric(values, "gnau_evaluations_total", profile="house-no-tonku", category="single_ox") == 1


# ------------------------------------------------------------------- d. SIGTERM


@dataclass
class Outcome:
    started: float
    finished: float
    status: int | None = None
    error: str | None = None


@dataclass
class Load:
    """Clients sending batch requests in a loop until told to stop (bounded)."""

    server: Server
    body: dict[str, Any]
    outcomes: list[Outcome] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def client(self, max_requests: int = 400) -> None:
        for _ in range(max_requests):
            if self.stop.is_set():
                return
            started = time.monotonic()
            try:
                status: int | None = self.server.call("POST", "/v1/evaluations/batch", self.body, timeout=20).status
                error = None
            except (OSError, http.client.HTTPException) as exc:
                status, error = None, f"{type(exc).__name__}: {exc}"
            with self.lock:
                self.outcomes.append(Outcome(started, time.monotonic(), status, error))
            if error is not None:
                return  # the server has stopped listening: this client is done


def slow_request(server: Server, body: bytes, part: int) -> http.client.HTTPConnection:
    """Send the headers and the first ``part`` bytes of a POST; the rest is sent later."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    conn.putrequest("POST", "/v1/evaluations/batch")
    conn.putheader("Content-Type", "application/json")
    conn.putheader("Content-Length", str(len(body)))
    conn.putheader("X-Request-ID", f"slow-{part}")
    conn.endheaders()
    conn.send(body[:part])
    return conn


def test_sigterm_drains_then_exits_zero(serve: Callable[..., Server]) -> None:
    drain, graceful = 2.0, 5.0
    server = serve(GNAU_DRAIN_SECONDS="2", GNAU_GRACEFUL_TIMEOUT="5")
    hands = random_hands(2000, seed=7)
    load = Load(server, {"hands": hands})
    slow_body = json.dumps({"hands": hands[:100]}).encode()
    readiness: list[tuple[float, int | None]] = []

    def poll_readiness() -> None:
        end = time.monotonic() + drain + graceful + 5
        while time.monotonic() < end:
            try:
                status: int | None = server.call("GET", "/readyz", timeout=1).status
            except (OSError, http.client.HTTPException):
                status = None
            readiness.append((time.monotonic(), status))
            if status is None:
                return
            time.sleep(0.05)

    slow: list[http.client.HTTPConnection] = []
    try:
        with ThreadPoolExecutor(max_workers=5) as pool:
            clients = [pool.submit(load.client) for _ in range(4)]
            wait_until(lambda: len(load.outcomes) >= 8, 30, "some load")
            poller = pool.submit(poll_readiness)
            # Two requests still uploading their bodies when SIGTERM arrives: one finishes
            # during the drain, one only after it, in the graceful phase.
            slow += [slow_request(server, slow_body, 100), slow_request(server, slow_body, 200)]
            early, late = slow
            wait_until(lambda: len(readiness) >= 2, 30, "readiness answers before SIGTERM")
            sigterm_at = time.monotonic()
            server.proc.send_signal(signal.SIGTERM)
            time.sleep(drain / 2)
            early.send(slow_body[100:])
            early_reply = early.getresponse()
            early_body = early_reply.read()
            time.sleep(drain)  # now past the drain: the workers no longer accept
            late.send(slow_body[200:])
            late_reply = late.getresponse()
            late_body = late_reply.read()
            status = server.proc.wait(timeout=drain + graceful + STOP_TIMEOUT)
            exited_at = time.monotonic()
            load.stop.set()
            for future in [*clients, poller]:
                future.result(timeout=30)
    finally:
        load.stop.set()
        for conn in slow:
            conn.close()

    assert status == 0
    assert (early_reply.status, late_reply.status) == (200, 200)
    assert len(json.loads(early_body)["evaluations"]) == 100
    assert len(json.loads(late_body)["evaluations"]) == 100

    before = [o for o in load.outcomes if o.started < sigterm_at]
    assert before, "no request was sent before SIGTERM"
    assert [o for o in before if o.status != 200] == [], "a request sent before SIGTERM failed"
    in_flight = [o for o in before if o.finished > sigterm_at]
    assert in_flight, "no load request was in flight at SIGTERM"
    # Anything that failed was sent after SIGTERM, once the server had stopped listening.
    assert all(o.started > sigterm_at for o in load.outcomes if o.status != 200)
    assert all(o.status in (None, 200) for o in load.outcomes)

    # Readiness went 200 -> 503 (the drain) -> no answer (stopped listening), in that order.
    statuses = [s for _, s in readiness]
    assert {s for t, s in readiness if t < sigterm_at} == {200}
    assert 503 in statuses
    first_503 = statuses.index(503)
    assert set(statuses[:first_503]) == {200}
    assert set(statuses[first_503:]) <= {503, None}
    assert statuses[-1] is None
    assert statuses[first_503:] == [503] * (len(statuses) - first_503 - 1) + [None]
    assert exited_at - sigterm_at < drain + graceful + STOP_TIMEOUT
    messages = [r["message"] for r in server.errors()]
    assert "Handling signal: term" in messages
    assert "Shutting down: Master" in messages
    logged = {r["request_id"]: r["status"] for r in server.access() if r["request_id"].startswith("slow-")}
    assert logged == {"slow-100": 200, "slow-200": 200}


def test_readyz_is_503_during_drain_and_healthz_stays_200(serve: Callable[..., Server]) -> None:
    # A drain long enough for the checks below on a loaded machine (each is a few ms).
    server = serve(GNAU_DRAIN_SECONDS="6", GNAU_GRACEFUL_TIMEOUT="2")
    assert server.call("GET", "/readyz").json() == {"status": "ready"}
    server.proc.send_signal(signal.SIGTERM)
    # The master signals the workers one after the other: wait until every one answers 503.
    wait_until(lambda: all(server.call("GET", "/readyz", timeout=3).status == 503 for _ in range(6)), 4,
               "/readyz to turn 503 on every worker")
    reply = server.call("GET", "/readyz", headers={"X-Request-ID": "probe-1"})
    assert reply.status == 503
    assert reply.headers["content-type"] == "application/problem+json"
    body = reply.json()
    assert (body["type"], body["request_id"]) == ("/problems/not-ready", "probe-1")
    assert body["detail"] == "The server is draining after SIGTERM."
    assert server.call("GET", "/healthz").status == 200  # liveness is unaffected
    assert server.call("POST", "/v1/evaluations", {"hand": TONKU}).status == 200  # still serving
    assert server.terminate() == 0


# ------------------------------------------------------------------- e. SIGKILL


def test_killed_worker_is_replaced(serve: Callable[..., Server]) -> None:
    server = serve()
    original = server.booted_workers()
    assert len(original) == WORKERS
    victim = original[0]
    hands = random_hands(500, seed=11)
    load = Load(server, {"hands": hands})
    load_errors: list[str] = []

    def client() -> None:
        # Keep sending through the kill: a request on the killed worker may fail.
        for _ in range(200):
            if load.stop.is_set():
                return
            try:
                server.call("POST", "/v1/evaluations/batch", load.body, timeout=20)
            except (OSError, http.client.HTTPException) as exc:
                load_errors.append(type(exc).__name__)

    with ThreadPoolExecutor(max_workers=4) as pool:
        clients = [pool.submit(client) for _ in range(4)]
        time.sleep(0.5)
        os.kill(victim, signal.SIGKILL)
        wait_until(lambda: len(server.booted_workers()) > WORKERS, 30, "a replacement worker")
        load.stop.set()
        for future in clients:
            future.result(timeout=60)

    replacement = server.booted_workers()[WORKERS]
    assert replacement not in original
    assert server.proc.poll() is None  # the master lives on

    # Requests after the replacement all succeed, and the new worker serves some of them.
    def after() -> list[dict[str, Any]]:
        return [r for r in server.access() if r["request_id"].startswith("after-")]

    def logged(n: int) -> bool:
        return len(after()) == n

    def evaluate(rid: str) -> int:
        return server.call("POST", "/v1/evaluations", {"hand": TONKU}, {"X-Request-ID": rid}).status

    sent = 0
    with ThreadPoolExecutor(max_workers=6) as pool:
        for attempt in range(10):
            statuses = list(pool.map(evaluate, [f"after-{attempt}-{i}" for i in range(40)]))
            assert statuses == [200] * 40
            sent += 40
            wait_until(functools.partial(logged, sent), 10, "the access log lines")
            if any(r["pid"] == replacement for r in after()):
                break
    served = {r["pid"] for r in after()}
    assert replacement in served
    assert victim not in served
    messages = [r["message"] for r in server.errors()]
    assert f"Worker (pid:{victim}) was sent SIGKILL! Perhaps out of memory?" in messages
    assert server.call("GET", "/readyz").status == 200
    assert server.terminate() == 0
