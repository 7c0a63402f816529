"""The site on a phone (390×844) and a tablet (768×1024), in both languages: a topic page's
at-a-glance table and the all-idioms page give the code line the width (task and code stacked
below Material's phone breakpoint, 45em), the compatibility matrix scrolls in its own box with the
entry's title kept in view, the page itself never scrolls sideways, and axe-core finds no serious
or critical violation. One page load per check; each leaves a screenshot of its table."""

import os
import tempfile
from pathlib import Path

import pytest

from cheatsheet.project import repo

PROJECT = repo()
AXE = PROJECT.root / "node_modules" / "axe-core" / "axe.min.js"
LANGS = {"zh": "", "en": "en/"}
SCREENS = {"phone": (390, 844), "tablet": (768, 1024)}
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
    return {overflow: root.scrollWidth - root.clientWidth, content, code: Math.min(...codes),
            task: first.getBoundingClientRect().width, sticky: getComputedStyle(first).position,
            boxRight: box ? box.getBoundingClientRect().right : null, width: innerWidth};
}"""
AXE_RUN = """async () => (await axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa']}}))
    .violations.filter(v => ['serious', 'critical'].includes(v.impact))
    .map(v => `${v.id} (${v.nodes.length}): ${v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(' | ')}`)"""


@pytest.mark.parametrize("screen", SCREENS)
@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("path,block", [("gpu-memory/", ".at-a-glance"), ("all/", ".all-idioms"),
                                        ("compatibility/", ".compat-matrix")])
def test_tables_stay_readable(browser, lang, screen, path, block):
    if not AXE.is_file():
        if os.environ.get("CHEATSHEET_REQUIRE_BROWSER"):
            pytest.fail(f"{AXE} is missing: run npm ci")
        pytest.skip(f"{AXE} is missing: run npm ci to check accessibility")
    chromium, base = browser
    width, height = SCREENS[screen]
    page = chromium.new_page(viewport={"width": width, "height": height})
    try:
        page.goto(base + LANGS[lang] + path)
        page.wait_for_selector(f"{block} tbody tr")
        found = page.evaluate(MEASURE, block)
        page.locator(f"{block} table").first.evaluate("table => table.scrollIntoView()")
        SHOTS.mkdir(exist_ok=True)
        page.screenshot(path=str(SHOTS / f"{screen}-{lang}-{path.strip('/')}.png"))
        page.add_script_tag(path=str(AXE))
        violations = page.evaluate(AXE_RUN)
    finally:
        page.close()
    assert found["overflow"] <= 0, f"the page scrolls sideways: {found}"
    assert not violations, violations
    if block == ".compat-matrix":  # scrolls in its own box, the entry's title in view
        assert found["sticky"] == "sticky" and found["boxRight"] <= found["width"], found
        assert found["task"] >= 100, found
    elif width < STACKED_BELOW:  # stacked: the code line takes the table's width
        assert found["code"] >= 0.8 * found["content"], found
    else:  # side by side, the code column at least a third of the text's width
        assert found["code"] >= found["content"] / 3, found
