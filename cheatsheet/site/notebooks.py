"""A topic page as a Jupyter notebook, generated from its parsed entries (never edited by hand).

One title cell, then per entry a Markdown cell (the heading, the code line, the fields and a link
back to the entry on the site) and its examples as code cells. A code cell carries the output
the tests verified on CPU (its `#>` and `#cpu>` lines), so the downloaded notebook shows it before
anything runs; the output lines themselves are taken out of the code. A shell example becomes a
Markdown cell with the command, since it runs in a terminal, next to its script.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from pathlib import Path

import nbformat
from mkdocs.utils import get_relative_url

from cheatsheet.model.pages import OUTPUT_LINE, Entry, Fence, Page
from cheatsheet.site.strings import for_language


def _entry_markdown(page: Page, entry: Entry) -> str:
    """The entry's Markdown up to its example marker: heading, code line and fields."""
    return entry.head_markdown


def _code(fence: Fence) -> str:
    return "\n".join(line for line in fence.code.splitlines() if not OUTPUT_LINE.match(line)).strip()


def topic_notebook(page: Page, page_url: str, snippets: Path, release: str | None = None) -> nbformat.NotebookNode:
    text = for_language(page.lang)
    title = page.title
    cells = [nbformat.v4.new_markdown_cell(f"# {title}\n\n{text['notebook.intro'].format(url=page_url)}")]
    for entry in page.entries:
        link = f"[{text['notebook.link']}]({page_url}#{entry.id})"
        cells.append(nbformat.v4.new_markdown_cell(f"{_entry_markdown(page, entry)}\n\n{link}"))
        for fence in entry.fences:
            if fence.role == "include":
                script = (snippets / fence.include).read_text("utf-8")
                cells.append(nbformat.v4.new_markdown_cell(f"`{fence.include}`\n\n```python\n{script.strip()}\n```"))
            elif fence.role == "example" and fence.lang == "bash":
                cells.append(nbformat.v4.new_markdown_cell(f"{text['notebook.terminal']}\n\n```bash\n{_code(fence)}\n```"))
            elif fence.role == "example":
                cell = nbformat.v4.new_code_cell(_code(fence))
                if fence.requires_cuda:
                    cells.append(nbformat.v4.new_markdown_cell(text["notebook.cuda"]))
                else:
                    # what the pin prints, where the lines differ between releases
                    printed = "".join(f"{line}\n" for line in fence.expected_output("cpu", release))
                    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=printed)] if printed else []
                cells.append(cell)
    metadata = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
                "language_info": {"name": "python"}}
    return nbformat.v4.new_notebook(cells=cells, metadata=metadata)


def is_topic(page: Page) -> bool:
    return page.kind == "topic" and bool(page.entries)


def notebook_path(src_uri: str) -> str:
    """Where a topic page's notebook is written in the site: beside the page's source path."""
    return Path(src_uri).with_suffix(".ipynb").as_posix()


def download_link(src_uri: str, page_url: str, strings: Mapping[str, str]) -> str:
    """The paragraph right after a topic page's title that downloads its notebook."""
    href = get_relative_url(notebook_path(src_uri), page_url)
    link = f'<a class="md-button notebook-download" href="{html.escape(href)}" download>{strings["notebook.download"]}</a>'
    return f"\n<p>{link}</p>"
