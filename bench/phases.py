"""What a request costs beyond the floor, by phase: ``python -m bench.phases``.

The HTTP benchmark's floor row compares the service with a bare WSGI echo served by the
same gunicorn configuration (:mod:`bench.echo_app`), and reads each side's CPU per request
from the workers. What the two share (gunicorn's parsing of the request head, the worker,
the access log line, the socket writes) is the echo's figure; what the service adds is
its WSGI call. This module splits that call, in process and back to back:

1. the WSGI call of each request (the service's whole app, middleware included, as
   gunicorn calls it) and of the echo, the median of ``--repeat`` calls, in µs;
2. the same calls under :mod:`cProfile`, the profiled time grouped by the module of the
   function that spent it (a C function, such as ``orjson.loads``, by its own module), as
   a share of the call, scaled to the unprofiled time. The profiler slows Python code more
   than C code, so the split is an estimate; the total is measured.

The metrics are written as under gunicorn (prometheus_client's multiprocess mode, files in
a temporary folder), so their cost is the real one.

``--live`` measures inside the workers instead: it serves the service and the echo, each
wrapped in :class:`Timed` (``GNAU_WSGI_APP=bench.phases:timed_service`` and
``bench.phases:timed_echo``, the same gunicorn configuration; the wrapper hands every
attribute through, so the configuration's hooks find the service's runtime as before), runs
wrk on each in turn, and splits a worker's CPU per request (the kernel's scheduler
statistics, all threads) into the WSGI call (the CPU time of the worker's thread while the
app ran, counted by the wrapper) and everything else: gunicorn's parsing of the request
head, the worker's loop, writing the answer and the access log line.

Nothing here is a goal: it is the cost breakdown a missed floor ratio is explained with.

>>> from bench.phases import module_of
>>> module_of(("/x/service/http/middleware.py", 50, "__call__"), "/x/")
'service.http.middleware'
>>> module_of(("~", 0, "<built-in method orjson.loads>"), "/x/")
'orjson'
>>> module_of(("~", 0, "<method 'read' of '_io.BytesIO' objects>"), "/x/")
'_io'
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import json
import os
import pstats
import re
import statistics
import sys
import sysconfig
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from bench.common import ROOT
from bench.load import Load

__all__ = ["PHASES_DIR", "Breakdown", "Timed", "breakdown", "live", "live_costs", "module_of", "wsgi_call"]

#: The environment variable naming the folder where :class:`Timed` writes its totals.
PHASES_DIR = "BENCH_PHASES_DIR"
#: Seconds between two writes of a worker's totals.
DUMP_EVERY = 0.1

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]

_BUILTIN = re.compile(r"<built-in method (?:([\w.]+)\.)?\w+>|<method '\w+' of '([\w.]+)\.\w+' objects>")


def module_of(func: tuple[str, int, str], root: str) -> str:
    """The dotted module of a profiled function ``(file, line, name)``: from its file
    (relative to ``root`` or to a ``site-packages`` folder), or, for a C function, from
    its name (``builtins`` when it names none)."""
    path, _, name = func
    if path == "~":
        found = _BUILTIN.fullmatch(name)
        if found:
            return (found.group(1) or found.group(2) or "builtins").split(".")[0]
        return "builtins"
    stdlib = sysconfig.get_paths()["stdlib"] + os.sep
    for base in (root, stdlib, *(p + os.sep for p in sys.path if p.endswith("site-packages"))):
        if path.startswith(base):
            path = path[len(base):]
            break
    if "site-packages" + os.sep in path:
        path = path.split("site-packages" + os.sep, 1)[1]
    path = path.removesuffix(".py").removesuffix(os.sep + "__init__")
    return path.strip(os.sep).replace(os.sep, ".")


def _environ(path: str, body: bytes) -> dict[str, Any]:
    """A WSGI environ of ``POST path`` with a JSON ``body``, as gunicorn gives it."""
    from werkzeug.test import EnvironBuilder

    query = path.split("?", 1)
    builder = EnvironBuilder(path=query[0], query_string=query[1] if len(query) > 1 else None, method="POST",
                             data=body, content_type="application/json")
    environ: dict[str, Any] = builder.get_environ()
    builder.close()
    return environ


def wsgi_call(app: WSGIApp, environ: dict[str, Any]) -> int:
    """Call ``app`` once with ``environ``, read its whole answer; the answer's status code."""
    seen: list[str] = []

    def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> None:
        seen.append(status)

    answer = app(environ, start_response)
    try:
        for _ in answer:
            pass
    finally:
        close = getattr(answer, "close", None)
        if close is not None:
            close()
    return int(seen[0].split()[0])


class Breakdown:
    """One request's WSGI call: its median time and the profiled split by module."""

    def __init__(self, name: str, seconds: float, shares: dict[str, float]) -> None:
        self.name = name
        #: The median WSGI call, in seconds.
        self.seconds = seconds
        #: Module -> share of the profiled call (the shares add up to 1).
        self.shares = shares

    def lines(self, top: int = 12) -> list[str]:
        """The breakdown as text lines: the total, then the largest modules in µs a request."""
        out = [f"{self.name}: {self.seconds * 1e6:.1f} µs a WSGI call (median)"]
        ranked = sorted(self.shares.items(), key=lambda item: -item[1])
        for module, share in ranked[:top]:
            out.append(f"  {share * self.seconds * 1e6:7.1f} µs  {share:5.1%}  {module}")
        rest = sum(share for _, share in ranked[top:])
        if rest:
            out.append(f"  {rest * self.seconds * 1e6:7.1f} µs  {rest:5.1%}  ({len(ranked) - top} more modules)")
        return out


def breakdown(name: str, app: WSGIApp, path: str, body: bytes, repeat: int = 2000) -> Breakdown:
    """Time ``repeat`` WSGI calls of ``POST path`` (after as many to warm up), then
    profile as many more.

    :raises SystemExit: the request is not answered 200.
    """
    environs = [_environ(path, body) for _ in range(3 * repeat)]
    for environ in environs[:repeat]:
        if wsgi_call(app, environ) != 200:
            raise SystemExit(f"{name}: POST {path} is not answered 200")
    times = []
    for environ in environs[repeat:2 * repeat]:
        started = time.perf_counter()
        wsgi_call(app, environ)
        times.append(time.perf_counter() - started)
    profile = cProfile.Profile()
    profile.enable()
    for environ in environs[2 * repeat:]:
        wsgi_call(app, environ)
    profile.disable()
    stats = pstats.Stats(profile)
    by_module: dict[str, float] = defaultdict(float)
    root = str(ROOT) + os.sep
    for func, (_, _, own, _, _) in stats.stats.items():  # type: ignore[attr-defined]
        if func[2] in ("<method 'enable' of '_lsprof.Profiler' objects>",
                       "<method 'disable' of '_lsprof.Profiler' objects>"):
            continue
        if module_of(func, root) == "bench.phases" and func[2] in ("wsgi_call", "start_response"):
            by_module["(the caller's loop)"] += own
            continue
        by_module[module_of(func, root)] += own
    total = sum(by_module.values()) or 1.0
    return Breakdown(name, statistics.median(times), {m: t / total for m, t in by_module.items()})


class Timed:
    """A WSGI app that counts, per worker process, its calls and the CPU time of the
    calling thread while they ran (``time.thread_time_ns``), and writes the totals to
    ``$BENCH_PHASES_DIR/<pid>.json`` every :data:`DUMP_EVERY` seconds from a greenlet of the
    worker (given a ``folder``, only when asked: :meth:`dump`).
    Any other attribute is the wrapped app's.

    >>> import io, json, os, tempfile
    >>> from bench.echo_app import app
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     timed = Timed(lambda: app, folder)
    ...     answer = timed({"CONTENT_LENGTH": "2", "wsgi.input": io.BytesIO(b"{}")}, lambda status, headers: None)
    ...     timed.dump()
    ...     answer, json.loads(Path(folder, f"{os.getpid()}.json").read_text())["calls"]
    ([b'{}'], 1)
    """

    def __init__(self, load: Callable[[], WSGIApp], folder: str | None = None) -> None:
        self._load = load
        self._app: WSGIApp | None = None
        self.folder = folder if folder is not None else os.environ.get(PHASES_DIR, "")
        #: Under gunicorn (the folder from the environment), a greenlet writes the totals.
        self.periodic = folder is None and bool(self.folder)
        self.calls = 0
        self.cpu_ns = 0

    @property
    def app(self) -> WSGIApp:
        """The wrapped app, loaded on first use."""
        if self._app is None:
            self._app = self._load()
        return self._app

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # not set yet (a copy being made): never the wrapped app's
            raise AttributeError(name)
        return getattr(self.app, name)

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        """Serve the request through the wrapped app, counting the call's CPU time."""
        app = self.app
        started = time.thread_time_ns()
        answer = app(environ, start_response)
        self.cpu_ns += time.thread_time_ns() - started
        self.calls += 1
        if self.calls == 1 and self.periodic:
            import gevent

            gevent.spawn(self._dump_every, DUMP_EVERY)
        return answer

    def _dump_every(self, seconds: float) -> None:
        import gevent

        while True:
            self.dump()
            gevent.sleep(seconds)

    def dump(self) -> None:
        """Write this process's totals (nothing without a folder)."""
        if self.folder:
            path = os.path.join(self.folder, f"{os.getpid()}.json")
            with open(path + ".tmp", "w") as f:
                json.dump({"calls": self.calls, "cpu_ns": self.cpu_ns}, f)
            os.replace(path + ".tmp", path)


def _service() -> WSGIApp:
    from service.http.wsgi import app

    return app


def _echo() -> WSGIApp:
    from bench.echo_app import app

    return app


_TIMED: dict[str, Callable[[], WSGIApp]] = {"timed_service": _service, "timed_echo": _echo}


def __getattr__(name: str) -> Timed:
    """``timed_service`` and ``timed_echo``: made when gunicorn asks for them (the echo's
    server never imports the service)."""
    if name in _TIMED:
        timed = Timed(_TIMED[name])
        globals()[name] = timed
        return timed
    raise AttributeError(name)


def _totals(folder: str) -> tuple[int, int]:
    calls = cpu = 0
    for entry in os.scandir(folder):
        if entry.name.endswith(".json"):
            with open(entry.path) as f:
                data = json.load(f)
            calls, cpu = calls + data["calls"], cpu + data["cpu_ns"]
    return calls, cpu


def live_costs(driver: Any, workdir: Path, seconds: float = 5.0, connections: int = 16) -> list[tuple[str, Load]]:
    """Serve the echo and the service wrapped in :class:`Timed`, load each with ``driver``
    (``POST /echo``; ``POST /v1/evaluations``, ``POST /v1/deals``), and return each
    request's run, its ``inside`` set to the WSGI call's CPU per call (µs)."""
    from bench.http import DEAL, ECHO, EVALUATION, gunicorn
    from bench.load import check

    out: list[tuple[str, Load]] = []
    for name, app, probe, requests in (("timed-echo", "timed_echo", ECHO, [ECHO]),
                                       ("timed-service", "timed_service", EVALUATION, [EVALUATION, DEAL])):
        folder = workdir / f"{name}-calls"
        folder.mkdir(parents=True, exist_ok=True)
        with gunicorn(name, probe, workdir, GNAU_WSGI_APP=f"bench.phases:{app}", **{PHASES_DIR: str(folder)}) \
                as server:
            for path, body in requests:
                check(driver.run(server, path, body, 1, connections), name)  # warm up
                time.sleep(3 * DUMP_EVERY)
                before = _totals(str(folder))
                load = check(driver.run(server, path, body, seconds, connections), name)
                time.sleep(3 * DUMP_EVERY)
                after = _totals(str(folder))
                calls, cpu_ns = after[0] - before[0], after[1] - before[1]
                inside = cpu_ns / calls / 1e3 if calls else float("nan")
                out.append((f"POST {path}", dataclasses.replace(load, inside_us=inside)))
    return out


def live(seconds: float = 5.0, connections: int = 16) -> list[str]:
    """:func:`live_costs` with wrk, as text lines."""
    from bench.load import Driver, ensure_wrk

    with tempfile.TemporaryDirectory(prefix="gnau-phases-") as tmp:
        costs = live_costs(Driver(ensure_wrk(), Path(tmp)), Path(tmp), seconds, connections)
    return [f"{what}: {load.rps:,.0f} requests/s; workers' CPU {load.cpu_us:.0f} µs a request = WSGI call "
            f"{load.inside_us:.0f} µs + outside it {load.cpu_us - load.inside_us:.0f} µs" for what, load in costs]


def main(argv: list[str] | None = None) -> None:
    """Print the breakdown of an evaluation and a deal against the echo's."""
    parser = argparse.ArgumentParser(prog="python -m bench.phases", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=2000, help="calls timed, and as many profiled (default %(default)s)")
    parser.add_argument("--live", action="store_true", help="measure inside gunicorn workers instead (wrk)")
    parser.add_argument("--seconds", type=float, default=5.0, help="--live: length of each run (default %(default)s)")
    args = parser.parse_args(argv)
    if args.live:
        print("\n".join(live(args.seconds)))
        return
    with tempfile.TemporaryDirectory(prefix="gnau-phases-") as metrics:
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = metrics  # before prometheus_client is imported
        import gc

        from bench.echo_app import app as echo
        from bench.http import DEAL, ECHO, EVALUATION
        from service.http.app import create_app

        app = create_app()
        gc.collect()
        gc.freeze()  # as gunicorn.conf.py does before forking the workers
        floor = breakdown("bare echo", echo, *ECHO, repeat=args.repeat)
        for name, (path, body) in (("POST /v1/evaluations", EVALUATION), ("POST /v1/deals", DEAL)):
            found = breakdown(name, app, path, body, repeat=args.repeat)
            print("\n".join(found.lines()))
            print(f"  beyond the echo's WSGI call ({floor.seconds * 1e6:.1f} µs): "
                  f"{(found.seconds - floor.seconds) * 1e6:.1f} µs")
            print()


if __name__ == "__main__":
    main()
