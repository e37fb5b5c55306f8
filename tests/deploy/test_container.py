"""The image built from the Dockerfile, run as the chart runs it, and the chart's own pod.

What a user deploys is proven by running it (issue 11), with Debian's podman:

1. The image is built from ``Dockerfile`` with the repository as context (so with its
   ``.dockerignore``). The official base image's registry is not reachable from CI, so
   the build gets ``--build-arg PYTHON_IMAGE=<stand-in>``: a base of the same Debian
   release with Debian's python3.11, made here with mmdebstrap once per run and tagged
   under a test-private name (never as the official name). Production builds use the
   Dockerfile's default, the pinned official image.
2. The image runs as the chart runs it (read-only root, tmpfs ``/tmp``, uid/gid 10001,
   every capability dropped, no new privileges): probes, a real evaluation with its
   known answer, ``/metrics`` counting it, JSON log lines on stdout.
3. ``helm template`` with an operator profile in values; the rendered ConfigMap and
   Deployment go to ``podman kube play`` byte for byte (values set only the image
   reference). The pod answers on its pod IP, serves the operator profile, and runs as
   10001 with a read-only root.
4. ``podman stop -t <terminationGracePeriodSeconds>`` on the app container: ``/readyz`` turns 503 during
   the drain, a request in flight completes, the container exits 0 in time.
5. Every container, pod, image and network is removed afterwards, also on failure
   (:meth:`tests.deploy.podman.Podman.destroy`, run by the session fixture). A run killed
   before its cleanup (SIGKILL) is cleaned up by the next run
   (:meth:`tests.deploy.podman.Podman.sweep_stale`).

podman, runc, mmdebstrap and iproute2 are installed with apt by
``scripts/ensure-podman.sh`` when missing (CI runs as root on Debian). When they cannot
be had the tests *fail*: an image that is never built must not pass as "skipped".
Measured times and the image size are printed in pytest's terminal summary.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from bench.harness import Reply
from service.engine.rules import PROFILES
from tests.tools import missing_tool, no_install_env

from .conftest import CONTAINER_GROUP
from .podman import Endpoint, Podman
from .support import CHART_DIR, RELEASE, REPO_ROOT

pytestmark = [pytest.mark.deploy, pytest.mark.xdist_group(CONTAINER_GROUP)]

REUSE_BASE_TAR = "GNAU_DEPLOY_BASE_TAR"
ENSURE_PODMAN = REPO_ROOT / "scripts" / "ensure-podman.sh"
EATMYDATA_HOOKS = "/usr/share/mmdebstrap/hooks/eatmydata"  # from Debian's mmdebstrap + eatmydata
DEBIAN_SUITE = "bookworm"  # the Debian release of the official python:3.11.*-slim-bookworm
APP_UID = 10001
PORT = 8000
#: Seconds the app may take from container start to a 200 on /readyz.
START_SECONDS = 60

#: README's first example and its answer (RULES.md sections 3 and 8).
HAND = ["10S", "7H", "3D", "KC", "7D"]
ANSWER = {
    "profile": "standard",
    "rules_digest": "sha256:f95d84ea30e9fbbc",
    "hand": HAND,
    "category": "single_ox",
    "label": "Single-Ox 0",
    "label_key": "single_ox_0",
    "score": 210,
    "payout": 1,
    "ox": {"cards": ["7H", "3D", "7D"], "points": [7, 6, 7]},
    "power": {"cards": ["10S", "KC"], "points": [10, 10]},
    "nenku": False,
    "suited": False,
}
#: Ngau Tonku under ``standard``; a Single-Ox 1 under the operator profile below.
TONKU = ["AS", "KH", "QD", "JC", "10S"]
OPERATOR_PROFILES = {
    "house-no-tonku": {
        "extends": "standard",
        "description": "Standard without Ngau Tonku; a Single-Ox pays 2.",
        "rules": {"ngau_tonku": False, "payouts": {"single_ox": 2}},
    }
}
BUILTIN_PROFILES = list(PROFILES)  # the engine's built-in profiles, in their order


def report(request: pytest.FixtureRequest, name: str, value: float | str) -> None:
    """Record a measured number; conftest prints them in the terminal summary."""
    request.node.user_properties.append((f"deploy:{name}", value))


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="session")
def podman(pytestconfig: pytest.Config) -> Iterator[Podman]:
    """A private podman (see tests/deploy/podman.py); everything it made is removed after."""
    try:
        proc = subprocess.run(["bash", str(ENSURE_PODMAN)], capture_output=True, text=True, timeout=900,
                              check=False, env=no_install_env(pytestconfig))
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.fail(f"could not run {ENSURE_PODMAN}: {exc}")
    if proc.returncode != 0:
        missing_tool(pytestconfig, "podman", f"podman, runc and mmdebstrap could not be had: {proc.stderr.strip()}")
    Podman.sweep_stale()  # what a killed earlier run could not clean up itself
    instance = Podman.create()
    try:
        yield instance
    finally:
        problems = instance.destroy()
        if problems:
            pytest.fail("cleanup left something behind:\n" + "\n".join(problems))


@pytest.fixture(scope="session")
def base_image(podman: Podman) -> str:
    """The stand-in base: Debian bookworm with Debian's python3.11, ``python`` on PATH.

    Built once per run. Docs, man pages and locales are left out, as in the slim image.
    ``GNAU_DEPLOY_BASE_TAR=<path>`` imports a tarball made by an earlier run instead
    (a shortcut when iterating locally; the test's checks are the same).
    """
    ref = f"{podman.tag_prefix}/python-standin:3.11-{DEBIAN_SUITE}"
    reuse = os.environ.get(REUSE_BASE_TAR)
    if reuse:  # a local shortcut for repeated runs; CI never sets it
        podman.timings["mmdebstrap"] = 0.0
        podman.timed("import", ["import", reuse, ref])
        return ref
    tarball = podman.root / "base.tar"
    started = time.monotonic()
    proc = subprocess.run(
        [
            "mmdebstrap", "--variant=apt", "--quiet",
            # dpkg without fsync (eatmydata): halves the time here; nothing is left in the image.
            f"--hook-dir={EATMYDATA_HOOKS}",
            "--include=python3.11,python3.11-venv,ca-certificates",
            "--dpkgopt=path-exclude=/usr/share/man/*",
            "--dpkgopt=path-exclude=/usr/share/doc/*",
            "--dpkgopt=path-exclude=/usr/share/locale/*",
            "--customize-hook=ln -s /usr/bin/python3.11 \"$1/usr/local/bin/python\"",
            "--customize-hook=rm -rf \"$1\"/var/lib/apt/lists/* \"$1\"/var/cache/apt/*",
            DEBIAN_SUITE, str(tarball),
        ],
        capture_output=True, text=True, timeout=600, check=False,
    )
    podman.timings["mmdebstrap"] = time.monotonic() - started
    if proc.returncode != 0:
        pytest.fail(f"mmdebstrap failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
    podman.timed("import", ["import", str(tarball), ref])
    tarball.unlink()
    return ref


@dataclass(frozen=True)
class Image:
    ref: str
    size: int
    base_size: int
    config: dict[str, Any]


@pytest.fixture(scope="session")
def app_image(podman: Podman, base_image: str) -> Image:
    """The image built from the repository's Dockerfile on the stand-in base."""
    ref = f"{podman.tag_prefix}/gnau-scoring:ci"
    mounts: list[str] = []
    for host in (Path("/etc/ssl/certs"), Path("/etc/pip.conf")):
        if host.exists():  # pip in the build trusts the machine's CA bundle and pip config
            mounts += ["-v", f"{host}:{host}:ro"]
    podman.timed(
        "build",
        ["build", "--isolation=chroot", "--network", "host", "--pull=never", *mounts,
         "--build-arg", f"PYTHON_IMAGE={base_image}", "-t", ref, "-f", str(REPO_ROOT / "Dockerfile"),
         str(REPO_ROOT)],
        timeout=600,
    )
    app, base = podman.inspect(ref, base_image, kind="image")
    return Image(ref=ref, size=int(app["Size"]), base_size=int(base["Size"]), config=app["Config"])


def container_state(podman: Podman, name: str) -> dict[str, Any]:
    state: dict[str, Any] = podman.inspect(name)[0]["State"]
    return state


def dead_reason(podman: Podman, name: str) -> str:
    """'' while the container runs; else its state and log tail, for a failure message."""
    state = container_state(podman, name)
    if state["Running"]:
        return ""
    logs = podman.run("logs", name, check=False)
    return (f"container {name} is {state['Status']} (exit code {state['ExitCode']}):\n"
            f"{logs.stdout[-3000:]}\n{logs.stderr[-3000:]}")


def wait_ready(podman: Podman, endpoint: Endpoint, name: str) -> None:
    endpoint.wait_ready(START_SECONDS, alive=lambda: dead_reason(podman, name))


def logs(podman: Podman, name: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The container's stdout and stderr, each line parsed as JSON (a non-JSON line fails)."""
    proc = podman.run("logs", name)

    def parse(text: str, stream: str) -> list[dict[str, Any]]:
        records = []
        for line in text.splitlines():
            if not line.strip():
                continue
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                pytest.fail(f"{stream} line of {name} is not JSON: {line!r}")
        return records

    return parse(proc.stdout, "stdout"), parse(proc.stderr, "stderr")


def metrics(endpoint: Endpoint) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    reply = endpoint.call("GET", "/metrics")
    assert reply.status == 200
    out: dict[tuple[str, frozenset[tuple[str, str]]], float] = {}
    for family in text_string_to_metric_families(reply.body.decode()):
        for sample in family.samples:
            out[sample.name, frozenset(sample.labels.items())] = sample.value
    return out


def process_facts(podman: Podman, name: str) -> dict[str, Any]:
    """uid/gid, capabilities, no_new_privs and root-FS writability seen inside the container."""
    script = (
        "import json, os\n"
        "status = dict(l.split(':\\t', 1) for l in open('/proc/1/status').read().splitlines() if ':\\t' in l)\n"
        "def writable(path):\n"
        "    try:\n"
        "        open(path, 'w').close(); os.remove(path); return True\n"
        "    except OSError:\n"
        "        return False\n"
        "print(json.dumps({'uid': os.getuid(), 'gid': os.getgid(), 'pid1_uid': status['Uid'].split()[0],\n"
        "    'cap_eff': status['CapEff'].strip(), 'cap_bnd': status['CapBnd'].strip(),\n"
        "    'no_new_privs': status['NoNewPrivs'].strip(),\n"
        "    'root_writable': writable('/app/probe'), 'tmp_writable': writable('/tmp/probe'),\n"
        "    'env': {k: v for k, v in os.environ.items() if k.startswith(('GNAU_', 'PROFILES_'))}}))\n"
    )
    facts: dict[str, Any] = json.loads(podman.run("exec", name, "python", "-c", script).stdout)
    return facts


def assert_hardened(facts: dict[str, Any]) -> None:
    assert (facts["uid"], facts["gid"], facts["pid1_uid"]) == (APP_UID, APP_UID, str(APP_UID))
    assert int(facts["cap_eff"], 16) == 0, facts
    assert int(facts["cap_bnd"], 16) == 0, facts
    assert facts["no_new_privs"] == "1"
    assert facts["root_writable"] is False
    assert facts["tmp_writable"] is True


# ------------------------------------------------------------------ 1. the image


def test_image_builds_from_the_dockerfile(request: pytest.FixtureRequest, podman: Podman,
                                          app_image: Image) -> None:
    config = app_image.config
    assert config.get("User") == f"{APP_UID}:{APP_UID}"
    assert config.get("Cmd") == ["gunicorn", "-c", "/app/gunicorn.conf.py"]
    assert config.get("Entrypoint") in (None, [])
    assert config["WorkingDir"] == "/app"
    assert f"{PORT}/tcp" in config["ExposedPorts"]
    assert "GNAU_BIND=0.0.0.0:8000" in config["Env"]
    added = app_image.size - app_image.base_size
    # The venv with the pinned dependencies and the config; a build that copied the whole
    # context (tests, .git, .venv) or a second Python would be far larger.
    assert 20e6 < added < 200e6, f"the app adds {added / 1e6:.0f} MB to the base"
    # Without --user the image itself runs as 10001 (the chart's runAsUser hides a broken USER).
    whoami = podman.run("run", "--rm", "--network", "none", app_image.ref, "python", "-c",
                        "import os; print(os.getuid(), os.getgid())", in_netns=True)
    assert whoami.stdout.split() == [str(APP_UID), str(APP_UID)]
    for label in ("mmdebstrap", "import", "build"):
        report(request, f"{label}_s", round(podman.timings[label], 1))
    report(request, "image_MB", round(app_image.size / 1e6, 1))
    report(request, "image_over_base_MB", round(added / 1e6, 1))


# --------------------------------------------------------- 2. run it as the chart does


def test_image_runs_hardened_as_the_chart_runs_it(request: pytest.FixtureRequest, podman: Podman,
                                                  app_image: Image) -> None:
    name = "gnau-run"
    started = time.monotonic()
    podman.run(
        "run", "--detach", "--name", name,
        "--read-only", "--tmpfs", "/tmp", "--user", f"{APP_UID}:{APP_UID}",
        "--cap-drop", "ALL", "--security-opt", "no-new-privileges",
        "--publish", f"127.0.0.1:{PORT}:{PORT}",  # loopback of the test's own namespace
        app_image.ref,
        in_netns=True,
    )
    # a failure below must not leave the container holding the port for the chart's pod
    request.addfinalizer(lambda: podman.run("rm", "--force", "--time", "0", name, in_netns=True, check=False))
    endpoint = Endpoint(podman.netns, "127.0.0.1", PORT)
    wait_ready(podman, endpoint, name)
    report(request, "run_to_ready_s", round(time.monotonic() - started, 1))

    assert endpoint.call("GET", "/healthz").json() == {"status": "ok"}
    assert endpoint.call("GET", "/readyz").json() == {"status": "ready"}
    reply = endpoint.call("POST", "/v1/evaluations", {"hand": HAND}, headers={"X-Request-ID": "deploy-eval-1"})
    assert (reply.status, reply.headers["x-request-id"]) == (200, "deploy-eval-1")
    assert reply.json() == ANSWER

    values = metrics(endpoint)
    assert values[("gnau_http_requests_total",
                   frozenset({"route": "/v1/evaluations", "method": "POST", "status": "200"}.items()))] == 1
    assert values[("gnau_evaluations_total",
                   frozenset({"profile": "standard", "category": "single_ox"}.items()))] == 1

    out, err = logs(podman, name)
    access = [r for r in out if r.get("request_id") == "deploy-eval-1"]
    assert len(access) == 1, out
    assert (access[0]["name"], access[0]["method"], access[0]["path"], access[0]["status"]) == (
        "gunicorn.access", "POST", "/v1/evaluations", 200)
    assert any(r.get("message", "").startswith("Listening at: http://0.0.0.0:8000") for r in err), err

    assert_hardened(process_facts(podman, name))
    podman.run("stop", "--time", "30", name, in_netns=True)
    assert container_state(podman, name)["ExitCode"] == 0


# ------------------------------------------------------ 3. the chart's pod, kube play


@dataclass
class ChartPod:
    pod: str
    container: str
    endpoint: Endpoint
    deployment: dict[str, Any]
    ready_s: float


def rendered_documents(text: str, kinds: set[str]) -> list[str]:
    """The documents of ``helm template`` output whose kind is in ``kinds``, as rendered."""
    chunks = re.split(r"^---\s*$", text, flags=re.MULTILINE)
    return [chunk for chunk in chunks if (doc := yaml.safe_load(chunk)) and doc.get("kind") in kinds]


@pytest.fixture(scope="module")
def chart_pod(podman: Podman, app_image: Image, helm: Path,
              tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChartPod]:
    """The chart's Deployment and ConfigMap, rendered with an operator profile, played by podman."""
    folder = tmp_path_factory.mktemp("kube-play")
    repository, _, tag = app_image.ref.rpartition(":")
    values = folder / "values.yaml"
    values.write_text(yaml.safe_dump({"image": {"repository": repository, "tag": tag},
                                      "profiles": OPERATOR_PROFILES}))
    proc = subprocess.run(
        [str(helm), "template", RELEASE, str(CHART_DIR), "--namespace", "scoring", "--values", str(values)],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    documents = rendered_documents(proc.stdout, {"Deployment", "ConfigMap"})
    assert len(documents) == 2
    (deployment,) = [d for d in map(yaml.safe_load, documents) if d["kind"] == "Deployment"]
    assert deployment["spec"]["template"]["spec"]["containers"][0]["image"] == app_image.ref
    manifest = folder / "kube.yaml"
    manifest.write_text("---".join(documents))

    started = time.monotonic()
    podman.timed("kube_play", ["kube", "play", str(manifest)], in_netns=True)
    (pod,) = [p for p in json.loads(podman.run("pod", "ps", "--format", "json").stdout)]
    info = podman.inspect(pod["Name"], kind="pod")[0]
    infra = podman.inspect(info["InfraContainerID"])[0]
    addresses = [n["IPAddress"] for n in infra["NetworkSettings"]["Networks"].values() if n.get("IPAddress")]
    assert len(addresses) == 1, infra["NetworkSettings"]
    (app,) = [c["Name"] for c in info["Containers"] if c["Id"] != info["InfraContainerID"]]
    endpoint = Endpoint(podman.netns, addresses[0], PORT)
    try:
        wait_ready(podman, endpoint, app)
        yield ChartPod(pod=pod["Name"], container=app, endpoint=endpoint, deployment=deployment,
                       ready_s=time.monotonic() - started)
    finally:
        podman.run("pod", "rm", "--force", "--time", "0", pod["Name"], in_netns=True, check=False)


def test_chart_pod_serves_the_operator_profile(request: pytest.FixtureRequest, chart_pod: ChartPod,
                                               podman: Podman) -> None:
    report(request, "kube_play_s", round(podman.timings["kube_play"], 1))
    report(request, "kube_play_to_ready_s", round(chart_pod.ready_s, 1))
    endpoint = chart_pod.endpoint
    assert endpoint.call("GET", "/healthz").json() == {"status": "ok"}
    profiles = endpoint.call("GET", "/v1/profiles").json()["profiles"]
    assert [p["name"] for p in profiles] == [*BUILTIN_PROFILES, "house-no-tonku"]
    house = profiles[-1]
    assert (house["builtin"], house["extends"], house["description"]) == (
        False, "standard", "Standard without Ngau Tonku; a Single-Ox pays 2.")

    standard = endpoint.call("POST", "/v1/evaluations", {"hand": TONKU}).json()
    operator = endpoint.call("POST", "/v1/evaluations?profile=house-no-tonku", {"hand": TONKU}).json()
    assert (standard["profile"], standard["category"], standard["label"], standard["payout"]) == (
        "standard", "ngau_tonku", "Ngau Tonku", 5)
    assert (operator["profile"], operator["category"], operator["label"], operator["payout"]) == (
        "house-no-tonku", "single_ox", "Single-Ox 1", 2)
    assert endpoint.call("POST", "/v1/evaluations", {"hand": HAND}).json() == ANSWER

    facts = process_facts(podman, chart_pod.container)
    assert_hardened(facts)
    # The chart's environment reached the app, PROFILES_FILE pointing into the ConfigMap mount.
    assert facts["env"]["PROFILES_FILE"] == "/etc/gnau/profiles.yaml"
    assert facts["env"]["GNAU_WORKERS"] == "2"
    assert facts["env"]["GNAU_DRAIN_SECONDS"] == "3"


# ---------------------------------------------------------------- 4. stop with a grace


def test_chart_pod_drains_and_exits_zero_within_the_grace_period(
        request: pytest.FixtureRequest, chart_pod: ChartPod, podman: Podman) -> None:
    grace = chart_pod.deployment["spec"]["template"]["spec"]["terminationGracePeriodSeconds"]
    endpoint = chart_pod.endpoint
    assert endpoint.status("/readyz") == 200
    # A request in flight at SIGTERM: headers and half the body sent now, the rest during the drain.
    body = json.dumps({"hand": HAND}).encode()
    slow = endpoint.connection(timeout=30)
    stoppers: list[subprocess.Popen[str]] = []
    try:
        slow.putrequest("POST", "/v1/evaluations")
        slow.putheader("Content-Type", "application/json")
        slow.putheader("Content-Length", str(len(body)))
        slow.putheader("X-Request-ID", "deploy-in-flight")
        slow.endheaders()
        slow.send(body[:10])

        # As the kubelet does: SIGTERM to the app container, SIGKILL after the grace period;
        # the pod's infra container (its network) stays up until the app has exited.
        # (`podman pod stop` would stop the infra container too and cut the network at once.)
        stop_at = time.monotonic()
        stopper = podman.popen("stop", "--time", str(grace), chart_pod.container, in_netns=True)
        stoppers.append(stopper)
        readiness: list[int | None] = []
        deadline = stop_at + 10
        while time.monotonic() < deadline:
            readiness.append(endpoint.status("/readyz", timeout=1))
            if readiness[-1] != 200:
                break
            time.sleep(0.05)
        assert readiness[-1] == 503, f"/readyz during the drain: {readiness}"
        assert endpoint.status("/healthz") == 200  # liveness is unaffected by the drain
        slow.send(body[10:])
        response = slow.getresponse()
        reply = Reply(response.status, dict(response.getheaders()), response.read())
    except BaseException:
        for process in stoppers:  # the pod fixture's teardown removes the container
            process.kill()
            process.communicate()
        raise
    finally:
        slow.close()
    assert reply.status == 200
    assert reply.json() == ANSWER

    _, err = stopper.communicate(timeout=grace + 30)
    stopped_in = time.monotonic() - stop_at
    assert stopper.returncode == 0, err
    state = container_state(podman, chart_pod.container)
    assert (state["Status"], state["ExitCode"]) == ("exited", 0)
    assert stopped_in < grace, f"took {stopped_in:.1f} s, grace period {grace} s"
    report(request, "pod_stop_s", round(stopped_in, 1))
    # From the private podman's creation (after apt) to here: base, build, run, pod, stop.
    report(request, "container_part_s", round(time.monotonic() - podman.created, 1))
    messages = [r.get("message") for r in logs(podman, chart_pod.container)[1]]
    assert "Handling signal: term" in messages
    assert "Shutting down: Master" in messages
