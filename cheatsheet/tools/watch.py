"""The body of the watch workflow's issue: what changed between the committed record of the pin
and a run on another torch (the newest release, the nightly), entry by entry, with the message."""

from __future__ import annotations

from pathlib import Path

from cheatsheet.model.record import Row, diff, entries, side

MARKER = "<!-- cheatsheet-watch -->"  # the workflow finds its own issue by this line


def _cell(row: Row | None) -> str:
    if row is None:
        return "no row"
    return row.result + (f": {row.note}" if row.note else "")


def issue_body(old_dir: Path, new_dir: Path, docs: Path) -> str:
    """Markdown: a line per entry whose result (or failure) differs from OLD to NEW."""
    old, new = (side(old_dir)[1] or "(none)"), (side(new_dir)[1] or "(none)")
    pages = {e.id: page for page, e in entries(docs)}
    changes = diff(old_dir, new_dir)
    lines = [MARKER, f"Examples run on torch {new}, against the committed record of torch {old}.", ""]
    if not changes:
        return "\n".join([*lines, "Nothing changed: every entry has the same result on both.", ""])
    lines += [f"{len(changes)} entr{'y' if len(changes) == 1 else 'ies'} changed:", "",
              f"| entry | page | device | torch {old} | torch {new} |", "|---|---|---|---|---|"]
    for device, entry, a, b in changes:
        cells = [f"`{entry}`", pages.get(entry, "(gone)"), device, _cell(a), _cell(b)]
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join([*lines, ""])
