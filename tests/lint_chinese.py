"""Chinese copywriting lint (AutoCorrect): spacing and punctuation between CJK and Latin text.

    python tests/lint_chinese.py          # list problems as file:line:col
    python tests/lint_chinese.py --fix    # rewrite the pages in place

Checks docs/zh and snippets/*.md. Code blocks are skipped by AutoCorrect's Markdown rules, except
comments inside them, which it checks too. A line that must stay as it is (a deliberately wrong
example) can be excluded with `<!-- autocorrect-disable-next-line -->` above it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import autocorrect_py

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted([*(ROOT / "docs" / "zh").rglob("*.md"), *(ROOT / "snippets").glob("*.md")])


def problems() -> list[str]:
    found = []
    for path in FILES:
        result = autocorrect_py.lint_for(path.read_text("utf-8"), "markdown")
        for line in result.lines:
            found.append(f"{path.relative_to(ROOT)}:{line.line}:{line.col}: {line.old.strip()!r} -> {line.new.strip()!r}")
    return found


def fix() -> None:
    for path in FILES:
        text = path.read_text("utf-8")
        fixed = autocorrect_py.format_for(text, "markdown")
        if fixed != text:
            path.write_text(fixed, "utf-8")
            print(f"fixed {path.relative_to(ROOT)}")


if __name__ == "__main__":
    if "--fix" in sys.argv[1:]:
        fix()
    report = problems()
    print("\n".join(report) or "no problems")
    sys.exit(1 if report else 0)
