"""The line under every entry's heading, rendered from data, never typed per entry: what the
verification record says about the entry on each torch release and device (its verdicts:
cheatsheet.model.record), a link to the documentation of its main API (generated/api-docs.csv),
and, when the site knows its repository, a link that reports a problem with this entry through the
issue form, prefilled.

The record's part of the line is the matrix's row for the entry, compact, one group per device:
"✓ 2.14.1 · ✗ 2.13.0 failed · CPU — CUDA: not yet run". Each mark's tooltip names the row behind
it (torch build, Python, device, date, who ran it, what failed); a release without a row for the
entry on that device says nothing, and a device without any says so."""

from __future__ import annotations

import html
from collections.abc import Mapping
from urllib.parse import urlencode

from mkdocs.exceptions import PluginError

from cheatsheet.model.pages import Entry
from cheatsheet.model.record import Row, Verdict, since, version_key

# What a verdict can say (cheatsheet.model.record.Verdict.state); a row's result is one of the first three.
STATES = ("passed", "failed", "needs-cuda", "needs-package", "needs-gpus", "stale", "missing")


def unconfirmed_gpu_output(entry: Entry, verdicts: list[Verdict]) -> str | None:
    """Which output only a GPU prints is shown while no current GPU row passed: "all" (every line of
    an entry whose examples all need CUDA), "cuda" (its `#cuda>` lines), or None."""
    if any(v.device == "cuda" and v.state == "passed" for v in verdicts) or not entry.examples:
        return None
    if all(f.requires_cuda for f in entry.examples):
        return "all"
    return "cuda" if any(f.has_lines_for("cuda") for f in entry.examples) else None


def checked(verdicts: list[Verdict], entry: Entry) -> list[Verdict]:
    """The verdicts, once each says something the site can render."""
    for verdict in verdicts:
        if verdict.state not in STATES:
            raise PluginError(f"{entry.path}: entry `{entry.id}`: its {verdict.device} row for torch {verdict.release} in the "
                              f"verification record says `{verdict.state}`, which is none of {', '.join(STATES[:4])}")
    return verdicts


def source(row: Row, strings: Mapping[str, str], short: bool = False) -> str:
    """Who ran the row, in words (its `source` as is when the strings have no word for it)."""
    return strings.get(f"{'source_short' if short else 'source'}.{row.source}", row.source)


def row_title(verdict: Verdict, strings: Mapping[str, str]) -> str:
    """The row behind a verdict, as plain text for a tooltip: all it says, no more."""
    row = verdict.row
    text = strings["status.row"].format(torch=row.torch, python=row.python, device=row.device, date=row.date,
                                        source=source(row, strings))
    if verdict.state == "failed" and row.note:
        return strings["status.row_failed"].format(row=text, note=row.note)
    if verdict.state == "needs-package":
        return f'{text}; {strings["status.needs_package"].format(release=verdict.release, package=row.note)}'
    if verdict.state == "needs-gpus" and row.note:
        return f"{text}; {row.note}"
    if verdict.state == "stale":
        return strings["status.row_stale"].format(row=text)
    return text


def cell_text(verdict: Verdict, strings: Mapping[str, str]) -> str | None:
    """What one verdict says in the status line, as plain text; None without a row."""
    if verdict.state == "missing":
        return None
    if verdict.state == "needs-cuda":
        return strings["status.needs_cuda"]
    if verdict.state == "needs-package":
        return strings["status.needs_package"].format(release=verdict.release, package=verdict.row.note)
    return strings[f"status.{verdict.state.replace('needs-', 'needs_')}"].format(release=verdict.release)


def compact(verdicts: list[Verdict], strings: Mapping[str, str]) -> str:
    """The record's part of the line (HTML): per device, in the verdicts' order, what each release
    says; the same words once (GPU only), with every row behind them in the tooltip."""
    groups = []
    for device in dict.fromkeys(v.device for v in verdicts):
        cells: dict[str, list[str]] = {}  # text -> the rows' titles
        for v in verdicts:
            text = cell_text(v, strings) if v.device == device else None
            if text is not None:
                cells.setdefault(text, []).append(row_title(v, strings))
        if not cells:
            groups.append(html.escape(strings[f"status.{device}_missing"]))
            continue
        spans = [f'<span title="{html.escape(chr(10).join(titles))}">{html.escape(text)}</span>'
                 for text, titles in cells.items()]
        groups.append(strings["status.device"].format(cells=strings["status.cell_sep"].join(spans),
                                                      device=html.escape(strings[f"device.{device}"])))
    return strings["status.device_sep"].join(groups)


def entry_since(verdicts: list[Verdict]) -> tuple[str, str | None]:
    """(device, release): "works since" on the CPU, or on CUDA for an entry whose examples all
    need it (cheatsheet.model.record.since)."""
    device = "cuda" if any(v.state == "needs-cuda" for v in verdicts if v.device == "cpu") else "cpu"
    return device, since(verdicts, device)


def since_text(verdicts: list[Verdict], strings: Mapping[str, str]) -> str | None:
    """"Since X" for the status line (HTML), with what it means and how far back the record goes
    in its tooltip."""
    device, release = entry_since(verdicts)
    if release is None:
        return None
    oldest = min((v.release for v in verdicts if v.device == device and v.row), key=version_key)
    title = strings["status.since_title"].format(device=strings[f"device.{device}"], oldest=oldest)
    text = strings["status.since"].format(release=release)
    return f'<span class="entry-since" title="{html.escape(title)}">{html.escape(text)}</span>'


def report_url(repo_url: str, entry_url: str, entry_id: str, template: str) -> str:
    """A new issue through the repository's `template` form, naming the entry and its address."""
    query = urlencode({"template": template, "title": f"[{entry_id}] ", "entry": entry_url})
    return f"{repo_url.rstrip('/')}/issues/new?{query}"


def status_line(verdicts: list[Verdict], strings: Mapping[str, str],
                api: Mapping[str, str] | None = None, report: str | None = None, copy: str | None = None,
                pending: list[str] | None = None) -> str:
    """The `<p>` that goes right after the entry's `</h3>`. `verdicts`: one per column of the
    record (cheatsheet.model.record.Record.verdicts); `api`: its api-docs.csv row, if any;
    `report`: its report_url, if the site knows its repository; `copy`: its "copy Markdown"
    button (cheatsheet.site.sheet_data.copy_button); `pending`: the claimed releases a release leg
    has yet to run it on (cheatsheet.model.record.pending)."""
    parts = [compact(verdicts, strings)]
    if pending:
        parts.append(html.escape(strings["status.pending"].format(releases=strings["list.sep"].join(pending))))
    if cell := since_text(verdicts, strings):
        parts.append(cell)
    if api:
        parts.append(f'<a href="{html.escape(api["url"])}" title="{html.escape(api["api"])}">{strings["status.api"]}</a>')
    if report:
        parts.append(f'<a href="{html.escape(report)}">{strings["status.report"]}</a>')
    if copy:
        parts.append(copy)
    return f'\n<p class="entry-chrome" data-search-exclude>{" · ".join(parts)}</p>\n'
