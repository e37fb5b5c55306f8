"""openapi.yaml's vocabularies are written from the declarations (tests/api/vocabularies.py,
``make spec``): a stale file fails here, and the generated blocks say what the declarations say."""

from __future__ import annotations

import difflib
import re
from pathlib import Path

import pytest
import yaml

from service.engine.bets import BETS, DEFAULT_BET
from service.engine.cards import CARDS, accepted_spellings
from service.engine.categories import LABELS, Category
from service.engine.rules import PROFILES
from service.languages import lang_value
from tests.api.vocabularies import SPEC, blocks, dump, generate, main

TEXT = SPEC.read_text(encoding="utf-8")
DOCUMENT = yaml.safe_load(TEXT)
SCHEMAS = DOCUMENT["components"]["schemas"]


def test_the_committed_openapi_yaml_is_what_make_spec_writes() -> None:
    fresh = generate(TEXT)
    stale = "".join(difflib.unified_diff(TEXT.splitlines(keepends=True), fresh.splitlines(keepends=True),
                                         "openapi.yaml (committed)", "openapi.yaml (make spec)", n=1))
    assert fresh == TEXT, f"openapi.yaml's generated blocks are stale: run `make spec`\n{stale[:4000]}"


def test_every_block_reads_back_as_written() -> None:
    """What the dumper writes is the YAML of the data (no value is re-typed by a plain scalar)."""
    for name, writer in blocks().items():
        block = writer()
        assert yaml.safe_load(dump(block, "    ")) == block, name
        assert DOCUMENT["components"][name].items() >= block.items(), name


def _emptied() -> str:
    """openapi.yaml with nothing between its markers."""
    emptied, count = re.subn(r"(# BEGIN generated: \w+.*\n)(?:.*\n)*?( *# END generated)", r"\1\2", TEXT)
    assert count == len(blocks())
    return emptied


def test_the_rest_of_the_file_is_left_alone() -> None:
    """Emptied blocks are refilled, and nothing outside the markers moves."""
    emptied = _emptied()
    assert len(emptied) < len(TEXT) - 10_000
    assert generate(emptied) == TEXT


def test_check_mode_says_to_run_make_spec(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "openapi.yaml"
    spec.write_text(_emptied(), encoding="utf-8")
    assert main(["--check", "--spec", str(spec)]) == 1
    assert "run `make spec`" in capsys.readouterr().err
    assert main(["--spec", str(spec)]) == 0
    assert spec.read_text(encoding="utf-8") == TEXT
    assert main(["--check", "--spec", str(spec)]) == 0


def test_markers_that_are_missing_or_unknown_are_errors() -> None:
    with pytest.raises(ValueError, match="no '# BEGIN generated: headers'"):
        generate(TEXT.replace("# BEGIN generated: headers", "# BEGIN: headers"))
    with pytest.raises(ValueError, match="no generated block called 'jokers'"):
        generate(TEXT + "  # BEGIN generated: jokers\n  # END generated: jokers\n")


def test_the_vocabularies_are_the_declarations() -> None:
    """Read independently of the generator: each list is its declaration's, in its order."""
    assert SCHEMAS["Category"]["enum"] == [c.value for c in Category]
    assert SCHEMAS["LabelKey"]["enum"] == list(LABELS)
    assert SCHEMAS["Bet"]["enum"] == list(BETS) == SCHEMAS["BetExpectations"]["required"]
    assert SCHEMAS["Bet"]["default"] == DEFAULT_BET
    assert sorted(SCHEMAS["Card"]["enum"]) == accepted_spellings()
    assert sorted(SCHEMAS["CanonicalCard"]["enum"]) == sorted(card.text for card in CARDS)
    profile = DOCUMENT["components"]["parameters"]["Profile"]["schema"]
    assert profile["enum"] == list(PROFILES)
    assert profile["default"] == "standard"
    assert DOCUMENT["components"]["headers"]["ContentLanguage"]["schema"]["enum"] == ["en", "zh-Hans", "zh-Hant"]


@pytest.mark.parametrize("tag", ["en", "EN", "zh-Hans", "ZH-HANT", "zh", "zh-cn", "Zh-Sg", "zh-TW", "zh-hk", "zh-MO",
                                 "fr", "zh-Hant-TW", "en-US", "zh-", "", "zh-HansX"])
def test_the_lang_pattern_accepts_exactly_the_tags_the_service_reads(tag: str) -> None:
    """JSON Schema patterns are ECMA regexes; this one is plain enough to read the same in Python."""
    pattern = DOCUMENT["components"]["parameters"]["Lang"]["schema"]["pattern"]
    assert (re.search(pattern, tag) is not None) == (lang_value(tag) is not None), tag
