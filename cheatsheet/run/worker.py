"""An example worker: a process that imports torch once and runs examples one at a time.

Started by cheatsheet.run.pool with the environment already reduced to the allowlist and, for the CPU
worker, CUDA_VISIBLE_DEVICES="" set before Python starts, so torch never sees a GPU. Each example
runs in a fresh namespace, with a fresh temporary directory as its working directory and HOME,
warnings raised as errors, no network but localhost, and torch's global settings put back
afterwards. What it prints is captured at the file-descriptor level (Python and C output alike),
statement by statement, so the same run serves both checking and filling in `#>` lines.

Protocol: the parent sends dicts over a pipe and gets one dict back per task. Hangs are the
parent's business: it kills this process from outside and starts another.
"""

from __future__ import annotations

import ast
import contextlib
import ctypes
import gc
import os
import platform
import random
import shutil
import sys
import tempfile
import time
import traceback
import warnings
from multiprocessing.connection import Connection

from cheatsheet.run.results import NamesTask, RunResult, WorkerInfo

_libc = ctypes.CDLL(None)


class FdCapture:
    """Everything written to a file descriptor (1 or 2), read back in pieces without moving the
    writer's offset."""

    def __init__(self, fd: int):
        self.fd = fd
        self.file = tempfile.TemporaryFile()
        self.saved = os.dup(fd)
        self.pos = 0
        self._flush()
        os.dup2(self.file.fileno(), fd)

    def _flush(self):
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        _libc.fflush(None)

    def read(self) -> str:
        self._flush()
        size = os.fstat(self.file.fileno()).st_size
        data = os.pread(self.file.fileno(), size - self.pos, self.pos)
        self.pos = size
        return data.decode("utf-8", errors="replace")

    def close(self) -> str:
        rest = self.read()
        os.dup2(self.saved, self.fd)
        os.close(self.saved)
        self.file.close()
        return rest


# --- torch's global state --------------------------------------------------------------

def _state_accessors(torch):
    """(name, get, set) for each global setting an example may change."""
    backends = torch.backends
    options = ("precision", "threshold", "edgeitems", "linewidth", "sci_mode")
    items = [
        ("default_dtype", torch.get_default_dtype, torch.set_default_dtype),
        ("default_device", lambda: str(torch.get_default_device()),
         lambda v: torch.set_default_device(None if v == "cpu" else v)),
        ("num_threads", torch.get_num_threads, torch.set_num_threads),
        ("grad_enabled", torch.is_grad_enabled, torch.set_grad_enabled),
        ("anomaly", torch.is_anomaly_enabled, torch.autograd.set_detect_anomaly),
        ("warn_always", torch.is_warn_always_enabled, torch.set_warn_always),
        ("deterministic",
         lambda: (torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled()),
         lambda v: torch.use_deterministic_algorithms(v[0], warn_only=v[1])),
        ("float32_matmul_precision", torch.get_float32_matmul_precision, torch.set_float32_matmul_precision),
        ("printoptions", lambda: {o: getattr(torch._tensor_str.PRINT_OPTS, o) for o in options},
         lambda v: torch.set_printoptions(**v)),
    ]
    switches = [
        ("cudnn", backends.cudnn, ("benchmark", "deterministic", "enabled", "allow_tf32")),
        ("cuda.matmul", backends.cuda.matmul,
         ("allow_tf32", "allow_fp16_reduced_precision_reduction", "allow_bf16_reduced_precision_reduction")),
        # The newer per-backend precision API (2.9+), restored through itself: mixing it with the
        # switches above raises.
        ("backends", backends, ("fp32_precision",)),
        ("cuda.matmul", backends.cuda.matmul, ("fp32_precision",)),
        ("cudnn", backends.cudnn, ("fp32_precision",)),
        # older releases (before 2.9) have neither the attribute nor these sub-modules
        ("cudnn.conv", getattr(backends.cudnn, "conv", None), ("fp32_precision",)),
        ("cudnn.rnn", getattr(backends.cudnn, "rnn", None), ("fp32_precision",)),
        ("mkldnn", backends.mkldnn, ("fp32_precision",)),
    ]
    for label, owner, attrs in switches:
        for attr in attrs:
            if owner is not None and hasattr(owner, attr):
                items.append((f"{label}.{attr}", lambda o=owner, a=attr: getattr(o, a),
                              lambda v, o=owner, a=attr: setattr(o, a, v)))
    return items


def snapshot(accessors) -> dict:
    state = {}
    for name, get, _ in accessors:
        try:
            state[name] = get()
        except Exception as e:  # reading an old switch after the new API was used raises
            state[name] = f"<unreadable: {type(e).__name__}>"
    return state


def restore(accessors, saved: dict) -> list[str]:
    """Put back what changed; returns the settings that could not be put back. The old TF32
    switches and the newer per-backend precision API drive each other, and mixing them raises:
    put back in list order (old first) and, if something still differs, in reverse (new first)."""
    leaked: list[str] = []
    for order in (accessors, accessors[::-1]):
        for name, get, set_ in order:
            try:
                if get() != saved[name]:  # read afresh: putting one back may have put back another
                    set_(saved[name])
            except Exception:
                pass  # the other order may succeed
        after = snapshot(accessors)
        leaked = [name for name in saved if after[name] != saved[name]]
        if not leaked:
            break
    return leaked


# --- running one example -----------------------------------------------------------------

class Sandbox:
    """Per-example isolation inside a long-lived worker."""

    def __init__(self, torch, device: str):
        self.torch = torch
        self.device = device
        self.accessors = _state_accessors(torch)
        self.pristine = snapshot(self.accessors)

    @contextlib.contextmanager
    def example(self):
        torch = self.torch
        workdir = tempfile.mkdtemp(prefix="example-")
        env, cwd, path = dict(os.environ), os.getcwd(), list(sys.path)
        # HOME too, so nothing lands in the real one. TMPDIR stays: torch.compile's caches key on it.
        os.environ["HOME"] = workdir
        os.chdir(workdir)
        # A fresh interpreter starts from an unpredictable seed; so does every example.
        torch.seed()
        random.seed()
        if "numpy" in sys.modules:
            sys.modules["numpy"].random.seed()
        if self.device == "cuda":
            torch.cuda.empty_cache()
            torch.cuda.reset_peak_memory_stats()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("always")
                warnings.showwarning = _raise_warning
                yield
        finally:
            os.chdir(cwd)
            os.environ.clear()
            os.environ.update(env)
            sys.path[:] = path
            shutil.rmtree(workdir, ignore_errors=True)

    def reset(self) -> list[str]:
        """Undo global changes; returns what could not be undone (the worker then retires)."""
        torch = self.torch
        if "torch._dynamo" in sys.modules:
            torch._dynamo.reset()
        if self.device == "cuda":
            with contextlib.suppress(Exception):
                torch.cuda.synchronize()
                torch.cuda.set_per_process_memory_fraction(1.0)
        gc.collect()
        gc.freeze()  # what the example imported stays; later collections need not look at it again
        return restore(self.accessors, self.pristine)


def _raise_warning(message, category, filename, lineno, file=None, line=None):
    """Warnings are errors, with one exception: a deprecation warning (DeprecationWarning or
    FutureWarning) that a module raises while library code, not the example, imports it. The
    example did not cause it, and whether it fires depends on which example of the worker first
    made torch import the module (a module that raised stays unimported, so each example would).

    * DeprecationWarning: torch.compile importing torch.utils.mkldnn, which decorates a class with
      the deprecated torch.jit.script_method. A reader never sees it: Python hides
      DeprecationWarnings outside __main__.
    * FutureWarning: from torch 2.14 torch.jit's deprecations are FutureWarnings, and the first
      forward-mode AD call of a process (torch.func.jvp, jacfwd, hessian, linearize: make_dual)
      makes torch.autograd.forward_ad import torch._decomp.decompositions_for_jvp, whose module
      body calls torch.jit.script. Unlike a DeprecationWarning, a reader on 2.14 sees it printed
      once; the entries that reach it say so.

    An example's own deprecated call, or its own import of a module that warns, still fails."""
    if issubclass(category, (DeprecationWarning, FutureWarning)) and _imported_by_library(sys._getframe(1)):
        return
    raise message if isinstance(message, Warning) else category(message)


def _imported_by_library(frame) -> bool:
    """Is this inside an import that library code (not the example, not __main__) started?"""
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            while frame is not None and frame.f_code.co_filename.startswith("<frozen importlib"):
                frame = frame.f_back
            return frame is not None and frame.f_globals.get("__name__") != "__main__"
        frame = frame.f_back
    return False


def _missing_requirement(exc: BaseException, filename: str, listed: tuple[tuple[str, str], ...]) -> str | None:
    """The distribution the project lists (requirements.txt) whose module the example's own import
    statement could not find, or None: a module missing inside a library, a submodule missing
    from an installed package, or a module no requirement provides stays a failure."""
    if not isinstance(exc, ModuleNotFoundError) or not exc.name or "." in exc.name:
        return None
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if not f.filename.startswith("<frozen importlib")]
    if not frames or frames[-1].filename != filename:
        return None
    return next((dist for name, dist in listed if name == exc.name), None)


def _traceback(exc: BaseException, filename: str) -> str:
    """The frames in the page (the example's own lines) and the innermost one, then the error."""
    frames = traceback.extract_tb(exc.__traceback__)
    shown = [f for f in frames if f.filename == filename]
    if frames and frames[-1] not in shown:
        shown.append(frames[-1])
    lines = traceback.format_list(shown) + traceback.format_exception_only(type(exc), exc)
    return "Traceback (most recent call last):\n" + "".join(lines)


def run_example(sandbox: Sandbox, code: str, filename: str, first_line: int,
                listed: tuple[tuple[str, str], ...] = ()) -> RunResult:
    """Run `code` (a fence starting at file line `first_line`) statement by statement. An import
    of a module that a distribution in `listed` provides and this environment lacks is a skip."""
    outputs: list[tuple[int, str]] = []  # (file line where the statement ends, what it printed)
    error = missing = None
    started = time.perf_counter()
    try:
        tree = ast.parse(code, filename)
    except SyntaxError as e:
        return RunResult(error=f"SyntaxError: {e.msg} (line {first_line + (e.lineno or 0)})")
    ast.increment_lineno(tree, first_line)
    stdout, stderr = FdCapture(1), FdCapture(2)
    namespace = {"__name__": "__main__", "__builtins__": __builtins__}
    end = first_line
    try:
        with sandbox.example():
            for stmt in tree.body:
                end = stmt.end_lineno
                exec(compile(ast.Module([stmt], []), filename, "exec", dont_inherit=True), namespace)
                if text := stdout.read():
                    outputs.append((end, text))
            if sandbox.device == "cuda":
                sandbox.torch.cuda.synchronize()  # surface asynchronous CUDA errors here
    except BaseException as e:  # SystemExit and KeyboardInterrupt from an example are failures too
        missing = _missing_requirement(e, filename, listed)
        error = _traceback(e, filename) if missing is None else None
        if text := stdout.read():
            outputs.append((end, text))
    finally:
        stdout.close()
        err_text = stderr.close()
        del namespace
    leaked = sandbox.reset()
    if missing is not None:
        return RunResult(skip=f"needs {missing}, which this environment lacks", missing=missing, leaked=tuple(leaked))
    return RunResult(tuple(outputs), error, err_text[-4000:], time.perf_counter() - started, tuple(leaked))


def describe(torch, device: str) -> WorkerInfo:
    cuda = torch.cuda.is_available()
    if device == "cuda" and cuda:
        major, minor = torch.cuda.get_device_capability(0)
        name = f"{torch.cuda.get_device_name(0)} (sm_{major}{minor})"
    else:
        name = _cpu_model()
    # Plain str: a TorchVersion would make the parent import torch to unpickle it.
    return WorkerInfo(str(torch.__version__), platform.python_version(), os.getpid(), cuda, torch.cuda.device_count(), name)


def _cpu_model() -> str:
    with contextlib.suppress(OSError):
        for line in open("/proc/cpuinfo", encoding="utf-8"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def main() -> None:
    device, task_fd, result_fd = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    tasks, results = Connection(task_fd, writable=False), Connection(result_fd, readable=False)
    import torch

    import cheatsheet.run.netguard.sitecustomize  # noqa: F401  (installs the guard)

    # One intra-op thread: workers run side by side, and examples are far too small to gain from
    # more (their tensors stay under the size at which torch splits work across threads).
    torch.set_num_threads(1)
    sandbox = Sandbox(torch, device)
    gc.collect()
    gc.freeze()  # later collections skip torch's own objects: much faster per example
    results.send(describe(torch, device))
    while True:
        try:
            task = tasks.recv()
        except EOFError:
            return
        if isinstance(task, NamesTask):
            from cheatsheet.check.torch_api import inspect_names

            results.send(inspect_names(list(task.names)))
        else:
            result = run_example(sandbox, task.code, task.filename, task.first_line, task.listed)
            results.send(result)
            if result.leaked:
                return  # settings that could not be put back: let the parent start a clean worker


if __name__ == "__main__":
    main()
