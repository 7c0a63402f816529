"""Ids of merged entries keep working.

An entry that took over others declares their ids: `{ #id data-aliases="old-id shapes.md#other-id" }`.
`old-id` was on the same page: an empty anchor right before the heading catches links to it.
`shapes.md#other-id` was on another page: that page gets an anchor that names the new place, and
overrides/assets/javascripts/cheatsheet.js sends a reader who arrives with `#other-id` there.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from mkdocs.exceptions import PluginError
from mkdocs.utils import get_relative_url

from cheatsheet.model.pages import Page

HEADING = re.compile(r'<h3 [^>]*data-aliases="([^"]*)"[^>]*>')


def moved(pages: Mapping[str, Page]) -> dict[str, dict[str, tuple[str, str]]]:
    """Old page -> old id -> (new page, new id), from `pages` (source path -> page, every page
    of the site). An alias naming a page the site does not have is an error: its anchor would
    have nowhere to go."""
    out: dict[str, dict[str, tuple[str, str]]] = {}
    for src_uri, page in pages.items():
        for entry in page.entries:
            for alias in entry.aliases:
                old_page, _, old_id = alias.rpartition("#")
                if not old_page:
                    continue
                if old_page not in pages:
                    raise PluginError(f"{page.path}: entry `{entry.id}`: its alias `{alias}` names {old_page}, which is no page "
                                      "of the site; drop the alias or name the page the entry was on")
                out.setdefault(old_page, {})[old_id] = (src_uri, entry.id)
    return out


def anchors(html: str, page_url: str, moved_here: Mapping[str, tuple[str, str]], urls: Mapping[str, str]) -> str:
    """The page's HTML with an anchor before each heading per same-page alias, and one at the top
    per id that moved from this page elsewhere. `urls`: source path -> address."""
    def same_page(m: re.Match) -> str:
        here = [a for a in m.group(1).split() if "#" not in a]
        return "".join(f'<span id="{alias}" class="entry-alias"></span>' for alias in here) + m.group(0)

    html = HEADING.sub(same_page, html)
    for old_id, (new_page, new_id) in moved_here.items():
        target = get_relative_url(urls[new_page], page_url) + "#" + new_id
        html = f'<span id="{old_id}" class="entry-alias" data-moved-to="{target}"></span>' + html
    return html
