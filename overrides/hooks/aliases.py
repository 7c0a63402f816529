"""MkDocs hook: ids of merged entries keep working.

An entry that took over others declares their ids: `{ #id data-aliases="old-id shapes.md#other-id" }`.
`old-id` was on the same page: an empty anchor right before the heading catches links to it.
`shapes.md#other-id` was on another page: that page gets an anchor that names the new place, and
overrides/main.html sends a reader who arrives with `#other-id` there.
"""

import re
from pathlib import Path

from mkdocs.utils import get_relative_url

from cheatsheet.model.pages import parse_page, site_lang

HEADING = re.compile(r'<h3 [^>]*data-aliases="([^"]*)"[^>]*>')
moved: dict[str, dict[str, tuple[str, str]]] = {}  # old page -> old id -> (new page, new id)


def on_files(files, config):
    moved.clear()
    lang = site_lang(config)
    for file in files.documentation_pages():
        for entry in parse_page(Path(file.abs_src_path), lang).entries:
            for alias in entry.aliases:
                old_page, _, old_id = alias.rpartition("#")
                if old_page:
                    moved.setdefault(old_page, {})[old_id] = (file.src_uri, entry.id)
    return files


def on_page_content(html, page, config, files):
    def anchors(m):
        here = [a for a in m.group(1).split() if "#" not in a]
        return "".join(f'<span id="{alias}" class="entry-alias"></span>' for alias in here) + m.group(0)

    html = HEADING.sub(anchors, html)
    for old_id, (new_page, new_id) in moved.get(page.file.src_uri, {}).items():
        target = get_relative_url(files.get_file_from_path(new_page).url, page.url) + "#" + new_id
        html = f'<span id="{old_id}" class="entry-alias" data-moved-to="{target}"></span>' + html
    return html
