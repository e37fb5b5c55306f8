"""Every example of README.md and of the pages under docs/ is real (tests/doc_examples.py reads
them): a page cannot show what the service does not do.

- ``curl`` examples are replayed against the app and the answer compared, as JSON, with the
  one shown under them; only ``request_id`` (a new one per request) is left out. Receipts and
  their keys are replayed on an app that signs with the committed test-only key
  (docs/deals-and-receipts.md says so beside its examples); Ed25519 signatures are
  deterministic, so receipts compare exactly too.
- ``gnau`` sessions are run in this process, command by command, in a folder of their own
  (``cat FILE`` writes the file as shown; ``echo $?`` is the previous status), and each
  command's output (stdout then stderr) compared line for line.
- Python snippets run in this process; ``httpx.get`` and ``httpx.post`` go to the app
  (no server), and what a snippet prints is compared with the console block under it. The
  generated client's snippet needs its generated package: tests/live/test_generated_client.py
  runs it against a live server.
- The ``gunicorn`` session runs in bash against the real server (slow); ``pid`` and ``time`` of
  its log line are the only parts not compared.
- Operator profiles shown as YAML (a ``profiles:`` file or chart values) load as a
  ``PROFILES_FILE`` does; chart values shown on the deploying pages, merged onto the chart's
  values.yaml, pass its values.schema.json, and so does every ``--set`` of their ``helm``
  commands; every ``make TARGET`` a page names is a target of the Makefile. (The ``docker``,
  ``helm`` and ``kubectl`` commands themselves need a cluster or an image registry:
  tests/deploy/ builds the image and renders and runs the chart.)
- A console block none of these replays must be in :data:`COVERED_ELSEWHERE`, with the test
  that covers it; a new one fails :func:`test_every_example_is_replayed` until it is.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import jsonschema  # type: ignore[import-untyped]  # pinned in constraints.txt (schemathesis and openapi-spec-validator use it)
import pytest
import yaml
from flask import Flask
from flask.testing import FlaskClient

from bench.harness import environment, free_port
from service.cli import main
from service.http.app import create_app
from service.profiles import load_profiles_file
from service.settings import parse_origins
from tests import ROOT
from tests.doc_examples import README, Block, classified, commands, request

EXAMPLES = classified()

#: Console blocks replayed elsewhere or not at all, by page and the start of their first
#: command: why, and which test covers them.
COVERED_ELSEWHERE = {
    ("docs/api.md", ".venv/bin/st run "): "the schemathesis CLI against a live server (minutes); "
                                          "tests/live/test_contract_cli.py runs this command",
    ("docs/clients.md", "PATH=.venv/bin:$PATH openapi-python-client generate "):
        "tests/live/test_generated_client.py generates the client with the page's client-config.yaml "
        "(compared there) and runs the page's snippet against a live server",
    ("docs/clients.md", "npm ci"): "tests/live/test_ts_client.py generates the types with openapi-typescript and "
                                   "clients/ts/redocly.yaml and calls a live server",
    ("docs/operating.md", "GNAU_CORS_ORIGINS="): "starts a server and shows no output; "
                                                 "test_cors_setting_of_the_example_is_accepted parses its value and "
                                                 "tests/live/test_cors_browser.py serves CORS to a browser",
}

#: Receipts and their keys are replayed on an app signing with the committed test-only key.
_SIGNING = {"TESTING": True, "PROFILES_FILE": None, "RECEIPT_KEY_FILE": str(ROOT / "tests" / "keys" /
                                                                             "receipt-test-key.pem")}


def _of(kind: str) -> list[Any]:
    return [pytest.param(block, id=block.where) for block, found in EXAMPLES if found == kind]


def _covered_elsewhere(block: Block) -> str | None:
    first = commands(block)[0].line if commands(block) else ""
    return next((why for (page, start), why in COVERED_ELSEWHERE.items()
                 if block.page == page and first.startswith(start)), None)


def test_every_example_is_replayed() -> None:
    """Each console block is replayed here (``http``, ``cli``, ``shell``, or the ``output`` of
    a snippet) or listed in :data:`COVERED_ELSEWHERE`, and every listed one still exists."""
    unreplayed = [block for block, kind in EXAMPLES if kind == "other"]
    assert [b.where for b in unreplayed if _covered_elsewhere(b) is None] == []
    listed = {(b.page, start) for b in unreplayed for (page, start) in COVERED_ELSEWHERE
              if b.page == page and commands(b)[0].line.startswith(start)}
    assert listed == set(COVERED_ELSEWHERE)


def test_readme_has_one_example_for_each_core_operation() -> None:
    """The README shows evaluate, batch, rank, settle, showdown and deal, once each; the other
    operations' examples are on the docs pages (docs/api.md and the pages it links)."""
    paths = [request(commands(block)[0].line).path.split("?")[0]
             for block, kind in classified([README]) if kind == "http"]
    assert paths == ["/v1/evaluations", "/v1/evaluations/batch", "/v1/rankings", "/v1/settlements",
                     "/v1/showdowns", "/v1/deals"]


def _without_request_id(body: Any) -> Any:
    if isinstance(body, dict):
        return {k: v for k, v in body.items() if k != "request_id"}
    return body


def _signs(path: str) -> bool:
    return "receipt=true" in path or path.startswith("/.well-known/jwks.json")


@pytest.fixture(scope="module")
def signing_app() -> Flask:
    return create_app(_SIGNING)


@pytest.mark.parametrize("block", _of("http"))
def test_http_example(client: FlaskClient, signing_app: Flask, block: Block) -> None:
    [command] = commands(block)
    sent = request(command.line)
    if _signs(sent.path):
        client = signing_app.test_client()
    response = client.open(sent.path, method=sent.method, headers=sent.headers, data=sent.data)
    assert block.after is not None
    assert _without_request_id(response.get_json(force=True)) == _without_request_id(json.loads(block.after.text))


@pytest.mark.parametrize("block", _of("cli"))
def test_cli_example(block: Block, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                     capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PROFILES_FILE", raising=False)
    status = 0
    for command in commands(block):
        words, shown = command.words, command.output.rstrip("\n")
        if words[0] == "cat":  # the file the session reads, as the page shows it
            (tmp_path / words[1]).write_text(command.output, encoding="utf-8")
            continue
        if words == ["echo", "$?"]:
            assert shown == str(status), command.line
            continue
        stdin = ""
        if "<" in words:
            at = words.index("<")
            stdin = (tmp_path / words[at + 1]).read_text(encoding="utf-8")
            words = words[:at]
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        capsys.readouterr()
        status = main(words[1:])
        out, err = capsys.readouterr()
        assert (out + err).rstrip("\n") == shown, command.line


@pytest.fixture
def httpx_to_the_app(signing_app: Flask, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """``httpx.get`` and ``httpx.post`` answered by the (signing) app in this process."""
    with httpx.Client(transport=httpx.WSGITransport(app=signing_app)) as to_app:
        monkeypatch.setattr(httpx, "get", to_app.get)
        monkeypatch.setattr(httpx, "post", to_app.post)
        yield


def _in_process(block: Block) -> bool:
    return "gnau_scoring_client" not in block.text  # the generated client's: tests/live/test_generated_client.py


@pytest.mark.parametrize("block", [p for p in _of("python") if _in_process(p.values[0])])
@pytest.mark.usefixtures("httpx_to_the_app")
def test_python_example(block: Block, capsys: pytest.CaptureFixture[str]) -> None:
    assert "127.0.0.1:8000" not in block.text or "httpx" in block.text  # a server it needs is the app
    capsys.readouterr()
    exec(compile(block.text, block.where, "exec"), {"__name__": "__doc_example__"})  # the page's own snippet
    printed = capsys.readouterr().out
    shown = block.after.text if block.after is not None and block.after.lang == "console" else ""
    assert printed == shown


def _profiles_examples() -> list[Any]:
    return [pytest.param(block, id=block.where) for block, kind in EXAMPLES
            if kind == "yaml" and re.search(r"^profiles:", block.text, re.M)]


@pytest.mark.parametrize("block", _profiles_examples())
def test_profiles_example_loads(block: Block, tmp_path: Path) -> None:
    """The ``profiles:`` of a page's YAML (a profiles file, or chart values, which the chart
    writes to one) is a valid operator profiles file."""
    path = tmp_path / "profiles.yaml"
    path.write_text(yaml.safe_dump({"profiles": yaml.safe_load(block.text)["profiles"]}), encoding="utf-8")
    loaded = load_profiles_file(path)
    assert [profile.name for profile in loaded] == list(yaml.safe_load(block.text)["profiles"])


CHART = ROOT / "helm" / "gnau-scoring"
#: The pages whose YAML blocks are chart values (the ones starting ``profiles:`` are checked
#: as profiles too).
VALUES_PAGES = ("docs/deploying.md", "docs/chart-values.md")


def _merged(base: Any, extra: Any) -> Any:
    if isinstance(base, dict) and isinstance(extra, dict):
        return {key: _merged(base.get(key), value) for key, value in extra.items()} | {
            key: value for key, value in base.items() if key not in extra}
    return extra


def _set(values: dict[str, Any], dotted: str, text: str) -> dict[str, Any]:
    """``--set a.b=text`` applied to ``values`` (helm's typing: integers and booleans)."""
    value: Any = int(text) if text.isdigit() else {"true": True, "false": False}.get(text, text)
    for key in reversed(dotted.split(".")):
        value = {key: value}
    return dict(_merged(values, value))


def _chart_values() -> dict[str, Any]:
    values: dict[str, Any] = yaml.safe_load((CHART / "values.yaml").read_text(encoding="utf-8"))
    return values


@pytest.mark.parametrize("block", [pytest.param(b, id=b.where) for b, kind in EXAMPLES
                                   if kind == "yaml" and b.page in VALUES_PAGES])
def test_chart_values_example_passes_the_schema(block: Block) -> None:
    schema = json.loads((CHART / "values.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(_merged(_chart_values(), yaml.safe_load(block.text)), schema)


def test_helm_sets_and_make_targets_of_the_pages_exist() -> None:
    schema = json.loads((CHART / "values.schema.json").read_text(encoding="utf-8"))
    targets = set(re.findall(r"^([a-z][a-z0-9-]*):", (ROOT / "Makefile").read_text(encoding="utf-8"), re.M))
    shell = [b.text.replace("\\\n", " ") for b, kind in EXAMPLES if kind == "sh"]
    sets = [found for text in shell for found in re.findall(r"--set ([\w.]+)=(\S+)", text)]
    makes = [found for text in shell for found in re.findall(r"^make ([a-z][a-z0-9-]*)", text, re.M)]
    assert len(sets) >= 4
    assert set(makes) >= {"run", "test", "test-fast"}
    assert set(makes) <= targets
    for dotted, text in sets:
        jsonschema.validate(_set(_chart_values(), dotted, text), schema)
        assert dotted.split(".")[0] in _chart_values(), dotted


def test_cors_setting_of_the_example_is_accepted() -> None:
    [block] = [b for b, kind in EXAMPLES if kind == "other" and b.page == "docs/operating.md"
               and commands(b)[0].line.startswith("GNAU_CORS_ORIGINS=")]
    value = commands(block)[0].line.split()[0].partition("=")[2]
    assert parse_origins(value) == ["https://game.example", "http://localhost:3000"]


def test_schemathesis_summary_counts_every_operation() -> None:
    """docs/api.md's abridged ``st run`` output (run by tests/live/test_contract_cli.py)
    counts every operation of the contract."""
    [block] = [b for b, kind in EXAMPLES if kind == "other" and b.page == "docs/api.md"]
    spec = yaml.safe_load((ROOT / "openapi.yaml").read_text(encoding="utf-8"))
    operations = sum(1 for path in spec["paths"].values() for method in path if method in ("get", "post"))
    assert f"Selected: {operations}/{operations}\n" in block.text
    assert f"Tested: {operations}\n" in block.text


def _varying(text: str) -> str:
    """A log line without what differs from run to run: its ``pid`` and ``time``."""
    return re.sub(r'"time":"[^"]+"', '"time":"T"', re.sub(r'"pid":\d+', '"pid":0', text))


@pytest.mark.slow
@pytest.mark.parametrize("block", _of("shell"))
def test_shell_example(block: Block, tmp_path: Path) -> None:
    """Run by bash from a folder with the files the session shows and gunicorn.conf.py, the
    virtual environment's ``bin`` first on ``PATH``; a server that did start is stopped by
    the timeout (the examples show start-ups that fail)."""
    (tmp_path / "gunicorn.conf.py").symlink_to(ROOT / "gunicorn.conf.py")
    *files, last = commands(block)
    for command in files:
        (tmp_path / command.words[1]).write_text(command.output, encoding="utf-8")
    env = environment(free_port(), tmp_path, free_port(), TMPDIR=str(tmp_path))
    env["PATH"] = f"{Path(sys.executable).parent}:{env.get('PATH', '')}"
    result = subprocess.run(["bash", "-c", last.line], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True, timeout=120, check=False)
    assert _varying(result.stdout) == _varying(last.output)
