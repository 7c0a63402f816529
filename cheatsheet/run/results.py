"""What passes between a worker, the runner and its callers: frozen, typed, picklable without
torch (the parent process never imports it)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ExampleTask:
    """A Python example: its code as the page shows it, and where it starts in its file."""

    code: str
    filename: str
    first_line: int  # 1-based line of the opening ``` (0 for a recipe: the fence is the file)
    # (import name, distribution) for each distribution the project's requirements.txt lists: an
    # example whose own import of one of these modules fails is skipped, not failed
    listed: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class NamesTask:
    """Ask the installed torch about dotted names (exists? deprecated?)."""

    names: tuple[str, ...]


@dataclass(frozen=True)
class RunResult:
    """One example's run on one device.

    `outputs`: what each top-level statement printed, keyed by the file line where it ends (a
    shell example has one key, 0). `skip`: why it did not run here (then nothing else is set but `leaked`): a requirement the
    environment lacks, say."""

    outputs: tuple[tuple[int, str], ...] = ()
    error: str | None = None
    stderr: str = ""
    seconds: float = 0.0
    leaked: tuple[str, ...] = ()  # settings the example changed that could not be put back
    skip: str | None = None
    missing: str | None = None  # with `skip`: the listed distribution whose module is not installed
    gpus: int = 0  # with `skip`: the GPUs the example needs (one per process for nccl), more than this machine has

    @property
    def printed(self) -> list[str]:
        """Everything it printed, as lines (trailing spaces dropped)."""
        text = "".join(text for _, text in self.outputs)
        return [line.rstrip() for line in text.rstrip("\n").split("\n")] if text.strip() else []


@dataclass(frozen=True)
class WorkerInfo:
    """What a worker reports on starting."""

    torch: str
    python: str
    pid: int
    cuda_available: bool
    device_count: int
    device_name: str
