"""gunicorn configuration, read from the environment (the README's `make run` and the
container use this same file).

GNAU_BIND (127.0.0.1:8000), GNAU_WORKERS (2), GNAU_THREADS (2), GNAU_TIMEOUT (30 s),
GNAU_KEEPALIVE (5 s), GNAU_LOG_LEVEL (info), PROFILES_FILE (operator profiles, optional),
PROMETHEUS_MULTIPROC_DIR (a fresh temporary folder, removed at exit, when unset).
Workers and threads never follow the machine's CPU count: set them explicitly.

Shutdown after SIGTERM runs in two phases:

1. drain, GNAU_DRAIN_SECONDS (3 s): every worker keeps serving but ``/readyz`` answers
   503, so load balancers that still route here see the pod leave;
2. graceful, GNAU_GRACEFUL_TIMEOUT (20 s): workers stop accepting and finish the
   requests in flight; whatever is still running after that is killed.

gunicorn's own ``graceful_timeout`` (the master's limit, counted from SIGTERM) is
therefore the sum of the two; the pod's terminationGracePeriodSeconds must exceed the
preStop pause plus that sum.
"""

from __future__ import annotations

import gc
import os
import shutil
import signal
import tempfile
import threading
from typing import Any


def _int(name: str, default: int, minimum: int = 1) -> int:
    value = os.environ.get(name, str(default))
    try:
        number = int(value)
    except ValueError:
        raise SystemExit(f"{name} must be an integer, got {value!r}") from None
    if number < minimum:
        raise SystemExit(f"{name} must be at least {minimum}, got {number}")
    return number


# Metrics from every worker go to one folder (prometheus_client multiprocess mode),
# set before the app (and prometheus_client) is imported. The previous run's sample
# files (*.db) are removed at start; nothing else in the folder is touched.
_own_metrics_dir = not os.environ.get("PROMETHEUS_MULTIPROC_DIR")
_metrics_dir = os.environ.get("PROMETHEUS_MULTIPROC_DIR") or tempfile.mkdtemp(prefix="gnau-metrics-")
os.environ["PROMETHEUS_MULTIPROC_DIR"] = _metrics_dir
os.makedirs(_metrics_dir, exist_ok=True)
for _entry in os.scandir(_metrics_dir):
    if _entry.name.endswith(".db") and _entry.is_file():
        os.remove(_entry.path)

# GNAU_WSGI_APP serves another app with this same configuration (the benchmark's echo app).
wsgi_app = os.environ.get("GNAU_WSGI_APP", "service.wsgi:app")
bind = [os.environ.get("GNAU_BIND", "127.0.0.1:8000")]
workers = _int("GNAU_WORKERS", 2)
worker_class = "gthread"
threads = _int("GNAU_THREADS", 2)
timeout = _int("GNAU_TIMEOUT", 30)
drain_seconds = _int("GNAU_DRAIN_SECONDS", 3, minimum=0)
graceful_timeout = drain_seconds + _int("GNAU_GRACEFUL_TIMEOUT", 20, minimum=0)
keepalive = _int("GNAU_KEEPALIVE", 5, minimum=0)
preload_app = True  # build the evaluation tables once, before forking
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None
loglevel = os.environ.get("GNAU_LOG_LEVEL", "info").lower()
if loglevel not in ("debug", "info", "warning", "error", "critical"):
    raise SystemExit(f"GNAU_LOG_LEVEL must be one of debug, info, warning, error, critical, got {loglevel!r}")
accesslog = "-"
errorlog = "-"
logger_class = "service.gunicorn_logging.JsonLogger"
proc_name = "gnau-scoring"
control_socket_disable = True  # no gunicornc socket: nothing to write under $HOME


def pre_fork(server: Any, worker: Any) -> None:
    """Move everything loaded so far (the app and its tables) out of the collector's way:
    frozen objects are never scanned again, so collections in the workers stay cheap and
    pages stay shared (the gc.freeze pattern for preloaded apps)."""
    gc.freeze()


def post_worker_init(worker: Any) -> None:
    """On SIGTERM: readiness turns 503 at once; the worker keeps serving for the drain
    period, then stops accepting and finishes what is in flight (gunicorn's handler)."""
    state = worker.wsgi.extensions["gnau.state"]
    original = worker.handle_exit

    def on_term(signum: int, frame: Any) -> None:
        if state.draining:
            return
        state.draining = True
        if drain_seconds > 0:
            timer = threading.Timer(drain_seconds, original, (signum, frame))
            timer.daemon = True  # never holds up a worker that exits otherwise (SIGQUIT)
            timer.start()
        else:
            original(signum, frame)

    signal.signal(signal.SIGTERM, on_term)


def child_exit(server: Any, worker: Any) -> None:
    """Drop a dead worker's live gauges (prometheus_client multiprocess mode)."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)  # type: ignore[no-untyped-call]


def on_exit(server: Any) -> None:
    """Remove the metrics folder this file created (one given in the environment stays)."""
    if _own_metrics_dir:
        shutil.rmtree(_metrics_dir, ignore_errors=True)
