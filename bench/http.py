"""HTTP benchmark: the real service against a trivial Flask floor, same gunicorn config.

It starts its own servers on free 127.0.0.1 ports with the repository's ``gunicorn.conf.py``
through :mod:`bench.harness`, the harness the tests use too (the gevent worker class, access
log, preload: all as configured; 2 workers, the harness's default, set explicitly; only the bind
address, ``GNAU_DRAIN_SECONDS=0`` for a quick stop and, for the echo floor,
``GNAU_WSGI_APP=bench.echo_app:app`` differ):

* **ratio**: requests/s of ``POST /v1/evaluations`` (one realistic hand) over requests/s of
  ``POST /echo`` (the same small JSON body echoed by a bare Flask view). Runs alternate
  between the two servers and the medians are compared (goal ≥ 0.85, issue 15; it was 0.7);
* **p99 at half load**: each server driven at half of its measured maximum, the median of
  three runs' p99. wrk 4.1 has no ``-R`` (that is wrk2), so the rate is held by wrk's Lua
  ``delay()`` hook (a uniformly jittered pause before each request on each connection, so
  the connections do not fall into step and send in bursts), calibrated until the achieved
  rate matches; runs alternate between the two servers, and the achieved rate is printed
  beside the p99 (goal < 5 ms for the evaluation endpoint, issue 15; it was 10 ms). Latency is wrk's, from the request's first byte out to the whole
  response in; a paced closed loop under-reports queueing only when the server stalls,
  which the p99 would show anyway;
* **slow clients**: the same half-load pace while 200 idle connections and 50 requests
  that sent 8 of their 100 body bytes are held open (goal p99 < 100 ms);
* **batch**: ``POST /v1/evaluations/batch`` with 10,000 random hands, one request at a time
  through a server with ``GNAU_WORKERS=1``, end to end (goal ≥ 300,000 hands/s, issue 15; it was 150,000),
  and with ``fields=label,score`` (goal ≥ 1,000,000 hands/s); both again under ``niu-niu-plus``
  (issue 24: the same goals hold under a table that tells flushes apart);
* **settlement**: a dealer + 10 players (two decks) against a single evaluation, same 2
  workers and 16 connections, rounds alternating (goal ≥ 0.6x, issue 23);
* **ranking**: 1,000-hand rankings against 1,000-hand batches, in hands/s, same 2 workers
  and 2 connections, rounds alternating (goal ≥ 0.8x, issue 23);
* **round forms** (issue 25; ``--only banker`` runs these rows alone): on one server (2
  workers, 16 connections, rounds alternating), the dealer + 10 players settlement with
  ``base``, bid and bet multiples and ``table`` caps (balances for the dealer and every
  player; the caps from an operator profile, so the body carries no ``rules``) against the
  same table with plain stakes (goal ≥ 0.9×; every request of these rows names its profile in
  the query, so both pay the same for it), and a 10-player showdown (one deck, bet
  multiples) against the plain settlement (goal ≥ 0.8×: the same work per hand, one resolver
  pass and one formatter text, plus the showdown's ordering, its payments and no exposures);
* **trust** (issue 26; ``--only trust`` runs these rows alone): on a server signing with a
  throwaway key, ``POST /v1/deals`` (one deck, 10 hands) against the echo floor, same
  workers, connections and tool, runs alternating (goal ≥ 0.8× the echo), and the 10-player
  settlement with ``receipt=true`` against the same settlement without it, 4 connections
  each, alternating (goal ≥ 0.5× the plain settlement).
* **health under batches** (issue 22): ``GET /healthz`` on a fresh connection every 0.1 s
  from another thread, on the API port and on the master's probe port, while one client
  (wrk, 16 keep-alive connections) loops 10,000-hand batches; the median of three runs'
  p99 (goal < 250 ms on the API port; the chart's probes use the probe port).

The load tool is wrk (Debian package ``wrk``; installed with apt-get when missing and
allowed). Without wrk a small Python client (threads, keep-alive ``http.client``) stands in
and the table says so; it competes with the servers for the CPU and reads lower.

Run alone with ``python -m bench.http``.
"""

from __future__ import annotations

import argparse
import json
import random
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench.common import Row, markdown_table, median, rate
from bench.harness import Server, pss_mib, request, running
from bench.load import BALANCE_GOAL, Driver, Load, calibrate, check, ensure_wrk, log, paced
from service.receipts import make_development_key

__all__ = ["SINGLE_BODY", "gunicorn", "run"]

HAND = ["10S", "7H", "3D", "KC", "7D"]
#: The realistic single-hand body, sent to both servers.
SINGLE_BODY = json.dumps({"hand": HAND}).encode()
#: The service's request and the echo floor's: ``(path, body)``.
EVALUATION = ("/v1/evaluations", SINGLE_BODY)
ECHO = ("/echo", SINGLE_BODY)
#: A deal of one deck and ten hands (RULES.md 9.1).
DEAL = ("/v1/deals", json.dumps({"server_seed": "5eed" * 16, "client_seed": "bench-player", "nonce": 123_456,
                                 "hands": 10}).encode())
CARD_TEXTS = [r + s for r in ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
              for s in ["D", "C", "H", "S"]]


# ---------------------------------------------------------------------------------------
# Request bodies


def batch_body(n: int = 10_000, seed: int = 4) -> bytes:
    """``n`` random one-deck hands (cards in random order) for the batch endpoint."""
    rng = random.Random(seed)
    return json.dumps({"hands": [[CARD_TEXTS[c] for c in rng.sample(range(52), 5)]
                                 for _ in range(n)]}).encode()


def ranking_body(n: int = 1_000, seed: int = 5) -> bytes:
    """``n`` random hands with ids for the ranking endpoint."""
    rng = random.Random(seed)
    return json.dumps({"hands": [{"id": f"h{i}", "hand": [CARD_TEXTS[c] for c in rng.sample(range(52), 5)]}
                                 for i in range(n)]}).encode()


def settlement_body(players: int = 10, seed: int = 6) -> bytes:
    """A dealer and ``players`` players dealt from two decks (ten players need two)."""
    rng = random.Random(seed)
    cards = rng.sample([c for c in range(52) for _ in range(2)], 5 * (players + 1))
    hands = [[CARD_TEXTS[c] for c in cards[i * 5:(i + 1) * 5]] for i in range(players + 1)]
    return json.dumps({"decks": 2, "dealer": {"hand": hands[0]},
                       "players": [{"id": f"p{i}", "hand": h, "stake": 100} for i, h in enumerate(hands[1:], 1)]
                       }).encode()


def round_settlement_body(players: int = 10, seed: int = 6) -> bytes:
    """:func:`settlement_body`'s table as a bid-for-banker table (RULES.md 6.4-6.5): base 100,
    the dealer's bid ×3 and balance, each player's bet multiple (1..5) and balance; the caps
    come from the profile (:data:`BANKER_PROFILES`)."""
    body = json.loads(settlement_body(players, seed))
    body["base"] = 100
    body["dealer"] |= {"bid_multiple": 3, "balance": 6000}
    for i, player in enumerate(body["players"]):
        del player["stake"]
        player |= {"bet_multiple": 1 + i % 5, "balance": 2500}
    return json.dumps(body).encode()


def showdown_body(players: int = 10, seed: int = 7) -> bytes:
    """A showdown without a dealer (RULES.md 6.6): ``players`` hands from one deck, base 100,
    bet multiples 1..5."""
    rng = random.Random(seed)
    cards = rng.sample(range(52), 5 * players)
    return json.dumps({"base": 100, "players": [
        {"id": f"p{i}", "hand": [CARD_TEXTS[c] for c in cards[5 * i:5 * i + 5]], "bet_multiple": 1 + i % 5}
        for i in range(players)]}).encode()


#: The operator profile of the round-form rows: ``standard`` with ``table`` caps.
BANKER_PROFILES = """profiles:
  bid-table:
    extends: standard
    description: Standard with balances capping every result (bench, issue 25).
    rules: {balance_caps: table}
"""


# ---------------------------------------------------------------------------------------
# Servers


@contextmanager
def gunicorn(name: str, probe: tuple[str, bytes], workdir: Path, **env: str) -> Iterator[Server]:
    """A server of the harness (:func:`bench.harness.running`: ``gunicorn -c gunicorn.conf.py``
    on a free port, two workers unless ``GNAU_WORKERS`` is given, stopped on exit) with no
    drain, its logs in ``workdir / name``. Returns only once every worker has booted and
    ``POST probe`` answered 200, and one more second has passed: load that starts while the
    last worker is still setting up sticks to the other one (TOOLING.md)."""
    path, body = probe
    with running(workdir / name, probe=("POST", path, body), GNAU_DRAIN_SECONDS="0", PYTHONDONTWRITEBYTECODE="1",
                 **env) as server:
        time.sleep(1.0)  # let the last worker finish post_worker_init and poll
        yield server


# ---------------------------------------------------------------------------------------
# The benchmark


def _verify(server: Server, path: str, body: bytes, check: str) -> dict[str, Any]:
    reply = server.post(path, body)
    if reply.status != 200:
        raise SystemExit(f"{server.name} {path}: expected 200, got {reply.status}: {reply.body[:500]!r}")
    answer: dict[str, Any] = reply.json()
    if check not in answer:
        raise SystemExit(f"{server.name} {path}: no {check!r} in the answer: {reply.body[:500]!r}")
    return answer


@contextmanager
def slow_clients(port: int, idle: int = 200, stalled: int = 50) -> Iterator[None]:
    """Hold ``idle`` connections that send nothing and ``stalled`` requests that sent 8 of
    their 100 body bytes open on ``port`` for the duration of the block.

    The block starts one second after the last connection is opened, once the server has
    accepted the burst (accepting 250 connections at once takes the workers about 0.2 s,
    during which new requests wait): what is measured is the cost of holding them open.
    One second plus a 3 s run stays inside GNAU_KEEPALIVE (5 s), so none is dropped."""
    head = (b"POST /v1/evaluations HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
            b"Content-Length: 100\r\n\r\n{\"hand\":")
    opened: list[socket.socket] = []
    try:
        for i in range(idle + stalled):
            sock = socket.create_connection(("127.0.0.1", port), timeout=10)
            if i >= idle:
                sock.sendall(head)
            opened.append(sock)
        time.sleep(1.0)
        yield
    finally:
        for sock in opened:
            sock.close()


def analysis_memory(workdir: Path) -> Row:
    """Total PSS of the master and 2 workers once every built-in profile's analyses
    (distribution, house edge of both bets, odds) has been asked for, on every worker."""
    from service.engine.rules import PROFILES

    with gunicorn("memory", EVALUATION, workdir) as server:
        for _ in range(2):  # twice: each worker answers some of them
            for name in PROFILES:
                for path in (f"/v1/profiles/{name}/distribution", f"/v1/profiles/{name}/house-edge",
                             f"/v1/profiles/{name}/house-edge?bet=equal"):
                    if server.call("GET", path, timeout=60).status != 200:
                        raise SystemExit(f"GET {path} did not answer 200")
                status = server.post(f"/v1/odds?profile={name}", SINGLE_BODY).status
                if status != 200:
                    raise SystemExit(f"POST /v1/odds?profile={name} answered {status}")
        pids = [server.proc.pid, *server.worker_pids()]
        total = sum(pss_mib(pid) for pid in pids)
    return Row("HTTP", f"memory: total PSS of master + {len(pids) - 1} workers after every built-in profile's "
               "analyses were asked (built before the fork, shared)", f"{total:.0f} MiB", "< 300 MiB", total < 300)


def _max_load(driver: Driver, app: Server, echo: Server, rounds: int, seconds: float,
              connections: int) -> tuple[float, float]:
    """Alternating max-load rounds: the medians ``(echo, app)`` in requests/s."""
    echo_rps: list[float] = []
    app_rps: list[float] = []
    for i in range(rounds):
        echo_rps.append(check(driver.run(echo, *ECHO, seconds, connections), "echo").rps)
        app_rps.append(check(driver.run(app, *EVALUATION, seconds, connections), "app").rps)
        log(f"round {i + 1}/{rounds}: echo {echo_rps[-1]:,.0f}/s, evaluation {app_rps[-1]:,.0f}/s")
    return median(echo_rps), median(app_rps)


def _half_load(driver: Driver, app: Server, echo: Server, maxima: tuple[float, float], seconds: float,
               connections: int) -> tuple[Load, Load, float]:
    """Both servers paced at half their maximum ``(echo, app)``: the app's and the echo's
    median runs, and the app's median p99 (ms) with slow clients held open."""
    echo_max, app_max = maxima
    log("half-load latency runs")
    app_delay = calibrate(driver, app, *EVALUATION, app_max / 2, connections)
    echo_delay = calibrate(driver, echo, *ECHO, echo_max / 2, connections)
    app_half, echo_half = paced(driver, [(app, *EVALUATION, app_delay), (echo, *ECHO, echo_delay)],
                                seconds, connections=connections)
    log("half load with slow clients held open")
    slow_runs = []
    for _ in range(3):  # opened anew for each run: the server drops idle ones after GNAU_KEEPALIVE
        with slow_clients(app.port):
            slow_runs.append(check(driver.run(app, *EVALUATION, seconds, connections, delay_ms=app_delay),
                                   "slow clients").p99_ms)
    return app_half, echo_half, median(slow_runs)


def _alternate(driver: Driver, app: Server, first: tuple[str, bytes], second: tuple[str, bytes], seconds: float,
               connections: int, rounds: int = 3) -> tuple[float, float]:
    """Median requests/s of two requests on ``app``, their runs alternating (same server,
    workers, connections and tool)."""
    a: list[float] = []
    b: list[float] = []
    for _ in range(rounds):
        a.append(check(driver.run(app, *first, seconds, connections), first[0]).rps)
        b.append(check(driver.run(app, *second, seconds, connections), second[0]).rps)
    return median(a), median(b)


def _settle_and_rank(driver: Driver, app: Server, seconds: float, connections: int) -> list[Row]:
    """A 10-player settlement against a single evaluation (``connections``), and 1,000-hand
    rankings against 1,000-hand batches (2 connections), alternating."""
    log("settlement and ranking")
    settle = ("/v1/settlements", settlement_body())
    rank = ("/v1/rankings", ranking_body())
    batch = ("/v1/evaluations/batch", batch_body(1_000, seed=5))
    _verify(app, *settle, "players")
    _verify(app, *rank, "ranking")
    _verify(app, *batch, "evaluations")
    for case, n in ((settle, connections), (rank, 2), (batch, 2)):
        check(driver.run(app, *case, 1, n), case[0])
    evaluation_rps, settle_rps = _alternate(driver, app, EVALUATION, settle, seconds, connections)
    batch_rps, rank_rps = _alternate(driver, app, batch, rank, seconds, 2)
    settle_ratio, rank_ratio = settle_rps / evaluation_rps, rank_rps / batch_rps
    return [
        Row("HTTP", f"`POST /v1/settlements`, dealer + 10 players (2 decks), against `POST /v1/evaluations` "
            f"in alternating runs, same workers, {connections} conn.",
            f"{rate(settle_rps, 1, 'requests')} ({rate(settle_rps * 11, 1, 'hands')}) against "
            f"{rate(evaluation_rps, 1, 'requests')}: {settle_ratio:.2f}x", "≥ 0.6x", settle_ratio >= 0.6),
        Row("HTTP", "`POST /v1/rankings`, 1,000 hands, against `POST /v1/evaluations/batch` with 1,000 hands "
            f"in alternating runs, same workers, {driver.tool}, 2 conn.",
            f"{rate(rank_rps * 1000, 1, 'hands')} against {rate(batch_rps * 1000, 1, 'hands')}: {rank_ratio:.2f}x",
            "≥ 0.8x", rank_ratio >= 0.8),
    ]


def _health_under_batches(driver: Driver, app: Server, seconds: float) -> tuple[float, float, float]:
    """The median p99 (ms) of ``GET /healthz`` on the API port and on the probe port (a
    fresh connection every 0.1 s from a thread of this process, as a probe comes) while wrk
    loops 10,000-hand batches on 16 connections, and the batches' requests/s; 3 runs."""
    log("health under 16 connections of 10,000-hand batches")
    batch = ("/v1/evaluations/batch", batch_body())
    _verify(app, *batch, "evaluations")
    api: list[float] = []
    probe: list[float] = []
    rates: list[float] = []
    for _ in range(3):
        seen: dict[int, list[float]] = {app.port: [], app.probe_port or app.port: []}
        stop = threading.Event()

        def health(port: int, seen: dict[int, list[float]] = seen, stop: threading.Event = stop) -> None:
            while not stop.wait(0.1):
                began = time.perf_counter()
                if request(port, "GET", "/healthz", timeout=30).status != 200:
                    raise SystemExit(f"GET /healthz on port {port} did not answer 200 under batches")
                seen[port].append(time.perf_counter() - began)

        probers = [threading.Thread(target=health, args=(port,)) for port in seen]
        for thread in probers:
            thread.start()
        try:
            load = check(driver.run(app, *batch, seconds, 16), "batches")
        finally:
            stop.set()
            for thread in probers:
                thread.join()
        rates.append(load.rps)
        api.append(_p99(seen[app.port]))
        probe.append(_p99(seen[app.probe_port or app.port]))
    return median(api), median(probe), median(rates)


def _p99(seconds: list[float]) -> float:
    """The 99th percentile of latencies in seconds, in ms."""
    ordered = sorted(seconds)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000 if ordered else float("nan")


def _service_rows(driver: Driver, workdir: Path, rounds: int, seconds: float,
                  connections: int) -> tuple[list[Row], list[tuple[int, float]], int]:
    """The service against the echo floor: its rows, the balance runs ``(connections,
    busiest share)`` and the workers of each server."""
    with gunicorn("app", EVALUATION, workdir) as app, \
            gunicorn("echo", ECHO, workdir, GNAU_WSGI_APP="bench.echo_app:app") as echo:
        _verify(app, *EVALUATION, "label")
        if echo.post(*ECHO).json() != {"hand": HAND}:
            raise SystemExit("the echo server does not echo")
        workers = len(app.worker_pids())
        log(f"servers up: app :{app.port}, echo :{echo.port}, {workers} workers each; warming up")
        for server, (path, body) in ((echo, ECHO), (app, EVALUATION)):
            check(driver.run(server, path, body, 2, connections), server.name)
        balance: list[tuple[int, float]] = []
        for n in (4, 16, 64):  # connections opened at once, kept alive for the run
            driver.run(app, *EVALUATION, 2, n)
            balance.append((n, driver.last_share))
        echo_max, app_max = _max_load(driver, app, echo, rounds, seconds, connections)
        app_half, echo_half, slow = _half_load(driver, app, echo, (echo_max, app_max), seconds, connections)
        scoring = _settle_and_rank(driver, app, seconds, connections)
        health_api, health_probe, batches_rps = _health_under_batches(driver, app, max(seconds, 5.0))
    tool, ratio = driver.tool, app_max / echo_max
    conditions = f"{workers} gevent workers, {tool}, {connections} conn."
    rows = [
        Row("HTTP", f"echo floor `POST /echo` (bare Flask), {conditions}, median of {rounds} x {seconds:g} s",
            rate(echo_max, 1, "requests")),
        Row("HTTP", "`POST /v1/evaluations`, one hand, same conditions", rate(app_max, 1, "requests")),
        Row("HTTP", "HTTP ratio: evaluations / echo", f"{ratio:.2f}", "≥ 0.85", ratio >= 0.85),
        Row("HTTP", f"`POST /v1/evaluations` p99 at half load ({rate(app_half.rps, 1, 'requests')} held; "
            f"median of 3 x {seconds:g} s)",
            f"{app_half.p99_ms:.1f} ms (p50 {app_half.p50_ms:.1f} ms)", "< 5 ms", app_half.p99_ms < 5),
        Row("HTTP", f"echo p99 at half load ({rate(echo_half.rps, 1, 'requests')} held)",
            f"{echo_half.p99_ms:.1f} ms (p50 {echo_half.p50_ms:.1f} ms)"),
        Row("HTTP", "`POST /v1/evaluations` p99 at half load with 200 idle connections and 50 stalled "
            "request bodies held open, measured from 1 s after they were opened (median of 3)",
            f"{slow:.1f} ms", "< 100 ms", slow < 100),
        *scoring,
        Row("HTTP", f"`GET /healthz` p99 on the API port while one client loops 10,000-hand batches on 16 "
            f"connections ({workers} workers, {tool}; a fresh connection every 0.1 s; median of 3 x "
            f"{max(seconds, 5.0):g} s)",
            f"{health_api:.0f} ms (probe port: {health_probe:.1f} ms; {rate(batches_rps * 10_000, 1, 'hands')})",
            "< 250 ms", health_api < 250),
    ]
    return rows, balance, workers


def _banker_rows(driver: Driver, workdir: Path, seconds: float, connections: int) -> list[Row]:
    """The round forms against the plain settlement, same server, workers and connections,
    runs alternating (module docstring)."""
    log("round forms: bid for banker with caps, showdowns")
    profiles = workdir / "banker-profiles.yaml"
    profiles.write_text(BANKER_PROFILES, encoding="utf-8")
    # Every request names its profile: the query string costs the same in each (about 30 µs).
    plain = ("/v1/settlements?profile=standard", settlement_body())
    capped = ("/v1/settlements?profile=bid-table", round_settlement_body())
    showdown = ("/v1/showdowns?profile=standard", showdown_body())
    with gunicorn("banker", plain, workdir, PROFILES_FILE=str(profiles)) as app:
        if _verify(app, *capped, "players")["players"][0].get("cap", "absent") == "absent":
            raise SystemExit("the capped settlement answers without caps")
        _verify(app, *showdown, "strongest")
        for request in (plain, capped, showdown):
            check(driver.run(app, *request, 1, connections), request[0])
        plain_rps, capped_rps = _alternate(driver, app, plain, capped, seconds, connections)
        plain_again, showdown_rps = _alternate(driver, app, plain, showdown, seconds, connections)
        workers = app.workers
    capped_ratio, showdown_ratio = capped_rps / plain_rps, showdown_rps / plain_again
    conditions = f"{workers} gevent workers, {driver.tool}, {connections} conn., runs alternating (median of 3)"
    return [
        Row("HTTP", f"`POST /v1/settlements`, dealer + 10 players (2 decks), base with bid and bet multiples, "
            f"`table` caps (every balance given), against the same table with stakes; {conditions}",
            f"{rate(capped_rps, 1, 'requests')} against {rate(plain_rps, 1, 'requests')}: {capped_ratio:.2f}x",
            "≥ 0.9x", capped_ratio >= 0.9),
        Row("HTTP", f"`POST /v1/showdowns`, 10 players (one deck), bet multiples, against the plain settlement; "
            f"{conditions}",
            f"{rate(showdown_rps, 1, 'requests')} against {rate(plain_again, 1, 'requests')}: {showdown_ratio:.2f}x",
            "≥ 0.8x", showdown_ratio >= 0.8),
    ]


def _trust_rows(driver: Driver, workdir: Path, rounds: int, seconds: float, connections: int) -> list[Row]:
    """Deals against the echo floor, and a settlement with a receipt against one without."""
    log("deals and receipts")
    key = workdir / "receipt-key.pem"
    make_development_key(key)  # a throwaway key: the signing cost is the same for any Ed25519 key
    settle = ("/v1/settlements", settlement_body())
    signed = ("/v1/settlements?receipt=true", settle[1])
    with gunicorn("trust", DEAL, workdir, GNAU_RECEIPT_KEY_FILE=str(key)) as app, \
            gunicorn("trust-echo", ECHO, workdir, GNAU_WSGI_APP="bench.echo_app:app") as echo:
        if len(_verify(app, *DEAL, "hands")["hands"]) != 10:
            raise SystemExit("the deal does not hold 10 hands")
        _verify(app, *signed, "receipt")
        for server, (path, body), conn in ((echo, ECHO, connections), (app, DEAL, connections), (app, settle, 4),
                                           (app, signed, 4)):
            check(driver.run(server, path, body, 1, conn), server.name)
        echo_rps, deal_rps, plain_rps, signed_rps = [], [], [], []
        for i in range(rounds):
            echo_rps.append(check(driver.run(echo, *ECHO, seconds, connections), "echo").rps)
            deal_rps.append(check(driver.run(app, *DEAL, seconds, connections), "deal").rps)
            plain_rps.append(check(driver.run(app, *settle, seconds, 4), "settlement").rps)
            signed_rps.append(check(driver.run(app, *signed, seconds, 4), "settlement with receipt").rps)
            log(f"round {i + 1}/{rounds}: echo {echo_rps[-1]:,.0f}/s, deal {deal_rps[-1]:,.0f}/s, settlement "
                f"{plain_rps[-1]:,.0f}/s, with receipt {signed_rps[-1]:,.0f}/s")
        workers = app.workers
    echo_max, deal_max = median(echo_rps), median(deal_rps)
    plain_max, signed_max = median(plain_rps), median(signed_rps)
    deal_ratio, receipt_ratio = deal_max / echo_max, signed_max / plain_max
    conditions = f"{workers} gevent workers, {driver.tool}, median of {rounds} x {seconds:g} s, runs alternating"
    return [
        Row("HTTP", f"echo floor again, beside the deals: {conditions}, {connections} conn.",
            rate(echo_max, 1, "requests")),
        Row("HTTP", "`POST /v1/deals`, one deck, 10 hands, same conditions", rate(deal_max, 1, "requests")),
        Row("HTTP", "deal ratio: deals / echo", f"{deal_ratio:.2f}", "≥ 0.8", deal_ratio >= 0.8),
        Row("HTTP", f"`POST /v1/settlements?receipt=true`, dealer + 10 players (2 decks), 4 conn., {conditions}",
            f"{rate(signed_max, 1, 'requests')} (without: {rate(plain_max, 1, 'requests')})"),
        Row("HTTP", "receipt ratio: settlements with a receipt / without", f"{receipt_ratio:.2f}", "≥ 0.5",
            receipt_ratio >= 0.5),
    ]


def _batch_rows(driver: Driver, workdir: Path, seconds: float) -> list[Row]:
    """10,000-hand batches, whole and sparse, one at a time through one worker, under
    ``standard`` and under ``niu-niu-plus`` (a table that tells flushes apart, issue 24)."""
    log("batch through one worker")
    body = batch_body()
    rows: list[Row] = []
    with gunicorn("batch", EVALUATION, workdir, GNAU_WORKERS="1") as one:
        for profile in ("standard", "niu-niu-plus"):
            query = "" if profile == "standard" else f"profile={profile}"
            batch = ("/v1/evaluations/batch" + (f"?{query}" if query else ""), body)
            answer = _verify(one, *batch, "evaluations")
            if len(answer["evaluations"]) != 10_000 or answer["profile"] != profile:
                raise SystemExit(f"the {profile} batch answer does not hold 10,000 evaluations")
            check(driver.run(one, *batch, 2, 1), "batch")
            runs = [check(driver.run(one, *batch, seconds, 1), "batch") for _ in range(3)]
            sparse = ("/v1/evaluations/batch?fields=label,score" + (f"&{query}" if query else ""), body)
            sparse_answer = _verify(one, *sparse, "evaluations")
            if sorted(sparse_answer["evaluations"][0]) != ["label", "score"]:
                raise SystemExit("the sparse batch answer holds other members")
            sparse_runs = [check(driver.run(one, *sparse, seconds, 1), "sparse batch") for _ in range(3)]
            batch_rps = median([r.rps for r in runs])
            hands = batch_rps * 10_000
            sparse_rps = median([r.rps for r in sparse_runs])
            sparse_hands = sparse_rps * 10_000
            where = "" if profile == "standard" else f"`?profile={profile}`, "
            rows += [
                Row("HTTP", f"`POST /v1/evaluations/batch`, {where}10,000 hands ({len(body) / 1e3:.0f} kB), "
                    f"1 worker, 1 conn., end to end, {driver.tool}",
                    f"{rate(hands, 1, 'hands')} ({1000 / batch_rps:.0f} ms a request)",
                    "≥ 300,000 hands/s", hands >= 300_000),
                Row("HTTP", f"`POST /v1/evaluations/batch?fields=label,score`, {where}same 10,000 hands, 1 worker, "
                    "1 conn., end to end", f"{rate(sparse_hands, 1, 'hands')} ({1000 / sparse_rps:.0f} ms a request)",
                    "≥ 1,000,000 hands/s", sparse_hands >= 1_000_000),
            ]
    return rows


def _balance_rows(driver: Driver, balance: list[tuple[int, float]], workers: int) -> list[Row]:
    """The balance runs' rows, and how many load runs of all had one worker over the goal."""
    rows = [Row("HTTP", f"balance: busiest worker's share of `POST /v1/evaluations` with {n} "
                f"keep-alive connections opened at once ({workers} workers, 2 s)",
                f"{share:.0%}", f"≤ {BALANCE_GOAL:.0%}", share <= BALANCE_GOAL) for n, share in balance]
    rows.append(Row("HTTP", f"load runs (any above) where one worker served more than {BALANCE_GOAL:.0%}; "
                    "nothing is run again", f"{driver.repeated} of {driver.runs} "
                    f"(largest share {driver.worst_share:.0%})", "0", driver.repeated == 0))
    return rows


#: What ``--only`` may select: every row, the deal and receipt rows alone, or the round forms' rows alone.
SUBSETS = ("all", "trust", "banker")


def run(rounds: int = 5, seconds: float = 3.0, connections: int = 16, only: str = "all") -> list[Row]:
    """Run the HTTP benchmark and return its rows (``only="trust"``: the deal and receipt rows;
    ``only="banker"``: the round forms' rows)."""
    wrk = ensure_wrk()
    with tempfile.TemporaryDirectory(prefix="gnau-bench-") as tmp:
        workdir = Path(tmp)
        driver = Driver(wrk, workdir)
        if only == "trust":
            return _trust_rows(driver, workdir, rounds, seconds, connections)
        if only == "banker":
            return _banker_rows(driver, workdir, seconds, connections)
        rows, balance, workers = _service_rows(driver, workdir, rounds, seconds, connections)
        rows += _banker_rows(driver, workdir, seconds, connections)
        rows += _batch_rows(driver, workdir, seconds)
        rows += _trust_rows(driver, workdir, rounds, seconds, connections)
        log("memory after the built-in analyses")
        rows.append(analysis_memory(workdir))
        rows += _balance_rows(driver, balance, workers)
    return rows


def main() -> None:
    """``python -m bench.http``: print the HTTP rows."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5, help="alternating max-load rounds (default %(default)s)")
    parser.add_argument("--seconds", type=float, default=3.0, help="length of a run (default %(default)s)")
    parser.add_argument("--connections", type=int, default=16, help="wrk connections (default %(default)s)")
    parser.add_argument("--only", choices=SUBSETS, default="all",
                        help="trust: only the deal and receipt rows; banker: only the round forms' rows "
                             "(default %(default)s)")
    args = parser.parse_args()
    print(markdown_table(run(args.rounds, args.seconds, args.connections, args.only)))


if __name__ == "__main__":
    main()
