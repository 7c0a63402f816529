"""The verification record: a compatibility matrix of entry x torch release x device.

One folder per torch release under verification/ (verification/2.14.1/), one CSV file per device
in it (cpu.csv, cuda.csv), one row per entry:

    page, entry, result, hash, torch, python, device, date, source, note

`result` is `passed`, `failed`, `needs-cuda` (a CPU row for an entry whose examples all
require CUDA) or `needs-package` (an example imports a package this install lacks, named in `note`:
torchvision on a release the project installs without it, `[tool.cheatsheet] paired`). `hash` is
`Entry.code_hash`: the examples' code and output lines (comments aside)
and the snippets they run, so a row stops vouching for an entry as soon as its code changes.
`torch` is the version that ran (2.14.1+cu128); its release (2.14.1) names the folder. `source`
says who ran it (SOURCES); `note` is the first line of what failed.

Rows are written by `pytest --record` and `python -m cheatsheet verify` as each entry finishes (a
run cut short keeps what it got), folded in by `record --merge`, and checked by `check`, which the
test suite runs. The releases the project claims (`[tool.cheatsheet] releases`) need a current,
passing CPU row for every entry (or a `needs-package` row naming a package that release is
installed without); any other folder (an older release, a submitted run) may be partial.
"""

from __future__ import annotations

import csv
import datetime
import functools
import hashlib
import io
import os
import re
from dataclasses import asdict, dataclass, fields, replace
from enum import StrEnum
from pathlib import Path

from cheatsheet import display
from cheatsheet.model.devices import DEVICES
from cheatsheet.model.langs import SOURCE
from cheatsheet.model.pages import Entry, site_pages
from cheatsheet.model.rules import Problem

# Who ran a row: this project's CI (or the test suite run by a maintainer), a maintainer's run on a
# GPU machine, or a reader's `python -m cheatsheet verify` sent in as a record part.
SOURCES = ("ci", "gpu", "submitted")
RELEASE_DIR = re.compile(r"^\d+\.\d+(\.\d+)?([a-z0-9.]*)$")


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
    source: str = "ci"
    note: str = ""

    @property
    def release(self) -> str:
        return release_of(self.torch)


FIELDS = [f.name for f in fields(Row)]


class Outcome(StrEnum):
    """What happened to one example on one device: the one list of these words, which the pytest
    plugin and `verify` both use (a row's result is one of the first five)."""

    PASSED = "passed"
    FAILED = "failed"
    NEEDS_CUDA = "needs-cuda"  # a CUDA-only example, on CPU: not run
    NEEDS_PACKAGE = "needs-package"  # imports a package this release's install lacks
    NEEDS_GPUS = "needs-gpus"  # one GPU per process, more than the machine has
    SKIPPED = "skipped"  # could not run here for another reason: no row
    RESUMED = "resumed"  # --resume: the record already vouches for it, so it did not run


RESULTS = tuple(o.value for o in (Outcome.PASSED, Outcome.FAILED, Outcome.NEEDS_CUDA, Outcome.NEEDS_PACKAGE,
                                  Outcome.NEEDS_GPUS))
STATES = (*RESULTS, "stale", "missing")  # a verdict's states, in the order reports list them


def release_of(torch_version: str) -> str:
    """2.14.1+cu128 -> 2.14.1: the release a row counts for, whatever build ran it."""
    return torch_version.split("+")[0]


def version_key(release: str) -> tuple:
    """Sorts releases by version: 2.9.1 < 2.13.0 < 2.14.1 < 2.15.0.dev20261201."""
    parts = re.findall(r"\d+|[a-z]+", release)
    return tuple((0, int(p)) if p.isdigit() else (-1, p) for p in parts)


def vouches_for(row: Row | None, entry: Entry, snippets: Path) -> bool:
    """Whether `row` vouches for the entry as it is: it passed, on the code the entry has now (what
    --resume skips, in the pytest plugin and in `verify` alike)."""
    return row is not None and row.result == Outcome.PASSED and row.hash == entry.code_hash(snippets)


def entry_row(page: str, entry: Entry, outcomes: list[tuple[str, str]], worker, source: str, snippets: Path) -> Row | None:
    """The row an entry's examples make on one device once all of them ran there: `outcomes` holds
    each example's (outcome, note); `worker` is what the worker reported (torch, python,
    device_name). None when no row is due: an example could not run here (row_result) or none ran
    (--resume). The one place a run becomes a row, for the pytest plugin and for `verify`."""
    found = {outcome for outcome, _ in outcomes}
    result = row_result(found)
    if result is None or Outcome.RESUMED in found:
        return None
    note = next((note for _, note in outcomes if note), "")
    date = datetime.datetime.now(datetime.UTC).date().isoformat()
    return Row(page, entry.id, result, entry.code_hash(snippets), worker.torch, worker.python, worker.device_name, date,
               source, note)


def row_result(outcomes: set[str]) -> str | None:
    """The result a row records for an entry on one device, from its examples' outcomes there
    (passed, failed, needs-cuda, needs-package, needs-gpus, skipped); None when some example could not
    run here for another reason (a CUDA run without a GPU): no row. needs-gpus: a multi-process
    example needs more GPUs than the machine has (nccl takes one per process); it says what ran, not
    that it failed."""
    if "failed" in outcomes:
        return "failed"
    if "needs-gpus" in outcomes and outcomes <= {"passed", "needs-cuda", "needs-gpus"}:
        return "needs-gpus"
    if "needs-package" in outcomes and outcomes <= {"passed", "needs-cuda", "needs-package"}:
        return "needs-package"
    if outcomes == {"needs-cuda"}:
        return "needs-cuda"
    if outcomes <= {"passed", "needs-cuda"}:
        return "passed"
    return None


@dataclass(frozen=True)
class Verdict:
    """What the record says about one entry on one release and device, judged against the entry's
    code now.

    `state` is the row's result (passed, failed, needs-cuda, needs-package) while the row vouches for the code
    as it is; `stale` once the code changed since; `missing` without a row."""

    device: str
    state: str
    row: Row | None = None
    release: str = ""

    @property
    def current(self) -> bool:
        return self.state in RESULTS

    @property
    def vouches(self) -> bool:
        """The site may say the entry works on this release and device (or that it needs a GPU)."""
        return self.state in ("passed", "needs-cuda")


def since(verdicts: list[Verdict], device: str) -> str | None:
    """"Works since", derived from the rows, never typed: the earliest recorded release from which
    every later recorded release passed on `device`. Only rows that say passed or failed for the
    code as it is count (a release whose row says needs-package, or none, neither extends nor breaks
    the run); None when the newest of them failed, or there is none."""
    decided = sorted(((v.release, v.state) for v in verdicts if v.device == device and v.state in ("passed", "failed")),
                     key=lambda found: version_key(found[0]), reverse=True)
    found = None
    for release, state in decided:
        if state != "passed":
            break
        found = release
    return found


def pending(verdicts: list[Verdict], claimed: tuple[str, ...], pin: str) -> list[str]:
    """The claimed releases other than the pin whose CPU row is missing or changed since: a release
    leg has yet to run the entry there (the site says "not yet run on X", never passed)."""
    return [v.release for v in verdicts if v.device == "cpu" and v.release in claimed and v.release != pin
            and v.state in ("missing", "stale")]


def works_since(verdicts: list[Verdict]) -> dict[str, str | None]:
    """`since` per device of the verdicts."""
    return {device: since(verdicts, device) for device in dict.fromkeys(v.device for v in verdicts)}


def verdict(device: str, row: Row | None, current_hash: str, release: str = "") -> Verdict:
    if row is None:
        return Verdict(device, "missing", None, release)
    if row.hash != current_hash:
        return Verdict(device, "stale", row, release)
    return Verdict(device, row.result, row, release)


def path_for(record_dir: Path, release: str, device: str) -> Path:
    return Path(record_dir) / release / f"{device}.csv"


def releases(record_dir: Path) -> list[str]:
    """The releases that have rows, newest first."""
    folder = Path(record_dir)
    found = [p.name for p in folder.iterdir() if p.is_dir() and RELEASE_DIR.match(p.name)] if folder.is_dir() else []
    found = [r for r in found if any(path_for(folder, r, d).is_file() for d in DEVICES)]
    return sorted(found, key=version_key, reverse=True)


def load(record_dir: Path, release: str, device: str) -> dict[str, tuple[int, Row]]:
    """entry id -> (line in the file, row)."""
    path = path_for(record_dir, release, device)
    if not path.exists():
        return {}
    with path.open(encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        return {row["entry"]: (reader.line_num, Row(**row)) for row in reader}


def save(record_dir: Path, release: str, device: str, rows: list[Row]) -> None:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, FIELDS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(asdict(row) for row in rows)
    path = path_for(record_dir, release, device)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(buffer.getvalue(), "utf-8")
    os.replace(tmp, path)  # never a half-written file, even when the run is killed


def entries(docs: Path) -> list[tuple[str, Entry]]:
    """(page path relative to docs/zh, entry) for every entry with an id, in site order."""
    source = Path(docs) / SOURCE
    return [(page.path.relative_to(source.resolve()).as_posix(), e) for page in site_pages(docs, SOURCE)
            for e in page.entries if e.id]


class Record:
    """The record as committed: its rows per release and device, and a verdict per entry for each
    of them. `Record.load` reads it once per process while its files stay as they are."""

    def __init__(self, record_dir: Path, snippets: Path):
        self.dir, self.snippets = Path(record_dir), Path(snippets)
        self.releases = releases(self.dir)
        # (release, device) -> entry id -> (line, row)
        self.lines = {(r, d): load(self.dir, r, d) for r in self.releases for d in DEVICES}

    @classmethod
    def load(cls, record_dir: Path, snippets: Path) -> Record:
        """The record in `record_dir`, read once per process and shared (the checker, the site's
        two builds, the recorder and the package data all ask for it); parsed again when its files'
        contents change. Treat it as read-only."""
        record_dir = Path(record_dir).resolve()
        contents = hashlib.sha256()
        for path in sorted(record_dir.glob("*/*.csv")):
            contents.update(path.relative_to(record_dir).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
        return _record(record_dir, Path(snippets).resolve(), contents.hexdigest())

    @property
    def columns(self) -> list[tuple[str, str]]:
        """(release, device) of the matrix, newest release first."""
        return [(r, d) for r in self.releases for d in DEVICES]

    def row(self, release: str, device: str, entry_id: str) -> Row | None:
        found = self.lines.get((release, device), {}).get(entry_id)
        return found[1] if found else None

    def verdict(self, entry: Entry, release: str, device: str) -> Verdict:
        return verdict(device, self.row(release, device, entry.id), entry.code_hash(self.snippets), release)

    def verdicts(self, entry: Entry) -> list[Verdict]:
        """One per column: every release with rows, every device."""
        return [self.verdict(entry, r, d) for r, d in self.columns]


@functools.lru_cache(maxsize=4)
def _record(record_dir: Path, snippets: Path, contents: str) -> Record:
    return Record(record_dir, snippets)  # one per contents of the files


class Recorder:
    """Collects rows during a run and writes them, in site order, after every entry."""

    def __init__(self, record_dir: Path, docs: Path, snippets: Path):
        self.record_dir, self.docs, self.snippets = Path(record_dir), docs, snippets
        self.order = {e.id: i for i, (_, e) in enumerate(entries(docs))}  # rows in site order
        self.rows: dict[tuple[str, str], dict[str, Row]] = {  # a copy of the record it adds to
            column: {entry: row for entry, (_, row) in lines.items()}
            for column, lines in Record.load(self.record_dir, snippets).lines.items()}
        self.dropped: list[str] = []

    def row(self, release: str, device: str, entry_id: str) -> Row | None:
        return self.rows.get((release, device), {}).get(entry_id)

    def add(self, device: str, row: Row) -> None:
        self.rows.setdefault((row.release, device), {})[row.entry] = row
        self.save(row.release, device)

    def save(self, release: str, device: str) -> None:
        rows = sorted(self.rows[(release, device)].values(), key=lambda r: self.order.get(r.entry, len(self.order)))
        save(self.record_dir, release, device, rows)

    def drop_stale(self) -> list[str]:
        """Drop rows that vouch for code that has changed since, or for entries that are gone."""
        current = {e.id: e.code_hash(self.snippets) for _, e in entries(self.docs)}
        for (release, device), rows in self.rows.items():
            stale = [entry for entry, row in rows.items() if row.hash != current.get(entry)]
            for entry in stale:
                del rows[entry]
                why = "the entry changed since that run" if entry in current else "no page defines the entry any more"
                self.dropped.append(f"{release}/{device}:{entry} ({why})")
            if stale:
                self.save(release, device)
        return self.dropped


def check(docs: Path, snippets: Path, record_dir: Path, claimed: tuple[str, ...] = (),
          lacking: dict[str, tuple[str, ...]] | None = None, pin: str | None = None) -> list[Problem]:
    """The committed record against the pages: every release the project claims has a current,
    passing CPU row for every entry; every row (any release, any device) vouches for the code as it
    is now, for an entry that exists, and a CUDA row names a GPU. With `pin`, that holds for the pin
    alone: on the other claimed releases a row that is missing or changed since is *pending* (the
    release legs fill it, contributors record the pin only), not a problem. `lacking` (Project.lacking): per
    release, the packages its install leaves out; a `needs-package` row naming one of them is
    what that release can say, any other is a problem."""
    lacking = lacking or {}
    problems = []
    record = Record.load(record_dir, snippets)
    known = {e.id: e for _, e in entries(docs)}
    for release in sorted(set(record.releases) | set(claimed), key=version_key, reverse=True):
        for device in DEVICES:
            path = path_for(record_dir, release, device)
            for entry_id, (line, _) in record.lines.get((release, device), {}).items():
                entry = known.get(entry_id)
                if entry is None:
                    problems.append(Problem(path, line, entry_id, "REC003",
                                            f"{display(path)} has a row for `{entry_id}`, which no page defines. "
                                            "Remove the row (`python -m cheatsheet record --prune`)."))
                    continue
                found = record.verdict(entry, release, device)
                if found.state == "stale" and pin and release in claimed and release != pin:
                    continue  # pending: a release leg runs it again
                problems += _row_problems(found, entry, path, line, snippets, lacking.get(release, ()), release in claimed)
            if device == "cpu" and release in claimed and (not pin or release == pin):
                for entry_id, entry in known.items():
                    if entry_id not in record.lines.get((release, device), {}):
                        problems.append(Problem(entry.path, entry.line, entry_id, "REC001",
                                                f"no row in {display(path)}: the record does not say this entry ran on "
                                                f"torch {release}. Run `pytest --entry {entry_id} --record` with torch "
                                                f"{release} and commit {display(path)}."))
    return problems


def _row_problems(found: Verdict, entry: Entry, path: Path, line: int, snippets: Path,
                  lacked: tuple[str, ...] = (), claimed: bool = True) -> list[Problem]:
    row, device = found.row, found.device
    if device == "cuda" and "(sm_" not in row.device:
        return [Problem(path, line, entry.id, "REC005",
                        f"the cuda row names `{row.device}`, not a GPU with its compute capability as the CUDA worker "
                        "reports it (`NAME (sm_XY)`). CUDA rows come only from a run on a GPU: drop this row.")]
    if row.source not in SOURCES:
        return [Problem(path, line, entry.id, "REC006", f"the row's source `{row.source}` is not one of {', '.join(SOURCES)}.")]
    if release_of(row.torch) != found.release:
        return [Problem(path, line, entry.id, "REC006",
                        f"the row ran torch {row.torch}, but it is filed under release {found.release}.")]
    if found.state == "stale":
        how = ("pytest --record" if device == "cpu"
               else "`python -m cheatsheet verify --device cuda` on a GPU machine, "
                    "or drop it with `python -m cheatsheet record --prune`")
        return [Problem(path, line, entry.id, "REC002",
                        f"the {device} row vouches for code hashed {row.hash}, but the examples now hash to "
                        f"{entry.code_hash(snippets)}: they changed since they were verified. Rerun: {how}.")]
    if found.state == "needs-package":
        if row.note in lacked:
            return []
        why = (f"torch {found.release} is installed without {', '.join(lacked)}" if lacked
               else f"the install of torch {found.release} should have every package requirements.txt lists")
        return [Problem(path, line, entry.id, "REC007",
                        f"the {device} row says `needs-package` ({row.note or 'no package named'}), but {why}. "
                        f"Install it (`.ci/setup`) and rerun the entry with --record.")]
    # On a release the project claims, a row that does not vouch is something to fix; on another
    # (a GPU machine's own torch, say) it is what the matrix reports there.
    if not found.vouches and claimed and found.state != "needs-gpus":
        return [Problem(path, line, entry.id, "REC004",
                        f"the {device} row says `{found.state}`. Fix the example and rerun it with --record.")]
    return []


def merge(parts: list[Path], into: Path, docs: Path, source: str | None = None) -> dict[tuple[str, str], int]:
    """Fold record parts (folders laid out like the record: RELEASE/DEVICE.csv) into one; with
    `source`, the folded rows say who ran them."""
    order = {e.id: i for i, (_, e) in enumerate(entries(docs))}
    counts = {}
    found = sorted({r for folder in [into, *parts] for r in releases(folder)}, key=version_key, reverse=True)
    for release in found:
        for device in DEVICES:
            rows = {entry: row for entry, (_, row) in load(into, release, device).items()}
            for part in parts:
                for entry, (_, row) in load(part, release, device).items():
                    rows[entry] = replace(row, source=source) if source else row
            if rows:
                save(into, release, device, sorted(rows.values(), key=lambda r: order.get(r.entry, len(order))))
                counts[(release, device)] = len(rows)
    return counts


def summary(docs: Path, snippets: Path, record_dir: Path) -> dict[tuple[str, str], dict]:
    """Per release and device: the entries by verdict (passed, failed, needs-cuda, stale, missing),
    and the torch versions, Python versions, devices, dates and sources of the rows that are current."""
    record = Record.load(record_dir, snippets)
    all_entries = [e for _, e in entries(docs)]
    out = {}
    for release, device in record.columns:
        found = [record.verdict(e, release, device) for e in all_entries]
        states: dict[str, int] = {}
        for v in found:
            states[v.state] = states.get(v.state, 0) + 1
        rows = [v.row for v in found if v.current]
        out[(release, device)] = {
            "entries": len(all_entries),
            "states": states,
            "torch": sorted({r.torch for r in rows}),
            "python": sorted({r.python for r in rows}),
            "devices": sorted({r.device for r in rows}),
            "dates": sorted({r.date for r in rows}),
            "sources": sorted({r.source for r in rows}),
            "lacking": sorted({v.row.note for v in found if v.state == "needs-package"}),  # the packages not installed
        }
    return out


def side(folder: Path) -> tuple[Path, str]:
    """(record, release) for one side of a diff: a record or part and its newest release, or one
    release's folder of a record (verification/2.13.0); "" for a folder without rows."""
    folder = Path(folder)
    if RELEASE_DIR.match(folder.name) and any(path_for(folder.parent, folder.name, d).is_file() for d in DEVICES):
        return folder.parent, folder.name
    return folder, (releases(folder) or [""])[0]


def diff(old_dir: Path, new_dir: Path) -> list[tuple[str, str, Row | None, Row | None]]:
    """What changed between two records (or parts, or release folders: `side`): (device, entry,
    old row, new row) for every entry whose result or note differs, on the newest release of each."""
    changed = []
    (old_dir, old_release), (new_dir, new_release) = side(old_dir), side(new_dir)
    for device in DEVICES:
        old = {e: row for e, (_, row) in load(old_dir, old_release, device).items()} if old_release else {}
        new = {e: row for e, (_, row) in load(new_dir, new_release, device).items()} if new_release else {}
        for entry in [*old, *(e for e in new if e not in old)]:
            a, b = old.get(entry), new.get(entry)
            if (a and a.result, a and a.note) != (b and b.result, b and b.note):
                changed.append((device, entry, a, b))
    return changed
