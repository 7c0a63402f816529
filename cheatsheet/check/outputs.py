"""An example's output lines: the one function that says what the fence should show after a run.

A run reports what each top-level statement printed, keyed by the file line where the statement
ends. `expected_code` writes each statement's output right after it: `#>` where every device that
runs the fence printed the same, `#cpu>` / `#cuda>` where they differ. A statement whose lines
are written per release (`#torch<2.13>`, `#torch>=2.13>`) keeps them as they are when this run's
release prints what its lines say; otherwise the other releases' lines stay and this run's output
takes the place of this release's. The test passes when that
string equals the fence as the page shows it (`mismatch` is None); otherwise it fails with the
diff between the two, and `--update-output` / `python -m cheatsheet fill` writes that same string.
"""

from __future__ import annotations

import ast
import difflib
import re
from dataclasses import dataclass

from cheatsheet.model.pages import OUTPUT_LINE, Fence, output_applies

HUNK = re.compile(r"^@@ -(\d+)")


def statement_ends(fence: Fence) -> list[int]:
    """0-based indexes (into the fence's lines) of the last line of each top-level statement."""
    lines = fence.code.splitlines()
    if fence.lang != "python":  # a shell example is one statement: all of its commands
        code_lines = [i for i, line in enumerate(lines) if not OUTPUT_LINE.match(line) and line.strip()]
        return [code_lines[-1]] if code_lines else []
    return [stmt.end_lineno - 1 for stmt in ast.parse(fence.code).body]


def by_statement(fence: Fence, outputs: tuple[tuple[int, str], ...]) -> list[list[str]]:
    """A run's output split per statement; `outputs` lines are file lines (python) or 0 (shell)."""
    ends = statement_ends(fence)
    per_statement: list[list[str]] = [[] for _ in ends]
    for line, text in outputs:
        index = ends.index(line - fence.line - 1) if fence.lang == "python" else len(ends) - 1
        per_statement[index].extend(part.rstrip() for part in text.rstrip("\n").split("\n"))
    return per_statement


def _blocks(fence: Fence, ends: list[int]) -> list[list[str]]:
    """Each statement's output lines as the page writes them."""
    blocks: list[list[str]] = [[] for _ in ends]
    for i, line in enumerate(fence.code.splitlines()):
        if OUTPUT_LINE.match(line) and ends:
            blocks[max([k for k, end in enumerate(ends) if end < i], default=0)].append(line)
    return blocks


def _shown(fence: Fence, device: str, ends: list[int], release: str | None) -> tuple[list[list[str]], list[bool]]:
    """The output lines the fence shows now for `device` and `release`, per statement, and per
    statement whether its lines are written per device (any `#cpu>` / `#cuda>`), not only shared."""
    per_statement: list[list[str]] = [[] for _ in ends]
    per_device = [False for _ in ends]
    for k, block in enumerate(_blocks(fence, ends)):
        for line in block:
            m = OUTPUT_LINE.match(line)
            per_device[k] |= m.group(1) is not None
            if output_applies(m, device, release):
                per_statement[k].append(m.group(4) or "")
    return per_statement, per_device


def _per_release_lines(block: list[str], views: dict[str, list[str]], release: str | None) -> list[str]:
    """A statement written per release: as it is where this run printed what this release's lines
    say; else the other releases' lines, then what this run printed under this release's condition."""
    first, *rest = views.values()
    if any(view != first for view in rest):
        raise Unplaceable("a statement whose output lines are written per release prints differently on each "
                          "device. Write its lines for every release alike (`#torch<...>` / `#torch>=...>`, no "
                          "`#cpu>` / `#cuda>` among them), or print something the devices share")
    matches = [OUTPUT_LINE.match(line) for line in block]
    if [m.group(4) or "" for m in matches if output_applies(m, None, release)] == first:
        return block
    if release is None:
        raise Unplaceable("the torch release of this run is unknown, so which per-release lines it should print is too")
    mine = next((m for m in matches if m.group(2) and output_applies(m, None, release)), None)
    marker = f"#torch{mine.group(2)}{mine.group(3)}>" if mine else "#>"
    kept = [line for line, m in zip(block, matches) if not output_applies(m, None, release)]
    return kept + [f"{marker} {text}".rstrip() for text in first]


def _output_lines(views: dict[str, list[str]]) -> list[str]:
    """One statement's output lines from what each device shows: `#>` for the lines all share
    (at the start and at the end), `#<device>>` for the rest."""
    first, *rest = views.values()
    if all(view == first for view in rest):
        return [f"#> {text}".rstrip() for text in first]
    shortest = min(len(view) for view in views.values())
    head = next((i for i in range(shortest) if any(view[i] != first[i] for view in rest)), shortest)
    tail = next((i for i in range(shortest - head) if any(view[-1 - i] != first[-1 - i] for view in rest)), shortest - head)
    out = [f"#> {text}".rstrip() for text in first[:head]]
    for device, view in views.items():
        out += [f"#{device}> {text}".rstrip() for text in view[head:len(view) - tail]]
    return out + [f"#> {text}".rstrip() for text in first[len(first) - tail:]]


class Unplaceable(ValueError):
    """Lines of a device that did not run sit under a statement whose output, on the device that
    ran, is not what the page shows there: which statement prints them is unknown from this run."""


def expected_code(fence: Fence, runs: dict[str, tuple[tuple[int, str], ...]], release: str | None = None) -> str:
    """The fence's code with its output lines written from `runs` (device -> a run's outputs) on
    torch `release` (2.14.1+cu130; the per-release lines of the others stay as they are).

    A device that did not run keeps what a statement shows for it where the statement's lines are
    written per device (`#cpu>` / `#cuda>`); where they are shared (`#>`) or absent, it is taken to
    print what the run printed. Until it runs there, the verification record says it has not (its
    row no longer matches the code). Raises Unplaceable where that cannot be known."""
    devices = fence.devices()
    ends = statement_ends(fence)
    printed = {d: by_statement(fence, outputs) for d, outputs in runs.items()}
    ran = next(d for d in devices if d in printed)
    shown_ran, _ = _shown(fence, ran, ends, release)
    blocks = _blocks(fence, ends)
    per_release = [any(OUTPUT_LINE.match(line).group(2) for line in block) for block in blocks]
    per_device = {}
    for d in devices:
        if d in printed:
            per_device[d] = printed[d]
            continue
        old, specific = _shown(fence, d, ends, release)
        for k in range(len(ends)):
            if specific[k] and old[k] and len(shown_ran[k]) != len(printed[ran][k]):
                raise Unplaceable(f"the `#{d}>` lines after line {fence.line + 1 + ends[k]} sit under a statement "
                                  f"whose {ran} output is not the one shown there. "
                                  f"Put each output line right under the statement that prints it "
                                  f"(`#>` for all devices, `#{d}>` for one), then run again")
        per_device[d] = [old[k] if specific[k] else printed[ran][k] for k in range(len(ends))]
    out = []
    for i, line in enumerate(fence.code.splitlines()):
        if OUTPUT_LINE.match(line):
            continue
        out.append(line)
        if i not in ends:
            continue
        k = ends.index(i)
        views = {d: per_device[d][k] for d in devices}
        out += _per_release_lines(blocks[k], views, release) if per_release[k] else _output_lines(views)
    return "\n".join(out) + "\n"


@dataclass(frozen=True)
class Mismatch:
    diff: str  # unified: `-` the page, `+` what the run says it should be
    line: int  # file line of the first difference


def mismatch(fence: Fence, expected: str) -> Mismatch | None:
    """How the fence differs from `expected` (from `expected_code`), or None when it does not."""
    if fence.code == expected:
        return None
    page, should = fence.code.splitlines(), expected.splitlines()
    diff = list(difflib.unified_diff(page, should, "the page", "after this run", n=1, lineterm=""))
    first = 0
    if diff:  # the hunk's first line, then its context lines, up to the first change
        hunk = next(i for i, text in enumerate(diff) if HUNK.match(text))
        first = int(HUNK.match(diff[hunk]).group(1)) - 1
        for text in diff[hunk + 1:]:
            if text[:1] in "-+":
                break
            first += 1
    else:  # only line endings differ (a missing final newline)
        diff = ["(the fence differs only in its line endings)"]
        first = len(page) - 1
    return Mismatch("\n".join(diff), fence.line + 1 + first)
