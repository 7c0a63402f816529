"""One run of examples (a pytest session, or any other caller): worker pools per device, the
shell executor, what the workers reported on starting, and the figures `bench` reads. Each Python
example goes with the import names of the distributions requirements.txt lists, so that one the
environment lacks makes a skip, not a failure.

Nothing here imports pytest: the pytest plugin is one caller; it only asks `run(fence, device)`
for a Future of a RunResult.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from cheatsheet.model.pages import Fence
from cheatsheet.project import Project
from cheatsheet.run.pool import ForkServer, WorkerDied, WorkerPool, run_shell
from cheatsheet.run.results import ExampleTask, NamesTask, RunResult, WorkerInfo

NPROC_PER_NODE = re.compile(r"--nproc[-_]per[-_]node[= ](\d+)")
# Distributions whose top-level module is not named after them (the rest are, once normalised).
IMPORT_NAMES = {"pillow": ("PIL",), "pyyaml": ("yaml",), "markdown-it-py": ("markdown_it",)}


def listed_imports(requirements: Path) -> tuple[tuple[str, str], ...]:
    """(top-level import name, distribution) for each `name==version` line of requirements.txt.

    The modules in question are the ones not installed, so importlib.metadata (whose
    packages_distributions() knows installed distributions only) cannot name them: the import name
    is the distribution's name with `-` and `.` as `_`, or IMPORT_NAMES where the two differ."""
    if not requirements.is_file():
        return ()
    pairs = []
    for line in requirements.read_text("utf-8").splitlines():
        match = re.match(r"([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^]]*\])?\s*[=<>!~;]", line.split("#")[0].strip())
        if match:
            dist = re.sub(r"[-_.]+", "-", match.group(1)).lower()
            for name in IMPORT_NAMES.get(dist, (dist.replace("-", "_"),)):
                pairs.append((name, match.group(1)))
    return tuple(pairs)


class Session:
    def __init__(self, project: Project, cpu_workers: int | None = None):
        self.project = project
        self.listed = listed_imports(project.root / "requirements.txt")
        # Half the cores for Python examples: shell examples and the caller need the rest.
        self.cpu_workers = cpu_workers or max(1, (os.cpu_count() or 1) // 2)
        self.pools: dict[str, WorkerPool] = {}
        self.shells: ThreadPoolExecutor | None = None
        self.forkservers: dict[str, ForkServer | WorkerDied] = {}  # per device, for the shell examples
        self._forkserver_lock = threading.Lock()
        self.log_dir = Path(tempfile.mkdtemp(prefix="cheatsheet-workers-"))
        # (seconds, "page.md:line on cpu", "python on cpu") of every example that ran
        self.run_times: list[tuple[float, str, str]] = []
        self.first_submit: float | None = None
        self.last_done = 0.0

    def pool(self, device: str) -> WorkerPool:
        if device not in self.pools:
            self.pools[device] = WorkerPool(device, 1 if device == "cuda" else self.cpu_workers, self.log_dir)
        return self.pools[device]

    def run(self, fence: Fence, device: str) -> Future[RunResult]:
        """Start the example on `device`; the Future raises TaskTimeout or WorkerDied."""
        if fence.lang == "bash":
            if self.shells is None:
                self.shells = ThreadPoolExecutor(max_workers=os.cpu_count() or 1, thread_name_prefix="shell")
            future = self.shells.submit(self._shell, fence.code, device)
        else:
            task = ExampleTask(fence.code, str(fence.path), fence.line, self.listed)
            future = self.pool(device).submit(task, self.project.timeout)
        self.first_submit = self.first_submit or time.perf_counter()
        where = f"{Path(fence.path).name}:{fence.line} on {device}"
        future.add_done_callback(lambda f, kind=f"{fence.lang} on {device}": self._done(kind, where, f))
        return future

    def _done(self, kind: str, where: str, future: Future) -> None:
        self.last_done = time.perf_counter()
        if not future.cancelled() and future.exception() is None and future.result().skip is None:
            self.run_times.append((future.result().seconds, where, kind))

    def _shell(self, code: str, device: str) -> RunResult:
        processes = max(map(int, NPROC_PER_NODE.findall(code)), default=1)
        if device == "cuda" and processes > 1:
            gpus = self.worker_info("cuda").device_count
            if gpus < processes:
                # nccl needs one GPU per process; with fewer, the scripts fall back to gloo on CPU,
                # which the CPU run covers already.
                return RunResult(skip=f"needs {processes} GPUs (one per process for nccl), this machine has {gpus}",
                                 gpus=processes)
        return run_shell(code, device, self.project.snippets, self.project.shell_timeout, self.forkserver(device))

    def forkserver(self, device: str) -> ForkServer | None:
        """The device's fork server, started by the first shell example; None if it could not
        start, or with CHEATSHEET_FORKSERVER=0 (the shell examples then start real interpreters:
        how ARCHITECTURE.md's figures with and without it are measured)."""
        if os.environ.get("CHEATSHEET_FORKSERVER") == "0":
            return None
        with self._forkserver_lock:
            if device not in self.forkservers:
                try:
                    self.forkservers[device] = ForkServer(device, self.log_dir)
                except WorkerDied as e:
                    self.forkservers[device] = e
        server = self.forkservers[device]
        return server if isinstance(server, ForkServer) else None

    def inspect_names(self, names: list[str]) -> dict[str, dict]:
        return self.pool("cpu").submit(NamesTask(tuple(names)), self.project.timeout, priority=0).result()

    def worker_info(self, device: str) -> WorkerInfo:
        """What the device's worker reported on starting (torch, Python, device name)."""
        pool = self.pool(device)
        if not pool.info.done():  # any task starts a worker; an empty name list is the cheapest
            pool.submit(NamesTask(()), self.project.timeout, priority=0).result()
        return pool.info.result()

    def started_workers(self) -> dict[str, WorkerInfo]:
        return {d: p.info.result() for d, p in self.pools.items() if p.info.done() and not p.info.exception()}

    def write_figures(self, path: str) -> None:
        startup = {d: f"{len(p.startups)} worker(s), {max(p.startups, default=0):.1f} s" for d, p in self.pools.items()}
        for device, server in self.forkservers.items():
            startup[f"{device} fork server"] = (f"{server.startup:.1f} s, {server.fallbacks()} real interpreter(s)"
                                                if isinstance(server, ForkServer) else f"not started: {server}")
        span = self.last_done - self.first_submit if self.first_submit else 0.0
        examples: dict[str, dict] = {}  # "python on cpu" -> count, seconds of run time
        for seconds, _, kind in self.run_times:
            figures = examples.setdefault(kind, {"count": 0, "seconds": 0.0})
            figures["count"] += 1
            figures["seconds"] += seconds
        slowest = [[where, round(seconds, 2)] for seconds, where, _ in sorted(self.run_times, reverse=True)[:10]]
        Path(path).write_text(json.dumps({"examples": examples, "span": span, "startup": startup, "slowest": slowest},
                                         indent=1))

    def close(self) -> None:
        for pool in self.pools.values():
            pool.close()
        if self.shells is not None:
            self.shells.shutdown(cancel_futures=True)
        for server in self.forkservers.values():
            if isinstance(server, ForkServer):
                server.close()
        shutil.rmtree(self.log_dir, ignore_errors=True)  # a dead worker's log tail is in its failure
