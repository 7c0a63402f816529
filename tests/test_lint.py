"""Linters that well-kept tools already provide: ruff for Python, AutoCorrect for Chinese text."""

import subprocess
import sys
from pathlib import Path

from lint_chinese import problems

ROOT = Path(__file__).resolve().parent.parent


def test_python_style_ruff():
    ruff = Path(sys.executable).parent / "ruff"
    proc = subprocess.run([str(ruff), "check", "snippets", "tests", "overrides"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr + "\nFix with: .venv/bin/ruff check --fix snippets tests overrides"


def test_chinese_copywriting_autocorrect():
    found = problems()
    assert not found, "\n".join(found) + "\nFix with: .venv/bin/python tests/lint_chinese.py --fix"
