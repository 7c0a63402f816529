"""The built site: both languages, no third-party requests, and (in Chromium) a language switch
that keeps the reader's place. Search has its own tests: tests/test_search.py."""

import re
from pathlib import Path

import pytest

from cheatsheet.model.pages import site_files
from cheatsheet.project import repo

PROJECT = repo()

CJK = re.compile(r"[\u4e00-\u9fff]")


def _pages(lang: str) -> list[str]:
    docs = PROJECT.root / "docs" / lang
    return sorted(str(p.relative_to(docs).with_suffix("")) for p in site_files(docs))


@pytest.mark.parametrize("lang,prefix", [("zh", ""), ("en", "en/")])
def test_every_page_is_built(site, lang, prefix):
    site_dir, _ = site
    for page in _pages(lang):
        path = site_dir / prefix / ("index.html" if page == "index" else f"{page}/index.html")
        assert path.is_file(), f"{page} was not built for {lang}"


def test_the_site_builds_strictly_without_repository_or_site_address(plain_site):
    """The README's `mkdocs serve` has neither REPO_URL nor SITE_URL: no warning, no edit links."""
    proc, site_dir = plain_site
    assert proc.returncode == 0 and "WARNING" not in proc.stderr, proc.stderr[-3000:]
    page = (site_dir / "gpu-memory" / "index.html").read_text("utf-8")
    assert "/edit/" not in page and "md-content__button" not in page


def test_no_third_party_urls_in_built_pages(site):
    site_dir, _ = site
    external = re.compile(r"""<(?:script|link|img|iframe)[^>]+(?:src|href)=["'](?:https?:)?//(?!127\.0\.0\.1)""")
    offenders = [
        str(p.relative_to(site_dir)) for p in site_dir.rglob("*.html")
        if external.search(p.read_text("utf-8"))
    ]
    assert not offenders


# --- in a browser -------------------------------------------------------------




def test_language_switch_keeps_page_and_entry(browser_page):
    page, base, _ = browser_page
    page.goto(base + "gpu-memory/#cuda-empty-cache")
    page.hover(".md-header__option .md-select")
    page.click("a.md-select__link[hreflang=en]")
    page.wait_for_url("**/en/gpu-memory/**")
    assert page.url == base + "en/gpu-memory/#cuda-empty-cache"
    page.hover(".md-header__option .md-select")
    page.click("a.md-select__link[hreflang=zh]")
    page.wait_for_url(re.compile(r".*/gpu-memory/#cuda-empty-cache$"))
    assert page.url == base + "gpu-memory/#cuda-empty-cache"


def _first_recipe() -> str:

    return sorted(p.stem for p in (PROJECT.docs / "zh" / "recipes").glob("*.py"))[0]


def test_language_switch_works_on_a_recipe_page(browser_page):
    page, base, _ = browser_page
    recipe = _first_recipe()
    page.goto(f"{base}recipes/{recipe}/")
    page.hover(".md-header__option .md-select")
    page.click("a.md-select__link[hreflang=en]")
    page.wait_for_url(f"**/en/recipes/{recipe}/")
    assert page.locator(".jupyter-wrapper h1").count() == 1 and not CJK.search(page.locator(".jupyter-wrapper h1").inner_text())


def test_pages_load_nothing_from_other_hosts(browser_page):
    page, base, requested_hosts = browser_page
    page.goto(base + "gpu-memory/")
    page.goto(base + "en/")
    page.goto(f"{base}recipes/{_first_recipe()}/")  # mkdocs-jupyter's template
    assert requested_hosts == {base.split("/")[2]}


def _luminance(css_color: str) -> float:
    r, g, b = (int(v) for v in re.findall(r"\d+", css_color)[:3])
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255


@pytest.mark.parametrize("scheme", ["default", "slate"])
def test_recipe_cells_follow_the_colour_scheme(browser_page, scheme):
    """mkdocs-jupyter's cells take Material's light (default) or dark (slate) scheme: code and
    prose stay readable against their background in both."""
    page, base, _ = browser_page
    page.emulate_media(color_scheme="dark" if scheme == "slate" else "light")
    page.goto(base + "all/")
    page.click(f".all-idioms a[href$='recipes/{_first_recipe()}/']")  # instant navigation brings the cells' styles along
    page.wait_for_url(f"**/recipes/{_first_recipe()}/")
    page.wait_for_selector(".jupyter-wrapper .jp-MarkdownCell p")  # the new page's content is in
    assert page.get_attribute("body", "data-md-color-scheme") == scheme
    colours = page.evaluate("""() => {
        const style = el => getComputedStyle(el);
        const code = document.querySelector('.jupyter-wrapper .jp-CodeCell .highlight-ipynb, .jupyter-wrapper .jp-CodeCell pre');
        const prose = document.querySelector('.jupyter-wrapper .jp-MarkdownCell p');
        let bg = code, colour = 'rgba(0, 0, 0, 0)';
        while (bg && (colour = style(bg).backgroundColor) === 'rgba(0, 0, 0, 0)') bg = bg.parentElement;
        let page = document.querySelector('.md-main'), pageBg = 'rgba(0, 0, 0, 0)';
        while (page && (pageBg = style(page).backgroundColor) === 'rgba(0, 0, 0, 0)') page = page.parentElement;
        return {code: colour, codeText: style(code.querySelector('span') || code).color, prose: style(prose).color, page: pageBg};
    }""")
    dark = scheme == "slate"
    assert (_luminance(colours["code"]) < 0.35) == dark, colours
    assert (_luminance(colours["prose"]) > 0.6) == dark, colours
    assert abs(_luminance(colours["codeText"]) - _luminance(colours["code"])) > 0.3, colours


@pytest.mark.parametrize("lang,prefix", [("zh", ""), ("en", "en/")])
def test_contributor_guide_shows_the_rules_table(site, lang, prefix):
    """The guide's table of codes is rendered from RULES at build time, one row per code."""
    from cheatsheet.model.rules import RULES, TABLE_MARKER

    site_dir, _ = site
    built = (site_dir / prefix / "contributing" / "index.html").read_text("utf-8")
    rows = re.findall(r"<tr>\s*<td><code>([A-Z]+\d+)</code></td>", built)
    assert rows == list(RULES) and TABLE_MARKER not in built


def test_home_page_states_what_the_record_holds(site):
    """The home page's verification summary is generated from verification/, never stronger."""
    from cheatsheet.model.record import summary

    site_dir, _ = site
    zh, en = (site_dir / "index.html").read_text("utf-8"), (site_dir / "en" / "index.html").read_text("utf-8")
    figures = summary(PROJECT.docs, PROJECT.snippets, PROJECT.record)
    total, cpu_passed = figures["cpu"]["entries"], figures["cpu"]["states"].get("passed", 0)
    assert f"{cpu_passed} / {total} 个条目的示例通过" in zh
    assert f"the examples of {cpu_passed} of {total} entries passed" in en
    if figures["cuda"]["torch"]:
        assert f"{figures['cuda']['states'].get('passed', 0)} of {total} entries passed on a GPU" in en
    else:
        assert "还没有记录在案的 GPU 运行" in zh and "no GPU run is on record yet" in en
    assert "verification-summary" not in zh + en


def _aliases(lang: str):
    """(page, entry id, alias) for every merged id the pages declare."""
    from cheatsheet.model.pages import site_pages

    return [(p.path.relative_to((PROJECT.docs / lang).resolve()).with_suffix(""), e.id, alias)
            for p in site_pages(PROJECT.docs, lang) for e in p.entries for alias in e.aliases]


@pytest.mark.parametrize("lang,prefix", [("zh", ""), ("en", "en/")])
def test_merged_ids_keep_an_anchor(site, lang, prefix):
    site_dir, _ = site
    aliases = _aliases(lang)
    assert aliases, "no merged entries to check"
    for page, entry_id, alias in aliases:
        old_page, _, old_id = alias.rpartition("#")
        if old_page:  # moved from another page: that page names the new place
            html = (site_dir / prefix / Path(old_page).with_suffix("") / "index.html").read_text("utf-8")
            assert f'<span id="{old_id}" class="entry-alias" data-moved-to="../{page}/#{entry_id}"></span>' in html, alias
        else:  # merged on the same page: an anchor right before the entry's heading
            html = (site_dir / prefix / page / "index.html").read_text("utf-8")
            assert re.search(rf'<span id="{old_id}" class="entry-alias"></span><h3 [^>]*id="{entry_id}"', html), alias


def test_a_link_to_a_merged_entry_lands_on_the_entry_it_moved_to(browser_page):
    page, base, _ = browser_page
    for lang, prefix in (("zh", ""), ("en", "en/")):
        moved = [(page_, entry_id, alias) for page_, entry_id, alias in _aliases(lang) if "#" in alias]
        target_page, entry_id, alias = moved[0]
        old_page, _, old_id = alias.rpartition("#")
        page.goto(f"{base}{prefix}{Path(old_page).with_suffix('')}/#{old_id}")
        page.wait_for_url(f"**/{target_page}/#{entry_id}")
        assert page.url == f"{base}{prefix}{target_page}/#{entry_id}"
