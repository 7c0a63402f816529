"""The one writer of page files: `fill` (the pytest plugin's --update-output), `new` and
`lint-zh --fix` collect their edits here and write them once.

An edit replaces a span of a file's lines (0-based, end exclusive; an insertion is an empty
span). Two edits of one span or of overlapping spans are refused: one fence is never written
twice, and no edit lands inside another.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cheatsheet import display
from cheatsheet.model.pages import Fence


class EditConflict(ValueError):
    pass


@dataclass(frozen=True)
class Edit:
    start: int
    end: int
    lines: tuple[str, ...]
    what: str  # for the conflict message

    def overlaps(self, other: Edit) -> bool:
        if self.start == self.end or other.start == other.end:  # an insertion: at the same place, or inside
            return other.start <= self.start < other.end or self.start <= other.start < self.end or self.start == other.start
        return self.start < other.end and other.start < self.end


class PageEdits:
    def __init__(self):
        self.edits: dict[Path, list[Edit]] = {}
        self.new_files: dict[Path, str] = {}

    def _add(self, path: Path, edit: Edit) -> None:
        path = Path(path).resolve()
        for other in self.edits.setdefault(path, []):
            if edit.overlaps(other):
                raise EditConflict(f"{display(path)}:{edit.start + 1}: {edit.what} would overlap {other.what} "
                                   f"(line {other.start + 1}); one run writes each place once")
        self.edits[path].append(edit)

    def replace_fence(self, fence: Fence, code: str, what: str = "") -> None:
        """The fence's code (between its ``` lines; a recipe's fence is its whole file)."""
        self._add(fence.path, Edit(fence.line, fence.end - 1, tuple(code.rstrip("\n").split("\n")),
                                   what or f"the fence at line {fence.line}"))

    def insert(self, path: Path, before: int, text: str, what: str = "") -> None:
        """Insert lines before the 0-based line `before` (the line count: at the end)."""
        self._add(path, Edit(before, before, tuple(text.split("\n")), what or f"an insertion at line {before + 1}"))

    def replace_file(self, path: Path, text: str, what: str = "") -> None:
        lines = Path(path).read_text("utf-8").split("\n")
        self._add(path, Edit(0, len(lines), tuple(text.split("\n")), what or "the whole file"))

    def create(self, path: Path, text: str) -> None:
        path = Path(path).resolve()
        if path.exists() or path in self.new_files:
            raise EditConflict(f"{display(path)} already exists")
        self.new_files[path] = text

    def write(self) -> list[Path]:
        """Apply every edit, bottom up in each file (the lines above stay where they were)."""
        for path, text in self.new_files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, "utf-8")
        for path, edits in self.edits.items():
            lines = path.read_text("utf-8").split("\n")
            for edit in sorted(edits, key=lambda e: (-e.start, -e.end)):
                lines[edit.start:edit.end] = edit.lines
            path.write_text("\n".join(lines), "utf-8")
        written = sorted({*self.new_files, *self.edits})
        self.edits, self.new_files = {}, {}
        return written
