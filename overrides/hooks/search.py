"""MkDocs hook: the site's search index, one document per entry (cheatsheet.search_index), which
overrides/assets/javascripts/search.js ranks in the browser. Runs after Material's search plugin
has written its index, whose documents it replaces."""

from pathlib import Path

from cheatsheet import search_index
from cheatsheet.pages import site_lang, site_pages


def on_post_build(config):
    lang = site_lang(config)
    docs = Path(config.docs_dir).parent
    search_index.write(Path(config.site_dir), site_pages(docs, lang), docs, lang)
