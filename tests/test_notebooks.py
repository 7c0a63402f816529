"""Topic pages as notebooks: generated from the entries, part of the built site in both
languages, and a downloaded one runs end to end in a real Jupyter kernel, printing what the
notebook shows. Recipes: rendered by mkdocs-jupyter in both languages, saying what the record
holds for them, and found by search. (That each recipe runs and prints its output lines is the
plugin's job: docs/zh/recipes/*.py are collected like the topic pages.)"""

import json
import re
from pathlib import Path

import nbformat
import pytest
from conftest import early

from cheatsheet.model.langs import URL_PREFIX
from cheatsheet.model.pages import parse_page, site_pages
from cheatsheet.project import repo
from cheatsheet.site import search_index
from cheatsheet.site.notebooks import is_topic, topic_notebook

PROJECT = repo()

EXECUTED_PAGE = "tensors"  # the page whose notebook the suite runs end to end


@early(after="site")
def executed(tmp: Path, site):
    """The Chinese notebook of one topic page, as the built site serves it, run by nbclient in a
    real kernel as a reader would run it."""
    from nbclient import NotebookClient

    site_dir, _ = site
    notebook = nbformat.read(site_dir / f"{EXECUTED_PAGE}.ipynb", as_version=4)
    shown = _printed(notebook)
    NotebookClient(notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp)}}).execute()
    return shown, notebook


def _printed(notebook) -> list[str]:
    # The kernel may send one cell's stdout as several stream messages, depending on timing;
    # what the reader sees is their concatenation.
    return ["".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream" and o.name == "stdout")
            for cell in notebook.cells if cell.cell_type == "code"]


def test_a_downloaded_notebook_runs_and_prints_what_it_shows(executed):
    shown, notebook = executed
    ran = _printed(notebook)
    errors = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs if o.output_type == "error"]
    assert not errors, errors
    assert len(ran) == len(shown) > 5
    assert ran == shown


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_topic_page_has_a_notebook_of_its_entries(lang):
    for page in site_pages(PROJECT.docs, lang):
        if not is_topic(page):
            continue
        notebook = topic_notebook(page, "https://example.invalid/", PROJECT.snippets)
        nbformat.validate(notebook)
        text = "\n".join(cell.source for cell in notebook.cells)
        assert all(f"#{entry.id})" in text for entry in page.entries), page.path
        code = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "code")
        assert "#>" not in code and "#torch" not in code


@pytest.mark.parametrize("lang,prefix", URL_PREFIX.items())
def test_the_site_links_each_topic_page_to_its_notebook(site, lang, prefix):
    site_dir, _ = site
    for page in site_pages(PROJECT.docs, lang):
        if is_topic(page):
            name = page.path.stem
            assert (site_dir / prefix / f"{name}.ipynb").is_file(), name
            html = (site_dir / prefix / name / "index.html").read_text("utf-8")
            assert f'href="../{name}.ipynb" download' in html, name


# --- recipes: rendered by mkdocs-jupyter, verified, searchable, in both languages ----------------

RECIPES = sorted(p.stem for p in (PROJECT.docs / "zh" / "recipes").glob("*.py"))


def test_there_are_at_least_five_recipes_in_each_language():
    assert len(RECIPES) >= 5, RECIPES
    assert sorted(p.stem for p in (PROJECT.docs / "en" / "recipes").glob("*.py")) == RECIPES


@pytest.mark.parametrize("lang,prefix", URL_PREFIX.items())
def test_recipes_are_rendered_with_what_the_record_says(site, lang, prefix):
    from cheatsheet.model.record import Record
    from cheatsheet.site.strings import STRINGS

    site_dir, _ = site
    record = Record(PROJECT.record, PROJECT.snippets)
    strings = STRINGS[lang]
    for name in RECIPES:
        html = (site_dir / prefix / "recipes" / name / "index.html").read_text("utf-8")
        assert 'class="jupyter-wrapper"' in html and "In&nbsp;[" not in html and "In [" not in html, name
        line = re.search(r'<p class="recipe-verification">(.*?)</p>', html, re.S).group(1)
        entry = parse_page(PROJECT.docs / lang / "recipes" / f"{name}.py", lang).entries[0]
        for release in PROJECT.releases:  # each claimed release: the recipe passed on CPU, the tooltip names the row
            row = record.row(release, "cpu", entry.id)
            assert row.result == "passed" and strings["status.passed"].format(release=release) in line, (name, release)
            assert f"PyTorch {row.torch}" in line and row.date in line, (name, release)
        notebook = nbformat.read(site_dir / prefix / "recipes" / f"{name}.ipynb", as_version=4)
        nbformat.validate(notebook)
        source = (PROJECT.docs / lang / "recipes" / f"{name}.py").read_text("utf-8")
        assert len(notebook.cells) == source.count("# %%"), name


@pytest.mark.parametrize("lang,prefix", URL_PREFIX.items())
def test_recipes_are_in_their_languages_search_index(site, lang, prefix):
    site_dir, _ = site
    docs = json.loads((site_dir / prefix / search_index.INDEX).read_text("utf-8"))["docs"]
    for name in RECIPES:
        title = parse_page(PROJECT.docs / lang / "recipes" / f"{name}.py", lang).entries[0].title
        assert [doc["t"] for doc in docs if doc["u"] == f"recipes/{name}/" and doc["k"] == "recipe"] == [title], name
