"""gunicorn configuration, read from the environment (the README's `make run` and the
container use this same file).

Every setting is read and checked by :mod:`service.settings` (docs/operating.md,
"gunicorn settings"): a bad value stops start-up with one line and exit status 1. Workers never
follow the machine's CPU count: set them explicitly.

Each worker is a gevent worker: every connection is served in its own greenlet, so idle
or slow clients cost a few kB each instead of a thread, up to GNAU_WORKER_CONNECTIONS per
worker. The request line and headers must arrive within GNAU_KEEPALIVE seconds (gunicorn's
gevent worker bounds every read of a request head by it) and the body within
GNAU_BODY_TIMEOUT seconds (service.http.request_body); a connection that stalls longer is closed.

PROMETHEUS_MULTIPROC_DIR: when unset, a fresh temporary folder, made once per master
(a SIGHUP reload re-reads this file but keeps the folder and its samples) and removed
when the master exits, also after a failed start.

Shutdown after SIGTERM runs in two phases:

1. drain, GNAU_DRAIN_SECONDS (3 s): every worker keeps serving but ``/readyz`` answers
   503, so load balancers that still route here see the pod leave;
2. graceful, GNAU_GRACEFUL_TIMEOUT (20 s): workers stop accepting and finish the
   requests in flight; whatever is still running after that is killed.

gunicorn's own ``graceful_timeout`` (the master's limit, counted from SIGTERM) is
therefore the sum of the two; the pod's terminationGracePeriodSeconds must exceed the
preStop pause plus that sum.

The master serves health and readiness on GNAU_PROBE_BIND from a thread of its own
(:mod:`service.gunicorn_probes`), where no client's request can hold a probe up, and warms
every profile (tables and analyses) once, before it listens or forks (``on_starting``), so
the workers share what it built.
"""

from __future__ import annotations

import atexit
import gc
import os
import shutil
import signal
import tempfile
from typing import Any

from service.settings import SettingsError, from_environ

try:
    settings = from_environ()
except SettingsError as _exc:
    raise SystemExit(str(_exc)) from None

# Metrics from every worker go to one folder (prometheus_client multiprocess mode), set
# before the app (and prometheus_client) is imported. gunicorn executes this file again on
# SIGHUP, in the same master process: the folder is made and emptied of old samples (*.db)
# only the first time, so a reload keeps every counter.
_MASTER = os.environ.get("_GNAU_METRICS_MASTER_PID")
if str(os.getpid()) != _MASTER:
    _own = not os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    _dir = os.environ.get("PROMETHEUS_MULTIPROC_DIR") or tempfile.mkdtemp(prefix="gnau-metrics-")
    try:
        os.makedirs(_dir, exist_ok=True)
        for _entry in os.scandir(_dir):
            if _entry.name.endswith(".db") and _entry.is_file():
                os.remove(_entry.path)
    except OSError as _exc:
        raise SystemExit(f"PROMETHEUS_MULTIPROC_DIR {_dir!r} cannot be used: {_exc.strerror}") from None
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = _dir
    os.environ["_GNAU_METRICS_MASTER_PID"] = str(os.getpid())

    # Each worker's samples go to files named by its slot, not its pid: a worker that
    # replaces a dead one counts on in the dead one's files (service.gunicorn_worker).
    from prometheus_client import values as _values

    from service.gunicorn_worker import metrics_identity

    _values.ValueClass = _values.MultiProcessValue(process_identifier=metrics_identity)  # type: ignore[no-untyped-call]

    def _remove_own_metrics_dir(pid: int = os.getpid(), path: str = _dir, own: bool = _own) -> None:
        """Remove the folder this master made, however it exits (a failed app load too);
        forked workers inherit the handler, so it acts only in the master."""
        if own and os.getpid() == pid:
            shutil.rmtree(path, ignore_errors=True)

    atexit.register(_remove_own_metrics_dir)

# GNAU_WSGI_APP serves another app with this same configuration (the benchmark's echo app).
wsgi_app = settings.wsgi_app
bind = [settings.bind]
workers = settings.workers
worker_class = "service.gunicorn_worker.Worker"  # gevent, with problem-details errors
worker_connections = settings.worker_connections
timeout = settings.timeout
drain_seconds = settings.drain_seconds
graceful_timeout = drain_seconds + settings.graceful_timeout
keepalive = settings.keepalive
preload_app = True  # build the evaluation tables and built-in analyses once, before forking
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None
loglevel = settings.log_level
accesslog = "-"
errorlog = "-"
logger_class = "service.gunicorn_logging.JsonLogger"
proc_name = "gnau-scoring"
control_socket_disable = True  # no gunicornc socket: nothing to write under $HOME


def _runtime(server: Any) -> Any:
    """The service's Runtime of the preloaded app, or ``None`` for another app (the echo)."""
    from service.http.runtime import Runtime

    try:
        return Runtime.of(server.app.wsgi())
    except (AttributeError, KeyError):
        return None


def on_starting(server: Any) -> None:
    """Check that both ports are free (GNAU_BIND's and GNAU_PROBE_BIND's: a busy one stops
    start-up at once, with one line naming both), serve health and readiness on
    GNAU_PROBE_BIND from a thread of the master (:mod:`service.gunicorn_probes`), then warm
    every profile, before the master listens or forks (the app is preloaded): the workers
    share the tables and analyses, and each is ready from its first request. While warming,
    liveness follows its progress and readiness is 503."""
    import time

    from service.settings import check_ports

    try:  # both ports, now: a busy one must not wait for the warm-up to be reported
        check_ports(settings, inherited=bool(os.environ.get("GUNICORN_FD") or os.environ.get("LISTEN_FDS")))
    except SettingsError as exc:
        raise SystemExit(str(exc)) from None
    supervision = _start_probes(server)
    rt = _runtime(server)
    if rt is not None and not rt.state.ready:  # the benchmark's echo app is ready as it is
        server.log.info("Warming %d profiles before serving: each one's evaluation table, hand distribution and "
                        "house edges are computed once, here, and shared by every worker (seconds per profile); "
                        "the API opens on %s when it is done", len(rt.profiles), settings.bind)
        started = time.monotonic()
        warmed = rt.warm(supervision.warmed if supervision is not None else None)
        server.log.info("warmed %d profiles in %.1f s", len(warmed.seconds), time.monotonic() - started)


def _start_probes(server: Any) -> Any:
    """The probe listener's Supervision, serving from now on (``None`` when GNAU_PROBE_BIND
    is empty). A port that cannot be bound stops start-up with one line."""
    if settings.probe_bind is None:
        return None
    from service.gunicorn_probes import Beat, ProbeServer, Supervision, parse_bind
    from service.gunicorn_worker import beats

    supervision = Supervision(float(settings.timeout), lambda: [Beat(*b) for b in beats()], warming=(0, 1))
    try:
        probes = ProbeServer(parse_bind(settings.probe_bind), supervision)
    except OSError as exc:
        raise SystemExit(f"GNAU_PROBE_BIND {settings.probe_bind} cannot be used: {exc.strerror}") from None
    server.gnau_probes = probes
    probes.start()
    server.log.info("Probes (health, readiness) at: http://%s", settings.probe_bind)
    return supervision


def when_ready(server: Any) -> None:
    """Let the probe listener watch the master: each run of its loop is noted (liveness),
    and a shutdown signal turns readiness 503 at once. Warming is over by now."""
    probes = getattr(server, "gnau_probes", None)
    if probes is None or getattr(server, "gnau_watched", False):
        return  # no probe listener, or watched already (gunicorn.conf.py is read again on SIGHUP)
    from service.gunicorn_probes import watch_arbiter

    probes.supervision.warmed(1, 1)
    watch_arbiter(server, probes.supervision)


def pre_fork(server: Any, worker: Any) -> None:
    """Give the worker its slot on the connection board (balanced accepting), and move
    everything loaded so far (the app and its tables) out of the collector's way: frozen
    objects are never scanned again, so collections in the workers stay cheap and pages
    stay shared (the gc.freeze pattern for preloaded apps)."""
    from service.gunicorn_worker import assign_slot

    assign_slot(server, worker)
    worker.gnau_address_connections = settings.address_connections
    gc.freeze()


def post_worker_init(worker: Any) -> None:
    """Give the worker its compute lane (:mod:`service.http.compute`). On SIGTERM:
    readiness turns 503 at once; the worker keeps serving for the drain period, then stops
    accepting and finishes what is in flight (gunicorn's handler). Then the board shows the
    worker booted (the master's readiness counts it).

    gevent runs signal handlers as event-loop callbacks, which must not block: the end
    of the drain is a greenlet scheduled for later."""
    import gevent

    from service.gunicorn_worker import mark_booted
    from service.http.compute import ComputeLane
    from service.http.runtime import Runtime

    try:
        rt = Runtime.of(worker.wsgi)
    except (AttributeError, KeyError):  # another app (the echo): gunicorn's own handler
        mark_booted(worker)
        return
    state = rt.state
    rt.lane = worker.gnau_lane = ComputeLane()  # heavy requests: admitted, off the event loop
    original = worker.handle_exit

    def on_term(signum: int, frame: Any) -> None:
        if state.draining:
            return
        state.draining = True
        if drain_seconds > 0:
            gevent.spawn_later(drain_seconds, original, signum, frame)
        else:
            original(signum, frame)

    signal.signal(signal.SIGTERM, on_term)
    mark_booted(worker)  # the master's readiness counts it from now on


def worker_exit(server: Any, worker: Any) -> None:
    """Leave the worker process at once with the status it was exiting with, after
    flushing the logs: a gevent worker's interpreter teardown otherwise prints "Exception
    ignored" tracebacks from logging's handler clean-up (gevent's thread module is gone by
    then), which would break the one-JSON-object-per-line logs."""
    import logging
    import sys

    exc = sys.exc_info()[1]
    code = exc.code if isinstance(exc, SystemExit) and isinstance(exc.code, int) else 0 if exc is None else 1
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code & 0xFF)


def child_exit(server: Any, worker: Any) -> None:
    """Free a dead worker's slot on the connection board and drop its live gauges
    (prometheus_client multiprocess mode)."""
    from prometheus_client import multiprocess

    from service.gunicorn_worker import release_slot

    release_slot(worker)
    multiprocess.mark_process_dead(f"slot{worker.gnau_slot}")  # type: ignore[no-untyped-call]
