"""Places in a page's rendered HTML (MkDocs' on_page_content) where the plugin puts what it
generates: found by their tags, never by a heading's text, so no two features depend on each
other's insertions or on their order."""

from __future__ import annotations

import re

# An `### Title { #id }` heading as Python-Markdown renders it (attr_list, toc's permalink).
H3 = re.compile(r'<h3\b[^>]*?\sid="([^"]+)"[^>]*>.*?</h3>', re.S)
FIRST_HEADING = re.compile(r"<h[23]\b")
TITLE_END = "</h1>"


def after_headings(html: str, blocks: dict[str, str]) -> tuple[str, set[str]]:
    """`blocks[id]` right after the `</h3>` of the heading with that id; returns the new HTML and
    the ids that have no such heading."""
    found = set()

    def insert(m: re.Match) -> str:
        block = blocks.get(m.group(1))
        if block is None:
            return m.group(0)
        found.add(m.group(1))
        return m.group(0) + block

    return H3.sub(insert, html), set(blocks) - found


def before_first_heading(html: str, block: str) -> str:
    """`block` before the first `<h2` or `<h3`, i.e. right after the page's introduction; at the end
    of a page without one."""
    m = FIRST_HEADING.search(html)
    at = m.start() if m else len(html)
    return html[:at] + block + html[at:]


def after_title(html: str, block: str) -> str:
    """`block` right after the page's `<h1>`; at the top of a page without one."""
    head, found, rest = html.partition(TITLE_END)
    return head + found + block + rest if found else block + html
