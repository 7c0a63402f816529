"""MkDocs hook: the site's search index, one document per entry (cheatsheet.search_index), which
overrides/assets/javascripts/search.js ranks in the browser. Runs after Material's search plugin
has written its index, whose documents it replaces."""

from pathlib import Path

from cheatsheet.model.pages import site_lang, site_pages
from cheatsheet.site import search_index

# Each page's address as MkDocs builds it (Markdown pages and mkdocs-jupyter's recipes alike).
URLS: dict[Path, str] = {}


def on_files(files, config):
    URLS.update((Path(f.abs_src_path).resolve(), f.url) for f in files.documentation_pages())
    return files


def on_post_build(config):
    lang = site_lang(config)
    docs = Path(config.docs_dir).parent
    search_index.write(Path(config.site_dir), site_pages(docs, lang), URLS, docs, lang)
