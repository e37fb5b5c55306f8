"""The npm tools the tests use (package.json, pinned by package-lock.json): installed once.

``make test`` runs ``npm ci`` before pytest; :func:`npm_bin` runs it too when the
``node_modules`` folder is missing, so a test started on its own still gets the locked
versions. Nothing is downloaded from outside npm (``.npmrc``: no install scripts).
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from pathlib import Path

from bench.harness import ROOT

__all__ = ["npm_bin"]

#: Environment for the Node tools: no telemetry or update checks (only registries are reachable).
NODE_ENV = os.environ | {"REDOCLY_TELEMETRY": "off", "REDOCLY_SUPPRESS_UPDATE_NOTICE": "true",
                         "NO_UPDATE_NOTIFIER": "1"}


def npm_bin() -> Path:
    """``node_modules/.bin`` of the repository, after ``npm ci`` if the tools are missing.

    :raises RuntimeError: node or npm is not installed, or ``npm ci`` failed (with its output).
    """
    if shutil.which("node") is None:
        raise RuntimeError("node is not on PATH: the TypeScript client and the chart's values table need Node 20+ "
                           "with npm")
    stamp = ROOT / "node_modules" / ".package-lock.json"
    if not stamp.is_file():
        npm = shutil.which("npm")
        if npm is None:
            raise RuntimeError("npm is not on PATH: the contract linters, the TypeScript client and the chart's values "
                               "table need Node 20+ with npm")
        with (Path(os.environ.get("TMPDIR", "/tmp")) / "gnau-npm-ci.lock").open("w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # two test workers: one installs, the other waits
            if not stamp.is_file():
                result = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=ROOT, env=NODE_ENV,
                                        capture_output=True, text=True, timeout=600, check=False)
                if result.returncode != 0:
                    raise RuntimeError(f"npm ci failed:\n{result.stdout}{result.stderr}")
    return ROOT / "node_modules" / ".bin"
