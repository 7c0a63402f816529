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

from cheatsheet import display
from cheatsheet.model.devices import DEVICES
from cheatsheet.model.pages import Entry, site_pages
from cheatsheet.model.rules import Problem


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
RESULTS = ("passed", "failed", "needs-cuda")


def row_result(outcomes: set[str]) -> str | None:
    """The result a row records for an entry on one device, from its examples' outcomes there
    (passed, failed, needs-cuda, skipped); None when some example could not run here: no row."""
    if "failed" in outcomes:
        return "failed"
    if outcomes == {"needs-cuda"}:
        return "needs-cuda"
    if outcomes <= {"passed", "needs-cuda"}:
        return "passed"
    return None


@dataclass(frozen=True)
class Verdict:
    """What the record says about one entry on one device, judged against the entry's code now.

    `state` is the row's result (passed, failed, needs-cuda) while the row vouches for the code
    as it is; `stale` once the code changed since; `missing` without a row."""

    device: str
    state: str
    row: Row | None = None

    @property
    def current(self) -> bool:
        return self.state in RESULTS

    @property
    def vouches(self) -> bool:
        """The site may say the entry works on this device (or that it needs a GPU)."""
        return self.state in ("passed", "needs-cuda")


def verdict(device: str, row: Row | None, current_hash: str) -> Verdict:
    if row is None:
        return Verdict(device, "missing")
    if row.hash != current_hash:
        return Verdict(device, "stale", row)
    return Verdict(device, row.result, row)


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


class Record:
    """The record as committed, loaded once: its rows per device and a verdict per entry."""

    def __init__(self, record_dir: Path, snippets: Path):
        self.dir, self.snippets = Path(record_dir), Path(snippets)
        self.lines = {d: load(self.dir, d) for d in DEVICES}  # device -> entry id -> (line, row)

    def row(self, device: str, entry_id: str) -> Row | None:
        found = self.lines[device].get(entry_id)
        return found[1] if found else None

    def verdict(self, entry: Entry, device: str) -> Verdict:
        return verdict(device, self.row(device, entry.id), entry.code_hash(self.snippets))

    def verdicts(self, entry: Entry) -> list[Verdict]:
        return [self.verdict(entry, device) for device in DEVICES]


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
    record = Record(record_dir, snippets)
    known = {e.id: e for _, e in entries(docs)}
    for device in DEVICES:
        path = path_for(record_dir, device)
        for entry_id, (line, _) in record.lines[device].items():
            entry = known.get(entry_id)
            if entry is None:
                problems.append(Problem(path, line, entry_id, "REC003",
                                        f"{display(path)} has a row for `{entry_id}`, which no page defines. "
                                        "Remove the row (`python -m cheatsheet record --prune`)."))
                continue
            found = record.verdict(entry, device)
            if device == "cuda" and "(sm_" not in found.row.device:
                problems.append(Problem(path, line, entry_id, "REC005",
                                        f"the cuda row names `{found.row.device}`, not a GPU with its compute capability "
                                        "as the CUDA worker reports it (`NAME (sm_XY)`). "
                                        "CUDA rows come only from a run on a GPU: drop this row."))
            elif found.state == "stale":
                how = ("pytest --record" if device == "cpu"
                       else "pytest -m cuda --record on a GPU machine, or drop it with "
                            "`python -m cheatsheet record --prune`")
                problems.append(Problem(path, line, entry_id, "REC002",
                                        f"the {device} row vouches for code hashed {found.row.hash}, but the examples now "
                                        f"hash to {entry.code_hash(snippets)}: they changed since they were verified. "
                                        f"Rerun: {how}."))
            elif not found.vouches:
                problems.append(Problem(path, line, entry_id, "REC004",
                                        f"the {device} row says `{found.state}`. Fix the example and rerun it with --record."))
        if device == "cpu":
            for entry_id, entry in known.items():
                if entry_id not in record.lines[device]:
                    problems.append(Problem(entry.path, entry.line, entry_id, "REC001",
                                            f"no row in {display(path)}: the record does not say this entry ran. "
                                            f"Run `pytest --entry {entry_id} --record` and commit {display(path)}."))
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


def summary(docs: Path, snippets: Path, record_dir: Path) -> dict[str, dict]:
    """Per device: the entries by verdict (passed, failed, needs-cuda, stale, missing), and the
    torch versions, Python versions, devices and dates of the rows that are current."""
    record = Record(record_dir, snippets)
    all_entries = [e for _, e in entries(docs)]
    out = {}
    for device in DEVICES:
        found = [record.verdict(e, device) for e in all_entries]
        states: dict[str, int] = {}
        for v in found:
            states[v.state] = states.get(v.state, 0) + 1
        rows = [v.row for v in found if v.current]
        out[device] = {
            "entries": len(all_entries),
            "states": states,
            "torch": sorted({r.torch for r in rows}),
            "python": sorted({r.python for r in rows}),
            "devices": sorted({r.device for r in rows}),
            "dates": sorted({r.date for r in rows}),
        }
    return out
