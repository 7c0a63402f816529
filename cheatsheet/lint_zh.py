"""`python -m cheatsheet lint-zh [--fix]`: Chinese copywriting (AutoCorrect): spacing and punctuation
between CJK and Latin text in docs/zh and snippets/*.md.

Code blocks are skipped by AutoCorrect's Markdown rules, except the comments inside them. A line
that must stay as it is can be excluded with `<!-- autocorrect-disable-next-line -->` above it.
"""

from __future__ import annotations

from pathlib import Path

from . import DOCS, ROOT, SNIPPETS, display


def files(docs: Path = DOCS, snippets: Path = SNIPPETS) -> list[Path]:
    return sorted([*(docs / "zh").rglob("*.md"), *snippets.glob("*.md")])


def problems(paths: list[Path] | None = None) -> list[str]:
    import autocorrect_py

    found = []
    for path in paths or files():
        for line in autocorrect_py.lint_for(path.read_text("utf-8"), "markdown").lines:
            found.append(f"{display(path, ROOT)}:{line.line}:{line.col}: {line.old.strip()!r} -> {line.new.strip()!r}")
    return found


def fix(paths: list[Path] | None = None) -> list[str]:
    import autocorrect_py

    fixed = []
    for path in paths or files():
        text = path.read_text("utf-8")
        new = autocorrect_py.format_for(text, "markdown")
        if new != text:
            path.write_text(new, "utf-8")
            fixed.append(f"fixed {display(path)}")
    return fixed
