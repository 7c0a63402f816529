"""MkDocs hook for the recipe pages (docs/<lang>/recipes/*.py, rendered by mkdocs-jupyter).

- They load nothing from other hosts: nbconvert's template adds a MathJax loader and a Mermaid
  loader that imports from a CDN. The recipes have neither math nor diagrams, so both go.
- Under the title, a line says what the verification record holds for the recipe (it ran as one
  program; on which device and torch; or that its code changed since), and links the notebook.
- Each recipe is also written as a notebook (<name>.ipynb beside the page) by jupytext.
"""

import re
from pathlib import Path

import jupytext

from cheatsheet.model.pages import parse_page, site_lang
from cheatsheet.model.record import load

LOADERS = re.compile(
    r'<script src="">\s*</script>|<script type="text/x-mathjax-config">.*?</script>'
    r'|<script type="module">(?:(?!</script>).)*?cdnjs\.cloudflare\.com.*?</script>',
    re.S,
)
TEXT = {
    "zh": {"ran": "这个实战在测试中作为一个程序完整运行过：{runs}。代码里的 <code>#&gt;</code> 行是那次运行打印的输出。",
           "run": "{device} 上{result}（PyTorch {torch}，{date}）", "passed": "通过", "failed": "失败",
           "none": "这个实战还没有运行记录，代码里的 <code>#&gt;</code> 行尚未经过核对。", "stale": "代码在上次记录的运行之后改过，尚未重新核对",
           "no_cuda": "GPU 上尚未运行", "download": "下载 Notebook", "sep": "；"},
    "en": {"ran": "This recipe ran in the tests as one program: {runs}. The <code>#&gt;</code> lines in the code are what that run printed.",
           "run": "{result} on {device} (PyTorch {torch}, {date})", "passed": "passed", "failed": "failed",
           "none": "No run of this recipe is on record yet: the <code>#&gt;</code> lines in the code are not yet checked.", "stale": "its code changed after the last recorded run and is not yet checked again",
           "no_cuda": "not yet run on a GPU", "download": "Download notebook", "sep": "; "},
}


def _is_recipe(page) -> bool:
    return page.file.src_uri.startswith("recipes/") and page.file.src_uri.endswith(".py")


def verification_line(root: Path, src: Path, lang: str) -> str:
    """What the record holds for this recipe, never more."""
    text = TEXT[lang]
    entry = parse_page(src, lang).entries[0]
    current = entry.code_hash(root / "snippets")
    if entry.id not in load(root / "verification", "cpu"):
        return text["none"]
    runs = []
    for device in ("cpu", "cuda"):
        row = load(root / "verification", device).get(entry.id)
        if row is None:
            runs.append(text["no_cuda"])
        elif row[1].hash != current:
            runs.append(text["stale"])
        else:
            row = row[1]
            result = text.get(row.result, row.result)
            runs.append(text["run"].format(device=device.upper(), result=result, torch=row.torch, date=row.date))
    return text["ran"].format(runs=text["sep"].join(runs))


# A recipe repeats the words of many entries (it uses them together); in search, the entry that
# is about the idiom should come first, the recipe after it.
RECIPE_SEARCH_BOOST = 0.3


def on_page_markdown(markdown, page, config, files):
    if _is_recipe(page):
        page.meta.setdefault("search", {})["boost"] = RECIPE_SEARCH_BOOST  # read by Material's search plugin
    return markdown


def on_page_content(html, page, config, files):
    if not _is_recipe(page):
        return html
    html = LOADERS.sub("", html)
    lang = site_lang(config)
    root = Path(config.config_file_path).parent
    note = (f'<p class="recipe-verification">{verification_line(root, Path(page.file.abs_src_path), lang)} '
            f'<a class="md-button notebook-download" href="../{Path(page.file.src_uri).stem}.ipynb" download>{TEXT[lang]["download"]}</a></p>')
    head, found, rest = html.partition("</h1>")
    return head + found + note + rest if found else note + html


def on_post_build(config):
    site = Path(config.site_dir)
    for src in sorted((Path(config.docs_dir) / "recipes").glob("*.py")):
        notebook = jupytext.read(src)
        notebook.metadata.pop("jupytext", None)  # the .ipynb stands alone: no pairing with our .py
        notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        jupytext.write(notebook, site / "recipes" / f"{src.stem}.ipynb")
