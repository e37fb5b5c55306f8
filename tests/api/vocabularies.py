"""openapi.yaml's vocabularies, written from the declarations they restate (``make spec``).

The contract is spec-first: paths, operations and the request and answer bodies are
written by hand in openapi.yaml. What is a list of declared things is not: the
categories, label keys and labels (:mod:`service.engine.categories`), the knobs of
``rules`` as overrides and as answered (:class:`~service.engine.rules.Rules`, one
:class:`~service.engine.knobs.Knob` per field), the payout keys, the bet types
(:data:`~service.engine.bets.BETS`), the card spellings (:mod:`service.engine.cards`), the
built-in profiles (:data:`~service.engine.rules.PROFILES`) and the languages and their
tags (:mod:`service.languages`). Those components sit in openapi.yaml between two marker
comments::

    # BEGIN generated: schemas (make spec writes this block from the declarations; edit those)
    ...
    # END generated: schemas

and :func:`generate` rewrites the text between each pair from the declarations, leaving
every other byte of the file as it is. A new category is then its declaration, its knob
and its detector (and docs); a new bet type one entry in ``BETS``; ``make spec`` writes
the rest. ``python -m tests.api.vocabularies`` (``make spec``) writes openapi.yaml in
place; ``--check`` only says whether it is current (tests/api/test_vocabularies.py fails
when it is not).

The blocks are dumped with PyYAML in the file's own style: a mapping or a list of short
scalars on one line (``{type: integer, minimum: 0, maximum: 1000}``), long text folded
(``>-``).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml

from service.engine.bets import BETS, DEFAULT_BET
from service.engine.cards import CARD_CODES, CARDS, Card, Rank, Suit, accepted_spellings
from service.engine.categories import CATEGORIES, LABEL_ROWS, LABELS, LANGUAGES, ranks_named
from service.engine.knobs import Knob
from service.engine.rules import PROFILES, RULE_KNOBS
from service.languages import ALIASES
from tests import ROOT

__all__ = ["SPEC", "Block", "blocks", "dump", "generate", "main"]

#: The contract, written in place.
SPEC = ROOT / "openapi.yaml"
#: A generated block's component mapping: component name to its schema (or parameter, header).
Block = dict[str, Any]

_SCHEMAS = "#/components/schemas/"
#: Text longer than this is folded (``>-``) on lines of its own, and keeps its mapping in block style.
_SHORT = 60
_WIDTH = 92


def _ref(name: str) -> dict[str, str]:
    return {"$ref": _SCHEMAS + name}


def _code(words: Iterable[str]) -> list[str]:
    return [f"`{word}`" for word in words]


def _listing(words: list[str], last: str = "and") -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} {last} {words[-1]}"


# --- cards (RULES.md 1) ---------------------------------------------------------------------


def _cards() -> Block:
    spellings = accepted_spellings()  # sorted: upper case, lower case, then symbols
    by_rank = [s for rank in Rank for s in spellings if CARDS[CARD_CODES[s]].rank is rank]
    return {
        "Card": {
            "type": "string",
            "description": "A card in any accepted notation: case-insensitive rank then suit (`T` or `0` for ten; "
                           "suit letters or symbols), or the rank alone (`A` an ace that is not the ace of spades, "
                           "`10`/`T`/`0`, `K`, ...), accepted where no rule in force reads suits (RULES.md 1.1: "
                           "a rule that reads suits refuses it, naming the card) and counted per rank: at most "
                           "`4 × decks` cards of a rank and `3 × decks` aces other than the ace of spades. Every "
                           "accepted spelling is listed.",
            "enum": by_rank,
        },
        "SuitedCard": {
            "type": "string",
            "description": "A card with its suit in any accepted notation (case-insensitive rank then suit; `T` or "
                           "`0` for ten; suit letters or symbols): dealt cards always have a suit.",
            "enum": [s for s in by_rank if CARDS[CARD_CODES[s]].suit is not None],
        },
        "CanonicalCard": {
            "type": "string",
            "description": "A card in canonical notation; a card given without a suit is echoed as its rank alone "
                           "(`A`, `10`, `K`).",
            "enum": [*(Card(rank, suit).text for rank in Rank for suit in Suit),
                     *(card.text for card in CARDS if card.suit is None)],
        },
        "DealtCard": {
            "type": "string",
            "description": "A dealt card in canonical notation: dealt cards always have a suit.",
            "enum": [Card(rank, suit).text for rank in Rank for suit in Suit],
        },
    }


# --- categories and labels (RULES.md 4, 4.2) ------------------------------------------------


def _label_examples() -> str:
    """RULES.md 4.2's English labels, a range of ranks or digits written first ... last."""
    parts: list[str] = []
    for category, key, english, *_ in LABEL_ROWS:
        if "{N}" in key:
            parts.append(f"`{english.replace('{N}', '1')}` ... `{english.replace('{N}', '9')}`")
        elif "{R}" in key:
            ranks = ranks_named(category)
            parts.append(f"`{english.replace('{R}', ranks[0].value)}` ... `{english.replace('{R}', ranks[-1].value)}`")
        else:
            parts.append(f"`{english}`")
    return ", ".join(parts)


def _categories() -> Block:
    return {
        "Category": {
            "type": "string",
            "description": "The hand's category (RULES.md section 4).",
            "enum": [c.value for c in CATEGORIES],
        },
        "LabelKey": {
            "type": "string",
            "description": "The label's stable machine key (RULES.md 4.2): the same in every language and release, "
                           "for localizing or storing a result.",
            "example": next(key for key in LABELS if key.endswith("_0")),
            "enum": list(LABELS),
        },
        "Label": {
            "type": "string",
            "description": f"The display name, in the answer's language (`lang`): in English {_label_examples()} "
                           "(RULES.md 4.2).",
            "example": next(texts["en"] for key, texts in LABELS.items() if key.endswith("_0")),
        },
        "PayoutOverrides": {
            "type": "object",
            "description": "Stake multipliers by category; `single_ox_N` overrides `single_ox` for strength N.",
            "additionalProperties": False,
            "properties": {str(key): _override(RULE_KNOBS["payouts"], key) for key in RULE_KNOBS["payouts"].choices},
        },
    }


# --- knobs (RULES.md 7) ---------------------------------------------------------------------

_TYPES = {"bool": "boolean", "int": "integer", "choice": "string", "ranking": "array", "payouts": "object"}


def _override(knob: Knob, payout_key: str | None = None) -> dict[str, Any]:
    """A knob's (or, with ``payout_key``, one payout's) schema in ``RulesOverrides``."""
    if payout_key is not None or knob.kind == "int":
        return {"type": "integer", "minimum": knob.low, "maximum": knob.high} | (
            {"nullable": True} if knob.nullable else {})
    if knob.kind == "bool":
        return {"type": "boolean"}
    if knob.kind == "choice":
        return {"type": "string", "enum": [str(c) for c in knob.choices]}
    if knob.kind == "ranking":
        return {"type": "array", "minItems": knob.low, "maxItems": knob.high, "uniqueItems": True,
                "items": _ref("Category")}
    return _ref("PayoutOverrides")


def _answered(knob: Knob) -> dict[str, Any]:
    """A knob's schema in an answer's ``Rules``: its type, bounds and choices, and its doc."""
    schema: dict[str, Any] = {"type": _TYPES[knob.kind]}
    if knob.kind == "int":
        schema |= ({"nullable": True} if knob.nullable else {}) | {"minimum": knob.low, "maximum": knob.high}
    elif knob.kind == "choice":
        schema["enum"] = [str(c) for c in knob.choices]
    elif knob.kind == "ranking":
        schema["items"] = _ref("Category")
    elif knob.kind == "payouts":
        schema["additionalProperties"] = {"type": "integer", "minimum": knob.low, "maximum": knob.high}
    return schema | {"description": knob.doc}


def _knobs() -> Block:
    ranking = RULE_KNOBS["ranking"]
    last, before = (str(c) for c in ranking.choices[-2:][::-1])
    unlisted = [name for name, knob in RULE_KNOBS.items() if not knob.listed_at_default]
    ignored = [name for name, knob in RULE_KNOBS.items() if not knob.analysed]
    return {
        "RulesOverrides": {
            "type": "object",
            "description": (
                "Knob overrides applied on top of the selected profile for this request (RULES.md section 7). "
                "`payouts` is merged key by key into the profile's payouts; `ranking` lists, strongest first, "
                "every category that is on (each once; categories that are off may be listed too), "
                f"`{before}` above `{last}` and `{last}` last; a category that is on but missing from it is a "
                "400 naming `/rules/ranking`. `five_small_max_rank: null` needs `five_small_max_points`."),
            "additionalProperties": False,
            "properties": {name: _override(knob) for name, knob in RULE_KNOBS.items()},
        },
        "Rules": {
            "type": "object",
            "description": (
                "Every knob of a rules profile (RULES.md section 7). The knobs added with the round forms and "
                f"later ({_listing(_code(unlisted))}) are listed only while set away from their default "
                "(absent: the default), so that answers that do not use them are as they were before those "
                "knobs existed."),
            "required": [name for name, knob in RULE_KNOBS.items() if knob.listed_at_default],
            "properties": {name: _answered(knob) for name, knob in RULE_KNOBS.items()},
        },
        "IgnoredKnob": {
            "type": "string",
            "enum": ignored,
            "description": "A knob the analyses (odds, distributions, house edge) answer as if at its default.",
        },
    }


# --- bets (RULES.md 6.1) --------------------------------------------------------------------


def _bets() -> Block:
    kinds = " ".join(f"`{name}`{' (the default)' if name == DEFAULT_BET else ''}: {bet.doc}"
                     for name, bet in BETS.items())
    return {
        "Bet": {
            "type": "string",
            "enum": list(BETS),
            "default": DEFAULT_BET,
            "description": f"The bet type (RULES.md section 6.1): {kinds}",
        },
        "BetExpectations": {
            "type": "object",
            "description": (
                "Each bet type's expectation for the caller per unit stake against one unknown hand (RULES.md "
                "sections 6.1 and 6.2): gross, the commission on the caller's wins (exactly at the rate, as if "
                "stakes were large) and net."),
            "required": list(BETS),
            "properties": {name: _ref("BetExpectation") for name in BETS},
        },
    }


# --- profiles and languages -------------------------------------------------------------------


def _case_free(tag: str) -> str:
    """A pattern matching ``tag`` in any case (JSON Schema patterns have no case-insensitive flag)."""
    return "".join(f"[{c.upper()}{c.lower()}]" if c.isalpha() else c if c.isalnum() or c == "-" else re.escape(c)
                   for c in tag)


def _parameters() -> Block:
    by_language = {lang: [alias for alias, target in ALIASES.items() if target == lang] for lang in LANGUAGES}
    aliases = _listing([f"{', '.join(_code(tags))} (`{lang}`)" for lang, tags in by_language.items() if tags])
    tags = [*LANGUAGES, *ALIASES]
    return {
        "Profile": {
            "name": "profile",
            "in": "query",
            "required": False,
            "description": (
                "The rules profile: a built-in one (listed here) or one the operator defined in `PROFILES_FILE` "
                "(see `GET /v1/profiles`). An unknown profile is a 400."),
            "schema": {"type": "string", "enum": [name for name, p in PROFILES.items() if p.builtin],
                       "default": next(iter(PROFILES))},
        },
        "Lang": {
            "name": "lang",
            "in": "query",
            "required": False,
            "description": (
                f"The language of the answer's labels (RULES.md 4.2): {_listing(_code(LANGUAGES), 'or')}, or for "
                f"them {aliases}, in any case. Any other value is a 400 naming `lang`. Without it the best match "
                "of `Accept-Language` is taken (RFC 4647 lookup, q-values honoured, the alias table above), "
                f"else {'English' if LANGUAGES[0] == 'en' else LANGUAGES[0]}. The answer names its language in "
                "`Content-Language`; `label_key` never changes."),
            "schema": {"type": "string", "pattern": f"^(?:{'|'.join(_case_free(tag) for tag in tags)})$",
                       "example": LANGUAGES[0]},
        },
    }


def _headers() -> Block:
    return {
        "ContentLanguage": {
            "description": f"The language of the answer's labels ({_listing(_code(LANGUAGES), 'or')}).",
            "schema": {"type": "string", "enum": list(LANGUAGES)},
        },
    }


def _schemas() -> Block:
    return _cards() | _categories() | _knobs() | _bets()


def blocks() -> Mapping[str, Callable[[], Block]]:
    """Each generated block of openapi.yaml by its marker name, with what writes it."""
    return {"parameters": _parameters, "headers": _headers, "schemas": _schemas}


# --- writing ----------------------------------------------------------------------------------


class _Dumper(yaml.SafeDumper):
    """PyYAML's safe dumper in openapi.yaml's style: short leaves on one line, long text folded."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _short(value: Any) -> bool:
    """A scalar that fits a one-line mapping."""
    return not isinstance(value, (dict, list)) and not (isinstance(value, str) and len(value) > _SHORT)


def _inline(value: Any) -> bool:
    """A short scalar, or a list of a few (``enum: [hand, stake]``)."""
    if isinstance(value, list):
        return all(_short(v) for v in value) and len(", ".join(map(str, value))) <= _SHORT // 2
    return _short(value)


def _represent_dict(dumper: yaml.SafeDumper, value: dict[str, Any]) -> yaml.MappingNode:
    # One line (``{type: boolean, description: ...}``) when every value is short and it fits.
    flow = all(_inline(v) for v in value.values()) and len(str(value)) <= _SHORT + 20
    return dumper.represent_mapping("tag:yaml.org,2002:map", value.items(), flow_style=flow)


def _represent_list(dumper: yaml.SafeDumper, value: list[Any]) -> yaml.SequenceNode:
    return dumper.represent_sequence("tag:yaml.org,2002:seq", value, flow_style=all(_short(v) for v in value))


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    folded = len(value) > _SHORT and " " in value
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=">" if folded else None)


_Dumper.add_representer(dict, _represent_dict)
_Dumper.add_representer(list, _represent_list)
_Dumper.add_representer(str, _represent_str)


def dump(block: Block, indent: str) -> str:
    """``block`` as YAML lines, each prefixed with ``indent`` (the markers' indentation)."""
    text = yaml.dump(block, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=_WIDTH - len(indent))
    return "".join(indent + line if line.strip() else line for line in text.splitlines(keepends=True))


_MARKER = re.compile(r"^(?P<indent> *)# BEGIN generated: (?P<name>\w+)\b.*\n"
                     r"(?P<body>(?:.*\n)*?)"
                     r"(?P=indent)# END generated: (?P=name)\n", re.MULTILINE)


def generate(text: str) -> str:
    """``text`` (openapi.yaml) with every generated block rewritten from the declarations.

    :raises ValueError: a block of :func:`blocks` has no markers in ``text``, or the
        markers name a block that does not exist.
    """
    writers = blocks()
    seen: list[str] = []

    def rewrite(found: re.Match[str]) -> str:
        name, indent = found["name"], found["indent"]
        if name not in writers:
            raise ValueError(f"openapi.yaml: no generated block called {name!r}; the blocks are {', '.join(writers)}")
        seen.append(name)
        begin = found[0].split("\n", 1)[0] + "\n"
        return begin + dump(writers[name](), indent) + f"{indent}# END generated: {name}\n"

    out = _MARKER.sub(rewrite, text)
    missing = [name for name in writers if name not in seen]
    if missing:
        raise ValueError(f"openapi.yaml: no '# BEGIN generated: {missing[0]}' ... '# END generated: {missing[0]}' "
                         "markers")
    return out


def main(argv: list[str] | None = None) -> int:
    """Write openapi.yaml's generated blocks in place; with ``--check``, only say whether
    they are current (exit status 1 when not)."""
    parser = argparse.ArgumentParser(prog="python -m tests.api.vocabularies", description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if openapi.yaml is stale")
    parser.add_argument("--spec", type=Path, default=SPEC, help="the file (default: openapi.yaml)")
    args = parser.parse_args(argv)
    text = args.spec.read_text(encoding="utf-8")
    fresh = generate(text)
    if fresh == text:
        print(f"the generated blocks of {args.spec} are current")
        return 0
    if args.check:
        print(f"{args.spec} is stale: run `make spec`", file=sys.stderr)
        return 1
    args.spec.write_text(fresh, encoding="utf-8")
    print(f"wrote the generated blocks of {args.spec}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
