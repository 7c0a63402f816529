"""`python -m cheatsheet verify`: every example of the chosen pages run against the installed torch,
without pytest, and the rows written as a record part (RELEASE/DEVICE.csv) to send in or merge.

The runner is the test suite's (run/session.py), each run is judged by the same function
(run/judge.py: judge), and rows follow the plugin's policy (model/record.py: row_result): a
row per entry and device once all its examples are in, none when one of them could not run here.
"""

from __future__ import annotations

import shutil
import sys
import time
from concurrent.futures import as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from cheatsheet import display
from cheatsheet.model.devices import DEVICES
from cheatsheet.model.langs import SOURCE
from cheatsheet.model.pages import Entry, Fence
from cheatsheet.model.record import Outcome, Recorder, entries, entry_row, load, path_for, release_of, vouches_for
from cheatsheet.model.rules import Problem
from cheatsheet.project import Project
from cheatsheet.run.judge import judge
from cheatsheet.run.pool import WorkerDied, gpu_absent_reason
from cheatsheet.run.results import WorkerInfo
from cheatsheet.run.session import Session

BAR = 20  # characters of the progress bar


class VerifyError(Exception):
    """A selection or a device that cannot be run: the command's usage error."""


@dataclass(eq=False)
class Run:
    """One example on one device, and what came of it."""

    page: str  # relative to docs/zh
    entry: Entry
    fence: Fence
    device: str
    outcome: str = ""  # passed, failed, skipped, needs-cuda, needs-package, needs-gpus, resumed
    problem: Problem | None = None
    note: str = ""
    skip: str = ""  # why the runner did not run it here


def select(project: Project, names: list[str]) -> list[tuple[str, Entry]]:
    """(page, entry) in site order for pages (a path under docs/zh or docs/en, or a page name such as
    `shapes` or `recipes/deployment.py`) and entry ids; every entry without names."""
    every = entries(project.docs)
    if not names:
        return every
    by_page: dict[str, set[str]] = {}
    for page, entry in every:
        by_page.setdefault(page, set()).add(entry.id)
    ids = {entry.id for _, entry in every}
    chosen: set[str] = set()
    for name in names:
        page = _page(project, name)
        if page in by_page:
            chosen |= by_page[page]
        elif name in ids:
            chosen.add(name)
        else:
            raise VerifyError(f"`{name}` is neither a page under {display(project.docs / SOURCE)} with entries nor an entry id")
    return [(page, entry) for page, entry in every if entry.id in chosen]


def _page(project: Project, name: str) -> str | None:
    path = next((p for p in (Path(name), project.root / name) if p.is_file()), None)  # from here, or from the project
    if path is not None:
        path, docs = path.resolve(), project.docs.resolve()
        lang = next((d for d in sorted(docs.iterdir()) if d.is_dir() and d in path.parents), None)
        return path.relative_to(lang).as_posix() if lang else None  # docs/en/x.md runs as docs/zh/x.md
    return next((rel for rel in (name, f"{name}.md") if (project.docs / SOURCE / rel).is_file()), None)


def _gpu_absent() -> str | None:
    """gpu_absent_reason(), except that a ROCm machine (no nvidia-smi) counts as having a GPU too:
    ROCm builds of torch report through torch.cuda, which the CUDA worker then asks."""
    reason = gpu_absent_reason()
    if reason and "CUDA_VISIBLE_DEVICES" not in reason and (Path("/dev/kfd").exists() or shutil.which("rocm-smi")):
        return None
    return reason


def devices(session: Session, wanted: str | None) -> tuple[dict[str, WorkerInfo], list[str]]:
    """The devices to run on with what their worker reported, and why any other was left out."""
    chosen = [wanted] if wanted else list(DEVICES)
    infos, notes = {}, []
    for device in chosen:
        if device == "cuda" and not wanted and (reason := _gpu_absent()):
            notes.append(f"cuda: not run: {reason}")
            continue
        try:
            info = session.worker_info(device)
        except WorkerDied as e:
            raise VerifyError(f"the {device} worker cannot start: {e}") from None
        if device == "cuda" and not info.cuda_available:
            if wanted:
                raise VerifyError(f"torch {info.torch} sees no CUDA (or ROCm) device: nothing to run on cuda")
            notes.append(f"cuda: not run: torch {info.torch} sees no CUDA device")
            continue
        infos[device] = info
    return infos, notes


class Progress:
    """`[#####.....] 120/347 examples` on stderr: redrawn in place on a terminal, otherwise a line
    at every tenth (a CI log should not get a line per example)."""

    def __init__(self, total: int, stream: TextIO):
        self.total, self.stream, self.done, self.shown = total, stream, 0, -1
        self.tty = stream.isatty()
        if total:
            self._draw()

    def step(self) -> None:
        self.done += 1
        self._draw()

    def _draw(self) -> None:
        filled = self.done * BAR // self.total
        text = f"[{'#' * filled}{'.' * (BAR - filled)}] {self.done}/{self.total} examples"
        if self.tty:
            self.stream.write("\r" + text + ("\n" if self.done == self.total else ""))
        elif self.done * 10 // self.total > self.shown:
            self.shown = self.done * 10 // self.total
            self.stream.write(text + "\n")
        self.stream.flush()


def verify(project: Project, names: list[str], device: str | None = None, out: Path = Path("verification-part"),
           source: str = "submitted", workers: int | None = None, resume: bool = False, check_against: Path | None = None,
           stdout: TextIO = sys.stdout, stderr: TextIO = sys.stderr) -> int:
    """Run, write the rows, report; the exit status: 1 if an example failed (or, with
    `check_against`, a row differs from that record's), 0 otherwise. Raises VerifyError."""
    selected = select(project, names)
    session = Session(project, workers)
    started = time.perf_counter()
    try:
        infos, notes = devices(session, device)
        recorder = Recorder(out, project.docs, project.snippets)
        runs = _plan(project, selected, infos, recorder if resume else None)
        todo = [run for run in runs if not run.outcome]
        futures = {session.run(run.fence, run.device): run for run in sorted(todo, key=lambda run: run.fence.lang != "bash")}
        left = {}  # (entry id, device) -> examples still running
        for run in todo:
            left[(run.entry.id, run.device)] = left.get((run.entry.id, run.device), 0) + 1

        def write_row(page: str, entry: Entry, device: str) -> None:
            done = [(run.outcome, run.note) for run in runs if run.entry is entry and run.device == device]
            row = entry_row(page, entry, done, infos[device], source, project.snippets)
            if row is not None:
                recorder.add(device, row)

        for page, entry in selected:  # entries none of whose examples run here (CUDA-only, on CPU)
            for dev in infos:
                if (entry.id, dev) not in left and any(run.entry is entry and run.device == dev for run in runs):
                    write_row(page, entry, dev)
        progress = Progress(len(futures), stderr)
        for future in as_completed(futures):
            run = futures[future]
            found = judge(run.entry, run.fence, run.device, future, infos[run.device].torch)
            run.problem, run.note = found.problem, found.note
            run.outcome = found.outcome
            if found.result is not None and found.result.skip:
                run.skip = found.result.skip
                run.note = found.result.missing or (found.result.skip if found.result.gpus else run.note)
            progress.step()
            left[(run.entry.id, run.device)] -= 1
            if not left[(run.entry.id, run.device)]:
                write_row(run.page, run.entry, run.device)
    finally:
        session.close()
    _report(runs, infos, notes, recorder, out, source, time.perf_counter() - started, stdout)
    differ = _compare(selected, infos, recorder, Path(check_against), stdout) if check_against else 0
    return 1 if differ or any(run.outcome == Outcome.FAILED for run in runs) else 0


def _plan(project: Project, selected: list[tuple[str, Entry]], infos: dict[str, WorkerInfo],
          resume: Recorder | None) -> list[Run]:
    runs = []
    for page, entry in selected:
        for device, info in infos.items():
            row = resume.row(release_of(info.torch), device, entry.id) if resume else None
            vouched = vouches_for(row, entry, project.snippets)
            for fence in entry.examples:
                outcome = Outcome.RESUMED if vouched else "" if device in fence.devices() else Outcome.NEEDS_CUDA
                runs.append(Run(page, entry, fence, device, outcome))
    return runs


def _report(runs: list[Run], infos: dict[str, WorkerInfo], notes: list[str], recorder: Recorder, out: Path, source: str,
            seconds: float, stdout: TextIO) -> None:
    def say(line: str = "") -> None:
        print(line, file=stdout)

    def counts(found: list[Run]) -> str:
        passed, failed = (sum(run.outcome == what for run in found) for what in (Outcome.PASSED, Outcome.FAILED))
        return f"{passed} passed / {failed} failed / {len(found) - passed - failed} skipped"

    pages = list(dict.fromkeys(run.page for run in runs))
    for page in pages:
        for device in infos:
            found = [run for run in runs if run.page == page and run.device == device]
            if found:
                say(f"{page}{f' on {device}' if len(infos) > 1 else ''}: {counts(found)}")
    skipped = [run for run in runs if run.skip]
    if skipped:
        say("\nskipped (could not run here):")
        for run in skipped:
            say(f"{display(run.fence.path)}:{run.fence.line or 1}: [{run.entry.example_name(run.fence)}] on {run.device}: "
                f"{run.skip}")
    resumed = sum(run.outcome == Outcome.RESUMED for run in runs)
    if resumed:
        say(f"\n{resumed} example run(s) skipped: --resume, their rows in {display(out)} are current and passed")
    failures = [run for run in runs if run.problem]
    if failures:
        say(f"\n{len(failures)} failure(s):")
        for run in failures:
            say(str(run.problem))
    say()
    for note in notes:
        say(note)
    for device, info in infos.items():
        found = [run for run in runs if run.device == device]
        release = release_of(info.torch)
        rows = len(recorder.rows.get((release, device), {}))
        say(f"{device}: {counts(found)} (torch {info.torch}, Python {info.python}, {info.device_name}); "
            f"{rows} rows in {display(path_for(out, release, device))} (source {source})")
    say(f"{len(runs)} example run(s) in {seconds:.0f} s")


def _compare(selected: list[tuple[str, Entry]], infos: dict[str, WorkerInfo], recorder: Recorder, against: Path,
             stdout: TextIO) -> int:
    """Each row of this run against the same entry's row in `against` (a record): the same result
    for the same code. An entry this run has no row for (skipped here) is named, not counted; one the
    record has no row for, or a row for other code, is pending there (this run's part fills it)."""
    differ, unchecked, pending, checked = [], [], [], 0
    for device, info in infos.items():
        release = release_of(info.torch)
        committed = load(against, release, device)
        path = path_for(against, release, device)
        for _, entry in selected:
            row, (line, old) = recorder.row(release, device, entry.id), committed.get(entry.id, (1, None))
            if row is None:
                if old is not None:
                    unchecked.append(f"{display(path)}:{line}: [{entry.id}] not compared: no row from this run on {device}")
                continue
            if old is None or old.hash != row.hash:  # pending there: this run is what a release leg records
                pending.append(f"{display(path)}: [{entry.id}] pending ({'no row' if old is None else 'changed since'}); "
                               f"this run: {row.result} ({row.hash})")
                continue
            checked += 1
            if (old.result, old.hash) != (row.result, row.hash):
                differ.append(f"{display(path)}:{line}: [{entry.id}] says {old.result} ({old.hash}); this run: "
                              f"{row.result} ({row.hash}){f': {row.note}' if row.note else ''}")
    print(file=stdout)
    for line in [*unchecked, *pending, *differ]:
        print(line, file=stdout)
    print(f"{checked} row(s) compared with {display(against)}: {len(differ)} differ"
          + (f"; {len(pending)} pending there (no row, or one for other code): this run's part has them" if pending else ""),
          file=stdout)
    return len(differ)

