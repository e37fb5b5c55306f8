"""Helpers shared by the deployment tests: paths, a helm runner and rendered manifests."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests import ROOT

REPO_ROOT = ROOT
CHART_DIR = REPO_ROOT / "helm" / "gnau-scoring"
ALL_ON_VALUES = REPO_ROOT / "helm" / "ci-values-all-on.yaml"
FETCH_HELM = REPO_ROOT / "scripts" / "fetch-helm.sh"
RELEASE = "gnau"
NAMESPACE = "scoring"

Manifest = dict[str, Any]


def venv_tool(name: str) -> Path:
    """Path of a console script installed next to the running interpreter, or fail."""
    path = Path(sys.executable).parent / name
    if not path.is_file():
        pytest.fail(f"{name} is not installed in {path.parent}; pip install the deploy test tools")
    return path


@dataclass
class Rendered:
    """The documents of one ``helm template`` run, with look-ups by kind."""

    docs: list[Manifest]
    text: str = field(repr=False)

    def kinds(self) -> set[str]:
        return {doc["kind"] for doc in self.docs}

    def all_of(self, kind: str) -> list[Manifest]:
        return [doc for doc in self.docs if doc["kind"] == kind]

    def one(self, kind: str) -> Manifest:
        found = self.all_of(kind)
        assert len(found) == 1, f"expected exactly one {kind}, got {len(found)}"
        return found[0]

    @property
    def deployment(self) -> Manifest:
        return self.one("Deployment")

    @property
    def pod_spec(self) -> Manifest:
        spec: Manifest = self.deployment["spec"]["template"]["spec"]
        return spec

    @property
    def container(self) -> Manifest:
        containers = self.pod_spec["containers"]
        assert len(containers) == 1
        container: Manifest = containers[0]
        return container

    def env(self) -> dict[str, str]:
        return {item["name"]: item.get("value", "") for item in self.container.get("env", [])}


def run_helm(helm: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [str(helm), *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO_ROOT,
        check=False,
    )
    if check and proc.returncode != 0:
        pytest.fail(f"helm {' '.join(args)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc


def template(helm: Path, extra_args: Sequence[str] = ()) -> Rendered:
    proc = run_helm(helm, "template", RELEASE, str(CHART_DIR), "--namespace", NAMESPACE, *extra_args)
    docs = [doc for doc in yaml.safe_load_all(proc.stdout) if doc]
    return Rendered(docs=docs, text=proc.stdout)
