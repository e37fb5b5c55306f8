"""HTTP benchmark: the real service against a bare WSGI echo, same gunicorn configuration.

It starts its own servers on free 127.0.0.1 ports with the repository's ``gunicorn.conf.py``
through :mod:`bench.harness`, the harness the tests use too (the worker class, access log,
preload: all as configured; 2 workers, the harness's default, set explicitly; only the bind
address, ``GNAU_DRAIN_SECONDS=0`` for a quick stop and, for the floor,
``GNAU_WSGI_APP=bench.echo_app:app`` differ).

Every goal is a ratio to a reference measured in the same run, in alternating short runs:
each comparison takes :data:`~bench.common.PAIRS` rounds of one run of each side (``--seconds``
long, 1 s by default), each round starting with the other side than the last, and its figure
is the median of the rounds' ratios (:class:`~bench.common.Pairs`): a neighbour's burst
spoils one round, not the comparison. The absolute figures are printed beside them, without
goals. The rows:

* **floor**: requests/s of ``POST /v1/evaluations`` (one realistic hand) over requests/s of
  ``POST /echo`` (:mod:`bench.echo_app`: a bare WSGI callable that reads the body and answers
  it as ``application/json``), 2 workers, 16 connections (goal ≥ 0.85). Every run also reads
  the workers' CPU time (the kernel's scheduler statistics, all threads), so the table gives
  what a request costs a worker on each side; ``python -m bench.phases`` splits the
  service's share of it by phase;
* **p99 at half load**: the service paced at half its maximum (the median of the floor
  row's evaluation runs) and the echo paced at the rate the service held, alternating; the ratio of
  their p99s (goal ≤ 1.5). wrk 4.1 has no ``-R`` (that is wrk2), so the rate is held by wrk's
  Lua ``delay()`` hook (a uniformly jittered pause before each request on each connection,
  so the connections do not fall into step and send in bursts), calibrated per server until
  the achieved rate matches; the achieved rates are printed beside the p99s. Latency is
  wrk's, from the request's first byte out to the whole response in;
* **slow clients**: the same half-load pace while 200 idle connections and 50 requests
  that sent 8 of their 100 body bytes are held open (goal p99 < 100 ms);
* **batch**: ``POST /v1/evaluations/batch`` with 10,000 random hands, one request at a time
  through a server with ``GNAU_WORKERS=1``, end to end, against the in-process batch path
  (``resolved`` + ``evaluations_json`` with the collector paused, :func:`bench.engine.batch_path`)
  on the same hands in this process (goal ≥ 0.75×), and with ``fields=label,score`` against
  the full batch (goal ≥ 3×), the three alternating; all again under ``niu-niu-plus`` (the
  same goals hold under a table that tells flushes apart);
* **settlement**: a dealer + 10 players (two decks) against a single evaluation, same 2
  workers and 16 connections (goal ≥ 0.6×);
* **ranking**: 1,000-hand rankings against 1,000-hand batches, in hands/s, same 2 workers
  and 2 connections (goal ≥ 0.8×);
* **round forms** (``--only banker`` runs these rows alone): on one server (2 workers, 16
  connections), the dealer + 10 players settlement with ``base``, bid and bet multiples and
  ``table`` caps (balances for the dealer and every player; the caps from an operator
  profile, so the body carries no ``rules``) against the same table with plain stakes (goal
  ≥ 0.9×; every request of these rows names its profile in the query, so both pay the same
  for it), and a 10-player showdown (one deck, bet multiples) against the plain settlement
  (goal ≥ 0.8×: the same work per hand, one resolver pass and one formatter text, plus the
  showdown's ordering, its payments and no exposures);
* **trust** (``--only trust`` runs these rows alone): on a server signing with a throwaway
  key, ``POST /v1/deals`` (one deck, 10 hands) against the bare echo, same workers,
  connections and tool (goal ≥ 0.8× the echo), and the 10-player settlement with
  ``receipt=true`` against the same settlement without it, 4 connections each (goal ≥ 0.5×
  the plain settlement);
* **cost per request in the workers** (no goal): the echo, an evaluation and a deal, each
  served by servers of their own with the app wrapped in :class:`bench.phases.Timed`, their
  workers' CPU per request split into the WSGI call and everything outside it (what a
  missed floor ratio is explained with; ``python -m bench.phases`` splits the call further);
* **health under batches**: ``GET /healthz`` on a fresh connection every 0.1 s from another
  thread, on the API port and on the master's probe port, while one client (wrk, 16
  keep-alive connections) loops 10,000-hand batches; the median of three runs' p99 (goal
  < 250 ms on the API port; the chart's probes use the probe port).

The load tool is wrk (Debian package ``wrk``; installed with apt-get when missing and
allowed). Without wrk a small Python client (threads, keep-alive ``http.client``) stands in
and the table says so; it competes with the servers for the CPU and reads lower.

Run alone with ``python -m bench.http`` (``--only floor``, ``scoring``, ``batch``, ``trust`` or
``banker`` runs one group of rows alone). Every comparison logs its rounds' ratios on stderr.
"""

from __future__ import annotations

import argparse
import json
import random
import socket
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench.common import PAIRS, Pairs, Row, alternate, markdown_table, median, rate
from bench.harness import Server, pss_mib, request, running
from bench.load import BALANCE_GOAL, Driver, Load, calibrate, check, ensure_wrk, log
from service.receipts import make_development_key

__all__ = ["ECHO_APP", "SINGLE_BODY", "batch_codes", "gunicorn", "run"]

#: The floor's WSGI app (``GNAU_WSGI_APP``): a bare echo.
ECHO_APP = "bench.echo_app:app"

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


def batch_codes(body: bytes) -> list[list[int]]:
    """The card codes of a batch body's hands, read by the engine's card reader (the
    in-process batch path's input).

    >>> batch_codes(b'{"hands": [["AD", "AC", "KS", "10H", "2D"]]}')
    [[0, 1, 51, 38, 4]]
    """
    from service.engine.cards import parse_card

    return [[parse_card(card).code for card in hand] for hand in json.loads(body)["hands"]]


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


Request = tuple[str, bytes]


def _runs(driver: Driver, server: Server, req: Request, seconds: float, connections: int,
          delay_ms: int = 0) -> Callable[[], Load]:
    """One measure for :func:`~bench.common.alternate`: a checked load run of ``req`` on ``server``."""
    return lambda: check(driver.run(server, *req, seconds, connections, delay_ms=delay_ms),
                         f"{server.name} {req[0]}")


def _rps(loads: list[Load]) -> tuple[float, ...]:
    return tuple(load.rps for load in loads)


def _cpu_us(loads: list[Load]) -> float:
    """The median of the runs' worker CPU per request, in µs."""
    return median([load.cpu_us for load in loads])


def _compare(driver: Driver, reference: tuple[Server, Request, int], subject: tuple[Server, Request, int],
             pairs: int, seconds: float) -> tuple[Pairs, list[Load], list[Load]]:
    """Alternating runs ``(server, request, connections)`` of a reference and a subject: their
    requests/s as :class:`~bench.common.Pairs` (subject over reference), and the runs."""
    ref_loads, sub_loads = alternate([_runs(driver, reference[0], reference[1], seconds, reference[2]),
                                      _runs(driver, subject[0], subject[1], seconds, subject[2])], pairs)
    found = Pairs(_rps(sub_loads), _rps(ref_loads))
    log(f"{subject[1][0]} / {reference[1][0]}: rounds " + ", ".join(f"{r:.2f}" for r in found.ratios)
        + f"; {found.ratio_text()}")
    return found, ref_loads, sub_loads


def _half_load(driver: Driver, app: Server, echo: Server, app_max: float, pairs: int, seconds: float,
               connections: int) -> tuple[Pairs, list[Load], list[Load], float]:
    """The service and the echo both paced at half the service's maximum: their p99s as
    :class:`~bench.common.Pairs` (service over echo), both sides' runs, and the service's
    median p99 (ms) with slow clients held open (3 runs of ``3 * seconds``)."""
    log("half-load latency runs (the echo at the service's rate)")
    target = app_max / 2
    app_delay = calibrate(driver, app, *EVALUATION, target, connections)
    # The echo is held at the rate the service holds with its delay (the same load), which
    # may fall short of the target on a busy machine.
    held = check(driver.run(app, *EVALUATION, 2, connections, delay_ms=app_delay), "half load").rps
    echo_delay = calibrate(driver, echo, *ECHO, held, connections)
    echo_loads, app_loads = alternate([_runs(driver, echo, ECHO, seconds, connections, echo_delay),
                                       _runs(driver, app, EVALUATION, seconds, connections, app_delay)], pairs)
    p99 = Pairs(tuple(r.p99_ms for r in app_loads), tuple(r.p99_ms for r in echo_loads))
    log("half load with slow clients held open")
    slow_runs = []
    for _ in range(3):  # opened anew for each run: the server drops idle ones after GNAU_KEEPALIVE
        with slow_clients(app.port):
            slow_runs.append(check(driver.run(app, *EVALUATION, 3 * seconds, connections, delay_ms=app_delay),
                                   "slow clients").p99_ms)
    return p99, app_loads, echo_loads, median(slow_runs)


def _settle_and_rank(driver: Driver, app: Server, pairs: int, seconds: float, connections: int) -> list[Row]:
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
    settled, _, _ = _compare(driver, (app, EVALUATION, connections), (app, settle, connections), pairs, seconds)
    ranked, _, _ = _compare(driver, (app, batch, 2), (app, rank, 2), pairs, seconds)
    return [
        Row("HTTP", f"`POST /v1/settlements`, dealer + 10 players (2 decks), against `POST /v1/evaluations` "
            f"in alternating runs, same workers, {connections} conn.",
            f"{rate(settled.subject_median, 1, 'requests')} ({rate(settled.subject_median * 11, 1, 'hands')}) "
            f"against {rate(settled.reference_median, 1, 'requests')}: {settled.ratio_text()}",
            "≥ 0.6x", settled.ratio >= 0.6),
        Row("HTTP", "`POST /v1/rankings`, 1,000 hands, against `POST /v1/evaluations/batch` with 1,000 hands "
            f"in alternating runs, same workers, {driver.tool}, 2 conn.",
            f"{rate(ranked.subject_median * 1000, 1, 'hands')} against "
            f"{rate(ranked.reference_median * 1000, 1, 'hands')}: {ranked.ratio_text()}",
            "≥ 0.8x", ranked.ratio >= 0.8),
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


@contextmanager
def _app_and_echo(workdir: Path, name: str, probe: Request, **env: str) -> Iterator[tuple[Server, Server]]:
    """The service (``name``) and the bare echo (``name-echo``), both ready, the echo checked."""
    with gunicorn(name, probe, workdir, **env) as app, \
            gunicorn(f"{name}-echo", ECHO, workdir, GNAU_WSGI_APP=ECHO_APP) as echo:
        reply = echo.post(*ECHO)
        if reply.body != SINGLE_BODY or reply.headers.get("content-type") != "application/json":
            raise SystemExit(f"the echo server does not echo: {reply.status} {reply.headers} {reply.body[:200]!r}")
        yield app, echo


def _floor_rows(driver: Driver, app: Server, echo: Server, pairs: int, seconds: float,
                connections: int) -> tuple[list[Row], float]:
    """The service against the bare echo: max load, half load, slow clients; and the rate
    held at half load."""
    conditions = f"{app.workers} gevent workers, {driver.tool}, {connections} conn."
    (floor, echo_loads, app_loads) = _compare(driver, (echo, ECHO, connections), (app, EVALUATION, connections),
                                              pairs, seconds)
    log(f"floor: echo {floor.reference_median:,.0f}/s, evaluation {floor.subject_median:,.0f}/s, "
        f"ratio {floor.ratio_text()}")
    p99, app_half, echo_half, slow = _half_load(driver, app, echo, floor.subject_median, pairs, seconds,
                                                connections)
    app_cpu, echo_cpu = _cpu_us(app_loads), _cpu_us(echo_loads)
    held_app, held_echo = median(_rps(app_half)), median(_rps(echo_half))
    p50_app, p50_echo = median([r.p50_ms for r in app_half]), median([r.p50_ms for r in echo_half])
    runs = f"{pairs} alternating pairs of {seconds:g} s runs"
    rows = [
        Row("HTTP", f"bare WSGI echo `POST /echo` (reads the body, answers it as application/json; same gunicorn "
            f"configuration and worker class), {conditions}, median of {pairs} x {seconds:g} s",
            f"{rate(floor.reference_median, 1, 'requests')} (workers' CPU {echo_cpu:.0f} µs a request)"),
        Row("HTTP", "`POST /v1/evaluations`, one hand, same conditions, runs alternating with the echo",
            f"{rate(floor.subject_median, 1, 'requests')} (workers' CPU {app_cpu:.0f} µs a request, "
            f"{app_cpu - echo_cpu:.0f} µs beyond the echo's)"),
        Row("HTTP", f"HTTP ratio: evaluations / bare echo, {runs}", floor.ratio_text(), "≥ 0.85",
            floor.ratio >= 0.85),
        Row("HTTP", f"`POST /v1/evaluations` p99 at half load ({rate(held_app, 1, 'requests')} held, "
            f"{connections} conn.)", f"{p99.subject_median:.1f} ms (p50 {p50_app:.1f} ms)"),
        Row("HTTP", f"bare echo p99 at the same load ({rate(held_echo, 1, 'requests')} held)",
            f"{p99.reference_median:.1f} ms (p50 {p50_echo:.1f} ms)"),
        Row("HTTP", f"p99 ratio at half load: evaluations / bare echo at the same rate, {runs}",
            p99.ratio_text(), "≤ 1.5", p99.ratio <= 1.5),
        Row("HTTP", "`POST /v1/evaluations` p99 at half load with 200 idle connections and 50 stalled "
            "request bodies held open, measured from 1 s after they were opened (median of 3)",
            f"{slow:.1f} ms", "< 100 ms", slow < 100),
    ]
    return rows, held_app


def _service_rows(driver: Driver, workdir: Path, pairs: int, seconds: float,
                  connections: int) -> tuple[list[Row], list[tuple[int, float]], int]:
    """The service against the bare echo, then its scoring comparisons and health: its rows,
    the balance runs ``(connections, busiest share)`` and the workers of each server."""
    with _app_and_echo(workdir, "app", EVALUATION) as (app, echo):
        _verify(app, *EVALUATION, "label")
        workers = len(app.worker_pids())
        log(f"servers up: app :{app.port}, echo :{echo.port}, {workers} workers each; warming up")
        for server, (path, body) in ((echo, ECHO), (app, EVALUATION)):
            check(driver.run(server, path, body, 2, connections), server.name)
        balance: list[tuple[int, float]] = []
        for n in (4, 16, 64):  # connections opened at once, kept alive for the run
            driver.run(app, *EVALUATION, 2, n)
            balance.append((n, driver.last_share))
        rows, _ = _floor_rows(driver, app, echo, pairs, seconds, connections)
        rows += _settle_and_rank(driver, app, pairs, seconds, connections)
        health_api, health_probe, batches_rps = _health_under_batches(driver, app, 5 * seconds)
    rows.append(Row("HTTP", f"`GET /healthz` p99 on the API port while one client loops 10,000-hand batches on 16 "
                    f"connections ({workers} workers, {driver.tool}; a fresh connection every 0.1 s; median of 3 x "
                    f"{5 * seconds:g} s)",
                    f"{health_api:.0f} ms (probe port: {health_probe:.1f} ms; "
                    f"{rate(batches_rps * 10_000, 1, 'hands')})", "< 250 ms", health_api < 250))
    return rows, balance, workers


def _banker_rows(driver: Driver, workdir: Path, pairs: int, seconds: float, connections: int) -> list[Row]:
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
        for req in (plain, capped, showdown):
            check(driver.run(app, *req, 1, connections), req[0])
        caps, _, _ = _compare(driver, (app, plain, connections), (app, capped, connections), pairs, seconds)
        shows, _, _ = _compare(driver, (app, plain, connections), (app, showdown, connections), pairs, seconds)
        workers = app.workers
    conditions = (f"{workers} gevent workers, {driver.tool}, {connections} conn., {pairs} alternating pairs of "
                  f"{seconds:g} s runs")
    return [
        Row("HTTP", f"`POST /v1/settlements`, dealer + 10 players (2 decks), base with bid and bet multiples, "
            f"`table` caps (every balance given), against the same table with stakes; {conditions}",
            f"{rate(caps.subject_median, 1, 'requests')} against {rate(caps.reference_median, 1, 'requests')}: "
            f"{caps.ratio_text()}", "≥ 0.9x", caps.ratio >= 0.9),
        Row("HTTP", f"`POST /v1/showdowns`, 10 players (one deck), bet multiples, against the plain settlement; "
            f"{conditions}",
            f"{rate(shows.subject_median, 1, 'requests')} against {rate(shows.reference_median, 1, 'requests')}: "
            f"{shows.ratio_text()}", "≥ 0.8x", shows.ratio >= 0.8),
    ]


def _trust_rows(driver: Driver, workdir: Path, pairs: int, seconds: float, connections: int) -> list[Row]:
    """Deals against the bare echo, and a settlement with a receipt against one without:
    each round runs the echo and the deal next to each other, then the two settlements,
    each pair in the other order than the round before."""
    log("deals and receipts")
    key = workdir / "receipt-key.pem"
    make_development_key(key)  # a throwaway key: the signing cost is the same for any Ed25519 key
    settle = ("/v1/settlements", settlement_body())
    signed = ("/v1/settlements?receipt=true", settle[1])
    with _app_and_echo(workdir, "trust", DEAL, GNAU_RECEIPT_KEY_FILE=str(key)) as (app, echo):
        if len(_verify(app, *DEAL, "hands")["hands"]) != 10:
            raise SystemExit("the deal does not hold 10 hands")
        _verify(app, *signed, "receipt")
        for server, (path, body), conn in ((echo, ECHO, connections), (app, DEAL, connections), (app, settle, 4),
                                           (app, signed, 4)):
            check(driver.run(server, path, body, 1, conn), server.name)
        # Each round: the echo and the deal next to each other, then the two settlements,
        # each pair in the other order than the round before.
        floor = [_runs(driver, echo, ECHO, seconds, connections), _runs(driver, app, DEAL, seconds, connections)]
        receipt = [_runs(driver, app, settle, seconds, 4), _runs(driver, app, signed, seconds, 4)]
        echo_loads: list[Load] = []
        deal_loads: list[Load] = []
        plain_loads: list[Load] = []
        signed_loads: list[Load] = []
        for i in range(pairs):
            [[echo_run], [deal_run]] = alternate(floor, 1, start=i)
            [[plain_run], [signed_run]] = alternate(receipt, 1, start=i)
            echo_loads.append(echo_run)
            deal_loads.append(deal_run)
            plain_loads.append(plain_run)
            signed_loads.append(signed_run)
        workers = app.workers
    deals = Pairs(_rps(deal_loads), _rps(echo_loads))
    receipts = Pairs(_rps(signed_loads), _rps(plain_loads))
    conditions = f"{workers} gevent workers, {driver.tool}, {pairs} alternating rounds of {seconds:g} s runs"
    return [
        Row("HTTP", f"bare echo again, beside the deals: {conditions}, {connections} conn.",
            f"{rate(deals.reference_median, 1, 'requests')} (workers' CPU {_cpu_us(echo_loads):.0f} µs a request)"),
        Row("HTTP", "`POST /v1/deals`, one deck, 10 hands, same conditions",
            f"{rate(deals.subject_median, 1, 'requests')} (workers' CPU {_cpu_us(deal_loads):.0f} µs a request)"),
        Row("HTTP", "deal ratio: deals / bare echo", deals.ratio_text(), "≥ 0.8", deals.ratio >= 0.8),
        Row("HTTP", f"`POST /v1/settlements?receipt=true`, dealer + 10 players (2 decks), 4 conn., {conditions}",
            f"{rate(receipts.subject_median, 1, 'requests')} (without: {rate(receipts.reference_median, 1, 'requests')})"),
        Row("HTTP", "receipt ratio: settlements with a receipt / without", receipts.ratio_text(), "≥ 0.5",
            receipts.ratio >= 0.5),
    ]


def _in_process(codes: list[list[int]], rules: Any, seconds: float) -> Callable[[], float]:
    """One measure: the in-process batch path (:func:`bench.engine.batch_path`) on ``codes``,
    repeated for about ``seconds``; hands/s."""
    from bench.engine import batch_path

    def measure() -> float:
        done = 0
        started = time.perf_counter()
        while True:
            batch_path(codes, rules)
            done += 1
            elapsed = time.perf_counter() - started
            if elapsed >= seconds:
                return done * len(codes) / elapsed
    return measure


def _hands(measure: Callable[[], Load], per_request: int) -> Callable[[], float]:
    """A load run's measure as hands/s, for requests of ``per_request`` hands."""
    return lambda: measure().rps * per_request


def _batch_rows(driver: Driver, workdir: Path, pairs: int, seconds: float) -> list[Row]:
    """10,000-hand batches, whole and sparse, one at a time through one worker, against the
    in-process batch path on the same hands, under ``standard`` and under ``niu-niu-plus``
    (a table that tells flushes apart)."""
    import gc

    from service.engine.rules import PROFILES
    from service.engine.tables import table_for

    log("batch through one worker, against the in-process batch path")
    body = batch_body()
    codes = batch_codes(body)
    hands = len(codes)
    rows: list[Row] = []
    with gunicorn("batch", EVALUATION, workdir, GNAU_WORKERS="1") as one:
        for profile in ("standard", "niu-niu-plus"):
            rules = PROFILES[profile].rules
            table_for(rules)
            gc.collect()
            gc.freeze()  # as the server's preloaded app: long-lived data out of the collector's scans
            query = "" if profile == "standard" else f"profile={profile}"
            batch = ("/v1/evaluations/batch" + (f"?{query}" if query else ""), body)
            answer = _verify(one, *batch, "evaluations")
            if len(answer["evaluations"]) != hands or answer["profile"] != profile:
                raise SystemExit(f"the {profile} batch answer does not hold {hands:,} evaluations")
            sparse = ("/v1/evaluations/batch?fields=label,score" + (f"&{query}" if query else ""), body)
            if sorted(_verify(one, *sparse, "evaluations")["evaluations"][0]) != ["label", "score"]:
                raise SystemExit("the sparse batch answer holds other members")
            check(driver.run(one, *batch, 2 * seconds, 1), "batch")
            local, full, thin = alternate([_in_process(codes, rules, seconds),
                                           _hands(_runs(driver, one, batch, seconds, 1), hands),
                                           _hands(_runs(driver, one, sparse, seconds, 1), hands)], pairs)
            end_to_end, sparse_ratio = Pairs(tuple(full), tuple(local)), Pairs(tuple(thin), tuple(full))
            where = "" if profile == "standard" else f"`?profile={profile}`, "
            runs = f"{pairs} alternating rounds of {seconds:g} s runs"
            full_hands, thin_hands = end_to_end.subject_median, sparse_ratio.subject_median
            rows += [
                Row("HTTP", f"`POST /v1/evaluations/batch`, {where}10,000 hands ({len(body) / 1e3:.0f} kB), "
                    f"1 worker, 1 conn., end to end, {driver.tool}",
                    f"{rate(full_hands, 1, 'hands')} ({1000 * hands / full_hands:.0f} ms a request)"),
                Row("HTTP", f"in-process batch path (`resolved` + `evaluations_json`, collector paused), {where}"
                    "same 10,000 hands, in the benchmark's process",
                    f"{rate(end_to_end.reference_median, 1, 'hands')} "
                    f"({1000 * hands / end_to_end.reference_median:.0f} ms a batch)"),
                Row("HTTP", f"batch ratio: {where}end to end / in-process batch path, {runs}",
                    end_to_end.ratio_text(), "≥ 0.75", end_to_end.ratio >= 0.75),
                Row("HTTP", f"`POST /v1/evaluations/batch?fields=label,score`, {where}same 10,000 hands, 1 worker, "
                    "1 conn., end to end",
                    f"{rate(thin_hands, 1, 'hands')} ({1000 * hands / thin_hands:.0f} ms a request)"),
                Row("HTTP", f"sparse ratio: {where}`fields=label,score` / full batch, {runs}",
                    sparse_ratio.ratio_text(), "≥ 3", sparse_ratio.ratio >= 3),
            ]
    return rows


def _breakdown_rows(driver: Driver, workdir: Path, seconds: float, connections: int) -> list[Row]:
    """What a request costs a worker, inside its WSGI call and outside it, for the echo, an
    evaluation and a deal (:func:`bench.phases.live_costs`: servers of their own, the app
    wrapped in a timer, so no goal row is measured on them)."""
    from bench.phases import live_costs

    log("cost per request inside the workers (timed WSGI calls)")
    costs = live_costs(driver, workdir, seconds, connections)
    return [Row("HTTP", f"cost per request in the workers, {what} ({'bare echo' if what == 'POST /echo' else 'service'}"
                f", timed WSGI calls, {connections} conn., {seconds:g} s): WSGI call + everything outside it",
                f"{load.inside_us:.0f} µs + {load.cpu_us - load.inside_us:.0f} µs = {load.cpu_us:.0f} µs "
                f"({rate(load.rps, 1, 'requests')})") for what, load in costs]


def _balance_rows(driver: Driver, balance: list[tuple[int, float]], workers: int) -> list[Row]:
    """The balance runs' rows, and how many load runs of all had one worker over the goal."""
    rows = [Row("HTTP", f"balance: busiest worker's share of `POST /v1/evaluations` with {n} "
                f"keep-alive connections opened at once ({workers} workers, 2 s)",
                f"{share:.0%}", f"≤ {BALANCE_GOAL:.0%}", share <= BALANCE_GOAL) for n, share in balance]
    rows.append(Row("HTTP", f"load runs (any above) where one worker served more than {BALANCE_GOAL:.0%}; "
                    "nothing is run again", f"{driver.repeated} of {driver.runs} "
                    f"(largest share {driver.worst_share:.0%})", "0", driver.repeated == 0))
    return rows


#: What ``--only`` may select: every row, or one group of rows alone.
SUBSETS = ("all", "floor", "scoring", "batch", "trust", "banker")


def run(pairs: int = PAIRS, seconds: float = 1.0, connections: int = 16, only: str = "all") -> list[Row]:
    """Run the HTTP benchmark and return its rows: ``pairs`` alternating rounds of ``seconds``
    runs per comparison (``only``: one group of rows, :data:`SUBSETS`)."""
    wrk = ensure_wrk()
    with tempfile.TemporaryDirectory(prefix="gnau-bench-") as tmp:
        workdir = Path(tmp)
        driver = Driver(wrk, workdir)
        if only == "trust":
            return _trust_rows(driver, workdir, pairs, seconds, connections)
        if only == "banker":
            return _banker_rows(driver, workdir, pairs, seconds, connections)
        if only == "batch":
            return _batch_rows(driver, workdir, pairs, seconds)
        if only == "scoring":
            with gunicorn("app", EVALUATION, workdir) as app:
                return _settle_and_rank(driver, app, pairs, seconds, connections)
        if only == "floor":
            with _app_and_echo(workdir, "app", EVALUATION) as (app, echo):
                for server, (path, body) in ((echo, ECHO), (app, EVALUATION)):
                    check(driver.run(server, path, body, 2, connections), server.name)
                rows = _floor_rows(driver, app, echo, pairs, seconds, connections)[0]
            return rows + _breakdown_rows(driver, workdir, 3 * seconds, connections)
        rows, balance, workers = _service_rows(driver, workdir, pairs, seconds, connections)
        rows += _banker_rows(driver, workdir, pairs, seconds, connections)
        rows += _batch_rows(driver, workdir, pairs, seconds)
        rows += _trust_rows(driver, workdir, pairs, seconds, connections)
        rows += _breakdown_rows(driver, workdir, 3 * seconds, connections)
        log("memory after the built-in analyses")
        rows.append(analysis_memory(workdir))
        rows += _balance_rows(driver, balance, workers)
    return rows


def main() -> None:
    """``python -m bench.http``: print the HTTP rows."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=PAIRS,
                        help="alternating rounds per comparison (default %(default)s)")
    parser.add_argument("--seconds", type=float, default=1.0, help="length of one run of a round (default %(default)s)")
    parser.add_argument("--connections", type=int, default=16, help="wrk connections (default %(default)s)")
    parser.add_argument("--only", choices=SUBSETS, default="all",
                        help="floor: the echo floor, half-load and cost rows; scoring: the settlement and "
                             "ranking rows; batch: the batch rows; trust: the deal and receipt rows; banker: the "
                             "round forms' rows (default %(default)s)")
    args = parser.parse_args()
    print(markdown_table(run(args.pairs, args.seconds, args.connections, args.only)))


if __name__ == "__main__":
    main()
