"""The built site: both languages, no third-party requests, and (in Chromium) a language switch
that keeps the reader's place. Search has its own tests: tests/test_search.py."""

import html
import re
from pathlib import Path

import pytest

from cheatsheet.model.langs import URL_PREFIX
from cheatsheet.model.pages import site_files
from cheatsheet.project import repo

PROJECT = repo()

CJK = re.compile(r"[\u4e00-\u9fff]")


def _pages(lang: str) -> list[str]:
    docs = PROJECT.root / "docs" / lang
    return sorted(str(p.relative_to(docs).with_suffix("")) for p in site_files(docs))


@pytest.mark.parametrize("lang,prefix", URL_PREFIX.items())
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


@pytest.mark.parametrize("lang,prefix", URL_PREFIX.items())
def test_contributor_guide_shows_the_rules_table(site, lang, prefix):
    """The guide's table of codes is rendered from RULES at build time, one row per code."""
    from cheatsheet.model.rules import RULES, TABLE_MARKER

    site_dir, _ = site
    built = (site_dir / prefix / "contributing" / "index.html").read_text("utf-8")
    rows = re.findall(r"<tr>\s*<td><code>([A-Z]+\d+)</code></td>", built)
    assert rows == list(RULES) and TABLE_MARKER not in built


def _home_lines(site_dir: Path, prefix: str) -> list[str]:
    """The home page's summary, one plain-text line per list item."""
    home = (site_dir / prefix / "index.html").read_text("utf-8")
    assert "verification-summary" not in home
    items = re.findall(r"<li>(.*?)</li>", home.split('class="md-content"', 1)[1])
    return [html.unescape(re.sub(r"<[^>]+>", "", item)) for item in items]


def test_home_page_states_what_the_record_holds(site):
    """The home page's verification summary is generated from verification/, never stronger: a line
    per release and device with current rows, counting the current passing rows."""
    from cheatsheet.model.record import summary

    site_dir, _ = site
    zh, en = _home_lines(site_dir, ""), _home_lines(site_dir, "en/")
    figures = summary(PROJECT.docs, PROJECT.snippets, PROJECT.record)
    for (release, device), found in figures.items():
        total, passed = found["entries"], found["states"].get("passed", 0)
        if not found["torch"]:
            assert not [line for line in en if line.startswith(f"PyTorch {release}, {device.upper()}:")], (release, device)
        elif device == "cpu":
            assert f"PyTorch {release}，CPU：{passed} / {total} 个条目的示例通过" in "\n".join(zh)
            assert f"PyTorch {release}, CPU: the examples of {passed} of {total} entries passed" in "\n".join(en)
        else:
            assert f"PyTorch {release}, CUDA: the examples of {passed} of {total} entries passed on a GPU" in "\n".join(en)
    if not any(found["torch"] for (_, device), found in figures.items() if device == "cuda"):
        assert "CUDA：还没有记录在案的 GPU 运行，#cuda> 行尚未在 GPU 上核对。" in zh
        assert "CUDA: no GPU run is on record yet; the #cuda> lines are not yet checked on a GPU." in en


@pytest.mark.parametrize("lang,prefix", URL_PREFIX.items())
def test_every_claimed_release_is_a_column_and_a_summary_line_and_nothing_else_is(site, lang, prefix):
    """Each release the project claims ([tool.cheatsheet] releases) is a column of the
    compatibility page and a line of the home page's summary; no column and no line names a
    release, or a device of a release, that has no rows in the record."""
    from cheatsheet.model.record import Record

    site_dir, _ = site
    record = Record(PROJECT.record, PROJECT.snippets)
    page = (site_dir / prefix / "compatibility" / "index.html").read_text("utf-8")
    assert "<!-- compatibility-matrix -->" not in page
    heads = re.findall(r'<th scope="col" data-release="([^"]+)" data-device="([^"]+)"', page)
    shown = set(heads)
    assert PROJECT.releases and set(PROJECT.releases) <= {release for release, _ in shown}, (PROJECT.releases, shown)
    assert all(record.lines.get(column) for column in shown), "a column without rows"
    assert [column for column in record.columns if record.lines.get(column)] == list(dict.fromkeys(heads))
    lines = _home_lines(site_dir, prefix)
    named = {re.match(r"PyTorch (\S+?)[,，] ?(CPU|CUDA)[:：]", line).groups() for line in lines if line.startswith("PyTorch ")}
    assert {(release, "CPU") for release in PROJECT.releases} <= named, named
    assert all(record.lines.get((release, device.lower())) for release, device in named), named


@pytest.mark.parametrize("lang,prefix", URL_PREFIX.items())
def test_the_compatibility_page_holds_the_whole_record(site, lang, prefix):
    """One row per entry and recipe, in site order, linked to it; one cell per column, saying its verdict."""
    from cheatsheet.model.pages import site_pages
    from cheatsheet.model.record import Record

    site_dir, _ = site
    record = Record(PROJECT.record, PROJECT.snippets)
    page = (site_dir / prefix / "compatibility" / "index.html").read_text("utf-8")
    columns = list(dict.fromkeys(re.findall(r'<th scope="col" data-release="([^"]+)" data-device="([^"]+)"', page)))
    rows = re.findall(r'<tr><th scope="row"><a href="([^"]+)">.*?</a></th>(.*?)</tr>', page)
    docs = (PROJECT.docs / lang).resolve()
    expected = {}  # link -> entry, in page order
    for found in site_pages(PROJECT.docs, lang):
        rel = found.path.relative_to(docs).with_suffix("").as_posix()
        for entry in found.entries[:1] if found.kind == "recipe" else found.entries:
            expected[f"../{rel}/" if found.kind == "recipe" else f"../{rel}/#{entry.id}"] = entry
    assert sorted(link for link, _ in rows) == sorted(expected) and len(rows) == len(expected)
    order = {link: i for i, link in enumerate(expected)}
    for (before, _), (after, _) in zip(rows, rows[1:]):  # within a page, in the page's order
        if before.partition("#")[0] == after.partition("#")[0]:
            assert order[before] < order[after], (before, after)
    for link, cells in rows:
        verdicts = {(v.release, v.device): v.state for v in record.verdicts(expected[link])}
        assert re.findall(r'<td class="compat-([a-z-]+)"', cells) == [verdicts[column] for column in columns], link
    for link, _ in rows:  # every link lands on a built page, and on the entry's anchor there
        target, _, anchor = link.partition("#")
        path = (site_dir / prefix / "compatibility" / target).resolve() / "index.html"
        assert path.is_file() and (not anchor or f'id="{anchor}"' in path.read_text("utf-8")), link


def _aliases(lang: str):
    """(page, entry id, alias) for every merged id the pages declare."""
    from cheatsheet.model.pages import site_pages

    return [(p.path.relative_to((PROJECT.docs / lang).resolve()).with_suffix(""), e.id, alias)
            for p in site_pages(PROJECT.docs, lang) for e in p.entries for alias in e.aliases]


@pytest.mark.parametrize("lang,prefix", URL_PREFIX.items())
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
    for lang, prefix in URL_PREFIX.items():
        moved = [(page_, entry_id, alias) for page_, entry_id, alias in _aliases(lang) if "#" in alias]
        target_page, entry_id, alias = moved[0]
        old_page, _, old_id = alias.rpartition("#")
        page.goto(f"{base}{prefix}{Path(old_page).with_suffix('')}/#{old_id}")
        page.wait_for_url(f"**/{target_page}/#{entry_id}")
        assert page.url == f"{base}{prefix}{target_page}/#{entry_id}"
