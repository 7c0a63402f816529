"""MkDocs hook: at-a-glance views generated from the entries, so they can never go stale.

- Every topic page gets a table at the top: task (the entry's title, linked) and its code line.
- A page holding `<!-- all-idioms -->` gets every entry of the site that way, grouped by page in
  nav order, with the recipes at the end; overrides/main.html filters it as the reader types.

Both are left out of the search index (the entries themselves are in it).
"""

import html
import re
from pathlib import Path

from mkdocs.utils import get_relative_url

from cheatsheet.model.pages import LABELS, parse_page, site_lang

MARKER = "<!-- all-idioms -->"
TEXT = {
    "zh": {"summary": "本页速查（{n} 条）", "task": "任务", "code": "代码行", "filter": "输入词语筛选，例如 显存、freeze、view",
           "count": "共 {n} 个条目、{r} 个实战", "recipes": "实战", "recipe": "完整程序"},
    "en": {"summary": "This page at a glance ({n} entries)", "task": "Task", "code": "Code line", "filter": "Type to filter, e.g. memory, freeze, view",
           "count": "{n} entries and {r} recipes", "recipes": "Recipes", "recipe": "complete program"},
}
SUMMARY_CHARS = {"zh": 60, "en": 120}  # the first sentence of 作用 / What it does, cut to this
pages: list[tuple[object, object]] = []  # (mkdocs File, parsed Page) of every page with entries, in nav order


def on_nav(nav, config, files):
    pages.clear()
    lang = site_lang(config)
    for item in nav.pages:
        parsed = parse_page(Path(item.file.abs_src_path), lang)
        if parsed.entries:
            pages.append((item.file, parsed))
    return nav


def _what(parsed, entry) -> str:
    """The first sentence of the entry's 作用 / What it does, as HTML (code spans kept)."""
    line = entry.fields.get("what")
    if not line:
        return ""
    text = parsed.text.splitlines()[line - 1].strip().removeprefix("- ").removeprefix(LABELS[parsed.lang]["what"]).strip()
    text = re.split(r"(?<=。)|(?<=[a-z)`]\.)\s+(?=[A-Z`])", text, maxsplit=1)[0]
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text).replace("**", "")
    limit = SUMMARY_CHARS[parsed.lang]
    if len(text) > limit:  # a cheat sheet line, not a paragraph: cut at a word, close no code span open
        text = text[:limit].rsplit(" ", 1)[0] if parsed.lang == "en" else text[:limit]
        if text.count("`") % 2:
            text = text[: text.rindex("`")]
        text = text.rstrip(" ,;:，；：、") + "…"
    parts = text.split("`")
    return "".join(f"<code>{html.escape(part)}</code>" if i % 2 else html.escape(part) for i, part in enumerate(parts))


def _rows(file, parsed, here, what=False) -> str:
    base = get_relative_url(file.url, here.url) if file is not here.file else ""
    rows = []
    for entry in parsed.entries:
        if parsed.kind == "recipe":
            code = ""
        else:
            code = f"<code>{html.escape(entry.code_line.code.rstrip())}</code>" if entry.code_line else ""
        summary = _what(parsed, entry) if what else ""
        summary = f'<div class="idiom-what">{summary}</div>' if summary else ""
        rows.append(f'<tr><td><a href="{base}#{entry.id}">{html.escape(entry.title)}</a>{summary}</td><td>{code}</td></tr>')
    return "\n".join(rows)


def _table(text, rows) -> str:
    return (f"<table>\n<thead><tr><th>{text['task']}</th><th>{text['code']}</th></tr></thead>\n"
            f"<tbody>\n{rows}\n</tbody>\n</table>")


def on_page_markdown(markdown, page, config, files):
    text = TEXT[site_lang(config)]
    if MARKER in markdown:
        topics = [(f, p) for f, p in pages if p.kind != "recipe"]
        recipes = [(f, p) for f, p in pages if p.kind == "recipe"]
        groups = []
        for file, parsed in topics:
            link = get_relative_url(file.url, page.url)
            groups.append(f'<section class="idiom-group">\n<h2 id="{parsed.path.stem}"><a href="{link}">{html.escape(parsed.title)}</a></h2>\n'
                          f"{_table(text, _rows(file, parsed, page, what=True))}\n</section>")
        recipe_rows = "\n".join(
            f'<tr><td><a href="{get_relative_url(f.url, page.url)}">{html.escape(p.entries[0].title)}</a></td><td>{text["recipe"]}</td></tr>'
            for f, p in recipes)
        groups.append(f'<section class="idiom-group">\n<h2 id="recipes">{text["recipes"]}</h2>\n{_table(text, recipe_rows)}\n</section>')
        n = sum(len(p.entries) for _, p in topics)
        view = (f'<div class="all-idioms" data-search-exclude>\n<p class="idiom-count">{text["count"].format(n=n, r=len(recipes))}</p>\n'
                f'<input type="search" class="idiom-filter" placeholder="{text["filter"]}" aria-label="{text["filter"]}">\n'
                + "\n".join(groups) + "\n</div>")
        return markdown.replace(MARKER, view)
    parsed = next((p for f, p in pages if f is page.file), None)
    if parsed is None or parsed.kind == "recipe":
        return markdown
    # Before the first ## or ### heading, i.e. right after the page's introduction; found by its
    # text, since other hooks may have added lines above it.
    first_line = min([s.line for s in parsed.sections] + [e.line for e in parsed.entries])
    lines = markdown.split("\n")
    first = lines.index(parsed.text.split("\n")[first_line - 1]) + 1
    table = (f'<details class="at-a-glance abstract" open data-search-exclude>\n<summary>{text["summary"].format(n=len(parsed.entries))}</summary>\n'
             f"{_table(text, _rows(page.file, parsed, page))}\n</details>\n")
    return "\n".join(lines[: first - 1] + [table] + lines[first - 1:])
