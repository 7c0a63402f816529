"""At-a-glance views generated from the entries, so they can never go stale.

- Every topic page gets a table at the top: task (the entry's title, linked) and its code line.
- A page holding `<!-- all-idioms -->` gets every entry of the site that way, grouped by page in
  nav order, with the recipes at the end; overrides/assets/javascripts/cheatsheet.js filters it
  as the reader types.

Both are left out of the search index (the entries themselves are in it).
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping

from mkdocs.utils import get_relative_url

from cheatsheet.model.pages import Entry, Page

MARKER = "<!-- all-idioms -->"


def what(page: Page, entry: Entry, strings: Mapping[str, str]) -> str:
    """The first sentence of the entry's 作用 / What it does, as HTML (code spans kept)."""
    text = entry.field_markdown("what").split("\n")[0]  # its first line holds the first sentence
    if not text:
        return ""
    text = re.split(r"(?<=。)|(?<=[a-z)`]\.)\s+(?=[A-Z`])", text, maxsplit=1)[0]
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text).replace("**", "")
    limit, space = int(strings["glance.what_chars"]), strings["glance.word_break"]
    if len(text) > limit:  # a cheat sheet line, not a paragraph: cut at a word, close no code span open
        text = text[:limit].rsplit(space, 1)[0] if space else text[:limit]
        if text.count("`") % 2:
            text = text[: text.rindex("`")]
        text = text.rstrip(" ,;:，；：、") + "…"
    parts = text.split("`")
    return "".join(f"<code>{html.escape(part)}</code>" if i % 2 else html.escape(part) for i, part in enumerate(parts))


def _rows(page: Page, link: str, strings: Mapping[str, str], with_what: bool = False) -> str:
    """One row per entry; `link` is the page's address relative to the page showing the rows."""
    rows = []
    for entry in page.entries:
        code = f"<code>{html.escape(entry.code_line.code.rstrip())}</code>" if entry.code_line else ""
        summary = what(page, entry, strings) if with_what else ""
        summary = f'<div class="idiom-what">{summary}</div>' if summary else ""
        rows.append(f'<tr><td><a href="{link}#{entry.id}">{html.escape(entry.title)}</a>{summary}</td><td>{code}</td></tr>')
    return "\n".join(rows)


def _table(rows: str, strings: Mapping[str, str]) -> str:
    return (f"<table>\n<thead><tr><th>{strings['glance.task']}</th><th>{strings['glance.code']}</th></tr></thead>\n"
            f"<tbody>\n{rows}\n</tbody>\n</table>")


def page_table(page: Page, strings: Mapping[str, str]) -> str:
    """The table at the top of a topic page (HTML, before its first ## or ### heading)."""
    return (f'<details class="at-a-glance abstract" open data-search-exclude>\n'
            f'<summary>{strings["glance.summary"].format(n=len(page.entries))}</summary>\n'
            f"{_table(_rows(page, '', strings), strings)}\n</details>\n\n")


def all_idioms(pages: list[tuple[str, Page]], here: str, strings: Mapping[str, str]) -> str:
    """Every entry of the site for the page at address `here`; `pages`: (address, page) of every
    page with entries, in nav order."""
    topics = [(url, p) for url, p in pages if p.kind != "recipe"]
    recipes = [(url, p) for url, p in pages if p.kind == "recipe"]
    groups = []
    for url, page in topics:
        link = get_relative_url(url, here)
        heading = f'<h2 id="{page.path.stem}"><a href="{link}">{html.escape(page.title)}</a></h2>'
        groups.append(_group(heading, _rows(page, link, strings, with_what=True), strings))
    recipe_rows = "\n".join(f'<tr><td><a href="{get_relative_url(url, here)}">{html.escape(p.entries[0].title)}</a></td>'
                             f'<td>{strings["all.recipe"]}</td></tr>' for url, p in recipes)
    groups.append(_group(f'<h2 id="recipes">{strings["all.recipes"]}</h2>', recipe_rows, strings))
    count = strings["all.count"].format(n=sum(len(p.entries) for _, p in topics), r=len(recipes))
    box = f'<input type="search" class="idiom-filter" placeholder="{strings["all.filter"]}" aria-label="{strings["all.filter"]}">'
    return (f'<div class="all-idioms" data-search-exclude>\n<p class="idiom-count">{count}</p>\n{box}\n'
            + "\n".join(groups) + "\n</div>")


def _group(heading: str, rows: str, strings: Mapping[str, str]) -> str:
    return f'<section class="idiom-group">\n{heading}\n{_table(rows, strings)}\n</section>'
