"""The pytest plugin: every fence of every entry becomes a test, or a skip that names the entry.

For each page under docs/zh (`[tool.cheatsheet] docs`, or --docs):

* `[page]`              problems outside any entry (a page missing in English, output lines
                        outside entries, ...);
* `<id>[entry]`         the entry checker's rules for the entry, in both languages: format,
                        pairing, and the code-line, example and snippet code read statically
                        (names exist in the installed torch, none deprecated, on every branch);
* `<id>[cpu]`, `[cuda]` each example (`<id>#2[...]` for a second one) run on that device by the
                        runner (cheatsheet.run), its output checked against the output lines.

Examples are submitted to the worker pools as soon as the test loop starts, so they run in
parallel with each other and with the rest of the suite; each item then waits for its own result.

Options: --update-output writes what the examples printed into the output lines of both
languages (instead of failing); --record writes the verification record (verification/);
--resume skips examples the record already vouches for; --entry ID selects entries by exact id;
--shard I/N runs the I-th of N groups of pages (for a CI matrix); --workers N sets the CPU pool.
"""

from __future__ import annotations

from concurrent.futures import Future
from pathlib import Path

import pytest

from cheatsheet import display
from cheatsheet.check.outputs import Unplaceable, expected_code
from cheatsheet.check.site import check_site
from cheatsheet.model.devices import DEVICES
from cheatsheet.model.edits import PageEdits
from cheatsheet.model.langs import OTHERS, SOURCE
from cheatsheet.model.pages import OUTPUT_LINE, Entry, Fence, comparable_code, counterpart, page_kind, page_lang, parse_page
from cheatsheet.model.record import SOURCES, Outcome, Recorder, entry_row, release_of, vouches_for
from cheatsheet.model.rules import Problem
from cheatsheet.project import Project
from cheatsheet.run.judge import judge
from cheatsheet.run.pool import gpu_absent_reason
from cheatsheet.run.session import Session

RUN_KEY = pytest.StashKey["Run"]()


def pytest_addoption(parser):
    group = parser.getgroup("cheatsheet", "cheat-sheet entries")
    group.addoption("--update-output", action="store_true",
                    help="write what the examples print into their output lines, in both languages")
    group.addoption("--record", action="store_true", help="write the verification record (one row per entry and device)")
    group.addoption("--record-dir", default=None, help="where the record is read and written (default: verification/)")
    group.addoption("--record-source", default="ci", choices=SOURCES, help="who the rows say ran them (default: ci)")
    group.addoption("--resume", action="store_true", help="skip examples that the record already vouches for (same code, passed)")
    group.addoption("--entry", action="append", default=[], metavar="ID", help="run only this entry (exact id; repeatable)")
    group.addoption("--shard", default=None, metavar="I/N", help="run only the I-th of N groups of pages")
    group.addoption("--workers", type=int, default=None, help="CPU example workers (default: one per two cores)")
    group.addoption("--stats-json", default=None, metavar="PATH",
                    help="write the runner's figures (for `python -m cheatsheet bench`)")
    group.addoption("--docs", default=None, metavar="DIR",
                    help="the folder holding zh/ and en/ (default: [tool.cheatsheet] docs)")


def pytest_configure(config):
    config.addinivalue_line("markers", "cpu: an example run on CPU")
    config.addinivalue_line("markers", "cuda: an example run on CUDA")
    config.addinivalue_line("markers", "checks: the entry checker's rules for one entry or page")
    if config.option.update_output and config.option.record:
        raise pytest.UsageError("--update-output rewrites pages, --record vouches for them: run one, then the other")
    config.stash[RUN_KEY] = Run(config)


class Run:
    """What one pytest session shares: the example runner (cheatsheet.run.session), each example's
    Future, the checker's report, the output lines to write, and the record being written."""

    def __init__(self, config):
        project = Project.load(config.rootpath)
        if config.option.docs:
            project = project.with_docs(config.option.docs)
        self.config, self.project = config, project
        self.docs, self.snippets = project.docs.resolve(), project.snippets.resolve()
        self.session = Session(project, config.option.workers)
        self.no_gpu = gpu_absent_reason()
        self.futures: dict[str, Future] = {}
        self.report: dict[tuple[str, str], list[Problem]] | None = None
        self.pages_checked: set[Path] = set()
        self.updates: dict[int, tuple[Entry, Fence, dict[str, tuple]]] = {}  # fence -> its runs' outputs per device
        # (entry, device) -> item name -> (outcome, note)
        self.outcomes: dict[tuple[str, str], dict[str, tuple[str, str]]] = {}
        record_dir = Path(config.option.record_dir or project.record)
        self.recorder = Recorder(record_dir, self.docs, self.snippets) if (config.option.record or config.option.resume) else None
        self.recording = config.option.record
        self.update_report: list[str] = []
        self.api_docs_changed = False

    def submit(self, item: ExampleItem) -> Future:
        if item.nodeid not in self.futures:
            self.futures[item.nodeid] = self.session.run(item.fence, item.device)
        return self.futures[item.nodeid]

    def problems(self, rel: str, label: str | None, entry_labels: set[str]) -> list[Problem]:
        """The checker's problems of one entry (label) or of its page outside entries (None)."""
        if self.report is None:
            self.report = {}
            for page_rel, problem in check_site(self.docs, self.snippets, self.session.inspect_names, only=self.pages_checked):
                self.report.setdefault((page_rel, problem.entry_id), []).append(problem)
        if label is not None:
            return self.report.get((rel, label), [])
        return [p for (r, lab), found in self.report.items() if r == rel and lab not in entry_labels for p in found]

    def update(self, item: ExampleItem, outputs: tuple) -> None:
        _, _, runs = self.updates.setdefault(id(item.fence), (item.entry, item.fence, {}))
        runs[item.device] = outputs

    def outcome(self, item: ExampleItem, outcome: Outcome) -> None:
        """Collect per (entry, device); when all its examples are in, write the record row."""
        if not self.recording or outcome == Outcome.RESUMED:
            return
        got = self.outcomes.setdefault((item.entry.id, item.device), {})
        got[item.name] = (outcome, getattr(item, "note", ""))
        if len(got) < len(item.entry.examples) or not item.entry.id:
            return
        rel = item.entry.path.relative_to(self.docs / SOURCE).as_posix()
        row = entry_row(rel, item.entry, list(got.values()), self.session.worker_info(item.device),
                        self.config.option.record_source, self.snippets)
        if row is not None:
            self.recorder.add(item.device, row)

    def translations(self, entry: Entry, fence: Fence) -> dict[str, Fence | None]:
        """Each other language's copy of the fence, or None where its code is not the source's
        (output lines and comments aside): only where it is can the same run write its output lines."""
        copies: dict[str, Fence | None] = {}
        for other in OTHERS:
            path = counterpart(fence.path, self.docs, other)
            translated = parse_page(path, other).entry(entry.id) if path.exists() else None
            copy = (translated.fences[entry.fences.index(fence)]
                    if translated is not None and len(translated.fences) == len(entry.fences) else None)
            copies[other] = copy if copy is not None and _without_output(copy) == _without_output(fence) else None
        return copies

    def write_updates(self) -> list[str]:
        """Write the collected outputs into both languages; returns what changed."""
        edits, changed = PageEdits(), []
        for entry, fence, runs in self.updates.values():
            name = entry.example_name(fence)
            try:
                code = expected_code(fence, runs, self.session.worker_info("cpu").torch)
            except Unplaceable as e:
                changed.append(f"{display(fence.path)}:{fence.line}: [{name}] not updated: {e}")
                continue
            if code != fence.code:
                edits.replace_fence(fence, code, f"the output lines of [{name}]")
            for other, copy in self.translations(entry, fence).items():
                if copy is None:
                    changed.append(f"{display(counterpart(fence.path, self.docs, other))}: [{entry.label}] not updated: its "
                                   "code differs from the source page's (PAIR003); make it identical, then run again")
                    continue
                copy_code = expected_code(copy, runs, self.session.worker_info("cpu").torch)
                if copy_code != copy.code:
                    edits.replace_fence(copy, copy_code, f"the output lines of [{name}]")
            changed.append(f"{display(fence.path)}:{fence.line}: [{name}] output lines written from {', '.join(sorted(runs))}")
        edits.write()
        return changed


def _without_output(fence: Fence) -> str:
    return "\n".join(line for line in comparable_code(fence).splitlines() if not OUTPUT_LINE.match(line))


# --- collection ----------------------------------------------------------------------------


def pytest_collect_file(file_path, parent):
    run: Run = parent.config.stash[RUN_KEY]
    if page_kind(file_path) is None:
        return None
    lang = page_lang(file_path, run.docs)
    if lang == SOURCE or (lang in OTHERS and not counterpart(file_path, run.docs, SOURCE).exists()):
        return PageFile.from_parent(parent, path=file_path, lang=lang)
    return None


class PageFile(pytest.File):
    def __init__(self, *, lang: str, **kwargs):
        super().__init__(**kwargs)
        self.lang = lang

    def collect(self):
        run: Run = self.config.stash[RUN_KEY]
        page = parse_page(self.path, self.lang)
        run.pages_checked.add(counterpart(self.path, run.docs, SOURCE).resolve())
        rel = Path(self.path).resolve().relative_to(run.docs / self.lang).as_posix()
        labels = {e.label for e in page.entries} if self.lang == SOURCE else set()
        yield ChecksItem.from_parent(self, name="[page]", rel=rel, label=None, labels=labels, line=1)
        if self.lang != SOURCE:
            return
        for entry in page.entries:
            yield ChecksItem.from_parent(self, name=f"{entry.label}[entry]", rel=rel, label=entry.label, labels=labels,
                                         line=entry.line)
            for fence in entry.examples:
                for device in DEVICES:
                    yield ExampleItem.from_parent(self, name=f"{entry.example_name(fence)}[{device}]", entry=entry, fence=fence,
                                                  device=device)


class CheckFailure(Exception):
    pass


class ChecksItem(pytest.Item):
    """The entry checker's verdict on one entry (both languages) or on a page outside entries."""

    def __init__(self, *, rel: str, label: str | None, labels: set[str], line: int, **kwargs):
        super().__init__(**kwargs)
        self.rel, self.label, self.labels, self.line = rel, label, labels, line
        self.add_marker("checks")

    def runtest(self):
        problems = self.config.stash[RUN_KEY].problems(self.rel, self.label, self.labels)
        if problems:
            raise CheckFailure("\n".join(map(str, problems)))

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, CheckFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, self.line - 1, f"{self.path.name}::{self.name}"


class ExampleFailure(Exception):
    pass


class ExampleItem(pytest.Item):
    """One example fence, run on one device."""

    def __init__(self, *, entry: Entry, fence: Fence, device: str, **kwargs):
        super().__init__(**kwargs)
        self.entry, self.fence, self.device = entry, fence, device
        self.add_marker(device)
        self.add_marker(pytest.mark.timeout(0))  # the runner times the example out itself
        run: Run = self.config.stash[RUN_KEY]
        if device not in fence.devices():
            self.add_marker(pytest.mark.skip(reason=f"[{entry.label}] example needs CUDA (fence option requires-cuda): "
                                                    "it runs only on a GPU machine"))
        elif device == "cuda" and run.no_gpu:
            self.add_marker(pytest.mark.skip(reason=f"[{entry.label}] CUDA run not possible here: {run.no_gpu}"))

    def runtest(self):
        run: Run = self.config.stash[RUN_KEY]
        if self.device == "cuda":
            info = run.session.worker_info("cuda")
            if not info.cuda_available:
                pytest.skip(f"[{self.entry.label}] CUDA run not possible here: torch {info.torch} sees no CUDA device")
        found = judge(self.entry, self.fence, self.device, run.submit(self), run.session.worker_info(self.device).torch)
        self.note = found.note
        if found.result is not None and found.result.skip:
            self.judged = found.outcome
            self.missing = found.result.missing
            if self.missing:
                self.note = self.missing  # a needs-package row names the package
            elif found.result.gpus:
                self.note = found.result.skip  # a needs-gpus row says how many it needs and had
            pytest.skip(f"[{self.entry.label}] {found.result.skip}")
        # --update-output writes what ran where the page differs, or where only the English page lacks it.
        if self.config.option.update_output and (
                found.mismatch is not None or (found.problem is None and self._translation_differs(run, found.result.outputs))):
            run.update(self, found.result.outputs)
            return
        if found.problem is not None:
            raise ExampleFailure(found.problem)

    def _translation_differs(self, run: Run, outputs: tuple) -> bool:
        """With --update-output: the source page is right, but another language's lacks the lines."""
        torch = run.session.worker_info(self.device).torch
        try:
            return any(copy is not None and copy.code != expected_code(copy, {self.device: outputs}, torch)
                       for copy in run.translations(self.entry, self.fence).values())
        except Unplaceable:
            return False

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, ExampleFailure):
            return str(excinfo.value.args[0])
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, max(self.fence.line - 1, 0), f"{self.path.name}::{self.name}"


# --- selection, scheduling, reporting ------------------------------------------------------


def _shard(pages: list[tuple[Path, int]], index: int, count: int) -> set[Path]:
    """Pages of shard `index` (1-based) of `count`, balanced by example count (largest first)."""
    loads = [[0, set()] for _ in range(count)]
    for path, weight in sorted(pages, key=lambda p: (-p[1], str(p[0]))):
        lightest = min(loads, key=lambda load: load[0])
        lightest[0] += weight
        lightest[1].add(path)
    return loads[index - 1][1]


def pytest_collection_modifyitems(session, config, items):
    run: Run = config.stash[RUN_KEY]
    keep, drop = [], []
    shard = None
    if config.option.shard:
        index, count = map(int, config.option.shard.split("/"))
        if not 1 <= index <= count:
            raise pytest.UsageError(f"--shard {config.option.shard}: I must be between 1 and N")
        weights: dict[Path, int] = {}
        for item in items:
            if isinstance(item, (ExampleItem, ChecksItem)):
                weights[item.path] = weights.get(item.path, 0) + isinstance(item, ExampleItem)
        shard = _shard(list(weights.items()), index, count)
    for item in items:
        ours = isinstance(item, (ExampleItem, ChecksItem))
        entry_id = item.entry.id if isinstance(item, ExampleItem) else getattr(item, "label", None)
        if ours and shard is not None and item.path not in shard:
            drop.append(item)
        elif config.option.entry and entry_id not in config.option.entry:
            drop.append(item)
        else:
            keep.append(item)
    if config.option.resume and run.recorder is not None:
        for item in keep:
            if isinstance(item, ExampleItem) and not item.get_closest_marker("skip"):
                release = release_of(run.session.worker_info(item.device).torch)
                row = run.recorder.row(release, item.device, item.entry.id)
                if vouches_for(row, item.entry, run.snippets):
                    item.add_marker(pytest.mark.skip(reason=f"[{item.entry.label}] already verified on {item.device} "
                                                            f"({row.device}, torch {row.torch}, {row.date}): --resume"))
                    item.resumed = True
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


@pytest.hookimpl(wrapper=True)
def pytest_runtestloop(session):
    """Hand every selected example to the runner before the first test runs."""
    run: Run = session.config.stash[RUN_KEY]
    if not session.config.option.collectonly:
        examples = [item for item in session.items if isinstance(item, ExampleItem) and not item.get_closest_marker("skip")]
        # Shell examples first: each takes seconds, and they run beside the Python workers.
        for item in sorted(examples, key=lambda item: item.fence.lang != "bash"):
            run.submit(item)
    try:
        return (yield)
    finally:
        if run.recorder is not None and session.config.option.record and run.project.api_docs.is_file():
            # The site's API links, from the torch that just ran the examples: asked of its
            # worker before it stops (no torch import in this process).
            from cheatsheet.tools.api_docs import refresh

            run.api_docs_changed = refresh(run.project, run.session.inspect_names, run.session.worker_info("cpu").torch)
        run.session.close()


def pytest_runtest_logreport(report):
    item_outcome = getattr(report, "_cheatsheet_outcome", None)
    if item_outcome is not None:
        item, outcome = item_outcome
        item.config.stash[RUN_KEY].outcome(item, outcome)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if isinstance(item, ExampleItem) and (call.when == "call" or report.skipped and call.when == "setup"):
        if report.skipped:
            outcome = (Outcome.RESUMED if getattr(item, "resumed", False)
                       else Outcome.NEEDS_CUDA if item.device not in item.fence.devices()
                       else getattr(item, "judged", Outcome.SKIPPED))  # a skip the run itself decided
        else:
            outcome = Outcome.PASSED if report.passed else Outcome.FAILED
        report._cheatsheet_outcome = (item, outcome)
    return report


def pytest_sessionfinish(session):
    run: Run = session.config.stash[RUN_KEY]
    run.session.close()
    if session.config.option.update_output and run.updates:
        run.update_report = run.write_updates()
    if run.recorder is not None and session.config.option.record:
        run.recorder.drop_stale()
    if session.config.option.stats_json:
        run.session.write_figures(session.config.option.stats_json)


def pytest_terminal_summary(terminalreporter, config):
    run: Run = config.stash[RUN_KEY]
    write = terminalreporter.write_line
    for device, info in run.session.started_workers().items():
        write(f"example workers on {device}: torch {info.torch}, Python {info.python}, {info.device_name}")
    for line in run.update_report:
        write(line)
    if run.recorder is not None and config.option.record:
        write(f"verification record written to {display(run.recorder.record_dir)}")
        if run.api_docs_changed:
            write(f"{display(run.project.api_docs)} updated: commit it with the record")
        for dropped in run.recorder.dropped:
            write(f"  dropped the stale row {dropped}")
