"""The verification record: which entry's examples passed on which device, on which torch.

One CSV file per device under verification/ (cpu.csv, cuda.csv), one row per entry:

    page, entry, result, hash, torch, python, device, date

`result` is `passed`, `failed`, or `needs-cuda` (a CPU row for an entry whose examples all
require CUDA). `hash` is `Entry.code_hash`: the examples' code and output lines (comments aside)
and the snippets they run, so a row stops vouching for an entry as soon as its code changes.
Rows are written by `pytest --record` as each entry finishes (a run cut short keeps what it got)
and checked by `check`, which the test suite runs: the committed record cannot drift.
"""

from __future__ import annotations

import csv
import io
import os
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from . import display
from .pages import Entry, site_pages
from .rules import Problem

DEVICES = ("cpu", "cuda")


@dataclass
class Row:
    page: str
    entry: str
    result: str
    hash: str
    torch: str
    python: str
    device: str
    date: str


FIELDS = [f.name for f in fields(Row)]


def path_for(record_dir: Path, device: str) -> Path:
    return Path(record_dir) / f"{device}.csv"


def load(record_dir: Path, device: str) -> dict[str, tuple[int, Row]]:
    """entry id -> (line in the file, row)."""
    path = path_for(record_dir, device)
    if not path.exists():
        return {}
    with path.open(encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        return {row["entry"]: (reader.line_num, Row(**row)) for row in reader}


def save(record_dir: Path, device: str, rows: list[Row]) -> None:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, FIELDS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(asdict(row) for row in rows)
    path = path_for(record_dir, device)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(buffer.getvalue(), "utf-8")
    os.replace(tmp, path)  # never a half-written file, even when the run is killed


def entries(docs: Path) -> list[tuple[str, Entry]]:
    """(page path relative to docs/zh, entry) for every entry with an id, in site order."""
    zh = Path(docs) / "zh"
    return [(page.path.relative_to(zh.resolve()).as_posix(), e) for page in site_pages(docs, "zh") for e in page.entries if e.id]


class Recorder:
    """Collects rows during a pytest run and writes them, in site order, after every entry."""

    def __init__(self, record_dir: Path, docs: Path, snippets: Path):
        self.record_dir, self.docs, self.snippets = Path(record_dir), docs, snippets
        self.order = {e.id: i for i, (_, e) in enumerate(entries(docs))}  # rows in site order
        self.rows = {d: {entry: row for entry, (_, row) in load(record_dir, d).items()} for d in DEVICES}
        self.dropped: list[str] = []

    def add(self, device: str, row: Row) -> None:
        self.rows[device][row.entry] = row
        self.save(device)

    def save(self, device: str) -> None:
        rows = sorted(self.rows[device].values(), key=lambda r: self.order.get(r.entry, len(self.order)))
        save(self.record_dir, device, rows)

    def drop_stale(self) -> list[str]:
        """Drop rows that vouch for code that has changed since, or for entries that are gone."""
        current = {e.id: e.code_hash(self.snippets) for _, e in entries(self.docs)}
        for device, rows in self.rows.items():
            stale = [entry for entry, row in rows.items() if row.hash != current.get(entry)]
            for entry in stale:
                del rows[entry]
                why = "the entry changed since that run" if entry in current else "no page defines the entry any more"
                self.dropped.append(f"{device}:{entry} ({why})")
            if stale:
                self.save(device)
        return self.dropped


def check(docs: Path, snippets: Path, record_dir: Path) -> list[Problem]:
    """The committed record against the pages: every entry has a current CPU row that passed;
    every row (CPU or CUDA) vouches for the code as it is now and for an entry that exists."""
    problems = []
    known = {e.id: (page, e, e.code_hash(snippets)) for page, e in entries(docs)}
    for device in DEVICES:
        path = path_for(record_dir, device)
        rows = load(record_dir, device)
        for entry_id, (line, row) in rows.items():
            if entry_id not in known:
                problems.append(Problem(path, line, entry_id, "REC003",
                                        f"{display(path)} has a row for `{entry_id}`, which no page defines. Remove the row (`python -m cheatsheet record --prune`)."))
                continue
            _, entry, current = known[entry_id]
            if row.hash != current:
                how = "pytest --record" if device == "cpu" else "pytest -m cuda --record on a GPU machine, or drop it with `python -m cheatsheet record --prune`"
                problems.append(Problem(path, line, entry_id, "REC002",
                                        f"the {device} row vouches for code hashed {row.hash}, but the examples now hash to {current}: they changed since they were verified. Rerun: {how}."))
            elif row.result not in ("passed", "needs-cuda"):
                problems.append(Problem(path, line, entry_id, "REC002", f"the {device} row says `{row.result}`. Fix the example and rerun it with --record."))
        if device == "cpu":
            for entry_id, (_, entry, _) in known.items():
                if entry_id not in rows:
                    problems.append(Problem(entry.path, entry.line, entry_id, "REC001",
                                            f"no row in {display(path)}: the record does not say this entry ran. Run `pytest --entry {entry_id} --record` and commit {display(path)}."))
    return problems


def merge(parts: list[Path], into: Path, docs: Path) -> dict[str, int]:
    """Fold the record parts of several jobs (folders holding cpu.csv / cuda.csv) into one."""
    order = {e.id: i for i, (_, e) in enumerate(entries(docs))}
    counts = {}
    for device in DEVICES:
        rows = {entry: row for entry, (_, row) in load(into, device).items()}
        for part in parts:
            rows.update({entry: row for entry, (_, row) in load(part, device).items()})
        if rows:
            save(into, device, sorted(rows.values(), key=lambda r: order.get(r.entry, len(order))))
        counts[device] = len(rows)
    return counts


def summary(record_dir: Path) -> dict[str, dict]:
    """Per device: rows by result, and the torch versions, devices and dates they came from."""
    out = {}
    for device in DEVICES:
        rows = [row for _, row in load(record_dir, device).values()]
        results: dict[str, int] = {}
        for row in rows:
            results[row.result] = results.get(row.result, 0) + 1
        out[device] = {
            "rows": len(rows),
            "results": results,
            "torch": sorted({r.torch for r in rows}),
            "python": sorted({r.python for r in rows}),
            "devices": sorted({r.device for r in rows}),
            "dates": sorted({r.date for r in rows}),
        }
    return out
