"""mkdocs hooks (``hooks:`` in mkdocs.yml): the README is the site's home page.

mkdocs serves only files under ``docs_dir`` (``docs/``), and the README lives beside it. So
the README is added to the site as ``index.md``, and the links between it and the pages are
made relative to where they land: ``docs/x.md`` in the README becomes ``x.md``, and
``../README.md`` on a page becomes ``index.md``. On GitHub the files are read as they are,
so the same links work in both places, and ``mkdocs build --strict`` checks them all.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

README = Path(__file__).resolve().parent.parent / "README.md"

#: A Markdown link's target that starts with ``docs/`` (the README's links to the pages).
_TO_PAGES = re.compile(r"\]\(docs/")
#: A page's link to the README (``../README.md``, with or without an anchor).
_TO_README = re.compile(r"\]\(\.\./README\.md")


def readme_as_index(text: str) -> str:
    """The README's Markdown with its links to ``docs/`` made relative to ``docs/``.

    >>> readme_as_index("[API](docs/api.md#errors) and [RULES](docs/RULES.md)")
    '[API](api.md#errors) and [RULES](RULES.md)'
    """
    return _TO_PAGES.sub("](", text)


def page_links(text: str) -> str:
    """A page's Markdown with its links to the README pointed at the site's home page.

    >>> page_links("the [README](../README.md#examples)")
    'the [README](index.md#examples)'
    """
    return _TO_README.sub("](index.md", text)


def on_files(files: Files, config: Any) -> Files:
    """Add the README as the home page (``index.md``)."""
    files.append(File.generated(config, "index.md", content=readme_as_index(README.read_text(encoding="utf-8"))))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    """Point the pages' links to the README at the home page."""
    return markdown if page.file.src_uri == "index.md" else page_links(markdown)
