"""The table of each entry's main API and its documentation page (generated/api-docs.csv): its
format, read by the site and written by `python -m cheatsheet api-docs` (cheatsheet.tools.api_docs)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

FIELDS = ["entry", "api", "url"]


def dump(rows: list[dict[str, str]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=FIELDS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def load(path: Path) -> dict[str, dict[str, str]]:
    """entry id -> its row; empty when the table does not exist."""
    if not path.is_file():
        return {}
    with path.open(encoding="utf-8", newline="") as f:
        return {row["entry"]: row for row in csv.DictReader(f)}
