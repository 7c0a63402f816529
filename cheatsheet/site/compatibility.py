"""The compatibility page: `<!-- compatibility-matrix -->` becomes the whole verification record
as a matrix, generated at build time (models: caniuse's and MDN's browser-compatibility tables).

One table per page with entries, in nav order, the recipes last; one row per entry, its title
linking to it; one column per (torch release, device) that has rows in the record, headed by the
release, the device, and the dates and sources of its rows; one cell per verdict: ✓ passed, ✗
failed (what failed in its tooltip), ⚠ changed since, GPU only, — no row. Every cell's tooltip
names the row behind it; a release or device without rows gets no column, so the page claims
nothing the record does not hold. A legend explains the marks; the filter box is the all-idioms
page's (overrides/assets/javascripts/cheatsheet.js filters the `.idiom-group` rows under it).

Left out of the search index (the entries themselves are in it).
"""

from __future__ import annotations

import html
from collections.abc import Mapping

from mkdocs.utils import get_relative_url

from cheatsheet.model.pages import Entry, Page
from cheatsheet.model.record import Record, Row, Verdict
from cheatsheet.site.entry_status import STATES, entry_since, row_title, source

MARKER = "<!-- compatibility-matrix -->"


def columns(record: Record) -> list[tuple[str, str]]:
    """The matrix's columns: each (release, device) of the record that holds a row, newest release first."""
    return [col for col in record.columns if record.lines.get(col)]


def _dates(rows: list[Row], strings: Mapping[str, str]) -> str:
    dates = sorted({r.date for r in rows})
    if len(dates) > 2:
        return strings["compat.dates"].format(first=dates[0], last=dates[-1])
    return strings["list.sep"].join(dates)


def header(column: tuple[str, str], rows: list[Row], strings: Mapping[str, str]) -> str:
    """A column's `<th>`: release, device, and the dates and sources of its rows (in full in its tooltip)."""
    release, device = column
    sep = strings["list.sep"]
    short = sep.join(dict.fromkeys(source(r, strings, short=True) for r in sorted(rows, key=lambda r: r.source)))
    full = strings["compat.column_title"].format(
        n=len(rows), torch=sep.join(sorted({r.torch for r in rows})), python=sep.join(sorted({r.python for r in rows})),
        device=sep.join(sorted({r.device for r in rows})), dates=sep.join(sorted({r.date for r in rows})),
        sources=sep.join(dict.fromkeys(source(r, strings) for r in sorted(rows, key=lambda r: r.source))))
    return (f'<th scope="col" data-release="{html.escape(release)}" data-device="{device}" title="{html.escape(full)}">'
            f'<span class="compat-release">{html.escape(release)}</span> '
            f'<span class="compat-device">{strings[f"device.{device}"]}</span> '
            f'<span class="compat-when">{html.escape(_dates(rows, strings))}</span> '
            f'<span class="compat-when">{html.escape(short)}</span></th>')


def cell(verdict: Verdict, strings: Mapping[str, str]) -> str:
    """One verdict's `<td>`: its mark, its state in words for screen readers (and the filter), the row in its tooltip."""
    state = verdict.state
    title = f' title="{html.escape(row_title(verdict, strings))}"' if verdict.row else ""
    mark, words = strings[f"mark.{state}"], strings[f"state.{state}"]
    said = (f'<span aria-hidden="true">{html.escape(mark)}</span><span class="compat-sr">{html.escape(words)}</span>'
            if mark != words else html.escape(mark))
    return f'<td class="compat-{state}"{title}>{said}</td>'


def _row(link: str, title: str, found: Mapping[tuple[str, str], Verdict], cols: list[tuple[str, str]],
         strings: Mapping[str, str]) -> str:
    missing = {col: Verdict(col[1], "missing", None, col[0]) for col in cols}
    cells = "".join(cell(found.get(col, missing[col]), strings) for col in cols)
    _, release = entry_since(list(found.values()))
    since = f'<td class="since-cell">{html.escape(release or "—")}</td>'
    return f'<tr><th scope="row"><a href="{link}">{html.escape(title)}</a></th>{since}{cells}</tr>'


def _table(rows: list[str], heads: str, strings: Mapping[str, str]) -> str:
    since = f'<th scope="col" title="{html.escape(strings["compat.since_title"])}">{strings["compat.since"]}</th>'
    return (f'<table>\n<thead><tr><th scope="col">{strings["compat.entry"]}</th>{since}{heads}</tr></thead>\n'
            "<tbody>\n" + "\n".join(rows) + "\n</tbody>\n</table>")


def legend(strings: Mapping[str, str]) -> str:
    """What the marks mean, each with its state in words (a mark that is a word stands alone)."""
    items = []
    for state in STATES:
        mark, words = strings[f"mark.{state}"], strings[f"state.{state}"]
        item = strings["compat.legend_word" if mark == words else "compat.legend_item"]
        hidden = "" if mark == words else ' aria-hidden="true"'  # the words say it
        items.append("<li>" + item.format(mark=f'<span class="compat-{state}"{hidden}>{html.escape(mark)}</span>',
                                          words=html.escape(words), text=html.escape(strings[f"legend.{state}"])) + "</li>")
    return f'<p class="compat-legend-title">{strings["compat.legend"]}</p>\n<ul class="compat-legend">{"".join(items)}</ul>'


def matrix(pages: list[tuple[str, Page]], verdicts: Mapping[str, list[Verdict]], cols: list[tuple[str, str]],
           here: str, strings: Mapping[str, str]) -> str:
    """The page's matrix (HTML) for the page at address `here`. `pages`: (address, page) of every
    page with entries, in nav order; `verdicts`: entry id -> its verdicts (one per column of the
    record); `cols`: the columns to show (`columns`)."""
    by_entry: dict[str, dict[tuple[str, str], Verdict]] = {
        entry_id: {(v.release, v.device): v for v in found} for entry_id, found in verdicts.items()}
    in_column = {col: [by_entry[e.id][col].row for _, p in pages for e in p.entries
                       if by_entry.get(e.id, {}).get(col) and by_entry[e.id][col].row] for col in cols}
    heads = "".join(header(col, in_column[col], strings) for col in cols)
    topics = [(url, p) for url, p in pages if p.kind != "recipe"]
    recipes = [(url, p) for url, p in pages if p.kind == "recipe"]

    def row(url: str, entry: Entry, anchor: bool) -> str:
        link = get_relative_url(url, here) + (f"#{entry.id}" if anchor else "")
        return _row(link, entry.title, by_entry.get(entry.id, {}), cols, strings)

    groups = []
    for url, page in topics:
        heading = f'<h2 id="{page.path.stem}"><a href="{get_relative_url(url, here)}">{html.escape(page.title)}</a></h2>'
        groups.append(_group(heading, _table([row(url, e, True) for e in page.entries], heads, strings)))
    if recipes:
        heading = f'<h2 id="recipes">{strings["all.recipes"]}</h2>'
        groups.append(_group(heading, _table([row(url, p.entries[0], False) for url, p in recipes], heads, strings)))
    count = strings["compat.count"].format(n=sum(len(p.entries) for _, p in topics), r=len(recipes), c=len(cols))
    notes = [f'<p class="idiom-count">{count}</p>']
    if not cols:
        notes.append(f"<p>{strings['compat.none']}</p>")
    if not any(device == "cuda" for _, device in cols):
        notes.append(f'<p class="compat-no-cuda">{strings["compat.no_cuda"]}</p>')
    box = (f'<input type="search" class="idiom-filter" placeholder="{strings["compat.filter"]}" '
           f'aria-label="{strings["compat.filter"]}">')
    return ('<div class="compat-matrix" data-search-exclude>\n' + "\n".join(notes) + f"\n{legend(strings)}\n{box}\n"
            + release_filter(cols, strings) + "\n" + "\n".join(groups) + "\n</div>")


def release_filter(cols: list[tuple[str, str]], strings: Mapping[str, str]) -> str:
    """"I am on 2.8: what works there?": a release to keep the columns of, and which of its entries
    to show (overrides/assets/javascripts/cheatsheet.js reads the cells' compat- classes)."""
    releases = "".join(f'<option value="{html.escape(r)}">{html.escape(r)}</option>' for r in dict.fromkeys(r for r, _ in cols))
    shown = "".join(f'<option value="{key}">{strings[f"compat.show_{key}"]}</option>'
                    for key in ("all", "works", "fails", "nopass"))
    return (f'<p class="compat-release-filter"><label>{strings["compat.release"]} <select class="compat-release">'
            f'<option value="">{strings["compat.all_releases"]}</option>{releases}</select></label> '
            f'<label>{strings["compat.show"]} <select class="compat-show" disabled>{shown}</select></label></p>\n'
            f'<p class="compat-release-summary" aria-live="polite" data-template="{html.escape(strings["compat.summary"])}"></p>')


def _group(heading: str, table: str) -> str:
    return f'<section class="idiom-group">\n{heading}\n{table}\n</section>'
