"""Output lines: checking what an example printed against them, and writing them from a run.

A run reports what each top-level statement printed, keyed by the file line where the statement
ends. Checking joins it and compares it with the fence's `#>` / `#<device>>` lines. Writing puts
each statement's output right after it: `#>` where every device that runs the fence printed the
same, `#cpu>` / `#cuda>` where they differ.
"""

from __future__ import annotations

import ast
import difflib

from cheatsheet.model.pages import OUTPUT_LINE, Fence


def printed_lines(outputs: list[tuple[int, str]]) -> list[str]:
    text = "".join(text for _, text in outputs)
    return [line.rstrip() for line in text.rstrip("\n").split("\n")] if text.strip() else []


def output_diff(expected: list[str], actual: list[str]) -> str | None:
    """A unified diff, or None when they match."""
    expected = [line.rstrip() for line in expected]
    if expected == actual:
        return None
    return "\n".join(difflib.unified_diff(expected, actual, "expected (output lines)", "actual (printed)", lineterm=""))


def statement_ends(fence: Fence) -> list[int]:
    """0-based indexes (into the fence's lines) of the last line of each top-level statement."""
    lines = fence.code.splitlines()
    if fence.lang != "python":  # a shell example is one statement: all of its commands
        code_lines = [i for i, line in enumerate(lines) if not OUTPUT_LINE.match(line) and line.strip()]
        return [code_lines[-1]] if code_lines else []
    return [stmt.end_lineno - 1 for stmt in ast.parse(fence.code).body]


def by_statement(fence: Fence, outputs: list[tuple[int, str]]) -> list[list[str]]:
    """A run's output split per statement; `outputs` lines are file lines (python) or 0 (shell)."""
    ends = statement_ends(fence)
    per_statement: list[list[str]] = [[] for _ in ends]
    for line, text in outputs:
        index = ends.index(line - fence.line - 1) if fence.lang == "python" else len(ends) - 1
        per_statement[index].extend(part.rstrip() for part in text.rstrip("\n").split("\n"))
    return per_statement


def existing(fence: Fence, device: str) -> tuple[list[list[str]], list[bool]]:
    """The output lines the fence shows now for `device`, per statement, and per statement
    whether any of them is written for that device only (`#cuda>`), not shared (`#>`)."""
    ends = statement_ends(fence)
    per_statement: list[list[str]] = [[] for _ in ends]
    specific = [False for _ in ends]
    for i, line in enumerate(fence.code.splitlines()):
        m = OUTPUT_LINE.match(line)
        if m and m.group(1) in (None, device) and ends:
            owner = max([k for k, end in enumerate(ends) if end < i], default=0)
            per_statement[owner].append(m.group(2) or "")
            specific[owner] |= m.group(1) == device
    return per_statement, specific


def first_difference(fence: Fence, outputs: list[tuple[int, str]], device: str) -> int | None:
    """The file line of the first statement whose output differs from its output lines."""
    if fence.lang != "python":
        return None
    shown, _ = existing(fence, device)
    for end, expected, printed in zip(statement_ends(fence), shown, by_statement(fence, outputs)):
        if [line.rstrip() for line in expected] != printed:
            return fence.line + 1 + end
    return None


def rewrite(fence: Fence, runs: dict[str, list[list[str]]]) -> str:
    """The fence's code with its output lines written from `runs` (device -> output per statement,
    from `by_statement`; the same for both languages, whose code differs only in comments).

    A device that did not run keeps the lines written for it alone (`#cuda>`); where it shared
    the lines (`#>`) or had none, it is taken to print what the run printed: `#>` lines. Until it
    runs there, the verification record says it has not (its row no longer matches the code)."""
    devices = fence.devices()
    ends = statement_ends(fence)
    ran = next(d for d in devices if d in runs)
    per_device = {}
    for d in devices:
        if d in runs:
            per_device[d] = runs[d]
        else:
            old, specific = existing(fence, d)
            per_device[d] = [old[k] if specific[k] else runs[ran][k] for k in range(len(ends))]
    out = []
    for i, line in enumerate(fence.code.splitlines()):
        if OUTPUT_LINE.match(line):
            continue
        out.append(line)
        if i not in ends:
            continue
        k = ends.index(i)
        shown = [per_device[d][k] for d in devices]
        if all(lines == shown[0] for lines in shown):
            out += [f"#> {text}".rstrip() for text in shown[0]]
        else:
            for d in devices:
                out += [f"#{d}> {text}".rstrip() for text in per_device[d][k]]
    return "\n".join(out) + "\n"
