"""MkDocs hook: every topic page as a notebook (<page>.ipynb beside the page), and a download
link at the top of the page. The notebooks are generated from the parsed entries at build time
(cheatsheet.notebooks), so they always match the page."""

from pathlib import Path

import nbformat
from mkdocs.utils import get_relative_url

from cheatsheet.model.pages import parse_page, site_lang
from cheatsheet.site.notebooks import is_topic, topic_notebook

LABEL = {"zh": "下载 Notebook", "en": "Download notebook"}


def _notebook_url(page) -> str:
    return str(Path(page.file.src_uri).with_suffix(".ipynb"))


def on_page_markdown(markdown, page, config, files):
    if not page.file.src_uri.endswith(".md"):
        return markdown
    parsed = parse_page(Path(page.file.abs_src_path), site_lang(config))
    if not is_topic(parsed):
        return markdown
    href = get_relative_url(_notebook_url(page), page.url)
    link = f'<a class="md-button notebook-download" href="{href}" download>{LABEL[parsed.lang]}</a>'
    title, _, rest = markdown.partition("\n")
    return f"{title}\n\n{link}\n{rest}"


def on_post_build(config):
    lang, site = site_lang(config), Path(config.site_dir)
    for md in Path(config.docs_dir).rglob("*.md"):
        page = parse_page(md, lang)
        if not is_topic(page):
            continue
        rel = md.relative_to(config.docs_dir)
        url = config.site_url.rstrip("/") + "/" + str(rel.with_suffix("")) + "/"
        notebook = topic_notebook(page, url, Path(config.config_file_path).parent / "snippets")
        nbformat.write(notebook, site / rel.with_suffix(".ipynb"))
