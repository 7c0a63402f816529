"""A topic page as a Jupyter notebook, generated from its parsed entries (never edited by hand).

One title cell, then per entry a Markdown cell (the heading, the code line, the fields and a link
back to the entry on the site) and its examples as code cells. A code cell carries the output
the tests verified on CPU (its `#>` and `#cpu>` lines), so the downloaded notebook shows it before
anything runs; the output lines themselves are taken out of the code. A shell example becomes a
Markdown cell with the command, since it runs in a terminal, next to its script.
"""

from __future__ import annotations

from pathlib import Path

import nbformat

from cheatsheet.model.pages import OUTPUT_LINE, Entry, Fence, Page

TEXT = {
    "zh": {"intro": "由网站页面 {url} 自动生成。每个代码单元是一个条目的示例，附带的输出是测试在 CPU 上核对过的结果。",
           "link": "在网站上查看这一条", "terminal": "在终端中运行（脚本见上）：", "cuda": "这个示例需要 CUDA。"},
    "en": {"intro": "Generated from the site page {url}. Each code cell is one entry's example; the output shown with it is what the tests verified on CPU.",
           "link": "See this entry on the site", "terminal": "Run in a terminal (the script is above):", "cuda": "This example needs CUDA."},
}


def _entry_markdown(page: Page, entry: Entry) -> str:
    """The entry's Markdown up to its example marker: heading, code line and fields."""
    lines = page.text.splitlines()[entry.line - 1:(entry.example_marker_line or entry.end_line) - 1]
    lines[0] = "### " + entry.title
    return "\n".join(lines).strip()


def _code(fence: Fence) -> str:
    return "\n".join(line for line in fence.code.splitlines() if not OUTPUT_LINE.match(line)).strip()


def topic_notebook(page: Page, page_url: str, snippets: Path) -> nbformat.NotebookNode:
    text = TEXT[page.lang]
    title = page.title
    cells = [nbformat.v4.new_markdown_cell(f"# {title}\n\n{text['intro'].format(url=page_url)}")]
    for entry in page.entries:
        cells.append(nbformat.v4.new_markdown_cell(f"{_entry_markdown(page, entry)}\n\n[{text['link']}]({page_url}#{entry.id})"))
        for fence in entry.fences:
            if fence.role == "include":
                script = (snippets / fence.include).read_text("utf-8")
                cells.append(nbformat.v4.new_markdown_cell(f"`{fence.include}`\n\n```python\n{script.strip()}\n```"))
            elif fence.role == "example" and fence.lang == "bash":
                cells.append(nbformat.v4.new_markdown_cell(f"{text['terminal']}\n\n```bash\n{_code(fence)}\n```"))
            elif fence.role == "example":
                cell = nbformat.v4.new_code_cell(_code(fence))
                if fence.requires_cuda:
                    cells.append(nbformat.v4.new_markdown_cell(text["cuda"]))
                else:
                    printed = "".join(f"{line}\n" for line in fence.expected_output("cpu"))
                    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=printed)] if printed else []
                cells.append(cell)
    metadata = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
                "language_info": {"name": "python"}}
    return nbformat.v4.new_notebook(cells=cells, metadata=metadata)


def is_topic(page: Page) -> bool:
    return page.kind == "topic" and bool(page.entries)
