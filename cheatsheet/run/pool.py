"""The example runner, parent side: pools of worker processes per device, and shell examples.

* `WorkerPool(device, size)` keeps `size` worker processes (cheatsheet.run.worker). Each imports torch
  once and runs many examples. A task that outlives its timeout gets its worker killed from
  outside (the whole process group) and a new worker started; no example can stall the run.
* `run_shell` runs a bash example in a temporary copy of snippets/; with a `ForkServer`, the
  Python processes it starts are forks of one that imported torch already (cheatsheet/run/forkserver.py).

Both give a `RunResult` (cheatsheet/run/results.py); `cheatsheet.check.outputs` turns it into the
fence the page should show, which the pytest plugin compares with the page or writes into it.

What an example sees of the environment is this allowlist, plus HOME pointing at its own temporary
directory (also its working directory), PYTHONUNBUFFERED=1, and, on the CPU worker,
CUDA_VISIBLE_DEVICES="" (set before Python starts, so torch never sees a GPU). A shell example
also gets PYTHONWARNINGS (warnings are errors), PYTHONPATH (the network guard) and, with a fork
server, its bin/ first on PATH, PYTHON_EXEC and the server's two variables.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import queue
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import Future
from multiprocessing.connection import Connection
from pathlib import Path

from cheatsheet.run import forkserver
from cheatsheet.run.results import RunResult, WorkerInfo

PACKAGE_PARENT = Path(__file__).resolve().parents[2]
NETGUARD = Path(__file__).resolve().parent / "netguard"

ENV_ALLOWLIST = (
    "PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR",
    # finding the GPU and its libraries
    "LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_PATH", "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER",
    "NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES",
    # compiler caches (torch.compile), shared between runs
    "TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR",
)


class TaskTimeout(Exception):
    pass


class WorkerDied(Exception):
    pass


def example_env(device: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k in ENV_ALLOWLIST}
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", os.defpath)])
    env["PYTHONUNBUFFERED"] = "1"
    env.setdefault("LANG", "C.UTF-8")
    # Compiler caches outside the per-example HOME, so torch.compile examples reuse earlier builds.
    env.setdefault("TRITON_CACHE_DIR", str(Path(tempfile.gettempdir()) / "cheatsheet-triton-cache"))
    if device == "cpu":
        env["CUDA_VISIBLE_DEVICES"] = ""
    return env


def gpu_absent_reason() -> str | None:
    """Why this machine cannot run the CUDA examples, or None if it looks as if it can (the CUDA
    worker then asks torch). Cheap: no torch import in the test process."""
    if os.environ.get("CUDA_VISIBLE_DEVICES") in ("", "-1"):
        return "CUDA_VISIBLE_DEVICES hides every GPU"
    if (not (Path("/proc/driver/nvidia/gpus").is_dir() and any(Path("/proc/driver/nvidia/gpus").iterdir()))
            and not shutil.which("nvidia-smi")):
        return "no NVIDIA GPU on this machine"
    return None


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


class Worker:
    """One worker process and its two pipes."""

    def __init__(self, device: str, log_dir: Path):
        task_r, task_w = os.pipe()
        result_r, result_w = os.pipe()
        self.log = open(log_dir / f"worker-{device}-{next(_serial)}.log", "w+b")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "cheatsheet.run.worker", device, str(task_r), str(result_w)],
            cwd=PACKAGE_PARENT, env=example_env(device), pass_fds=(task_r, result_w),
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        os.close(task_r)
        os.close(result_w)
        self.tasks, self.results = Connection(task_w, readable=False), Connection(result_r, writable=False)
        self.info: WorkerInfo | None = None
        self.killed = False

    def _receive(self, timeout: float):
        if not self.results.poll(timeout):
            raise TaskTimeout
        try:
            return self.results.recv()
        except (EOFError, OSError):
            raise WorkerDied(self._death()) from None

    def _death(self) -> str:
        code = self.proc.wait()
        self.log.seek(0)
        tail = self.log.read().decode("utf-8", "replace")[-3000:]
        return f"the worker process exited with status {code}" + (f"; its last output:\n{tail}" if tail.strip() else "")

    def start(self, timeout: float) -> WorkerInfo:
        try:
            self.info = self._receive(timeout)
        except TaskTimeout:
            self.kill()
            raise WorkerDied(f"the worker did not start within {timeout:.0f} s") from None
        return self.info

    def request(self, task, timeout: float):
        try:
            self.tasks.send(task)
        except (BrokenPipeError, OSError):
            raise WorkerDied(self._death()) from None
        try:
            return self._receive(timeout)
        except TaskTimeout:
            self.kill()
            raise

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        if self.killed:
            return
        self.killed = True
        _kill_group(self.proc)
        for conn in (self.tasks, self.results):
            conn.close()
        self.log.close()


_serial = itertools.count(1)
STARTUP_TIMEOUT = 300.0


class WorkerPool:
    """`size` workers for one device, fed from one queue; `submit` returns a Future."""

    def __init__(self, device: str, size: int, log_dir: Path):
        self.device, self.log_dir = device, log_dir
        self.queue: queue.PriorityQueue = queue.PriorityQueue()
        self.info: Future = Future()
        self._order = itertools.count()
        self._closed = False
        self.startups: list[float] = []  # seconds from spawning a worker to its hello
        self.threads = [threading.Thread(target=self._serve, daemon=True, name=f"{device}-worker-{i}") for i in range(size)]
        for thread in self.threads:
            thread.start()

    def submit(self, task, timeout: float, priority: int = 1) -> Future:
        """`task`: an ExampleTask (the future's result is a RunResult) or a NamesTask."""
        future: Future = Future()
        self.queue.put((priority, next(self._order), task, timeout, future))
        return future

    def _serve(self) -> None:
        worker: Worker | None = None
        while True:
            _, _, task, timeout, future = self.queue.get()
            if task is None:
                break
            if not future.set_running_or_notify_cancel():
                continue
            if worker is None or not worker.alive:
                spawned = time.perf_counter()
                worker = Worker(self.device, self.log_dir)
                try:
                    info = worker.start(STARTUP_TIMEOUT)
                except WorkerDied as e:  # a worker that cannot start: every task of this pool fails with why
                    worker.kill()
                    worker = None
                    future.set_exception(e)
                    if not self.info.done():
                        self.info.set_exception(e)
                    continue
                self.startups.append(time.perf_counter() - spawned)
                if not self.info.done():
                    self.info.set_result(info)
            try:
                result = worker.request(task, timeout)
            except TaskTimeout:
                worker = None  # request() killed it
                future.set_exception(TaskTimeout(f"no result after {timeout:.0f} s: the worker was killed "
                                                 "(a new one takes its place)"))
                continue
            except WorkerDied as e:
                worker.kill()
                worker = None
                future.set_exception(WorkerDied(f"{e} while running the example (a new one takes its place)"))
                continue
            if isinstance(result, RunResult) and result.leaked:  # the worker retired after it: start a clean one
                worker.kill()
                worker = None
            future.set_result(result)
        if worker is not None:
            worker.kill()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        # Pending tasks are dropped; each thread stops after its current one.
        while True:
            try:
                *_, future = self.queue.get_nowait()
            except queue.Empty:
                break
            if future is not None:
                future.cancel()
        for _ in self.threads:
            self.queue.put((-1, next(self._order), None, 0, None))
        for thread in self.threads:
            thread.join(timeout=5)


def shell_env(device: str) -> dict[str, str]:
    env = example_env(device)
    # As for Python examples, warnings are errors; runpy's notice that `python -m torch.utils.collect_env`
    # was imported by its package first is torch's layout, not the example's.
    env["PYTHONWARNINGS"] = "error,ignore::RuntimeWarning:runpy"
    env["PYTHONPATH"] = str(NETGUARD)  # its sitecustomize blocks network in every Python process started here
    return env


class ForkServer:
    """The fork server of one device's shell examples, and the directory of its `python`,
    `python3` and `torchrun` scripts. Started in the shell examples' environment, so that its
    interpreter settings are theirs."""

    def __init__(self, device: str, log_dir: Path, timeout: float = STARTUP_TIMEOUT):
        self.dir = Path(tempfile.mkdtemp(prefix=f"forkserver-{device}-"))
        self.socket, self.bin = str(self.dir / "socket"), self.dir / "bin"
        (self.dir / "home").mkdir()
        self.bin.mkdir()
        python = Path(sys.executable)
        forkserver.write_shims(str(self.bin), str(python), str(python.with_name("torchrun")))
        ready_r, ready_w = os.pipe()
        lifeline_r, self.lifeline = os.pipe()  # the server stops when this process is gone
        self.log = open(log_dir / f"forkserver-{device}.log", "w+b")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "cheatsheet.run.forkserver", self.socket, str(ready_w), str(lifeline_r)],
            cwd=PACKAGE_PARENT, env=dict(shell_env(device), HOME=str(self.dir / "home")), pass_fds=(ready_w, lifeline_r),
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        os.close(ready_w)
        os.close(lifeline_r)
        started = time.perf_counter()
        try:
            ready = select.select([ready_r], [], [], timeout)[0] and os.read(ready_r, 200)
        finally:
            os.close(ready_r)
        self.startup = time.perf_counter() - started
        if not ready:
            self.log.seek(0)
            tail = self.log.read().decode("utf-8", "replace")[-3000:]
            self.close()
            raise WorkerDied(f"the fork server did not start within {timeout:.0f} s: {tail}")

    def env(self, token: str) -> dict[str, str]:
        """What a shell example's environment gains so that its Python processes come from here."""
        path = str(self.bin / "python")
        return {forkserver.SOCKET_VAR: self.socket, forkserver.TOKEN_VAR: token, "PYTHON_EXEC": path}

    def kill(self, token: str) -> None:
        """Kill what is left of one shell example's forks."""
        request = json.dumps({"kill": token}).encode()
        with contextlib.suppress(OSError), socket.socket(socket.AF_UNIX) as conn:
            conn.connect(self.socket)
            socket.send_fds(conn, [len(request).to_bytes(8, "big")], [])
            conn.sendall(request)

    def fallbacks(self) -> int:
        """How many processes ran as real interpreters instead (the server logs each)."""
        if self.log.closed:
            return self.fallbacks_at_close
        return Path(self.log.name).read_bytes().count(b"fallback to the real interpreter")

    def close(self) -> None:
        if self.log.closed:
            return
        self.fallbacks_at_close = self.fallbacks()
        os.close(self.lifeline)
        _kill_group(self.proc)
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def run_shell(code: str, device: str, snippets: Path, timeout: float, server: ForkServer | None = None) -> RunResult:
    """Run a bash example from a temporary copy of snippets/; its stdout is its output."""
    env = shell_env(device)
    token = f"{os.getpid()}-{next(_serial)}"
    if server is not None:
        env.update(server.env(token))
        env["PATH"] = os.pathsep.join([str(server.bin), env["PATH"]])
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="shell-example-") as workdir:
        shutil.copytree(snippets, workdir, dirs_exist_ok=True)
        env["HOME"] = workdir
        proc = subprocess.Popen(["bash", "-euo", "pipefail", "-c", code], cwd=workdir, env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            stdout, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            if server is not None:
                server.kill(token)
            proc.stdout.close()
            proc.stderr.close()
            raise TaskTimeout(f"no result after {timeout:.0f} s: the shell example and its processes were killed") from None
        if server is not None:  # anything it left running
            server.kill(token)
    error = None if proc.returncode == 0 else f"exit status {proc.returncode}"
    return RunResult(((0, stdout),) if stdout else (), error, stderr[-4000:], time.perf_counter() - started)
