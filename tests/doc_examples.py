"""The examples of README.md and of every page under docs/, read as a user reads them: the one
reader that tests/test_doc_examples.py replays and tests/live/ reuses (one owner).

A page shows an example as fenced blocks. Each block is one :class:`Block`; the block right
after it (only blank lines between) is its ``after``. The kinds (:func:`kind`):

- ``http``: a ```` ```console ```` block holding one ``$ curl ...`` line, followed by a
  ```` ```json ```` block: the answer. Replayed against the app, compared as JSON.
- ``cli``: a console session of ``gnau`` commands (and ``cat FILE``, which shows a file the
  session uses, and ``echo $?``, the previous status): each command's lines follow it.
  Replayed in this process, compared line for line.
- ``shell``: a console session starting ``gunicorn`` (after ``NAME=value`` settings): run by
  bash in a folder of its own against a real gunicorn (a slow test).
- ``python``: a Python snippet; a ```` ```console ```` block right after it that holds no
  ``$`` line is what it prints.
- ``output``: that console block (checked with its snippet).
- ``other``: a console block that none of these replays; each must be listed, with the test
  that covers it instead, in tests/test_doc_examples.py (a new one fails until it is).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from tests import ROOT

__all__ = ["PAGES", "README", "Block", "Command", "Request", "blocks", "classified", "commands", "kind", "request"]

README = ROOT / "README.md"
#: Every page whose examples are replayed: README and the docs pages.
PAGES = [README, *sorted((ROOT / "docs").rglob("*.md"))]

_FENCE = re.compile(r"^(?P<indent> *)```(?P<lang>\w*)\n(?P<body>.*?)^(?P=indent)```[ \t]*$", re.M | re.S)
_SETTING = re.compile(r"[A-Z_][A-Z0-9_]*=\S*")


@dataclass(frozen=True)
class Block:
    """One fenced block of a page.

    :param page: the page, relative to the repository (``docs/api.md``).
    :param line: the line of its opening fence (1-based).
    :param lang: the fence's language (``console``, ``json``, ``python``...).
    :param text: its lines, the fence's indentation removed, ending in a newline.
    :param after: the block right after it, when only blank lines come between.
    """

    page: str
    line: int
    lang: str
    text: str
    after: Block | None = None

    @property
    def where(self) -> str:
        """``page:line``, as a test id."""
        return f"{self.page}:{self.line}"


def blocks(pages: list[Path] | None = None) -> list[Block]:
    """Every fenced block of ``pages`` (default :data:`PAGES`), in page order.

    >>> [b.lang for b in blocks([README])][:3]
    ['sh', 'console', 'json']
    """
    found: list[Block] = []
    for page in pages or PAGES:
        text = page.read_text(encoding="utf-8")
        matches = list(_FENCE.finditer(text))
        following: Block | None = None
        for match, nxt in reversed(list(zip(matches, [*matches[1:], None][:len(matches)], strict=True))):
            indent = len(match["indent"])
            body = "".join(line[indent:] + "\n" for line in match["body"].splitlines())
            between = text[match.end():nxt.start()] if nxt is not None else "x"
            block = Block(str(page.relative_to(ROOT)), text.count("\n", 0, match.start()) + 1, match["lang"], body,
                          following if between.strip() == "" else None)
            found.append(block)
            following = block
    order = {str(page.relative_to(ROOT)): i for i, page in enumerate(pages or PAGES)}
    return sorted(found, key=lambda b: (order[b.page], b.line))


@dataclass(frozen=True)
class Command:
    """One ``$`` line of a console session and the lines shown after it (its output)."""

    line: str
    output: str

    @property
    def words(self) -> list[str]:
        """The command's words without leading ``NAME=value`` settings (``gnau``, ``curl``...)."""
        words = shlex.split(self.line)
        while words and _SETTING.fullmatch(words[0]):
            words = words[1:]
        return words


def commands(block: Block) -> list[Command]:
    """The commands of a console block, each with its output.

    >>> block = Block("x.md", 1, "console", "$ gnau profiles\\nname\\n\\n$ echo $?\\n0\\n")
    >>> [(c.line, c.output) for c in commands(block)]
    [('gnau profiles', 'name\\n\\n'), ('echo $?', '0\\n')]
    >>> [c.line for c in commands(Block("x.md", 1, "console", "$ gnau rank \\\\\\n  AS 2H 3D 4C 5S\\nout\\n"))]
    ['gnau rank AS 2H 3D 4C 5S']
    """
    found: list[Command] = []
    for line in block.text.splitlines(keepends=True):
        if found and not found[-1].output and found[-1].line.endswith("\\"):  # continued: `... \`
            found[-1] = Command(found[-1].line[:-1].rstrip() + " " + line.strip(), "")
        elif line.startswith("$ "):
            found.append(Command(line[2:].rstrip("\n"), ""))
        elif found:
            found[-1] = Command(found[-1].line, found[-1].output + line)
    return found


def kind(block: Block, before: Block | None = None) -> str:
    """What the block is (module docstring); ``before`` is the block right before it, if any."""
    if block.lang == "python":
        return "python"
    if block.lang != "console":
        return block.lang
    session = commands(block)
    if not session:
        return "output" if before is not None and before.lang == "python" else "other"
    first = [command.words[:1] for command in session]
    if first == [["curl"]] and block.after is not None and block.after.lang == "json":
        return "http"
    if ["gnau"] in first and all(word in (["gnau"], ["cat"], ["echo"]) for word in first):
        return "cli"
    if first[-1] == ["gunicorn"] and all(word in (["gunicorn"], ["cat"]) for word in first):
        return "shell"
    return "other"


def classified(pages: list[Path] | None = None) -> list[tuple[Block, str]]:
    """Every block of ``pages`` with its :func:`kind`.

    >>> [k for _, k in classified([README])]
    ['sh', 'http', 'json', 'http', 'json', 'http', 'json', 'http', 'json', 'http', 'json', 'http', 'json']
    """
    found: list[tuple[Block, str]] = []
    before: Block | None = None
    for block in blocks(pages):
        found.append((block, kind(block, before if before is not None and before.after == block else None)))
        before = block
    return found


@dataclass(frozen=True)
class Request:
    """A ``curl`` command as a request: method, path with query, headers, body."""

    method: str
    path: str
    headers: dict[str, str]
    data: str | None


def request(command: str) -> Request:
    """The request a ``curl -s [-X M] [-H 'N: V']... [-d BODY] URL`` command sends.

    >>> request("curl -s -X POST http://127.0.0.1:8000/v1/x?a=1 -H 'A: b' -d '{}'")
    Request(method='POST', path='/v1/x?a=1', headers={'A': 'b'}, data='{}')
    """
    words = shlex.split(command)[1:]
    method, url, headers, data = "GET", "", {}, None
    i = 0
    while i < len(words):
        word = words[i]
        if word == "-s":
            i += 1
        elif word in ("-X", "-H", "-d"):
            value = words[i + 1]
            if word == "-X":
                method = value
            elif word == "-H":
                name, _, text = value.partition(":")
                headers[name.strip()] = text.strip()
            else:
                data = value
            i += 2
        else:
            url = word
            i += 1
    parts = urlsplit(url)
    return Request(method, parts.path + (f"?{parts.query}" if parts.query else ""), headers, data)
