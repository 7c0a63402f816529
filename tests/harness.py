"""The harness that turns cheat-sheet entries into tests.

pytest-markdown-docs collects the Python fences of the pages (superfences syntax, set in
pytest.ini). This plugin gives each collected fence its role in the entry it belongs to:

* the code line            -> `<id>[code-line]`: must parse; its torch names must exist
* an example               -> `<id>[cpu]` and `<id>[cuda]`: run, output checked against `#>` lines
* a `--8<--` include       -> `<id>[snippet]`: the snippets/ file must exist and parse
* a shell example (bash)   -> `<id>[shell-cpu]` / `<id>[shell-cuda]`: run from a copy of snippets/

Each example runs in a fresh namespace and a fresh temporary directory, with warnings raised as
errors and torch's global settings restored afterwards. The CPU run hides any GPU
(`torch.cuda.is_available()` is False), so device-agnostic code really takes its CPU path.
"""

from __future__ import annotations

import contextlib
import difflib
import gc
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path
from unittest import mock

import pytest
import torch
from pytest_markdown_docs.plugin import MarkdownInlinePythonItem

sys.path.insert(0, str(Path(__file__).resolve().parent))
from entry_format import (  # noqa: E402
    SNIPPETS,
    Fence,
    check_code_line,
    check_snippet,
    display,
    parse_page,
)

CUDA = torch.cuda.is_available()
NPROC_PER_NODE = re.compile(r"--nproc[-_]per[-_]node[= ](\d+)")
NO_CUDA_REASON = "no CUDA device on this machine: the CUDA run of this example happens only on a GPU machine"
NEEDS_CUDA_REASON = "example needs CUDA (fence option requires-cuda); it runs only on a GPU machine"


def _page_lang(path: Path) -> str | None:
    """"zh" or "en" for a page under docs/<lang>/ (of this repo or a test's temporary one)."""
    parts = Path(path).resolve().parts
    for docs, lang in zip(parts, parts[1:]):
        if docs == "docs" and lang in ("zh", "en"):
            return lang
    return None


class ExampleFailure(Exception):
    """Printed output differs from the `#>` lines."""


@contextlib.contextmanager
def hide_accelerators():
    """Make device-agnostic examples take their CPU path even on a GPU machine."""
    with contextlib.ExitStack() as stack:
        for target, value in [
            ("torch.cuda.is_available", False),
            ("torch.cuda.device_count", 0),
            ("torch.backends.mps.is_available", False),
            ("torch.accelerator.is_available", False),
            ("torch.accelerator.device_count", 0),
            ("torch.accelerator.current_accelerator", None),
        ]:
            stack.enter_context(mock.patch(target, return_value=value))
        yield


@contextlib.contextmanager
def restored_torch_state():
    """Undo the global settings an example may change, so examples cannot leak into each other."""
    saved = dict(
        dtype=torch.get_default_dtype(),
        threads=torch.get_num_threads(),
        grad=torch.is_grad_enabled(),
        anomaly=torch.is_anomaly_enabled(),
        deterministic=torch.are_deterministic_algorithms_enabled(),
        warn_only=torch.is_deterministic_algorithms_warn_only_enabled(),
        precision=torch.get_float32_matmul_precision(),
        cudnn_benchmark=torch.backends.cudnn.benchmark,
        cudnn_deterministic=torch.backends.cudnn.deterministic,
        env=dict(os.environ),
    )
    try:
        yield
    finally:
        torch.set_default_dtype(saved["dtype"])
        torch.set_default_device(None)
        torch.set_num_threads(saved["threads"])
        torch.set_grad_enabled(saved["grad"])
        torch.autograd.set_detect_anomaly(saved["anomaly"])
        torch.use_deterministic_algorithms(saved["deterministic"], warn_only=saved["warn_only"])
        torch.set_float32_matmul_precision(saved["precision"])
        torch.backends.cudnn.benchmark = saved["cudnn_benchmark"]
        torch.backends.cudnn.deterministic = saved["cudnn_deterministic"]
        torch.set_printoptions(profile="default")
        os.environ.clear()
        os.environ.update(saved["env"])


def compare_output(expected: list[str], printed: str) -> None:
    actual = [line.rstrip() for line in printed.rstrip("\n").splitlines()] if printed.strip() else []
    expected = [line.rstrip() for line in expected]
    if actual != expected:
        diff = "\n".join(difflib.unified_diff(expected, actual, "expected (#> lines)", "actual (printed)", lineterm=""))
        shown = "\n".join(f"#> {line}" if line else "#>" for line in actual)
        raise ExampleFailure(f"printed output differs from the #> lines:\n{diff}\n\nWhat it printed, as #> lines:\n{shown}")


class EntryItemMixin:
    entry_id: str
    fence_line: int
    fence: Fence
    device: str

    def skip_unless_runnable(self) -> None:
        """Skip, with the reason, a run this machine cannot do; never report it as passed."""
        if self.device == "cpu" and self.fence.requires_cuda:
            pytest.skip(NEEDS_CUDA_REASON)
        if self.device == "cuda" and not CUDA:
            pytest.skip(NO_CUDA_REASON)

    def reportinfo(self):
        return self.path, self.fence_line - 1, f"{self.path.name}::{self.name}"

    def _where(self) -> str:
        return f"{display(self.path)}:{self.fence_line}: [{self.entry_id}]"


class ExampleItem(EntryItemMixin, MarkdownInlinePythonItem):
    """One example fence, run on one device."""

    def __init__(self, *, entry_id, fence, device, **kwargs):
        super().__init__(**kwargs)
        self.entry_id = entry_id
        self.fence = fence
        self.fence_line = fence.line
        self.device = device
        self.add_marker(device)

    def setup(self):
        self.skip_unless_runnable()
        super().setup()

    def runtest(self):
        code = compile(self.code, str(self.path), "exec", dont_inherit=True)
        namespace = {"__name__": "__main__"}
        printed = io.StringIO()
        capman = self.config.pluginmanager.getplugin("capturemanager")
        with contextlib.ExitStack() as stack:
            workdir = stack.enter_context(tempfile.TemporaryDirectory(prefix="example-"))
            stack.enter_context(restored_torch_state())
            stack.enter_context(contextlib.chdir(workdir))
            if self.device == "cpu":
                stack.enter_context(hide_accelerators())
            else:
                torch.cuda.empty_cache()
                torch.cuda.reset_peak_memory_stats()
            stack.enter_context(warnings.catch_warnings())
            warnings.simplefilter("error")
            torch.seed()  # a fresh interpreter starts from an unpredictable seed, so do we
            stack.enter_context(capman.global_and_fixture_disabled())
            stack.enter_context(contextlib.redirect_stdout(printed))
            exec(code, namespace)
            if self.device == "cuda":
                torch.cuda.synchronize()  # surface asynchronous CUDA errors here
        del namespace
        gc.collect()
        compare_output(self.fence.expected_output(self.device), printed.getvalue())

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, ExampleFailure):
            return f"{self._where()} example on {self.device}: {excinfo.value}"
        return f"{self._where()} example on {self.device} raised:\n" + super().repr_failure(excinfo, style)


class CheckItem(EntryItemMixin, pytest.Item):
    """A static check of one fence: code line or snippet include."""

    def __init__(self, *, entry_id, fence, check, **kwargs):
        super().__init__(**kwargs)
        self.entry_id = entry_id
        self.fence = fence
        self.fence_line = fence.line
        self.check = check

    def runtest(self):
        problems = self.check(self.fence)
        if problems:
            raise ExampleFailure("\n".join(f"{display(self.path)}:{line}: [{self.entry_id}] {code} {msg}" for line, code, msg in problems))

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, ExampleFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)


class ShellItem(EntryItemMixin, pytest.Item):
    """A shell example: run with bash in a temporary copy of snippets/."""

    def __init__(self, *, entry_id, fence, device, **kwargs):
        super().__init__(**kwargs)
        self.entry_id = entry_id
        self.fence = fence
        self.fence_line = fence.line
        self.device = device
        self.add_marker(device)
        self.add_marker(pytest.mark.timeout(600))

    def setup(self):
        self.skip_unless_runnable()
        processes = max(map(int, NPROC_PER_NODE.findall(self.fence.code)), default=1)
        if self.device == "cuda" and torch.cuda.device_count() < processes:
            # nccl needs one GPU per process; with fewer, the scripts fall back to gloo on CPU,
            # which the CPU run already covers.
            pytest.skip(f"needs {processes} GPUs (one per process for nccl), this machine has {torch.cuda.device_count()}")

    def runtest(self):
        env = dict(os.environ)
        env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
        # As for Python examples, a warning fails the run; runpy's notice that `python -m
        # torch.utils.collect_env` was imported by its package first is torch's layout, not the example's.
        env["PYTHONWARNINGS"] = "error,ignore::RuntimeWarning:runpy"
        if self.device == "cpu":
            env["CUDA_VISIBLE_DEVICES"] = ""  # a real process: hide the GPU the honest way
        with tempfile.TemporaryDirectory(prefix="shell-example-") as workdir:
            shutil.copytree(SNIPPETS, workdir, dirs_exist_ok=True)
            proc = subprocess.run(
                ["bash", "-euo", "pipefail", "-c", self.fence.code],
                cwd=workdir, env=env, capture_output=True, text=True,
            )
        if proc.returncode != 0:
            raise ExampleFailure(f"exit status {proc.returncode}\n--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr[-4000:]}")
        compare_output(self.fence.expected_output(self.device), proc.stdout)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, ExampleFailure):
            return f"{self._where()} shell example on {self.device}: {excinfo.value}"
        return super().repr_failure(excinfo, style)


class ShellFences(pytest.File):
    """Collects the shell examples of a page (pytest-markdown-docs collects only Python)."""

    def collect(self):
        page = parse_page(self.path, _page_lang(self.path))
        for entry in page.entries:
            shells = [f for f in entry.examples if f.is_shell]
            for n, fence in enumerate(shells, start=1):
                suffix = f"#{n}" if len(shells) > 1 else ""
                for device in ("cpu", "cuda"):
                    yield ShellItem.from_parent(self, name=f"{entry.label}{suffix}[shell-{device}]", entry_id=entry.label, fence=fence, device=device)


def pytest_collect_file(file_path, parent):
    if file_path.suffix == ".md" and _page_lang(file_path):
        page = parse_page(file_path, _page_lang(file_path))
        if any(f.is_shell for e in page.entries for f in e.examples):
            return ShellFences.from_parent(parent, path=file_path)
    return None


def _entry_items(item: MarkdownInlinePythonItem) -> list[pytest.Item]:
    """Replace a fence collected by pytest-markdown-docs with the tests its role calls for."""
    lang = _page_lang(item.path)
    if lang is None:
        return [item]
    page = parse_page(item.path, lang)
    entry, fence = page.fence_at(item.start_line)
    if entry is None or fence is None:
        return [item]  # a fence outside any entry runs as plain pytest-markdown-docs test
    parent, definition = item.parent, item.test_definition
    if fence is entry.code_line:
        return [CheckItem.from_parent(parent, name=f"{entry.label}[code-line]", entry_id=entry.label, fence=fence, check=check_code_line)]
    if fence.snippet:
        return [CheckItem.from_parent(parent, name=f"{entry.label}[snippet]", entry_id=entry.label, fence=fence, check=check_snippet)]
    if fence not in entry.examples:
        return []  # a stray fence: the entry checker reports it (ENTRY009)
    python_examples = [f for f in entry.examples if f.is_python and not f.snippet]
    suffix = f"#{python_examples.index(fence) + 1}" if len(python_examples) > 1 else ""
    return [
        ExampleItem.from_parent(parent, name=f"{entry.label}{suffix}[{device}]", test_definition=definition, entry_id=entry.label, fence=fence, device=device)
        for device in ("cpu", "cuda")
    ]


def pytest_collection_modifyitems(session, config, items):
    replaced = []
    for item in items:
        if type(item) is MarkdownInlinePythonItem and item.path.suffix == ".md":
            replaced.extend(_entry_items(item))
        else:
            replaced.append(item)
    items[:] = replaced


def pytest_configure(config):
    config.addinivalue_line("markers", "cpu: the CPU run of an example")
    config.addinivalue_line("markers", "cuda: the CUDA run of an example")
