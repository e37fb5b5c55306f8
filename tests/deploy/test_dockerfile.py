"""Tests of the Dockerfile and .dockerignore.

hadolint lints the file, and the properties the chart and the security posture rely on
are asserted on the parsed instructions (two stages on a pinned base, venv copied
across, numeric non-root USER, exec-form gunicorn CMD, port 8000). The image itself is
built and run by test_container.py.
"""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass

import pytest
import yaml

from .support import CHART_DIR, REPO_ROOT, venv_tool

DOCKERFILE = REPO_ROOT / "Dockerfile"
DOCKERIGNORE = REPO_ROOT / ".dockerignore"
PINNED_BASE = re.compile(r"^python:3\.11\.\d+-slim-bookworm(@sha256:[0-9a-f]{64})?$")


@dataclass(frozen=True)
class Instruction:
    keyword: str
    args: str
    stage: int


def parse_dockerfile(text: str) -> list[Instruction]:
    """Instructions with continuation lines joined and comments dropped."""
    instructions: list[Instruction] = []
    stage = -1
    pending = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if pending and line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        full = (pending + line).strip()
        pending = ""
        if not full:
            continue
        keyword, _, args = full.partition(" ")
        keyword = keyword.upper()
        if keyword == "FROM":
            stage += 1
        instructions.append(Instruction(keyword, " ".join(args.split()), stage))
    assert not pending, "Dockerfile ends inside a continued line"
    return instructions


@pytest.fixture(scope="module")
def instructions() -> list[Instruction]:
    return parse_dockerfile(DOCKERFILE.read_text())


def of(instructions: list[Instruction], keyword: str, stage: int | None = None) -> list[Instruction]:
    return [i for i in instructions if i.keyword == keyword and (stage is None or i.stage == stage)]


def final_stage(instructions: list[Instruction]) -> int:
    return max(i.stage for i in instructions)


def test_hadolint_has_no_findings() -> None:
    hadolint = venv_tool("hadolint")
    proc = subprocess.run(
        [str(hadolint), "--no-color", "--failure-threshold", "style", str(DOCKERFILE)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO_ROOT,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip() == ""


def test_no_inline_lint_suppressions() -> None:
    assert "hadolint ignore" not in DOCKERFILE.read_text()


def test_two_stages_on_the_same_pinned_slim_base(instructions: list[Instruction]) -> None:
    """Both stages use ``ARG PYTHON_IMAGE``, whose default is the pinned official image.

    The container test builds with a stand-in base passed as that argument; production
    builds get the default, so the default is what must be pinned.
    """
    args = [a.args for a in of(instructions, "ARG") if a.stage == -1]
    assert len(args) == 1, "exactly one ARG before the first FROM"
    name, _, default = args[0].partition("=")
    assert name == "PYTHON_IMAGE"
    assert PINNED_BASE.match(default), default
    froms = of(instructions, "FROM")
    assert len(froms) == 2
    bases = [f.args.split()[0] for f in froms]
    assert bases == ["${PYTHON_IMAGE}", "${PYTHON_IMAGE}"]
    assert froms[0].args.lower().endswith(" as builder")


def test_dependencies_installed_into_a_venv_in_the_builder(instructions: list[Instruction]) -> None:
    runs = [r.args for r in of(instructions, "RUN", stage=0)]
    assert any("python -m venv /opt/venv" in r for r in runs)
    assert any(re.search(r"\bpip install --no-cache-dir -c constraints\.txt \.$", r) for r in runs), runs
    final_runs = of(instructions, "RUN", stage=final_stage(instructions))
    assert all("pip install" not in r.args for r in final_runs), "install belongs in the builder"


def test_final_stage_copies_the_venv_and_config(instructions: list[Instruction]) -> None:
    last = final_stage(instructions)
    copies = [c.args for c in of(instructions, "COPY", stage=last)]
    assert "--from=builder /opt/venv /opt/venv" in copies
    assert "gunicorn.conf.py /app/gunicorn.conf.py" in copies
    assert [w.args for w in of(instructions, "WORKDIR", stage=last)] == ["/app"]
    env = " ".join(e.args for e in of(instructions, "ENV", stage=last))
    assert "/opt/venv/bin" in env
    assert "PYTHONDONTWRITEBYTECODE=1" in env
    assert "GNAU_BIND=0.0.0.0:8000" in env


def test_runs_as_numeric_non_root_user(instructions: list[Instruction]) -> None:
    users = of(instructions, "USER")
    assert users, "no USER instruction"
    last_user = users[-1]
    assert last_user.stage == final_stage(instructions)
    match = re.fullmatch(r"(\d+)(?::(\d+))?", last_user.args)
    assert match, f"USER must be numeric (uid[:gid]), got {last_user.args!r}"
    assert int(match.group(1)) != 0
    assert match.group(2) is None or int(match.group(2)) != 0


def test_exec_form_gunicorn_cmd(instructions: list[Instruction]) -> None:
    (cmd,) = of(instructions, "CMD")
    assert cmd.stage == final_stage(instructions)
    assert json.loads(cmd.args) == ["gunicorn", "-c", "/app/gunicorn.conf.py"]
    assert not of(instructions, "ENTRYPOINT")


def test_exposes_port_8000_and_the_probe_port(instructions: list[Instruction]) -> None:
    assert [e.args for e in of(instructions, "EXPOSE")] == ["8000 8001"]
    env = " ".join(e.args for e in of(instructions, "ENV", stage=final_stage(instructions)))
    assert "GNAU_PROBE_BIND=0.0.0.0:8001" in env


def test_chart_matches_the_image() -> None:
    """The chart's runAsUser/Group and containerPort agree with the Dockerfile."""
    instructions = parse_dockerfile(DOCKERFILE.read_text())
    uid, _, gid = of(instructions, "USER")[-1].args.partition(":")
    values = yaml.safe_load((CHART_DIR / "values.yaml").read_text())
    for context in ("podSecurityContext", "containerSecurityContext"):
        assert values[context]["runAsUser"] == int(uid), context
        assert values[context]["runAsGroup"] == int(gid or uid), context
    assert f'{values["containerPort"]} {values["probePort"]}' == of(instructions, "EXPOSE")[0].args


def test_dockerignore_lets_every_copied_source_in(instructions: list[Instruction]) -> None:
    """.dockerignore is an allow-list: everything COPY takes from the context is re-included."""
    lines = [
        line.strip()
        for line in DOCKERIGNORE.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert lines[0] == "*"
    allowed = {line[1:].rstrip("/") for line in lines if line.startswith("!")}
    for copy in of(instructions, "COPY"):
        parts = copy.args.split()
        if any(p.startswith("--from=") for p in parts):
            continue
        sources = [p for p in parts[:-1] if not p.startswith("--")]
        for source in sources:
            assert source.rstrip("/") in allowed, f"{source} is excluded by .dockerignore"
    for private in (".git", ".venv", ".tools", "tests", "helm"):
        assert private not in allowed
