"""The site's MkDocs plugin (`cheatsheet` in mkdocs.yml): wires MkDocs' events to the features in
cheatsheet/site/, each a plain function of the page model, the record and the strings.

    on_config        the project's settings, the record, the API links; no edit links without a repository;
                     no instant navigation in the copy read from disk (Material's offline plugin)
    on_files         every page parsed once; the ids that moved to another page (aliases)
    on_nav           the pages with entries, in nav order (the all-idioms and compatibility pages)
    on_env           this language's strings for the templates
    on_page_markdown the markers: <!-- all-idioms -->, <!-- compatibility-matrix -->,
                     <!-- verification-summary -->, <!-- rules-table -->
    on_page_content  output lines; under each entry's heading its status line and "Copy Markdown"
                     button; the at-a-glance table and the notebook link of a topic page; a
                     recipe's verification line; the alias anchors
    on_page_context  Material's search plugin reads the page with its code blocks emptied
    on_post_build    the notebooks, the site's search index, the sheet as data (llms.txt,
                     llms-full.txt, api/entries.json), then the other languages' sites

All state lives on the instance and is set afresh in on_config, which starts every build (`mkdocs
serve` rebuilds; each language's build has its own instance).
"""

from __future__ import annotations

import csv
import os
from pathlib import Path

import nbformat
from mkdocs.commands.build import build
from mkdocs.config import config_options as c
from mkdocs.config.base import Config
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, CombinedEvent, event_priority

from cheatsheet.model import api_links, record, rules
from cheatsheet.model.langs import LANGS, OTHERS, SOURCE
from cheatsheet.model.pages import Entry, Page, parse_page, site_lang
from cheatsheet.model.record import Record, Verdict, summary
from cheatsheet.project import Project
from cheatsheet.site import (
    aliases,
    at_a_glance,
    compatibility,
    entry_status,
    languages,
    markup,
    notebooks,
    output_lines,
    recipes,
    search_index,
    sheet_data,
)
from cheatsheet.site import summary as verification_summary
from cheatsheet.site.strings import for_language


class CheatsheetConfig(Config):
    # This site's language; by default its docs folder's name (docs/zh, docs/en).
    lang = c.Optional(c.Choice(LANGS))
    # On the source language's site: also build every other language's site, derived from this
    # config (site/languages.py), into <site_dir>/<its URL prefix>.
    other_languages = c.Type(bool, default=True)
    # The repository's issue form that "report a problem" opens, prefilled.
    report_template = c.Type(str, default="wrong-entry.yml")


class CheatsheetPlugin(BasePlugin[CheatsheetConfig]):
    # No on_startup: MkDocs would then keep one instance across builds, and the nested build of
    # another language would share it with the build it runs in.

    def on_config(self, config):
        root = Path(config.config_file_path).parent
        try:
            self.project = Project.load(root)
        except ValueError as e:
            raise PluginError(str(e)) from e
        self.lang = self.config.lang or site_lang(config)
        self.strings = for_language(self.lang)
        config.extra["alternate"] = languages.alternate(self.lang)  # the language switch
        self.builds_others = self.config.other_languages and self.lang == SOURCE
        if self.builds_others:  # `mkdocs serve` rebuilds when their pages change
            config.watch.extend(os.path.join(os.path.dirname(config.docs_dir), lang) for lang in OTHERS)
        try:
            self.record = Record.load(self.project.record, self.project.snippets)
            self.api_links = api_links.load(self.project.api_docs)
        except (TypeError, KeyError, csv.Error) as e:
            raise PluginError(f"{self.project.record} or {self.project.api_docs}: unreadable ({e})") from e
        self.pages: dict[str, Page] = {}  # source path -> page, every page of this site
        self.urls: dict[str, str] = {}  # source path -> address
        self.moved: dict[str, dict[str, tuple[str, str]]] = {}  # old page -> old id -> (new page, new id)
        self.nav_pages: list[tuple[str, Page]] = []  # (address, page) of the pages with entries, nav order
        self.nav_files: list[str] = []  # source path of every page, nav order
        self.search_boosts: dict[Path, float] = {}  # page file -> its front matter's `search: boost:`
        self.hidden_code: list[str] = []  # the page's code blocks while Material's search plugin reads it
        # "Edit this page" needs the repository. Without REPO_URL (a reader's `mkdocs serve`), MkDocs
        # would warn about the bare edit path on every page, and the strict build would stop.
        if not config.repo_url:
            config.edit_uri = None
        # The copy read from disk (Material's offline plugin on: `python -m cheatsheet offline`).
        # Material turns instant navigation off on file:// pages, and if it is configured there its
        # document$ never fires, so no page script (the filters, the alias redirect) would run.
        offline = config.plugins.get("material/offline")
        self.from_disk = bool(offline and offline.config.enabled)
        if self.from_disk:
            config.theme["features"] = [f for f in config.theme["features"] if not f.startswith("navigation.instant")]
        return config

    @event_priority(-100)  # after mkdocs-jupyter has made the recipes pages
    def on_files(self, files, config):
        for file in files.documentation_pages():
            self.pages[file.src_uri] = parse_page(Path(file.abs_src_path), self.lang)
            self.urls[file.src_uri] = file.url
        self.moved = aliases.moved(self.pages)
        return files

    def on_nav(self, nav, config, files):
        self.nav_pages = [(item.file.url, self.pages[item.file.src_uri]) for item in nav.pages
                          if self.pages[item.file.src_uri].entries]
        self.nav_files = [item.file.src_uri for item in nav.pages]
        return nav

    def on_env(self, env, config, files):
        env.globals["cheatsheet_strings"] = self.strings
        return env

    def on_page_markdown(self, markdown, page, config, files):
        boost = (page.meta.get("search") or {}).get("boost")
        if boost is not None:  # a page whose entries serve narrower needs ranks them lower
            self.search_boosts[self.pages[page.file.src_uri].path] = float(boost)
        if at_a_glance.MARKER in markdown:
            markdown = markdown.replace(at_a_glance.MARKER, at_a_glance.all_idioms(self.nav_pages, page.url, self.strings))
        if compatibility.MARKER in markdown:
            verdicts = {e.id: self._verdicts(e) for _, p in self.nav_pages for e in p.entries}
            block = compatibility.matrix(self.nav_pages, verdicts, compatibility.columns(self.record), page.url, self.strings)
            markdown = markdown.replace(compatibility.MARKER, block)
        if verification_summary.MARKER in markdown:
            figures = summary(self.project.docs, self.project.snippets, self.project.record)
            markdown = markdown.replace(verification_summary.MARKER, verification_summary.render(figures, self.strings))
        if rules.TABLE_MARKER in markdown:
            markdown = markdown.replace(rules.TABLE_MARKER, rules.markdown_table(self.lang))
        return markdown

    @event_priority(100)  # before Material's search plugin reads the page
    def _hide_code_from_search(self, context, page, config, nav):
        page.content, self.hidden_code = search_index.hide_code(page.content)
        return context

    @event_priority(-100)  # after it, before the page is rendered
    def _restore_code(self, context, page, config, nav):
        try:
            page.content = search_index.restore_code(page.content, self.hidden_code)
        except ValueError as e:
            raise PluginError(f"{page.file.src_uri}: {e}") from e
        return context

    on_page_context = CombinedEvent(_hide_code_from_search, _restore_code)

    def on_page_content(self, html, page, config, files):
        src_uri = page.file.src_uri
        parsed = self.pages[src_uri]
        html = output_lines.mark(html)
        if recipes.is_recipe(src_uri):
            html = recipes.without_loaders(html)
            html = markup.after_title(html, recipes.note(self._verdicts(parsed.entries[0]), src_uri, self.strings))
        elif notebooks.is_topic(parsed):
            html = self._status_lines(html, page, parsed, config)
            html = markup.before_first_heading(html, at_a_glance.page_table(parsed, self.strings))
            html = markup.after_title(html, notebooks.download_link(src_uri, page.url, self.strings))
        # Last: a same-page alias's anchor goes right before its heading, after anything above it.
        return aliases.anchors(html, page.url, self.moved.get(src_uri, {}), self.urls)

    @event_priority(-100)  # after Material's search plugin has written the index this one replaces
    def on_post_build(self, config):
        site, site_url = Path(config.site_dir), (config.site_url or "").rstrip("/")
        for src_uri, page in self.pages.items():
            if notebooks.is_topic(page):
                book = notebooks.topic_notebook(page, f"{site_url}/{self.urls[src_uri]}", self.project.snippets,
                                                self.project.pin)
                nbformat.write(book, site / notebooks.notebook_path(src_uri))
            elif recipes.is_recipe(src_uri):
                recipes.write_notebook(page.path, site / notebooks.notebook_path(src_uri))
        pages = sorted(self.pages.values(), key=lambda p: p.path)
        urls = {self.pages[src].path: url for src, url in self.urls.items()}
        search_index.write(site, pages, urls, self.project.docs, self.lang, scripts=self.from_disk,  # file:// cannot fetch
                           boosts=self.search_boosts)
        about = {"lang": self.lang, "name": config.site_name, "description": config.site_description or "",
                 "url": config.site_url}
        sheet_data.write(site, [(src, self.pages[src]) for src in self.nav_files], self._verdicts, about, self.strings,
                         self.project.snippets)
        for lang in OTHERS if self.builds_others else ():
            build(languages.site_config(config, lang))

    def _verdicts(self, entry: Entry) -> list[Verdict]:
        """The one reading of the record behind the status line, the recipe line and the matrix (and the summary)."""
        return entry_status.checked(self.record.verdicts(entry), entry)

    def _status_lines(self, html: str, page, parsed: Page, config) -> str:
        repo, site_url = config.repo_url, config.site_url
        lines = {}
        for entry in parsed.entries:
            if not entry.id:
                raise PluginError(f"{parsed.path}:{entry.line}: the entry heading `{entry.title}` has no {{ #id }}")
            report = None
            if repo and site_url:
                where = f"{sheet_data.address(site_url, page.file.src_uri)}#{entry.id}"  # published, also from the offline copy
                report = entry_status.report_url(repo, where, entry.id, self.config.report_template)
            markdown = sheet_data.entry_markdown(page.file.src_uri, parsed, entry, site_url, self._verdicts(entry),
                                                 self.strings, self.project.snippets)
            verdicts = self._verdicts(entry)
            waiting = record.pending(verdicts, self.project.releases, self.project.pin) if self.project.pin else []
            lines[entry.id] = entry_status.status_line(verdicts, self.strings, self.api_links.get(entry.id), report,
                                                       sheet_data.copy_button(markdown, entry.title, self.strings), waiting)
            if unconfirmed := entry_status.unconfirmed_gpu_output(entry, verdicts):
                html = output_lines.unconfirmed(html, entry.id, unconfirmed == "all", self.strings["status.unconfirmed_output"])
        html, missing = markup.after_headings(html, lines)
        if missing:
            raise PluginError(f"{parsed.path}: entry `{sorted(missing)[0]}` has no `<h3 id=...>` heading in the rendered page")
        return html
