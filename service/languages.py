"""Which language an answer's labels are in (RULES.md 4.2): the ``lang`` query parameter,
else the best match of ``Accept-Language``, else English. Plain Python: the HTTP layer parses
the header, the operations and the ``gnau`` command decide here.

The languages offered and their names are the engine's data
(:data:`~service.engine.categories.LANGUAGES`, :data:`~service.engine.categories.LABELS`); the
tags that stand for them here are RULES.md's: ``zh-CN``, ``zh-SG`` and a bare ``zh`` for
``zh-Hans``, ``zh-TW``, ``zh-HK`` and ``zh-MO`` for ``zh-Hant``, matched case-insensitively.

>>> lang_value("ZH-hant"), lang_value("zh-CN"), lang_value("fr")
('zh-Hant', 'zh-Hans', None)
>>> negotiate([("fr", 1.0), ("zh-Hant-TW", 0.8), ("en", 0.5)])
'zh-Hant'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType

from service.engine.categories import LANGUAGES

__all__ = ["ALIASES", "DEFAULT_LANGUAGE", "LANG_DETAIL", "lang_value", "negotiate"]

#: The language of an answer that asks for none, and of every problem.
DEFAULT_LANGUAGE = LANGUAGES[0]
#: Tags that stand for an offered language (RULES.md 4.2); matched in any case.
ALIASES: Mapping[str, str] = MappingProxyType({
    "zh": "zh-Hans", "zh-CN": "zh-Hans", "zh-SG": "zh-Hans", "zh-TW": "zh-Hant", "zh-HK": "zh-Hant", "zh-MO": "zh-Hant"})
_TAGS: dict[str, str] = {tag.lower(): lang for tag, lang in ((lang, lang) for lang in LANGUAGES)} | {
    tag.lower(): lang for tag, lang in ALIASES.items()}
#: What a ``lang`` that names no offered language hears.
LANG_DETAIL = (f"must be one of {', '.join(LANGUAGES)} (or, for them, {', '.join(ALIASES)}); "
               "other languages are not offered")


def lang_value(value: str) -> str | None:
    """The offered language a ``lang`` value names (a tag or an alias, any case), or ``None``.

    >>> lang_value("en"), lang_value("EN-us")
    ('en', None)
    """
    return _TAGS.get(value.lower())


def negotiate(ranges: Iterable[tuple[str, float]]) -> str | None:
    """The best offered language for ``Accept-Language``'s ranges (RFC 4647 lookup): ranges by
    quality, highest first (ties in their order); each range and then each shorter prefix
    of it (so a script, which comes before a region, decides: ``zh-Hant-CN`` is
    ``zh-Hant``) is looked up among the tags and aliases; ``*`` and quality 0 match nothing.

    :param ranges: ``(range, quality)`` pairs as the header gives them.
    :return: the language, or ``None`` when no range matches (the caller answers English).

    >>> negotiate([("en-GB", 1.0)]), negotiate([("zh-Hans-HK", 1.0)]), negotiate([("*", 1.0), ("de", 0.5)])
    ('en', 'zh-Hans', None)
    >>> negotiate([("zh-TW", 0.0), ("zh", 0.1)])
    'zh-Hans'
    """
    ordered = sorted(enumerate(ranges), key=lambda item: (-item[1][1], item[0]))
    for _, (tag, quality) in ordered:
        if quality <= 0 or tag == "*":
            continue
        parts = tag.lower().split("-")
        while parts:
            found = _TAGS.get("-".join(parts))
            if found is not None:
                return found
            parts.pop()
    return None
