"""``python -m bench`` (``make bench``): every benchmark, one table.

Runs :mod:`bench.engine`, :mod:`bench.http` and :mod:`bench.curves` (which draws
``docs/cost-curves.png``), prints one Markdown table with the machine it ran on, and writes
the same as the page ``docs/performance.md``, the one place the table lives (``--no-write``
to skip; tests/test_docs.py checks the page is exactly what :func:`section` writes). Takes
about eight minutes on a quiet two-core machine (every HTTP comparison is 9 rounds of 1 s runs).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from bench import curves, engine, http
from bench.common import PAIRS, ROOT, Row, machine, markdown_table

DOC = ROOT / "docs" / "performance.md"


def section(rows: Sequence[Row], where: dict[str, str], seconds: float, tool: str) -> str:
    """The page ``docs/performance.md``: the table, the machine and how it is measured."""
    missed = [r.measure for r in rows if r.met is False]
    verdict = ("Every goal was met in this run." if not missed
               else "Goals **missed** in this run: " + "; ".join(missed) + ".")
    machine_lines = "\n".join(f"- {k}: {v}" for k, v in where.items())
    fallback = ""
    if tool != "wrk":
        fallback = """
> **wrk was not available** when this table was made (it is installed with apt-get when
> missing and the bench runs as root). The HTTP rows were driven by the bench's Python
> client instead, which shares the two CPUs with the servers and reads lower than wrk;
> compare the ratio, not the absolute figures.
"""
    return f"""# Performance

`make bench` measures the engine and the HTTP service and prints this table. Every goal
is a ratio to a reference measured in the same run (these machines are shared and noisy):
the HTTP comparisons alternate short runs of the figure and its reference, and the ratio is
the median of the per-round ratios, with their range beside it. The absolute figures are in
the table too, without goals. {verdict}
{fallback}
{markdown_table(rows)}

![Time per request against work](cost-curves.png)

The cost curves (`bench/curves.py`, one worker, one connection, medians) show where time
goes as a request grows: a log-log slope near 1 is linear growth, near 0 a fixed cost per
request. Batches and rankings grow linearly once they hold more than about 100 hands
(below that the fixed cost of a request, about 1 ms, dominates); a settlement's fixed cost
dominates up to the largest table (82 players); odds cost most with the fewest known cards
(with 3 known, every completion of the hand is visited too).

Measured on:

{machine_lines}
- Wall time of the whole benchmark: {seconds:.0f} s

Reproduce with `make bench` (or `.venv/bin/python -m bench`; `python -m bench.engine` and
`python -m bench.http` run one half).

How it is measured:

- **Engine.** The reference evaluator (`evaluate_reference`, every ox choice tried) runs on a
  fixed random sample of one-deck hands; numpy `evaluate_many` then scores all 2,598,960
  one-deck hands from the class tables (8,568 classes per profile), and the ratio of the
  two rates is the engine figure. The per-hand table paths run on the same sample:
  `evaluate.evaluate` builds full `Evaluation` objects; `resolved` + `serialize.evaluations_json` (the
  batch endpoint's path) goes from card codes straight to response data. Table build time
  and memory are measured in fresh interpreters (memory with `tracemalloc`, RSS growth
  beside it).
- **HTTP.** The bench starts gunicorn itself on free 127.0.0.1 ports with the repository's
  `gunicorn.conf.py` (gevent, 2 workers, access log on, app preloaded) and waits until
  every worker has booted. The floor is a bare WSGI echo (`bench/echo_app.py`): a plain
  WSGI callable, no framework, that reads the request body and answers it as
  `application/json`, served by the same configuration and worker class through
  `GNAU_WSGI_APP` (the configuration's hooks skip what only the service needs: the warm-up,
  the compute lane, the drain). What it costs is what every request costs a worker before
  and after any application: gunicorn's parsing of the request head, the worker's
  turn-taking and balanced accepting, the access log line and the socket writes.
  Every comparison alternates short runs (9 rounds of 1 s runs by default; `--pairs`,
  `--seconds`), each round starting with the other side than the one before, and its
  figure is the median of the rounds' ratios: a neighbour's burst spoils one round, not
  the comparison. Load comes from wrk with a Lua script for the POST bodies; every
  response is checked to be a 2xx. Every run also reads the workers' CPU time (the
  kernel's scheduler statistics, all their threads): the table gives the CPU a request
  costs a worker on the service and on the echo, and `python -m bench.phases` splits the
  service's share by phase, timed in process. wrk 4.1 has no fixed-rate mode (`-R` is
  wrk2), so "p99 at half load" holds the rate with wrk's Lua `delay()`: a jittered pause
  before each request on each of the same 16 connections, calibrated against the achieved
  rate, which the table prints. The service is held at half its maximum and the echo at
  the rate the service held, alternating, and the goal is the ratio of their p99s. The batch rows send
  10,000 random hands per request, one request at a time, to a server started with
  `GNAU_WORKERS=1` (request parsing, validation, evaluation and the 2 MB response
  included), in rounds with the in-process batch path on the same hands in the
  benchmark's own process (`resolved` + `evaluations_json`, collector paused, as in the
  engine rows) and with the `fields=label,score` batch. The slow-clients row holds 200
  idle connections and 50 requests that sent 8 of 100 body bytes open on the service
  while wrk runs the half-load pace. The health row sends `GET /healthz` on a fresh
  connection every 0.1 s, as a probe comes, to the API port and to the master's probe
  port, while wrk loops 10,000-hand batches on 16 connections (two workers); the goal is
  the API port's, the chart's probes use the other.
- **Balance.** All workers accept from one socket and keep-alive keeps each connection
  on the worker that accepted it; left alone, the worker that happens to be running when
  a burst of connections arrives takes them all (4 connections opened at once all landed
  on one worker here). Each worker counts its open connections on a board shared by all
  workers and holds off accepting while it holds more than the least loaded one
  (`service/gunicorn_worker.py`). The balance rows open 4, 16 and 64 keep-alive
  connections at once and report the busiest worker's share of the requests (from the
  access log, which names the worker of every request); every other load run is checked
  the same way, and nothing is ever run again. With the connections spread evenly, what
  is left of a worker's lead comes from the CPU it gets: wrk runs on the same two cores.
- **What a request costs beyond the floor.** The busiest POST routes (evaluations, batches,
  rankings, settlements, showdowns, deals and their verification) are answered at the
  WSGI layer by their own handlers, without Flask's request and app contexts, routing and
  response object (about 100 µs of CPU a small request). What an evaluation still costs
  beyond the echo: reading the body with its deadline, strict JSON reading (orjson,
  checked to give exactly what the standard library gives), the operation (checking the
  request, resolving the hand, the answer's data), the request and category metrics
  (writes to the shared metric files), the request id and the headers every answer
  carries; gunicorn then writes more headers than for the echo. `python -m bench.phases`
  times each of these in process, back to back, for an evaluation and a deal against the
  echo's WSGI call, and prints the cost per request by module. The "cost per request in
  the workers" rows serve the echo and the service again, on servers of their own, with
  every WSGI call timed inside the workers (the CPU time of the worker's thread while the
  app ran), and split a worker's CPU per request into the WSGI call and everything outside
  it (gunicorn's parsing, the worker's loop, the answer's writes, the access log line),
  which is about the same on both sides. A deal of one deck and 10 hands computes in about 17 µs (7 HMAC
  blocks from one keyed HMAC, copied per block; 51 swaps). A worker yields to its event
  loop only when the loop has not polled for 5 ms (`service/gunicorn_worker.py`): yielding
  before every request cost 25-40 µs of CPU a request under this load. A batch is read in
  one pass: orjson reads the body, writes the hands back as one compact JSON text (in C,
  no Python string per card), and numpy looks every card token up at once from it, with
  the cyclic collector paused while it computes (on the worker's compute lane,
  `service/http/compute.py`, off the event loop). A full batch answer fills one text
  template per hand and joins the texts 256 hands at a time, so their memory is reused
  while it is still in the CPU cache instead of being mapped afresh on every request
  (about 500 page faults a 10,000-hand answer); the metrics get the hands counted by
  category with numpy.
- **Noise.** The machines these figures come from are shared: the same 10,000-hand batch,
  run in process and through a worker in alternation, took 26-30 ms in some seconds and
  37-45 ms in others, on both paths alike. That is why every comparison is made of short
  rounds, each ratio taken between two runs next to each other, and the median of the
  rounds kept: the range beside each ratio shows how far single rounds strayed. A row near
  its goal can still pass in one run and miss in the next; compare rows within one run,
  and runs by their spread. A ratio of two different kinds of work also moves with the
  machine's state itself, even in process: 1,000-hand rankings against 1,000-hand batches
  read 0.83 to 0.99 from one set of 9 rounds to the next on a busy machine (through
  the workers), and 0.75 to 0.85 timed in process on the same hands. The workers' CPU per
  request moved the same way as the throughput (their ratio 0.87 where the throughput's
  was 0.86), and the reference moved more than the figure: in process, the batch's rate
  varied twice as much as the ranking's (±13 % against ±7 %), and the rounds' ratio
  followed the batch's rate (correlation -0.89), not the ranking's. The collector
  (paused: no collection during either request), page faults (under one a request), the
  order of the two runs in a round and the CPU clock the virtual machine shows (fixed)
  did not vary with it. With 2 connections on 2 workers, about one run in ten had both
  connections on one worker when the machine was busy; the median of the rounds absorbs
  such a round.
  The latency rows also pay for waking an idle CPU (a virtual
  machine whose idle CPUs halt): a small Flask app's WSGI call, timed in process, took
  about 0.11 ms back to back and 0.67 ms after 5 ms idle, so most of a half-load p50 and
  p99, service and floor alike, is wake-up rather than work.
"""


def main(argv: Sequence[str] | None = None) -> None:
    """Run everything, print the table, write docs/performance.md."""
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--no-write", action="store_true", help="do not write docs/performance.md")
    parser.add_argument("--sample", type=int, default=engine.SAMPLE, help="reference sample (default %(default)s)")
    parser.add_argument("--pairs", type=int, default=PAIRS,
                        help="alternating rounds per HTTP comparison (default %(default)s)")
    parser.add_argument("--seconds", type=float, default=1.0,
                        help="length of one HTTP run of a round (default %(default)s)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    print("[bench] engine ...", file=sys.stderr, flush=True)
    rows = engine.run(args.sample)
    print("[bench] http ...", file=sys.stderr, flush=True)
    rows += http.run(args.pairs, args.seconds)
    print("[bench] cost curves ...", file=sys.stderr, flush=True)
    with tempfile.TemporaryDirectory(prefix="gnau-curves-") as tmp:
        measured = curves.measure(Path(tmp))
    curves.plot(measured)
    rows += curves.rows(measured)
    seconds = time.perf_counter() - started
    where = machine()
    tool = "wrk" if shutil.which("wrk") else "Python client"
    print()
    print(markdown_table(rows))
    print()
    print("; ".join(f"{k}: {v}" for k, v in where.items()) + f"; {seconds:.0f} s")
    text = section(rows, where, seconds, tool)
    if not args.no_write:
        DOC.write_text(text)
        print(f"written to {DOC.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
