"""Helpers the API and command tests share: a request that must answer a given status, and
the ``gnau`` command run in this process (its exit status and output, or its ``--json`` body)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from flask.testing import FlaskClient

from service.cli import main


def post(client: FlaskClient, path: str, body: dict[str, Any], profile: str = "standard", status: int = 200) -> Any:
    """POST ``body`` to ``path?profile=PROFILE``, assert the answer's status and return its JSON."""
    response = client.post(f"{path}?profile={profile}", json=body)
    assert response.status_code == status, response.get_data(as_text=True)
    return response.get_json()


def gnau(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run ``gnau ARGS`` in this process: exit status, stdout, stderr."""
    capsys.readouterr()
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def gnau_text(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """``gnau ARGS``'s output, asserting exit status 0 and nothing on stderr."""
    status, out, err = gnau(capsys, *args)
    assert (status, err) == (0, ""), err
    return out


def gnau_json(capsys: pytest.CaptureFixture[str], *args: str) -> Any:
    """``gnau ARGS --json``'s body, asserting exit status 0 and nothing on stderr."""
    return json.loads(gnau_text(capsys, *args, "--json"))
