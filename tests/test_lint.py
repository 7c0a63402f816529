"""Linters that well-kept tools already provide: ruff for Python, AutoCorrect for Chinese text."""

import subprocess
import sys
from pathlib import Path

from cheatsheet.project import repo
from cheatsheet.tools.lint_zh import problems

PROJECT = repo()

PYTHON = ["cheatsheet", "benchmarks", "tests", "snippets"]


def test_python_style_ruff():
    ruff = Path(sys.executable).parent / "ruff"
    proc = subprocess.run([str(ruff), "check", *PYTHON], cwd=PROJECT.root, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr + f"\nFix with: .venv/bin/ruff check --fix {' '.join(PYTHON)}"


def test_chinese_copywriting_autocorrect():
    found = problems()
    assert not found, "\n".join(found) + "\nFix with: .venv/bin/python -m cheatsheet lint-zh --fix"


def test_preferred_terms_are_checked_in_prose_and_comments_only():
    from cheatsheet.tools.lint_zh import preferred_terms, vocabulary

    page = ("# 页\n\n按批次读取，每个 epoch 一次；也可写作一轮（epoch），`epoch` 是代码。\n\n"
            "```python\nfor epoch in range(2):  # 每个 epoch\n    pass\n```\n")
    found = vocabulary(page, preferred_terms())
    assert [(line, avoid, use) for line, avoid, use in found] == [(3, "批次", "批量"), (3, "epoch", "轮"), (6, "epoch", "轮")]


def test_the_package_keeps_its_layers():
    """import-linter's layers contract (pyproject.toml, [tool.importlinter]): each layer imports
    only from those below it, the order ARCHITECTURE.md states."""
    lint_imports = Path(sys.executable).parent / "lint-imports"
    proc = subprocess.run([str(lint_imports)], cwd=PROJECT.root, capture_output=True, text=True)
    assert proc.returncode == 0 and "1 kept, 0 broken" in proc.stdout, proc.stdout + proc.stderr
