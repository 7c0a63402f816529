"""The recipe pages (docs/<lang>/recipes/*.py, rendered by mkdocs-jupyter).

- They load nothing from other hosts: nbconvert's template adds a MathJax loader and a Mermaid
  loader that imports from a CDN. The recipes have neither math nor diagrams, so both go.
- Under the title, a line says what the verification record holds for the recipe (it ran as one
  program; on which torch releases and devices; or that its code changed since), and links the
  notebook.
- Each recipe is also written as a notebook (<name>.ipynb beside the page) by jupytext.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import jupytext
import nbformat

from cheatsheet.model.pages import page_kind
from cheatsheet.model.record import Verdict
from cheatsheet.site.entry_status import compact

LOADERS = re.compile(
    r'<script src="">\s*</script>|<script type="text/x-mathjax-config">.*?</script>'
    r'|<script type="module">(?:(?!</script>).)*?cdnjs\.cloudflare\.com.*?</script>',
    re.S,
)


def is_recipe(src_uri: str) -> bool:
    return page_kind(src_uri) == "recipe" and src_uri.startswith("recipes/")


def without_loaders(html: str) -> str:
    return LOADERS.sub("", html)


def verification_line(verdicts: list[Verdict], strings: Mapping[str, str]) -> str:
    """What the record holds for the recipe, never more (HTML): the matrix's row for it, compact
    as under an entry's heading (cheatsheet.site.entry_status.compact)."""
    if all(v.state == "missing" for v in verdicts):  # no row at all: no run
        return strings["recipe.none"]
    key = "recipe.ran" if any(v.state == "passed" for v in verdicts) else "recipe.unchecked"
    return strings[key].format(runs=compact(verdicts, strings))


def note(verdicts: list[Verdict], src_uri: str, strings: Mapping[str, str]) -> str:
    """The paragraph under the recipe's title: its verification line and the notebook's link."""
    return (f'<p class="recipe-verification">{verification_line(verdicts, strings)} '
            f'<a class="md-button notebook-download" href="../{Path(src_uri).stem}.ipynb" download>'
            f'{strings["notebook.download"]}</a></p>')


def notebook(src: Path) -> nbformat.NotebookNode:
    """The recipe as a standalone notebook."""
    book = jupytext.read(src)
    book.metadata.pop("jupytext", None)  # no pairing with our .py
    book.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return book


def write_notebook(src: Path, dest: Path) -> None:
    jupytext.write(notebook(src), dest)
