"""What a check finds: problems, each made knowing its page's file and entry, and the torch names
a page's code uses, which are resolved together at the end (one question to the installed torch)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from cheatsheet.model.pages import Entry, Fence
from cheatsheet.model.rules import Problem

# Asks the installed torch about dotted names: name -> {"exists": bool, "deprecated": message or None}.
Inspect = Callable[[list[str]], dict[str, dict]]


def problem(path: Path, line: int, entry: Entry | str | None, code: str, message: str) -> Problem:
    """`entry`: the entry (or its label) the problem belongs to; None for one outside any entry."""
    label = entry.label if isinstance(entry, Entry) else (entry or "-")
    return Problem(path, line, label, code, message)


@dataclass(frozen=True)
class NameUse:
    """A torch name (or a module run with `python -m`) that code uses, to ask torch about."""

    name: str
    fence: Fence
    path: Path  # the page, or the snippets/ file the fence includes
    line: int
    label: str
    is_module: bool = False


@dataclass
class Findings:
    problems: list[Problem] = field(default_factory=list)
    names: list[NameUse] = field(default_factory=list)

    def extend(self, other: Findings) -> Findings:
        self.problems += other.problems
        self.names += other.names
        return self
