"""The copy read from disk: `python -m cheatsheet offline` zips both languages as files, and the
unzipped copy works from file:// in Chromium: search in both languages, the language switch, a
page two levels deep with its styles, the navigation, the all-idioms and compatibility filters,
with nothing requested from anywhere but the disk."""

import os
import re
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
from conftest import early, typed_filter

from cheatsheet.model.langs import URL_PREFIX
from cheatsheet.project import repo
from cheatsheet.tools.offline import FOLDER

PROJECT = repo()


@early
def offline_copy(tmp: Path):
    """The command as the Pages workflow runs it, on a site folder holding a stand-in PDF;
    returns (zip, the unzipped copy, seconds the command took, its output)."""
    site = tmp / "site"
    site.mkdir()
    (site / "pytorch-cheatsheet-zh.pdf").write_bytes(b"%PDF-1.4 stand-in")
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "cheatsheet", "offline", str(site)], cwd=PROJECT.root,
                          env=dict(os.environ, NO_MKDOCS_2_WARNING="1"), capture_output=True, text=True)
    seconds = time.monotonic() - start
    assert proc.returncode == 0, proc.stdout + proc.stderr[-5000:]
    archive = site / "pytorch-cheatsheet-offline.zip"
    with zipfile.ZipFile(archive) as z:
        z.extractall(tmp / "unzipped")
    return archive, tmp / "unzipped" / FOLDER, seconds, proc.stdout


def _first_recipe() -> str:
    return sorted(p.stem for p in (PROJECT.docs / "en" / "recipes").glob("*.py"))[0]


def test_the_zip_holds_both_languages_as_files(offline_copy):
    archive, copy, seconds, said = offline_copy
    names = zipfile.ZipFile(archive).namelist()
    assert all(name.startswith(f"{FOLDER}/") for name in names), "one folder"
    for prefix in URL_PREFIX.values():
        for path in ("index.html", "gpu-memory.html", "all.html", "compatibility.html", f"recipes/{_first_recipe()}.html",
                     "search/entries.js", "search/text.js", "llms.txt", "llms-full.txt", "api/entries.json"):
            assert (copy / prefix / path).is_file(), prefix + path
    assert (copy / "pytorch-cheatsheet-zh.pdf").read_bytes() == b"%PDF-1.4 stand-in", "the site's PDFs go in"
    assert not [n for n in names if n.endswith(".map")]
    # links name files: a folder link would open a directory listing from disk
    home = (copy / "index.html").read_text("utf-8")
    internal = [h for h in re.findall(r'<a [^>]*href="([^"#]+)', home) if "//" not in h and not h.startswith("javascript:")]
    assert internal and not [h for h in internal if not h.endswith((".html", ".pdf", ".zip", ".ipynb", ".txt", ".json"))]
    print(f"\n{archive.name}: {archive.stat().st_size / 2**20:.1f} MiB, {len(names)} files, {seconds:.0f} s; {said.strip()}")


def test_the_copy_loads_nothing_from_other_hosts(offline_copy):
    _, copy, _, _ = offline_copy
    # what a page loads (its canonical link names the published page, and loads nothing)
    external = re.compile(r"""<(?:script|link|img|iframe)(?![^>]*rel="canonical")[^>]+(?:src|href)=["'](?:https?:)?//""")
    assert not [str(p.relative_to(copy)) for p in copy.rglob("*.html") if external.search(p.read_text("utf-8"))]


@pytest.fixture
def disk_page(browser, offline_copy):
    """A page of the session's Chromium for file:// addresses; also the errors it raised and the
    schemes it requested."""
    chromium, _ = browser
    page = chromium.new_page()
    errors, schemes = [], set()
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("request", lambda request: schemes.add(request.url.split(":", 1)[0]))
    yield page, offline_copy[1], errors, schemes
    page.close()


@pytest.mark.parametrize("prefix,query,lands", [("", "释放显存", "gpu-memory.html"),
                                                ("en/", "free gpu memory", "en/gpu-memory.html")])
def test_search_works_from_disk(disk_page, prefix, query, lands):
    page, copy, errors, schemes = disk_page
    page.goto((copy / prefix / "index.html").as_uri())
    page.click("input.md-search__input")
    page.keyboard.type(query)
    first = page.locator(".cheatsheet-search .md-search-result__item a").first
    first.wait_for(timeout=60_000)
    first.click()
    page.wait_for_url(re.compile(re.escape((copy / lands).as_uri()) + r"\?h=.*#cuda-"))
    assert page.locator("h3[id^=cuda-]").count() > 0
    assert not errors and schemes == {"file"}, (errors, schemes)


def test_language_switch_and_navigation_work_from_disk(disk_page):
    page, copy, errors, schemes = disk_page
    page.goto((copy / "gpu-memory.html").as_uri() + "#cuda-empty-cache")
    page.hover(".md-header__option .md-select")
    page.click("a.md-select__link[hreflang=en]")
    page.wait_for_url((copy / "en" / "gpu-memory.html").as_uri() + "#cuda-empty-cache")
    # two levels deep: its relative stylesheets and scripts load, its links lead on
    deep = copy / "en" / "recipes" / f"{_first_recipe()}.html"
    page.goto(deep.as_uri())
    styled = page.evaluate("""() => ({header: getComputedStyle(document.querySelector('.md-header')).backgroundColor,
        own: getComputedStyle(document.body).getPropertyValue('--cheatsheet-output-color').trim(),
        scripts: typeof cheatsheetSearch})""")
    assert styled == {"header": "rgb(191, 54, 12)", "own": "#00695c", "scripts": "object"}, styled
    page.hover(".md-header__option .md-select")
    page.click("a.md-select__link[hreflang=zh]")
    page.wait_for_url((copy / "recipes" / f"{_first_recipe()}.html").as_uri())
    page.click(".md-sidebar--primary a[href$='all.html']")
    page.wait_for_url((copy / "all.html").as_uri())
    assert not errors and schemes == {"file"}, (errors, schemes)


@pytest.mark.parametrize("path,block,word", [("all.html", ".all-idioms", "显存"),
                                             ("en/compatibility.html", ".compat-matrix", "freeze")])
def test_the_filters_work_from_disk(disk_page, path, block, word):
    page, copy, errors, _ = disk_page
    page.goto((copy / path).as_uri())
    typed_filter(page, block, word)
    assert not errors


def test_the_pages_workflow_publishes_the_zip_beside_the_pdfs():
    import yaml

    steps = yaml.safe_load((PROJECT.root / ".github" / "workflows" / "docs.yml").read_text("utf-8"))["jobs"]["build"]["steps"]
    at = {what: next(i for i, step in enumerate(steps) if what in step.get("run", "") + step.get("uses", ""))
          for what in ("cheatsheet pdf site", "cheatsheet offline site", "upload-pages-artifact")}
    assert at["cheatsheet pdf site"] < at["cheatsheet offline site"] < at["upload-pages-artifact"], at


@pytest.mark.parametrize("prefix,zip_link", [("", "pytorch-cheatsheet-offline.zip"),
                                             ("en/", "../pytorch-cheatsheet-offline.zip")])
def test_the_home_pages_link_the_zip_and_the_data(site, prefix, zip_link):
    site_dir, _ = site
    home = (site_dir / prefix / "index.html").read_text("utf-8")
    for href in (zip_link, "llms.txt", "llms-full.txt", "api/entries.json", "api/entries.schema.json"):
        assert f'href="{href}"' in home, href
    for href in ("llms.txt", "llms-full.txt", "api/entries.json", "api/entries.schema.json"):
        assert (site_dir / prefix / href).is_file(), href
