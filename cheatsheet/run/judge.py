"""An example's run judged: what went wrong, as one problem in the project's format, and the short
note a record row keeps of it. The pytest plugin and `python -m cheatsheet verify` both use it."""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass

from cheatsheet.check.outputs import Mismatch, Unplaceable, expected_code, mismatch
from cheatsheet.model.pages import Entry, Fence
from cheatsheet.model.record import Outcome
from cheatsheet.model.rules import Problem
from cheatsheet.run.pool import TaskTimeout, WorkerDied
from cheatsheet.run.results import RunResult


@dataclass(frozen=True)
class Judgement:
    result: RunResult | None  # None when the run itself died or timed out
    problem: Problem | None = None  # what failed; None when it passed (or was skipped)
    mismatch: Mismatch | None = None  # RUN001: the fence differs from what --update-output writes

    @property
    def outcome(self) -> Outcome:
        """The example's outcome on this device, as a record row counts it."""
        if self.result is not None and self.result.skip:
            return (Outcome.NEEDS_PACKAGE if self.result.missing else Outcome.NEEDS_GPUS if self.result.gpus
                    else Outcome.SKIPPED)
        return Outcome.FAILED if self.problem else Outcome.PASSED

    @property
    def note(self) -> str:
        """The line a record row keeps of a failure: the rule code and the telling line."""
        if self.problem is None:
            return ""
        lines = self.problem.message.splitlines()
        if self.problem.code == "RUN002":  # the exception, as its last traceback line says it
            telling = next((line for line in reversed(lines) if line and not line.startswith((" ", "#>", "---"))), lines[0])
        elif self.mismatch is not None:  # the first line the page shows and the one the run printed instead
            changed = [line for line in self.mismatch.diff.splitlines()[2:] if line[:1] in "-+"]
            telling = " / ".join(changed[:2])
        else:
            telling = lines[0]
        return f"{self.problem.code} {telling}"[:300]


def judge(entry: Entry, fence: Fence, device: str, future: Future, release: str | None = None) -> Judgement:
    """Wait for the run and judge it: a skip, a pass, or the one problem it has. `release`: the
    torch that ran it (its `#torch<...>` / `#torch>=...>` lines are the ones that apply)."""

    def problem(code: str, message: str, line: int | None = None) -> Problem:
        # `or 1`: a recipe's fence is its whole file: line 0
        return Problem(fence.path, line or fence.line or 1, entry.example_name(fence), code, message)

    try:
        result: RunResult = future.result()
    except TaskTimeout as e:
        return Judgement(None, problem("RUN003", f"example on {device}: {e}"))
    except WorkerDied as e:
        return Judgement(None, problem("RUN004", f"example on {device}: {e}"))
    if result.skip:
        return Judgement(result)
    if result.error:
        shown = "\n".join(f"#> {line}".rstrip() for line in result.printed)
        stderr = f"\n--- stderr (last lines)\n{result.stderr.rstrip()}" if result.stderr.strip() else ""
        return Judgement(result, problem("RUN002", f"example on {device} failed:\n{result.error.rstrip()}"
                                         + (f"\n--- printed before the error\n{shown}" if shown else "") + stderr))
    try:
        found = mismatch(fence, expected_code(fence, {device: result.outputs}, release))
    except Unplaceable as e:
        return Judgement(result, problem("RUN001", f"the output lines on {device} cannot be checked: {e}."))
    if found is None:
        return Judgement(result)
    return Judgement(result, problem(
        "RUN001", f"the output lines on {device} are not what the example printed, each under the statement that "
        f"printed it (`-` the page, `+` after this run; `--update-output` writes it):\n{found.diff}", line=found.line), found)
