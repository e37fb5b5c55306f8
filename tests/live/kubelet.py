"""The chart's probes, replayed against a real gunicorn as the kubelet sends them, and the
other things an attack must never cause (issue 22): a worker killed by its timeout, total
memory over the chart's limit, a 500.

:class:`Kubelet` reads the probe settings from the chart's values.yaml (liveness every 10 s,
3 s timeout, restart after 3 failures in a row; readiness every 5 s, 2 s timeout, out after
2), probes the server's probe listener (``GET /healthz``, ``GET /readyz``) on that schedule
from 127.0.0.1, a fresh connection each time, and records every answer and the actions
the kubelet would have taken. :class:`Watch` samples the total PSS of the master and its
workers meanwhile. Both run in threads, are bounded in time and use loopback only.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

import yaml

from bench.harness import ROOT, Server, pss_mib

__all__ = ["CHART_VALUES", "Kubelet", "Probe", "Watch", "chart_memory_limit_mib", "chart_probe"]

CHART_VALUES = ROOT / "helm" / "gnau-scoring" / "values.yaml"


@dataclass(frozen=True)
class Probe:
    """One probe of the chart: its path, period, timeout and failure threshold."""

    name: str
    path: str
    period: float
    timeout: float
    failures: int


def _values() -> dict[str, Any]:
    values: dict[str, Any] = yaml.safe_load(CHART_VALUES.read_text())
    return values


def chart_probe(name: str) -> Probe:
    """The chart's ``livenessProbe``, ``readinessProbe`` or ``startupProbe`` (values.yaml)."""
    spec = _values()[name]
    path = "/readyz" if name == "readinessProbe" else "/healthz"
    return Probe(name, path, float(spec["periodSeconds"]), float(spec["timeoutSeconds"]),
                 int(spec["failureThreshold"]))


def chart_memory_limit_mib() -> float:
    """The chart's memory limit for one pod, in MiB (``resources.limits.memory``, ``NNNMi``)."""
    limit = str(_values()["resources"]["limits"]["memory"])
    if not limit.endswith("Mi"):
        raise AssertionError(f"the chart's memory limit {limit!r} is not in Mi")
    return float(limit[:-2])


@dataclass
class _Record:
    probe: Probe
    answers: list[tuple[float, str, float]] = field(default_factory=list)  # (at, status or error, seconds)
    actions: list[float] = field(default_factory=list)  # when the failure threshold was reached
    _in_a_row: int = 0

    def note(self, at: float, outcome: str, seconds: float) -> None:
        self.answers.append((at, outcome, seconds))
        if outcome == "200":
            self._in_a_row = 0
            return
        self._in_a_row += 1
        if self._in_a_row == self.probe.failures:
            self.actions.append(at)


class Kubelet:
    """Replays the chart's liveness and readiness probes against ``server``'s probe
    listener until :meth:`stop` (each probe in a thread of its own, on its period).

    :param server: a server of :mod:`bench.harness` with a probe listener.
    :param probes: the probes (default: the chart's liveness and readiness probes).
    """

    def __init__(self, server: Server, probes: tuple[Probe, ...] | None = None) -> None:
        self.server = server
        self.records = [_Record(p) for p in (probes or (chart_probe("livenessProbe"), chart_probe("readinessProbe")))]
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._run, args=(r,), daemon=True) for r in self.records]
        self.started = time.monotonic()

    def __enter__(self) -> Kubelet:
        self.started = time.monotonic()
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        """Stop probing (waits for a probe in flight, at most its timeout)."""
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=30)

    def _run(self, record: _Record) -> None:
        probe = record.probe
        while not self._stop.is_set():
            began = time.monotonic()
            try:
                outcome = str(self.server.probe(probe.path, timeout=probe.timeout).status)
            except OSError as exc:
                outcome = type(exc).__name__
            record.note(began - self.started, outcome, time.monotonic() - began)
            self._stop.wait(max(0.0, probe.period - (time.monotonic() - began)))

    def actions(self) -> dict[str, list[float]]:
        """When (seconds after the start) the kubelet would have acted: restarted the
        container (liveness) or taken the pod out of the Service (readiness)."""
        return {r.probe.name: r.actions for r in self.records}

    def answers(self, name: str) -> list[tuple[float, str, float]]:
        """Every answer of one probe: ``(seconds after the start, status or error, seconds taken)``."""
        return next(r.answers for r in self.records if r.probe.name == name)

    def summary(self) -> str:
        """One line per probe, for assertion messages and the test's output."""
        lines = []
        for r in self.records:
            failed = [(round(at, 1), outcome) for at, outcome, _ in r.answers if outcome != "200"]
            slowest = max((s for _, _, s in r.answers), default=0.0)
            lines.append(f"{r.probe.name}: {len(r.answers)} probes, slowest {slowest * 1000:.0f} ms, "
                         f"failed {failed}, actions {r.actions}")
        return "; ".join(lines)


class Watch:
    """Samples the total PSS (MiB) of ``server``'s master and workers every 0.25 s in a
    thread, and notes every worker pid seen, until :meth:`stop`."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.peak = 0.0
        self.samples: list[float] = []
        self.pids: set[int] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Watch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        """Stop sampling."""
        self._stop.set()
        self._thread.join(timeout=10)

    def total(self) -> float:
        """The total PSS now (processes gone meanwhile count 0)."""
        pids = [self.server.proc.pid, *self.server.worker_pids()]
        self.pids.update(pids[1:])
        total = 0.0
        for pid in pids:
            try:
                total += pss_mib(pid)
            except OSError:
                continue
        return total

    def _run(self) -> None:
        while not self._stop.is_set():
            value = self.total()
            self.samples.append(value)
            self.peak = max(self.peak, value)
            self._stop.wait(0.25)
