"""Linters that well-kept tools already provide: ruff for Python, AutoCorrect for Chinese text."""

import subprocess
import sys
from pathlib import Path

from cheatsheet import ROOT
from cheatsheet.lint_zh import problems

PYTHON = ["cheatsheet", "tests", "snippets", "overrides"]


def test_python_style_ruff():
    ruff = Path(sys.executable).parent / "ruff"
    proc = subprocess.run([str(ruff), "check", *PYTHON], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr + f"\nFix with: .venv/bin/ruff check --fix {' '.join(PYTHON)}"


def test_chinese_copywriting_autocorrect():
    found = problems()
    assert not found, "\n".join(found) + "\nFix with: .venv/bin/python -m cheatsheet lint-zh --fix"
