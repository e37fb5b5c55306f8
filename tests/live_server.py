"""A real gunicorn server on 127.0.0.1 for tests that drive the service from outside.

:func:`live_server` starts ``gunicorn -c gunicorn.conf.py`` (the same config as ``make
run`` and the container) on a free loopback port, waits until ``/readyz`` answers 200,
yields the base URL and always stops the server (SIGTERM, then SIGKILL after a bound).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.server_harness import free_port

__all__ = ["REPO", "free_port", "live_server"]

REPO = Path(__file__).resolve().parent.parent
GUNICORN = Path(sys.executable).with_name("gunicorn")


def stop(proc: subprocess.Popen[bytes], timeout: float = 30) -> None:
    """SIGTERM a server started in its own process group; SIGKILL the group if it lingers."""
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


@contextmanager
def live_server(log: Path, *, start_timeout: float = 60.0, workers: int = 1,
                env: dict[str, str] | None = None) -> Iterator[str]:
    """Run gunicorn on a free port for the duration of the ``with`` block.

    :param log: where gunicorn's output goes (read it when something fails).
    :param start_timeout: seconds to wait for ``/readyz``.
    :param workers: gunicorn workers (``GNAU_WORKERS``).
    :param env: more environment variables for the server (``GNAU_*`` settings).
    :return: the base URL, e.g. ``http://127.0.0.1:41234``.
    :raises RuntimeError: the server exited or was not ready in time (with its log).
    """
    port = free_port()
    server_env = os.environ | {
        "GNAU_BIND": f"127.0.0.1:{port}",
        "GNAU_WORKERS": str(workers),
        "GNAU_DRAIN_SECONDS": "0",
        "GNAU_GRACEFUL_TIMEOUT": "5",
    } | (env or {})
    server_env.pop("PROMETHEUS_MULTIPROC_DIR", None)  # gunicorn.conf.py makes and removes its own
    base = f"http://127.0.0.1:{port}"
    with log.open("wb") as out:
        proc = subprocess.Popen([str(GUNICORN), "-c", "gunicorn.conf.py"], cwd=REPO, env=server_env,
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            deadline = time.monotonic() + start_timeout
            while True:
                if proc.poll() is not None:
                    raise RuntimeError(f"gunicorn exited with {proc.returncode}:\n{log.read_text()}")
                try:
                    with urllib.request.urlopen(f"{base}/readyz", timeout=2) as response:
                        if response.status == 200:
                            break
                except (OSError, urllib.error.URLError):
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError(f"gunicorn was not ready in {start_timeout} s:\n{log.read_text()}")
                time.sleep(0.2)
            yield base
        finally:
            stop(proc, timeout=20)
