"""The one table of rule codes, and the one way to report a problem.

Every problem the project reports, from the entry checker, the example runner or the verification
record, is a `Problem` with a code from RULES, printed as `file:line: [entry-id] CODE message`.
A code that is not in the table is itself an error.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cheatsheet import display

# code -> (kind, summary). "check" rules come from reading the pages, "run" rules from running
# examples, "record" rules from the verification record. Each has a fixture in tests/fixtures/rules/.
RULES: dict[str, tuple[str, str]] = {
    "ENTRY001": ("check", "entry heading has no explicit id"),
    "ENTRY002": ("check", "entry id is not lowercase-kebab-case"),
    "ENTRY003": ("check", "entry id is used twice"),
    "ENTRY004": ("check", "entry has no code line"),
    "ENTRY005": ("check", "entry lacks a required field"),
    "ENTRY006": ("check", "entry has no example"),
    "ENTRY007": ("check", "example shows no output"),
    "ENTRY008": ("check", "unknown fence option"),
    "ENTRY009": ("check", "second fence before the example marker"),
    "ENTRY010": ("check", "placeholder text left in an entry"),
    "ENTRY011": ("check", "example fence that would run nowhere"),
    "ENTRY012": ("check", "included script that no example runs"),
    "ENTRY013": ("check", "output lines outside an entry"),
    "PAIR001": ("check", "page exists in one language only"),
    "PAIR002": ("check", "entry ids differ between languages"),
    "PAIR003": ("check", "code differs between languages"),
    "PAIR004": ("check", "section ids differ between languages"),
    "PAGE001": ("check", "section heading has no explicit id"),
    "CODE001": ("check", "code does not parse"),
    "CODE002": ("check", "name or command does not exist"),
    "CODE003": ("check", "deprecated API"),
    "CODE004": ("check", "snippet file missing"),
    "RUN001": ("run", "printed output differs from the output lines"),
    "RUN002": ("run", "example raised an error or exited non-zero"),
    "RUN003": ("run", "example timed out and was killed"),
    "RUN004": ("run", "example worker died"),
    "REC001": ("record", "entry missing from the verification record"),
    "REC002": ("record", "verification row is stale"),
    "REC003": ("record", "verification row for an unknown entry"),
    "REC004": ("record", "verification row records a failure"),
    "REC005": ("record", "CUDA row that no GPU wrote"),
}


class UnknownRule(ValueError):
    pass


@dataclass(frozen=True)
class Problem:
    path: Path
    line: int
    entry_id: str  # "-" for a problem outside any entry
    code: str
    message: str

    def __post_init__(self):
        if self.code not in RULES:
            raise UnknownRule(f"rule code {self.code!r} is not in cheatsheet.rules.RULES; add it there (with a fixture) or use an existing code")

    def __str__(self) -> str:
        return f"{display(self.path)}:{self.line}: [{self.entry_id}] {self.code} {self.message}"
