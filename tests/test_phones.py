"""The site on a phone (390×844) and a tablet (768×1024), in both languages: a topic page's
at-a-glance table and the all-idioms page give the code line the width (task and code stacked
below Material's phone breakpoint, 45em), the compatibility matrix scrolls in its own box with the
entry's title kept in view, the page itself never scrolls sideways, no code block scrolls or runs
under its copy button, and axe-core finds no serious or critical violation. One page load per view
and size, each leaving a screenshot of its table, all in a Chromium of their own beside the other
tests (phone_views)."""

import tempfile
from pathlib import Path

import pytest
from conftest import AXE, AXE_RUN, beside, early, need_browser

from cheatsheet.model.langs import URL_PREFIX
from cheatsheet.site.browser import find_chromium

LANGS = URL_PREFIX
SCREENS = {"phone": (390, 844), "tablet": (768, 1024)}
VIEWS = [("gpu-memory/", ".at-a-glance"), ("all/", ".all-idioms"), ("compatibility/", ".compat-matrix")]
STACKED_BELOW = 720  # px: Material's phone breakpoint, 44.9375em of 16 px
SHOTS = Path(tempfile.gettempdir()) / "cheatsheet-phones"

MEASURE = """block => {
    const root = document.scrollingElement;
    const content = document.querySelector('.md-content__inner').getBoundingClientRect().width;
    const table = document.querySelector(block + ' table');
    const rows = [...table.querySelectorAll('tbody tr')].slice(0, 20);
    const codes = rows.map(tr => tr.lastElementChild.getBoundingClientRect().width);
    const first = table.querySelector('tbody tr > :first-child');
    const box = table.closest('.md-typeset__scrollwrap');
    const filter = document.querySelector('.idiom-filter');
    return {overflow: root.scrollWidth - root.clientWidth, content, code: Math.min(...codes),
            task: first.getBoundingClientRect().width, sticky: getComputedStyle(first).position,
            boxRight: box ? box.getBoundingClientRect().right : null, width: innerWidth,
            filterRight: filter ? filter.getBoundingClientRect().right : null, codeBlocks: codeBlocks()};
}"""
# A code block (the examples) whose text is wider than its box, or runs under its copy button.
CODE_BLOCKS = """function codeBlocks() {
    return [...document.querySelectorAll('.md-content pre > code')].flatMap(code => {
        const out = [];
        if (code.scrollWidth > code.clientWidth + 1)
            out.push(`scrolls ${code.scrollWidth - code.clientWidth}px: ${code.innerText.slice(0, 60)}`);
        const button = code.parentElement.querySelector('.md-clipboard');
        if (button) {
            const textRight = code.getBoundingClientRect().right - parseFloat(getComputedStyle(code).paddingRight);
            if (textRight > button.getBoundingClientRect().left + 1)
                out.push(`under the copy button: ${code.innerText.slice(0, 60)}`);
        }
        return out;
    });
}"""


@early(after="site")
def phone_views(tmp: Path, site):
    """Every view at both sizes, measured and checked by axe in a Chromium of its own while the
    other tests run: (lang, screen, path) -> (measurements, violations). None without Chromium
    or axe-core (the tests then say why)."""
    if find_chromium() is None or not AXE.is_file():
        return None
    found = {}
    SHOTS.mkdir(exist_ok=True)
    with beside(site) as (chromium, base):
        for lang in LANGS:
            for screen, (width, height) in SCREENS.items():
                page = chromium.new_page(viewport={"width": width, "height": height})
                for path, block in VIEWS:
                    page.goto(base + LANGS[lang] + path)
                    page.wait_for_selector(f"{block} tbody tr")
                    page.add_script_tag(content=CODE_BLOCKS)
                    measured = page.evaluate(MEASURE, block)
                    page.locator(f"{block} table").first.evaluate("table => table.scrollIntoView()")
                    page.screenshot(path=str(SHOTS / f"{screen}-{lang}-{path.strip('/')}.png"))
                    page.add_script_tag(path=str(AXE))
                    found[(lang, screen, path)] = measured, page.evaluate(AXE_RUN)
                page.close()
    return found


@pytest.mark.parametrize("screen", SCREENS)
@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("path,block", VIEWS)
def test_tables_stay_readable(phone_views, lang, screen, path, block):
    need_browser(axe=True)
    found, violations = phone_views[(lang, screen, path)]
    width, _ = SCREENS[screen]
    assert found["overflow"] <= 0, f"the page scrolls sideways: {found}"
    assert not found["codeBlocks"], found["codeBlocks"]
    assert not violations, violations
    if block == ".compat-matrix":  # scrolls in its own box, the entry's title and the filter box in view
        assert found["sticky"] == "sticky" and found["boxRight"] <= found["width"], found
        assert found["filterRight"] <= found["width"], found
        assert found["task"] >= 100, found
    elif width < STACKED_BELOW:  # stacked: the code line takes the table's width
        assert found["code"] >= 0.8 * found["content"], found
    else:  # side by side, the code column at least a third of the text's width
        assert found["code"] >= found["content"] / 3, found
