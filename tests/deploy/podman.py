"""A private podman for the container test: own storage, own config, own network namespace.

Everything the test makes lives in one temporary folder and one network namespace, and
:meth:`Podman.destroy` removes all of it, whatever state the test left it in:

- ``containers.conf`` (named by ``CONTAINERS_CONF``): the ``runc`` runtime (``crun``
  fails in this kind of sandbox), lowered rlimits (the sandbox cannot raise them), the
  ``cgroupfs`` manager, file-based events and logs (there is no systemd), and a network
  config folder of its own, so no network definition is left in ``/etc/containers``.
- ``storage.conf`` (named by ``CONTAINERS_STORAGE_CONF``): image and container storage
  in the temporary folder, so the test never sees or removes anyone else's images.
- Containers and pods run inside a network namespace of the test's own (``ip netns
  add``, then ``nsenter --net=...``; ``ip netns exec`` would also remount ``/sys`` and
  hide the cgroup mounts runc needs): podman 4.3's ``kube play``
  publishes every ``containerPort`` on ``0.0.0.0`` of the host, which here would take
  over port 8000 of the whole machine. In a namespace of its own nothing is reachable
  from outside, and the test talks to the containers with sockets created inside that
  namespace (:func:`netns_connection`).

Builds run in the host namespace (pip inside the build needs the package registry) with
``--isolation=chroot --network host``, which starts no container network.
"""

from __future__ import annotations

import contextlib
import ctypes
import http.client
import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bench.harness import Reply

CLONE_NEWNET = 0x40000000
#: Where each run's folder goes: ``gnau-deploy-<token>-<random>``, with ``owner`` holding
#: the pid of the pytest process that made it.
STATE_DIR = Path("/var/tmp")
PREFIX = "gnau-deploy-"
#: Seconds any one podman command may take (a build is the slowest, about 25 s here).
COMMAND_TIMEOUT = 300


def _setns(path: Path) -> None:
    """Move the *calling thread* into the network namespace at ``path`` (setns(2))."""
    libc = ctypes.CDLL(None, use_errno=True)
    fd = os.open(path, os.O_RDONLY)
    try:
        if libc.setns(fd, CLONE_NEWNET) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"setns({path}): {os.strerror(err)}")
    finally:
        os.close(fd)


def netns_socket(netns: Path) -> socket.socket:
    """A TCP socket that belongs to the network namespace ``netns`` (a /run/netns path).

    A socket stays in the namespace it was created in, so it is created on a short-lived
    thread that first enters the namespace; the test's own threads never change namespace.
    """
    made: list[socket.socket] = []
    failed: list[BaseException] = []

    def create() -> None:
        try:
            _setns(netns)
            made.append(socket.socket(socket.AF_INET, socket.SOCK_STREAM))
        except BaseException as exc:  # handed to the caller below
            failed.append(exc)

    thread = threading.Thread(target=create, name="netns-socket")
    thread.start()
    thread.join(timeout=10)
    if failed:
        raise failed[0]
    if not made:
        raise OSError(f"could not create a socket in {netns}")
    return made[0]


class NetnsHTTPConnection(http.client.HTTPConnection):
    """``http.client.HTTPConnection`` whose socket lives in another network namespace."""

    def __init__(self, netns: Path, host: str, port: int, timeout: float = 10.0) -> None:
        super().__init__(host, port, timeout=timeout)
        self.netns = netns

    def connect(self) -> None:
        sock = netns_socket(self.netns)
        sock.settimeout(self.timeout)
        try:
            sock.connect((self.host, self.port))
        except OSError:
            sock.close()
            raise
        self.sock = sock


@dataclass
class Endpoint:
    """An HTTP server inside the private namespace: ``host:port`` there."""

    netns: Path
    host: str
    port: int

    def connection(self, timeout: float = 10.0) -> NetnsHTTPConnection:
        return NetnsHTTPConnection(self.netns, self.host, self.port, timeout=timeout)

    def call(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None,
             timeout: float = 10.0) -> Reply:
        conn = self.connection(timeout)
        try:
            sent = {"Content-Type": "application/json"} if body is not None else {}
            sent.update(headers or {})
            conn.request(method, path, body=None if body is None else json.dumps(body), headers=sent)
            response = conn.getresponse()
            return Reply(response.status, {k.lower(): v for k, v in response.getheaders()}, response.read())
        finally:
            conn.close()

    def status(self, path: str, timeout: float = 2.0) -> int | None:
        """The status of ``GET path``, or None when nothing answers."""
        try:
            return self.call("GET", path, timeout=timeout).status
        except (OSError, http.client.HTTPException):
            return None

    def wait_ready(self, seconds: float, alive: Any = None) -> None:
        """Poll ``/readyz`` until it answers 200; fail after ``seconds``.

        ``alive`` (optional) is called each round and returns a reason string when the
        server is known dead, so a crash fails at once with its reason.
        """
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.status("/readyz") == 200:
                return
            if alive is not None and (reason := alive()):
                pytest.fail(reason)
            time.sleep(0.25)
        reason = alive() if alive is not None else ""
        pytest.fail(f"{self.host}:{self.port} not ready after {seconds} s {reason or ''}")


@dataclass
class Podman:
    """podman with test-private configuration, storage and network namespace."""

    root: Path
    netns_name: str
    tag_prefix: str
    env: dict[str, str] = field(repr=False)
    timings: dict[str, float] = field(default_factory=dict)
    created: float = field(default_factory=time.monotonic)

    @classmethod
    def create(cls) -> Podman:
        """A new private podman: folder, config files and network namespace."""
        token = uuid.uuid4().hex[:8]
        root = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{token}-", dir=STATE_DIR))
        for sub in ("storage", "run", "tmp", "networks", "volumes"):
            (root / sub).mkdir()
        podman = cls.attach(root)
        (root / "containers.conf").write_text(
            "[containers]\n"
            'default_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]\n'
            'log_driver = "k8s-file"\n'
            "[engine]\n"
            'runtime = "runc"\n'
            'cgroup_manager = "cgroupfs"\n'
            'events_logger = "file"\n'
            f'tmp_dir = "{root / "tmp"}"\n'
            f'volume_path = "{root / "volumes"}"\n'
            "[network]\n"
            f'network_config_dir = "{root / "networks"}"\n'
        )
        (root / "storage.conf").write_text(
            "[storage]\n"
            'driver = "overlay"\n'
            f'graphroot = "{root / "storage"}"\n'
            f'runroot = "{root / "run"}"\n'
        )
        proc = subprocess.run(["ip", "netns", "add", podman.netns_name], capture_output=True, text=True,
                              timeout=30, check=False)
        if proc.returncode != 0:
            shutil.rmtree(root, ignore_errors=True)
            pytest.fail(f"ip netns add {podman.netns_name} failed: {proc.stderr}")
        podman.ip("link", "set", "lo", "up")
        (root / "owner").write_text(str(os.getpid()))
        return podman

    @classmethod
    def attach(cls, root: Path) -> Podman:
        """The private podman whose folder is ``root`` (made by :meth:`create`)."""
        token = root.name.removeprefix(PREFIX).split("-")[0]
        env = {
            **os.environ,
            "CONTAINERS_CONF": str(root / "containers.conf"),
            "CONTAINERS_STORAGE_CONF": str(root / "storage.conf"),
            "TMPDIR": str(root / "tmp"),
        }
        return cls(root=root, netns_name=f"{PREFIX}{token}", tag_prefix=f"localhost/{PREFIX}{token}", env=env)

    @classmethod
    def sweep_stale(cls) -> list[str]:
        """Destroy what earlier runs left behind when they were killed before their own
        cleanup could run (SIGKILL, a lost CI runner): folders whose ``owner`` process is
        gone. Folders of runs still alive, or still being set up, are left alone.
        Returns the names of the folders removed."""
        removed = []
        for folder in sorted(STATE_DIR.glob(f"{PREFIX}*")):
            try:
                pid = int((folder / "owner").read_text())
            except (OSError, ValueError):
                continue
            try:
                os.kill(pid, 0)
                continue  # its run is still going
            except ProcessLookupError:
                pass
            except PermissionError:
                continue
            cls.attach(folder).destroy()
            removed.append(folder.name)
        return removed

    @property
    def netns(self) -> Path:
        return Path("/run/netns") / self.netns_name

    def ip(self, *args: str) -> None:
        subprocess.run(["ip", "-n", self.netns_name, *args], check=True, capture_output=True, timeout=30)

    def run(self, *args: str, in_netns: bool = False, check: bool = True, timeout: float = COMMAND_TIMEOUT,
            cwd: Path | None = None, stdin_text: str | None = None) -> subprocess.CompletedProcess[str]:
        """``podman args...``; inside the private namespace when ``in_netns``."""
        command = ["podman", *args]
        if in_netns:
            command = ["nsenter", f"--net={self.netns}", *command]
        try:
            proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=self.env,
                                  cwd=cwd, input=stdin_text, check=False)
        except subprocess.TimeoutExpired as exc:
            pytest.fail(f"{' '.join(command)} took more than {timeout} s:\n{exc.stdout!r}\n{exc.stderr!r}")
        if check and proc.returncode != 0:
            pytest.fail(f"{' '.join(command)} failed ({proc.returncode}):\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
        return proc

    def popen(self, *args: str, in_netns: bool = False) -> subprocess.Popen[str]:
        command = ["podman", *args]
        if in_netns:
            command = ["nsenter", f"--net={self.netns}", *command]
        return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=self.env)

    def inspect(self, *names: str, kind: str = "container") -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = json.loads(self.run(kind, "inspect", *names).stdout)
        return out if isinstance(out, list) else [out]

    def timed(self, label: str, args: Sequence[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
        started = time.monotonic()
        proc = self.run(*args, **kwargs)
        self.timings[label] = time.monotonic() - started
        return proc

    def destroy(self) -> list[str]:
        """Remove every pod, container, image and network this podman made; then its folder
        and namespace. Returns the problems met (the caller reports them)."""
        problems: list[str] = []
        steps: list[tuple[Sequence[str], bool]] = [
            (("pod", "rm", "--all", "--force", "--time", "0"), True),
            (("rm", "--all", "--force", "--time", "0"), True),
            (("rmi", "--all", "--force"), False),
            (("system", "reset", "--force"), True),
        ]
        for args, in_netns in steps:
            with contextlib.suppress(Exception):
                proc = self.run(*args, in_netns=in_netns, check=False, timeout=120)
                if proc.returncode != 0:
                    problems.append(f"podman {' '.join(args)}: {proc.stderr.strip()[-500:]}")
        proc = subprocess.run(["ip", "netns", "del", self.netns_name], capture_output=True, text=True,
                              timeout=30, check=False)
        if proc.returncode != 0:
            problems.append(f"ip netns del {self.netns_name}: {proc.stderr.strip()}")
        # Anything still mounted under the folder (a crashed overlay) is unmounted first.
        mounts = [line.split()[1] for line in Path("/proc/mounts").read_text().splitlines()
                  if line.split()[1].startswith(str(self.root))]
        for mount in sorted(mounts, key=len, reverse=True):
            subprocess.run(["umount", "-l", mount], capture_output=True, timeout=30, check=False)
        shutil.rmtree(self.root, ignore_errors=True)
        if self.root.exists():
            problems.append(f"could not remove {self.root}")
        return problems
