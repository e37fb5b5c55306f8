"""The benchmark's own pieces: its request bodies are valid requests, its bare WSGI echo
floor echoes (in process and under the repository's gunicorn configuration), its rows and
goals exist and every ratio is computed from figures of the same run, its load script and
report render. (Timings are bench/'s business, never asserted here: the fake load below
gives figures chosen by the test.)"""

from __future__ import annotations

import doctest
import io
import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

import bench.common
import bench.echo_app
import bench.harness
import bench.phases
from bench import http, load
from bench.__main__ import section
from bench.common import Pairs, Row, alternate
from bench.echo_app import app as echo_app
from bench.load import Load
from service.logs import json_formatter
from tests import ROOT


def test_common_doctests() -> None:
    for module in (bench.common, bench.harness, bench.echo_app, bench.phases, http):
        assert doctest.testmod(module).failed == 0, module.__name__


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


def test_round_form_bodies_are_valid_requests(tmp_path: Path) -> None:
    """The round forms' rows (issue 25): the capped table under the bench's operator profile
    is capped, and the showdown has 10 players."""
    from service.http.app import create_app

    profiles = tmp_path / "profiles.yaml"
    profiles.write_text(http.BANKER_PROFILES, encoding="utf-8")
    client = create_app({"TESTING": True, "PROFILES_FILE": str(profiles)}).test_client()
    capped = client.post("/v1/settlements?profile=bid-table", data=http.round_settlement_body(),
                         content_type="application/json").get_json()
    assert any(p["cap"] == "dealer_balance" for p in capped["players"])
    assert [p["factors"]["bet_multiple"] for p in capped["players"]] == [1, 2, 3, 4, 5] * 2
    showdown = client.post("/v1/showdowns?profile=standard", data=http.showdown_body(),
                           content_type="application/json").get_json()
    assert len(showdown["players"]) == 10


def test_batch_body_is_random_hands_in_random_order() -> None:
    hands = json.loads(http.batch_body(200))["hands"]
    assert len({tuple(h) for h in hands}) == 200
    assert all(len(set(h)) == 5 for h in hands)
    codes = [http.CARD_TEXTS.index(c) for h in hands for c in h]
    assert any(codes[i] > codes[i + 1] for i in range(0, len(codes), 5))  # not pre-sorted


def _echo(body: bytes, **environ: Any) -> tuple[str, list[tuple[str, str]], bytes]:
    seen: list[tuple[str, list[tuple[str, str]]]] = []
    answer = echo_app({"wsgi.input": io.BytesIO(body), "CONTENT_LENGTH": str(len(body)), **environ},
                      lambda status, headers: seen.append((status, headers)))
    [(status, headers)] = seen
    return status, headers, b"".join(answer)


def test_echo_app_is_a_bare_wsgi_callable_answering_the_body_as_json() -> None:
    status, headers, body = _echo(http.SINGLE_BODY, REQUEST_METHOD="POST", PATH_INFO="/echo")
    assert status == "200 OK"
    assert body == http.SINGLE_BODY
    assert dict(headers) == {"Content-Type": "application/json", "Content-Length": str(len(http.SINGLE_BODY))}
    assert not hasattr(echo_app, "wsgi_app")  # no framework: gunicorn.conf.py's hooks find no runtime
    assert _echo(b"")[2] == b""


def test_in_process_batch_path_reads_the_same_hands() -> None:
    """The batch row's reference runs on exactly the hands the HTTP batch sends."""
    from service.engine.cards import CARDS

    body = http.batch_body(50)
    codes = http.batch_codes(body)
    assert [[CARDS[c].text for c in hand] for hand in codes] == json.loads(body)["hands"]


@pytest.mark.slow
def test_bare_echo_is_served_by_the_repository_configuration(tmp_path: Path) -> None:
    """The floor runs under gunicorn.conf.py and the service's worker class: every worker
    boots (the hooks skip the warm-up and the compute lane), it echoes any body as JSON,
    and a SIGTERM stops it (gunicorn's own handler)."""
    with http.gunicorn("echo", http.ECHO, tmp_path, GNAU_WSGI_APP=http.ECHO_APP) as echo:
        reply = echo.post("/echo", b'{"a": [1, 2]}')
        assert (reply.status, reply.headers["content-type"], reply.body) == (200, "application/json", b'{"a": [1, 2]}')
        assert len(echo.worker_pids()) == bench.harness.WORKERS
        errors = " ".join(str(r.get("message")) for r in echo.errors())
        assert "warmed" not in errors
        assert "Traceback" not in errors
    assert echo.proc.returncode == 0


def test_wrk_script_renders_body_and_pacing(tmp_path: Path) -> None:
    driver = load.Driver("/usr/bin/wrk", tmp_path)
    plain = driver._script(b'{"hand": ["AS"]}', 0).read_text()
    assert 'wrk.body = [==[{"hand": ["AS"]}]==]' in plain
    assert 'wrk.method = "POST"' in plain
    assert "function delay" not in plain
    assert "WRKJSON" in plain
    paced = driver._script(b"{}", 12).read_text()
    assert "function delay() return math.random(6, 18) end" in paced


def test_performance_section() -> None:
    rows = [Row("Engine", "ratio", "900x", "≥ 100x", True), Row("HTTP", "batch", "90,000 hands/s", "≥ 150,000", False)]
    where = {"CPUs (nproc)": "2", "CPU model": "Test CPU"}
    text = section(rows, where, 120.0, "wrk")
    assert text.startswith("# Performance\n")  # the page docs/performance.md, nothing else
    assert "| Engine | ratio | 900x | ≥ 100x | yes |" in text
    assert "Goals **missed** in this run: batch." in text
    assert "- CPU model: Test CPU" in text
    assert "make bench" in text
    assert "wrk was not available" not in text
    assert "wrk was not available" in section(rows, where, 120.0, "Python client")


def _access_line(pid: int) -> str:
    """An access-log line as the service writes it (service.logs), from worker ``pid``."""
    record = logging.LogRecord("gunicorn.access", logging.INFO, "", 0, "request", None, None)
    record.process, record.path = pid, "/x"
    return json_formatter().format(record) + "\n"


def test_served_by_counts_requests_per_worker(tmp_path: Path) -> None:
    log = tmp_path / "stdout.log"  # the access log
    log.write_text(_access_line(1) * 3 + _access_line(2) + '{"message": "Booting worker with pid: 3"}\n'
                   + "not json\n" + '["request"]\n')
    (tmp_path / "stderr.log").write_text('{"message": "Booting worker with pid: 3"}\n{"message": "Booting wo')
    server = bench.harness.Server(None, 0, tmp_path, {"GNAU_WORKERS": "2"})  # type: ignore[arg-type]
    assert (server.name, server.workers, server.booted_workers()) == (tmp_path.name, 2, [3])
    assert server.served_by() == [1, 3]
    assert server.served_by() == []
    with log.open("a") as f:
        f.write(_access_line(2) + _access_line(2)[:20])  # the last line is still being written
    assert server.served_by() == [1]
    with log.open("a") as f:
        f.write(_access_line(2)[20:])
    assert server.served_by() == [1]


def test_the_page_shows_the_plot_beside_it() -> None:
    """The bench writes one page, docs/performance.md (tests/test_docs.py), whose plot link is
    relative to docs/: it works on GitHub and in the docs site alike."""
    from bench.__main__ import DOC

    text = section([Row("Engine", "ratio", "900x", "≥ 100x", True)], {"CPUs (nproc)": "2"}, 1.0, "wrk")
    assert "![Time per request against work](cost-curves.png)" in text
    assert DOC == ROOT / "docs" / "performance.md"
    assert (DOC.parent / "cost-curves.png").exists()


def test_cost_curve_slopes_and_plot(tmp_path: Path) -> None:
    from bench.curves import Curve, plot, rows

    linear = Curve("batch", "hands", [10, 100, 1000, 10000], [1.0, 10.0, 100.0, 1000.0])
    fixed = Curve("settlement", "players", [1, 10, 82], [2.0, 2.0, 2.0])
    odds = Curve("odds", "known cards", [5], [3.0])
    assert abs(linear.slope - 1.0) < 1e-9
    assert fixed.slope == 0.0
    table = rows([linear, fixed, odds])
    assert "slope 1.00 (linear)" in table[0].result
    assert "slope 0.00 (sub-linear)" in table[1].result
    assert table[2].result == "5 known cards: 3.0 ms"
    path = plot([linear, fixed, odds], tmp_path / "curves.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("kind", ["batch", "ranking", "settlement", "odds"])
def test_cost_curve_bodies_are_valid_requests(client: FlaskClient, kind: str) -> None:
    from bench.curves import KINDS, bodies

    [(path, sizes)] = [(p, s) for name, p, _, s in KINDS if name == kind]
    body = bodies()[kind](max(s for s in sizes if s <= 5 or kind != "odds"))
    response = client.post(path, data=body, content_type="application/json")
    assert response.status_code == 200, response.get_json()


# ---------------------------------------------------------------------------------------
# The rows and their goals, from a fake load whose figures the test chooses: each ratio
# must be the median of the ratios of runs of the same round (not the ratio of medians).


class _FakeServer:
    def __init__(self, name: str) -> None:
        self.name, self.workers, self.port = name, 2, 0


class _FakeDriver:
    """Stands in for bench.load.Driver: per ``(server, path, paced)`` it answers the next
    of the figures ``(requests/s, p99 ms)`` given, and logs every run."""

    tool = "fake"

    def __init__(self, figures: dict[tuple[str, str, bool], list[tuple[float, float]]]) -> None:
        self.figures = figures
        self.done: dict[tuple[str, str, bool], int] = {}
        self.log: list[tuple[tuple[str, str, bool], float, float, float]] = []
        self.runs = self.repeated = 0
        self.worst_share = self.last_share = 0.0

    def run(self, server: Any, path: str, body: bytes, seconds: float, connections: int, threads: int = 1,
            delay_ms: int = 0) -> Load:
        key = (server.name, path, bool(delay_ms))
        n = self.done.get(key, 0)
        self.done[key] = n + 1
        rps, p99 = self.figures[key][n % len(self.figures[key])]
        self.log.append((key, seconds, rps, p99))
        return Load(round(rps * seconds), seconds, p99 / 2, p99, 0, worker_cpu=rps * seconds * 50e-6)

    def rounds(self, key: tuple[str, str, bool], seconds: float) -> list[tuple[float, float]]:
        """The figures of the runs of ``key`` that lasted ``seconds``, in order."""
        return [(rps, p99) for k, s, rps, p99 in self.log if k == key and s == seconds]


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def _row(rows: list[Row], start: str) -> Row:
    [found] = [r for r in rows if r.measure.startswith(start)]
    return found


def test_floor_rows_are_ratios_to_the_bare_echo_of_the_same_rounds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http, "slow_clients", lambda port: contextmanager(lambda: iter([None]))())
    figures = {  # chosen so that the median of per-round ratios differs from the ratio of medians
        ("echo", "/echo", False): [(1000.0, 0.0), (2000.0, 0.0), (3000.0, 0.0)],
        ("app", "/v1/evaluations", False): [(900.0, 0.0), (1000.0, 0.0), (2900.0, 0.0)],
        ("echo", "/echo", True): [(500.0, 1.0), (500.0, 2.0), (500.0, 4.0)],
        ("app", "/v1/evaluations", True): [(500.0, 1.2), (500.0, 2.6), (500.0, 4.4)],
    }
    driver = _FakeDriver(figures)
    rows, held = http._floor_rows(driver, _FakeServer("app"), _FakeServer("echo"), 3, 1.0, 16)  # type: ignore[arg-type]
    echo_runs = driver.rounds(("echo", "/echo", False), 1.0)
    app_runs = driver.rounds(("app", "/v1/evaluations", False), 1.0)
    assert len(echo_runs) == len(app_runs) == 3
    ratio = _median([a[0] / e[0] for a, e in zip(app_runs, echo_runs, strict=True)])
    assert ratio == 0.9
    floor = _row(rows, "HTTP ratio: evaluations / bare echo")
    assert (floor.goal, floor.met) == ("≥ 0.85", True)
    assert floor.result.startswith(f"{ratio:.2f} (median of 3 pairs;")
    assert _row(rows, "bare WSGI echo `POST /echo`").result.startswith("2,000 requests/s")
    # Half load: the service is paced at half its median maximum, and the echo at the rate
    # the service held with its delay (the same load).
    assert held == 500.0
    held_trials = [(k, s) for k, s, _, _ in driver.log if k[2] and s == 2.0]
    assert ("app", "/v1/evaluations", True) in [k for k, _ in held_trials]
    paced_echo = driver.rounds(("echo", "/echo", True), 1.0)
    paced_app = driver.rounds(("app", "/v1/evaluations", True), 1.0)
    p99_ratio = _median([a[1] / e[1] for a, e in zip(paced_app, paced_echo, strict=True)])
    latency = _row(rows, "p99 ratio at half load")
    assert (latency.goal, latency.met) == ("≤ 1.5", p99_ratio <= 1.5)
    assert latency.result.startswith(f"{p99_ratio:.2f} (median of 3 pairs;")
    absolute = _row(rows, "`POST /v1/evaluations` p99 at half load (")
    assert (absolute.goal, absolute.met) == ("", None)  # the absolute figure stays, without a goal


def test_batch_rows_are_ratios_to_the_in_process_path_of_the_same_rounds(monkeypatch: pytest.MonkeyPatch) -> None:
    hands = 10_000
    measured: list[tuple[int, str]] = []
    local_rates = iter([400_000.0, 200_000.0, 300_000.0] * 2)

    def in_process(codes: list[list[int]], rules: Any, seconds: float) -> Any:
        from service.engine.rules import PROFILES

        name = next(n for n, p in PROFILES.items() if p.rules is rules)

        def measure() -> float:
            measured.append((len(codes), name))
            return next(local_rates)
        return measure

    @contextmanager
    def server(name: str, probe: Any, workdir: Path, **env: str) -> Iterator[_FakeServer]:
        assert env == {"GNAU_WORKERS": "1"}
        yield _FakeServer(name)

    def verify(server: Any, path: str, body: bytes, check: str) -> dict[str, Any]:
        profile = "niu-niu-plus" if "niu-niu-plus" in path else "standard"
        one = {"label": "x", "score": 1} if "fields=" in path else {"label": "x", "score": 1, "category": "c"}
        return {"evaluations": [one] * hands, "profile": profile}

    monkeypatch.setattr(http, "_in_process", in_process)
    monkeypatch.setattr(http, "gunicorn", server)
    monkeypatch.setattr(http, "_verify", verify)
    figures: dict[tuple[str, str, bool], list[tuple[float, float]]] = {}
    for query, also in (("", ""), ("?profile=niu-niu-plus", "&profile=niu-niu-plus")):
        figures["batch", "/v1/evaluations/batch" + query, False] = [(30.0, 0.0), (25.0, 0.0), (20.0, 0.0)]
        figures["batch", "/v1/evaluations/batch?fields=label,score" + also, False] = [
            (100.0, 0.0), (60.0, 0.0), (90.0, 0.0)]
    driver = _FakeDriver(figures)
    rows = http._batch_rows(driver, Path("unused"), 3, 1.0)  # type: ignore[arg-type]
    assert measured == [(hands, "standard")] * 3 + [(hands, "niu-niu-plus")] * 3
    full = [r for r, _ in driver.rounds(("batch", "/v1/evaluations/batch", False), 1.0)]
    thin = [r for r, _ in driver.rounds(("batch", "/v1/evaluations/batch?fields=label,score", False), 1.0)]
    batch_ratio = _median([f * hands / local for f, local in zip(full, [400_000.0, 200_000.0, 300_000.0],
                                                                 strict=True)])
    sparse_ratio = _median([t / f for t, f in zip(thin, full, strict=True)])
    # The warm-up run took the first figures: the rounds are (25, 20, 30) and (60, 90, 100)
    # against (400,000, 200,000, 300,000) in process; ratios of medians would be 0.83 and 3.6.
    assert (batch_ratio, sparse_ratio) == (1.0, 3.0)
    for where in ("", "`?profile=niu-niu-plus`, "):
        end_to_end = _row(rows, f"batch ratio: {where}end to end / in-process batch path")
        assert (end_to_end.goal, end_to_end.met) == ("≥ 0.75", True)
        assert end_to_end.result.startswith(f"{batch_ratio:.2f} (median of 3 pairs;")
        thin_row = _row(rows, f"sparse ratio: {where}`fields=label,score` / full batch")
        assert (thin_row.goal, thin_row.met) == ("≥ 3", True)
        assert thin_row.result.startswith(f"{sparse_ratio:.2f} (median of 3 pairs;")
        for absolute in (f"`POST /v1/evaluations/batch`, {where}10,000 hands", "in-process batch path"):
            found = [r for r in rows if r.measure.startswith(absolute)]
            assert found
            assert all(r.goal == "" and r.met is None for r in found)


def test_alternating_rounds_start_with_the_other_side() -> None:
    order: list[str] = []

    def side(name: str, figure: float) -> Any:
        def measure() -> float:
            order.append(name)
            return figure
        return measure

    first, second = alternate([side("echo", 1.0), side("app", 2.0)], 9)
    assert order[:4] == ["echo", "app", "app", "echo"]
    assert Pairs(tuple(second), tuple(first)).ratio == 2.0
    assert len(first) == len(second) == 9


def test_phase_breakdown_splits_a_wsgi_call_by_module() -> None:
    found = bench.phases.breakdown("echo", echo_app, *http.ECHO, repeat=50)
    assert found.seconds > 0
    assert abs(sum(found.shares.values()) - 1) < 1e-9
    assert "bench.echo_app" in found.shares
    assert found.lines()[0].startswith("echo: ")


@pytest.mark.slow
def test_timed_wsgi_calls_inside_the_workers(tmp_path: Path) -> None:
    """The breakdown rows' servers: the wrapped service is still the service to the
    configuration's hooks (warmed before forking), every request's WSGI call is counted
    inside the workers, and the split adds up to the workers' CPU per request."""
    driver = load.Driver(load.ensure_wrk(), tmp_path)
    costs = bench.phases.live_costs(driver, tmp_path, seconds=1.0, connections=4)
    assert [what for what, _ in costs] == ["POST /echo", "POST /v1/evaluations", "POST /v1/deals"]
    for what, run in costs:
        assert run.requests > 0, what
        assert 0 < run.inside_us < run.cpu_us, what
    service_log = " ".join(str(r.get("message")) for r in bench.harness.read_json_lines(
        tmp_path / "timed-service" / "stderr.log"))
    assert "warmed" in service_log
    echo_log = " ".join(str(r.get("message")) for r in bench.harness.read_json_lines(
        tmp_path / "timed-echo" / "stderr.log"))
    assert "warmed" not in echo_log


def test_deal_rows_are_ratios_to_the_bare_echo_of_the_same_rounds(monkeypatch: pytest.MonkeyPatch,
                                                                   tmp_path: Path) -> None:
    @contextmanager
    def servers(workdir: Path, name: str, probe: Any, **env: str) -> Iterator[tuple[_FakeServer, _FakeServer]]:
        assert "GNAU_RECEIPT_KEY_FILE" in env
        yield _FakeServer("trust"), _FakeServer("trust-echo")

    monkeypatch.setattr(http, "_app_and_echo", servers)
    monkeypatch.setattr(http, "_verify", lambda server, path, body, check: {"hands": [[]] * 10, "receipt": {}})
    driver = _FakeDriver({
        ("trust-echo", "/echo", False): [(1000.0, 0.0), (3000.0, 0.0), (2000.0, 0.0)],
        ("trust", "/v1/deals", False): [(850.0, 0.0), (1500.0, 0.0), (1900.0, 0.0)],
        ("trust", "/v1/settlements", False): [(100.0, 0.0)],
        ("trust", "/v1/settlements?receipt=true", False): [(60.0, 0.0), (40.0, 0.0), (70.0, 0.0)],
    })
    rows = http._trust_rows(driver, tmp_path, 3, 2.0, 16)  # type: ignore[arg-type]
    echo = [r for r, _ in driver.rounds(("trust-echo", "/echo", False), 2.0)]
    deal = [r for r, _ in driver.rounds(("trust", "/v1/deals", False), 2.0)]
    ratio = _median([d / e for d, e in zip(deal, echo, strict=True)])
    assert ratio != _median(deal) / _median(echo)  # the figures are chosen to tell the two apart
    found = _row(rows, "deal ratio: deals / bare echo")
    assert (found.goal, found.met) == ("≥ 0.8", ratio >= 0.8)
    assert found.result.startswith(f"{ratio:.2f} (median of 3 pairs;")
    # Each round runs the echo and the deal next to each other, in alternating order.
    order = [k[0] for k, s, _, _ in driver.log if s == 2.0 and k[1] in ("/echo", "/v1/deals")]
    assert order == ["trust-echo", "trust", "trust", "trust-echo", "trust-echo", "trust"]
    assert _row(rows, "receipt ratio").goal == "≥ 0.5"
