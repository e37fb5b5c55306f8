"""The HTTP benchmark's load: wrk with a Lua script for the POST bodies, or a small Python
client when wrk is missing, and the busiest worker's share of every run (balance).

Part of :mod:`bench.http` (which builds the table); see its docstring for how the runs are
used. Only loopback servers of :mod:`bench.harness` are loaded, every run is bounded in time.
"""

from __future__ import annotations

import dataclasses
import http.client
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from bench.harness import Server

__all__ = ["BALANCE_GOAL", "PACED_CONNECTIONS", "Driver", "Load", "calibrate", "check", "ensure_wrk", "log",
           "worker_cpu"]

#: The most of a run's requests one worker may serve (balanced accepting).
BALANCE_GOAL = 0.65


def log(message: str) -> None:
    """One progress line of the HTTP benchmark, on stderr."""
    print(f"[bench.http] {message}", file=sys.stderr, flush=True)


def ensure_wrk() -> str | None:
    """The path of wrk, installing the Debian package when missing (root only)."""
    found = shutil.which("wrk")
    if found:
        return found
    apt = shutil.which("apt-get")
    if apt and os.geteuid() == 0:
        log("wrk is missing; installing the Debian package (apt-get update && apt-get install wrk)")
        try:
            subprocess.run([apt, "update", "-qq"], check=True, capture_output=True, timeout=180)
            subprocess.run([apt, "install", "-y", "-qq", "wrk"], check=True, capture_output=True, timeout=180,
                           env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})
        except (OSError, subprocess.SubprocessError) as exc:
            log(f"could not install wrk ({exc}); falling back to the Python client")
    found = shutil.which("wrk")
    if not found:
        log("wrk is not available: using the Python load client (reads lower: it shares the CPUs)")
    return found


@dataclass(frozen=True)
class Load:
    """One load run's outcome."""

    requests: int
    seconds: float
    p50_ms: float
    p99_ms: float
    errors: int
    #: CPU time the server's workers took in the run (all their threads), in seconds; 0
    #: when unknown.
    worker_cpu: float = 0.0
    #: CPU time of a WSGI call inside the workers, µs (:mod:`bench.phases`); 0 when not measured.
    inside_us: float = 0.0

    @property
    def cpu_us(self) -> float:
        """The workers' CPU time per request, in µs (0 when unknown or no request)."""
        return self.worker_cpu / self.requests * 1e6 if self.requests else 0.0

    @property
    def rps(self) -> float:
        """Requests per second."""
        return self.requests / self.seconds


_LUA = """wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = [==[{body}]==]
{delay}
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("WRKJSON {{\\"requests\\": %d, \\"us\\": %d, \\"p50\\": %d, \\"p99\\": %d, \\"errors\\": %d}}\\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.connect + e.read + e.write + e.status + e.timeout))
end
"""


class Driver:
    """Runs load against a URL with wrk, or with the Python client when wrk is missing."""

    def __init__(self, wrk: str | None, workdir: Path) -> None:
        self.wrk = wrk
        self.workdir = workdir
        self._scripts: dict[tuple[bytes, int], Path] = {}
        #: Runs made, runs where one worker served more than BALANCE_GOAL of the requests,
        #: and the largest share one worker served in any run.
        self.runs = 0
        self.repeated = 0
        self.worst_share = 0.0
        self.last_share = 0.0

    @property
    def tool(self) -> str:
        """The load tool's name, for the table."""
        return "wrk" if self.wrk else "Python client"

    def _script(self, body: bytes, delay_ms: int) -> Path:
        key = (body, delay_ms)
        if key not in self._scripts:
            path = self.workdir / f"load{len(self._scripts)}.lua"
            # Uniform jitter around the mean keeps the connections from falling into step
            # (equal delays make them send in bursts, which no set of real clients does).
            delay = (f"math.randomseed({len(self._scripts) + 1})\n"
                     f"function delay() return math.random({delay_ms - delay_ms // 2}, {delay_ms + delay_ms // 2}) end"
                     if delay_ms else "")
            path.write_text(_LUA.format(body=body.decode(), delay=delay))
            self._scripts[key] = path
        return self._scripts[key]

    def run(self, server: Server, path: str, body: bytes, seconds: float, connections: int,
            threads: int = 1, delay_ms: int = 0) -> Load:
        """Load ``server`` for ``seconds``; ``delay_ms`` paces each connection.

        Nothing is run again: the share of the busiest worker (from the access log, which
        names the worker of every request) is recorded for every run with at least as
        many connections as workers, and the table reports the largest.
        """
        # The last run's client may have left with a request in flight: its connection is
        # still open on the server (and counted by balanced accepting) until that is
        # answered. Start once it is, and skip what came before.
        server.quiet()
        server.served_by()
        pids = server.worker_pids()
        before = worker_cpu(pids)
        load = self._run(server, path, body, seconds, connections, threads, delay_ms)
        load = dataclasses.replace(load, worker_cpu=worker_cpu(pids) - before)
        shares = server.served_by()
        self.runs += 1
        if load.requests and not shares:
            raise SystemExit(f"{server.name}: {load.requests} requests served, none found in the access log "
                             f"{server.access_log}: the balance rows cannot be measured")
        if server.workers > 1 and connections >= server.workers:
            share = max(shares) / sum(shares)
            self.last_share = share
            self.worst_share = max(self.worst_share, share)
            if share > BALANCE_GOAL:
                self.repeated += 1
                log(f"{server.name}: one worker served {max(shares)} of {sum(shares)} requests")
        return load

    def _run(self, server: Server, path: str, body: bytes, seconds: float, connections: int,
             threads: int, delay_ms: int) -> Load:
        if self.wrk is None:
            return _python_load(server.port, path, body, seconds, connections, delay_ms)
        script = self._script(body, delay_ms)
        # wrk takes whole seconds (at least 1); the rate is from the duration it reports.
        command = [self.wrk, f"-t{threads}", f"-c{connections}", f"-d{max(1, round(seconds))}s", "--timeout", "10s",
                   "-s", str(script), server.url(path)]
        done = subprocess.run(command, capture_output=True, text=True, timeout=seconds + 60)
        found = re.search(r"^WRKJSON (.*)$", done.stdout, re.M)
        if done.returncode != 0 or not found:
            raise SystemExit(f"wrk failed ({done.returncode}): {done.stdout}\n{done.stderr}")
        data = json.loads(found.group(1))
        return Load(data["requests"], data["us"] / 1e6, data["p50"] / 1e3, data["p99"] / 1e3, data["errors"])


def worker_cpu(pids: list[int]) -> float:
    """The CPU time the processes ``pids`` have taken so far, all their threads, in seconds
    (the kernel's scheduler statistics, in ns; a process gone since counts 0)."""
    total = 0
    for pid in pids:
        for task in Path(f"/proc/{pid}/task").glob("*/schedstat"):
            try:
                total += int(task.read_text().split()[0])
            except (OSError, ValueError, IndexError):
                continue
    return total / 1e9


def _python_load(port: int, path: str, body: bytes, seconds: float, connections: int, delay_ms: int) -> Load:
    """The stand-in for wrk: one thread per keep-alive connection."""
    latencies: list[float] = []
    errors = [0]
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def worker() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        mine: list[float] = []
        bad = 0
        while time.monotonic() < stop:
            if delay_ms:
                time.sleep(delay_ms / 1000)
            started = time.perf_counter()
            try:
                conn.request("POST", path, body=body, headers={"Content-Type": "application/json"})
                response = conn.getresponse()
                response.read()
                if response.status != 200:
                    bad += 1
            except OSError:
                bad += 1
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                continue
            mine.append(time.perf_counter() - started)
        conn.close()
        with lock:
            latencies.extend(mine)
            errors[0] += bad

    started = time.monotonic()
    pool = [threading.Thread(target=worker) for _ in range(connections)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    elapsed = time.monotonic() - started
    latencies.sort()
    if not latencies:
        return Load(0, elapsed, 0.0, 0.0, errors[0])
    return Load(len(latencies), elapsed, latencies[len(latencies) // 2] * 1e3,
                latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1e3, errors[0])


def check(load: Load, what: str) -> Load:
    """``load``, unless some of its requests failed or were not answered 2xx.

    :raises SystemExit: naming ``what`` and the count of failed requests.
    """
    if load.errors:
        raise SystemExit(f"{what}: {load.errors} failed or non-2xx responses under load")
    return load


PACED_CONNECTIONS = 16


def calibrate(driver: Driver, server: Server, path: str, body: bytes, target_rps: float,
              connections: int = PACED_CONNECTIONS) -> int:
    """The mean per-connection delay (ms) that holds about ``target_rps``.

    A connection's cycle is its delay plus the response time, so the delay is the target
    cycle minus the measured response time. That estimate is capped at half the cycle: a
    neighbour's burst during calibration must not talk the bench into overloading the
    server (a rate held short of the target shows in the table instead).
    """
    cycle_ms = 1000 * connections / target_rps
    delay = max(1, round(cycle_ms))
    for _ in range(3):
        trial = check(driver.run(server, path, body, 2, connections, delay_ms=delay), server.name)
        latency_ms = min(cycle_ms / 2, max(0.0, 1000 * connections / trial.rps - delay))
        new = max(1, round(cycle_ms - latency_ms))
        if new == delay:
            break
        delay = new
    return delay
