"""The machinery of the PyTorch cheat sheet: the page model, the rules, the example runner, the
pytest plugin, the verification record and the contributor tools (`python -m cheatsheet`)."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
SNIPPETS = ROOT / "snippets"
VERIFICATION = ROOT / "verification"


def display(path: Path, root: Path = ROOT) -> str:
    """A path as messages show it: relative to the repository when it is inside it."""
    try:
        return str(Path(path).resolve().relative_to(root))
    except ValueError:
        return str(path)
