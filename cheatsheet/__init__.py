"""The machinery of the PyTorch cheat sheet, in layers (see ARCHITECTURE.md):

model/  languages and devices, the page model, the rules table, the verification record
check/  the entry checker and the expected output lines of an example
run/    the sandboxed example runner (worker processes per device), apart from pytest
pytest_plugin.py  pages as tests; site/  the MkDocs plugin; tools/  the contributor tools
"""

from pathlib import Path

from cheatsheet.project import REPO


def display(path: Path, root: Path = REPO) -> str:
    """A path as messages show it: relative to the repository when it is inside it."""
    try:
        return str(Path(path).resolve().relative_to(root))
    except ValueError:
        return str(path)
