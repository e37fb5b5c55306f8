"""gunicorn configuration, read from the environment (the README's `make run` and the
container use this same file).

GNAU_BIND (127.0.0.1:8000), GNAU_WORKERS (2), GNAU_THREADS (2), GNAU_TIMEOUT (30 s),
GNAU_GRACEFUL_TIMEOUT (20 s), GNAU_KEEPALIVE (5 s), GNAU_DRAIN_SECONDS (3 s: after SIGTERM
a worker keeps serving, with /readyz answering 503, for this long before it stops taking
requests), GNAU_LOG_LEVEL (info), PROFILES_FILE (operator profiles, optional),
PROMETHEUS_MULTIPROC_DIR (a fresh temporary folder when unset).
Workers and threads never follow the machine's CPU count: set them explicitly.
"""

from __future__ import annotations

import gc
import os
import shutil
import signal
import tempfile
import threading
from typing import Any


def _int(name: str, default: int) -> int:
    value = os.environ.get(name, str(default))
    try:
        return int(value)
    except ValueError:
        raise SystemExit(f"{name} must be an integer, got {value!r}") from None


# Metrics from every worker go to one folder, wiped at start (prometheus_client
# multiprocess mode). Set before the app (and prometheus_client) is imported.
_metrics_dir = os.environ.get("PROMETHEUS_MULTIPROC_DIR") or tempfile.mkdtemp(prefix="gnau-metrics-")
os.environ["PROMETHEUS_MULTIPROC_DIR"] = _metrics_dir
if os.path.isdir(_metrics_dir):
    for entry in os.listdir(_metrics_dir):
        path = os.path.join(_metrics_dir, entry)
        if os.path.isdir(path):
            shutil.rmtree(path)
        else:
            os.remove(path)
else:
    os.makedirs(_metrics_dir)

# GNAU_WSGI_APP serves another app with this same configuration (the benchmark's echo app).
wsgi_app = os.environ.get("GNAU_WSGI_APP", "service.wsgi:app")
bind = [os.environ.get("GNAU_BIND", "127.0.0.1:8000")]
workers = _int("GNAU_WORKERS", 2)
worker_class = "gthread"
threads = _int("GNAU_THREADS", 2)
timeout = _int("GNAU_TIMEOUT", 30)
graceful_timeout = _int("GNAU_GRACEFUL_TIMEOUT", 20)
keepalive = _int("GNAU_KEEPALIVE", 5)
drain_seconds = _int("GNAU_DRAIN_SECONDS", 3)
preload_app = True  # build the evaluation tables once, before forking
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None
loglevel = os.environ.get("GNAU_LOG_LEVEL", "info")
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
    """On SIGTERM: readiness turns 503 at once; the worker stops after the drain period."""
    state = worker.wsgi.extensions["gnau.state"]
    original = worker.handle_exit

    def on_term(signum: int, frame: Any) -> None:
        state.draining = True
        if drain_seconds > 0:
            threading.Timer(drain_seconds, original, (signum, frame)).start()
        else:
            original(signum, frame)

    signal.signal(signal.SIGTERM, on_term)


def child_exit(server: Any, worker: Any) -> None:
    """Drop a dead worker's live gauges (prometheus_client multiprocess mode)."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)  # type: ignore[no-untyped-call]
