"""``gnau``: score hands from the terminal with the engine (no server needed).

Commands: ``evaluate``, ``rank``, ``settle``, ``exposures``, ``odds``, ``profiles``, ``deal``,
``verify-deal`` and ``serve``. The scoring
commands take ``--profile`` (default ``standard``), ``--decks`` (1..8) and ``--rules`` (a
JSON object of knob overrides, RULES.md section 7), and build the same request body the
API takes, so they check it with the API's own schemas and answer with the API's own body
under ``--json``. Without ``--json`` they print a table: each card's part (ox or power) and
the points it took, the label and the payout.

Bad input ends the command with exit status 2 and one line on stderr naming every problem
by its JSON pointer into the request body (``/hand/1: 'XX' is not a card ...``), never a
traceback. Profiles come from the built-ins plus the operator's ``PROFILES_FILE``, as in
the service.

The package: :mod:`.commands` (the click group and ``main``), :mod:`.deal_commands` (``deal``
and ``verify-deal``: seeds from a file or standard input, never from the command line),
:mod:`.args` (the command line into request bodies), :mod:`.tables` (answers as tables).

>>> from click.testing import CliRunner
>>> print(CliRunner().invoke(cli, ["evaluate", "10S", "7H", "3D", "KC", "7D"]).output, end="")
10S 7H 3D KC 7D: Single-Ox 0, pays 1x (profile standard)
card  part   points
10S   power  10
7H    ox     7
3D    ox     6
KC    power  10
7D    ox     7
ox 7 + 6 + 7 = 20; power 10 + 10 = 20
"""

from service.cli import deal_commands  # registers gnau deal and gnau verify-deal
from service.cli.commands import cli, main

__all__ = ["cli", "deal_commands", "main"]
