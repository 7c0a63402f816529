"""The line under every entry's heading, rendered from data, never typed per entry: what the
verification record says about the entry on each device (its verdict: cheatsheet.model.record),
a link to the documentation of its main API (generated/api-docs.csv), and, when the site knows
its repository, a link that reports a problem with this entry through the issue form, prefilled."""

from __future__ import annotations

import html
from collections.abc import Mapping
from urllib.parse import urlencode

from mkdocs.exceptions import PluginError

from cheatsheet.model.pages import Entry
from cheatsheet.model.record import Verdict

# What a verdict can say (cheatsheet.model.record.Verdict.state); a row's result is one of the first three.
STATES = ("passed", "failed", "needs-cuda", "stale", "missing")


def checked(verdicts: list[Verdict], entry: Entry) -> list[Verdict]:
    """The verdicts, once each says something the site can render."""
    for verdict in verdicts:
        if verdict.state not in STATES:
            raise PluginError(f"{entry.path}: entry `{entry.id}`: its {verdict.device} row in the verification record says "
                              f"`{verdict.state}`, which is none of passed, failed, needs-cuda")
    return verdicts


def status_text(verdict: Verdict, strings: Mapping[str, str]) -> str:
    """What one verdict says, as plain text."""
    device, row = verdict.device, verdict.row
    if verdict.state == "missing":
        return strings[f"status.{device}_missing"]
    if verdict.state == "stale":
        return strings[f"status.{device}_stale"].format(date=row.date)
    if verdict.state == "needs-cuda" and device == "cpu":
        return strings["status.cpu_cuda_only"]
    if verdict.state != "passed":
        return strings[f"status.{device}_failed"].format(date=row.date)
    return strings[f"status.{device}"].format(torch=row.torch, date=row.date, device=row.device)


def report_url(repo_url: str, entry_url: str, entry_id: str, template: str) -> str:
    """A new issue through the repository's `template` form, naming the entry and its address."""
    query = urlencode({"template": template, "title": f"[{entry_id}] ", "entry": entry_url})
    return f"{repo_url.rstrip('/')}/issues/new?{query}"


def status_line(verdicts: list[Verdict], strings: Mapping[str, str],
                api: Mapping[str, str] | None = None, report: str | None = None) -> str:
    """The `<p>` that goes right after the entry's `</h3>`. `api`: its api-docs.csv row, if any;
    `report`: its report_url, if the site knows its repository."""
    parts = [html.escape(status_text(v, strings)) for v in verdicts]
    if api:
        parts.append(f'<a href="{html.escape(api["url"])}" title="{api["api"]}">{strings["status.api"]}</a>')
    if report:
        parts.append(f'<a href="{html.escape(report)}">{strings["status.report"]}</a>')
    return f'\n<p class="entry-chrome" data-search-exclude>{" · ".join(parts)}</p>\n'
