"""Reading the site as a cheat sheet: the at-a-glance views, output lines, the language switch
after instant navigation, accessibility (axe-core) and the 404 pages."""

import contextlib
import html
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import AXE, AXE_RUN, beside, early, need_browser, typed_filter

from cheatsheet.model.langs import URL_PREFIX
from cheatsheet.model.pages import parse_page, site_files
from cheatsheet.project import repo
from cheatsheet.site.browser import find_chromium

PROJECT = repo()

LANGS = URL_PREFIX


def _topics(lang):
    pages = [parse_page(p, lang) for p in site_files(PROJECT.docs / lang)]
    return [p for p in pages if p.entries and p.kind == "topic"]


def _built(site, lang, page) -> str:
    site_dir, _ = site
    rel = page.path.relative_to(PROJECT.docs / lang).with_suffix("")
    return (site_dir / LANGS[lang] / rel / "index.html").read_text("utf-8")


# --- generated views, in the built HTML ---------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_every_topic_page_opens_with_its_entries_at_a_glance(site, lang):
    for page in _topics(lang):
        built = _built(site, lang, page)
        table = re.search(r'<details class="at-a-glance[ "].*?</details>', built, re.S)
        assert table, f"{page.path.name}: no at-a-glance table"
        rows = re.findall(r'<tr><td><a href="#([^"]+)">.*?</a></td><td><code>(.*?)</code></td></tr>', table.group(0), re.S)
        assert [r[0] for r in rows] == [e.id for e in page.entries], page.path.name
        assert [html.unescape(r[1]) for r in rows] == [e.code_line.code.rstrip() for e in page.entries], page.path.name
        assert table.start() < built.index(f'id="{page.entries[0].id}"'), "the table comes before the first entry"


@pytest.mark.parametrize("lang", LANGS)
def test_all_idioms_lists_every_entry_and_recipe(site, lang):
    site_dir, _ = site
    built = (site_dir / LANGS[lang] / "all" / "index.html").read_text("utf-8")
    links = re.findall(r'<tr><td><a href="([^"]+)">', built)
    entries = [(p, e) for p in _topics(lang) for e in p.entries]
    recipes = sorted((PROJECT.docs / lang / "recipes").glob("*.py"))
    assert len(links) == len(entries) + len(recipes)
    for link in links:  # every link lands on a built page, and on the entry's anchor there
        target, _, anchor = link.partition("#")
        path = (site_dir / LANGS[lang] / "all" / target).resolve() / "index.html"
        assert path.is_file(), link
        assert not anchor or f'id="{anchor}"' in path.read_text("utf-8"), link


def test_all_idioms_and_compatibility_pages_are_not_in_the_search_index(site):
    import json

    from cheatsheet.site.search_index import INDEX, TEXT

    site_dir, _ = site
    for prefix in LANGS.values():
        docs = json.loads((site_dir / prefix / INDEX).read_text("utf-8"))["docs"]
        texts = json.loads((site_dir / prefix / TEXT).read_text("utf-8"))
        assert docs and not [d["u"] for d in docs if d["u"].startswith(("all/", "compatibility/"))]
        # the page tables and the entry status lines are marked data-search-exclude
        generated = ("本页速查", "This page at a glance", "报告问题", "Report a problem", "API 文档", "API docs",
                     "尚未在 GPU 上运行", "not yet run")
        assert not [(d["u"], w) for d, text in zip(docs, texts) for w in generated if w in d["t"] + text]


# --- in a browser ---------------------------------------------------------------------------


@pytest.mark.parametrize("path,block", [("all", ".all-idioms"), ("compatibility", ".compat-matrix")])
@pytest.mark.parametrize("lang,word", [("zh", "显存"), ("en", "freeze")])
def test_all_idioms_and_the_compatibility_matrix_filter_as_you_type(browser_page, lang, word, path, block):
    page, base, _ = browser_page
    page.goto(base + LANGS[lang] + "gpu-memory/")
    page.click(f".md-sidebar--primary a[href$='/{path}/']")  # instant navigation: the filter is bound on each page change
    page.wait_for_url(f"**/{LANGS[lang]}{path}/")
    page.wait_for_selector(f"{block} tbody tr")  # the new page's content is in
    total = typed_filter(page, block, word)
    assert page.locator(f"{block} .idiom-group[hidden]").count() > 0, "a page none of whose rows match goes"
    page.fill(".idiom-filter", "")
    assert page.locator(f"{block} tbody tr:not([hidden])").count() == total


def test_output_lines_look_like_output_and_stay_out_of_the_copied_code(browser_page, tmp_path):
    page, base, _ = browser_page
    page.goto(base + "en/tensors/")
    example = page.locator("pre:has(.output-line) code").first
    colours = example.evaluate("""code => ({
        output: getComputedStyle(code.querySelector('.output-line .c1')).color,
        comment: [...code.querySelectorAll('.c1')].filter(c => !c.closest('.output-line')).map(c => getComputedStyle(c).color)[0]
            || getComputedStyle(document.body).getPropertyValue('--md-code-hl-comment-color'),
    })""")
    assert colours["output"] != colours["comment"], colours
    # What Material's copy button copies: the code's innerText while [data-md-copying] is set.
    copied = example.evaluate("""code => {
        code.setAttribute('data-md-copying', '');
        const text = code.innerText;
        code.removeAttribute('data-md-copying');
        return text;
    }""")
    shown = example.inner_text()
    assert "#>" in shown and "#>" not in copied
    assert [line for line in shown.splitlines() if not line.lstrip().startswith("#>")] == copied.rstrip("\n").splitlines()
    script = tmp_path / "copied.py"
    script.write_text(copied, "utf-8")
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr


def _switch(page, lang):
    page.hover(".md-header__option .md-select")
    page.click(f"a.md-select__link[hreflang={lang}]")
    page.wait_for_load_state()


def test_language_switch_keeps_the_place_after_instant_navigation(browser_page):
    page, base, _ = browser_page
    page.goto(base)
    page.click(".md-sidebar--primary a[href$='gpu-memory/']")
    page.wait_for_url("**/gpu-memory/")
    page.click(".md-sidebar--secondary a[href$='#cuda-empty-cache']")
    page.wait_for_url("**/gpu-memory/#cuda-empty-cache")
    _switch(page, "en")
    page.wait_for_url("**/en/gpu-memory/#cuda-empty-cache")
    # back in Chinese, by instant navigation to another page, then back/forward
    _switch(page, "zh")
    page.wait_for_url(re.compile(r".*/(?<!en/)gpu-memory/#cuda-empty-cache$"))
    page.click(".md-sidebar--primary a[href$='training/']")
    page.wait_for_url("**/training/")
    page.go_back()
    page.wait_for_url(re.compile(r".*/gpu-memory/#cuda-empty-cache$"))
    _switch(page, "en")
    page.wait_for_url("**/en/gpu-memory/#cuda-empty-cache")
    assert page.url == base + "en/gpu-memory/#cuda-empty-cache"


def test_language_switch_keeps_a_section(browser_page):
    page, base, _ = browser_page
    page.goto(base)  # then as a reader clicks: sidebar, table of contents (instant navigation)
    page.click(".md-sidebar--primary a[href$='training/']")
    page.wait_for_url("**/training/")
    page.click(".md-sidebar--secondary a[href$='#learning-rate-schedules']")
    page.wait_for_url("**/training/#learning-rate-schedules")
    _switch(page, "en")
    page.wait_for_url("**/en/training/#learning-rate-schedules")
    assert page.locator("h2#learning-rate-schedules").count() == 1


def test_language_switch_keeps_the_place_after_a_search_click(browser_page):
    page, base, _ = browser_page
    page.goto(base + "en/")
    page.click("input.md-search__input")
    page.keyboard.type("empty_cache")
    page.keyboard.press("End")
    result = page.locator(".md-search-result__item a[href*='/en/gpu-memory/']:visible").first
    result.wait_for(timeout=60_000)
    result.click()
    page.wait_for_url("**/en/gpu-memory/**")
    here = page.evaluate("location.pathname + location.hash")
    _switch(page, "zh")
    page.wait_for_url(base.rstrip("/") + here.replace("/en/", "/", 1))


def test_language_switch_keeps_the_colour_scheme(browser_page):
    page, base, _ = browser_page
    page.emulate_media(color_scheme="light")
    page.goto(base)
    page.click(".md-sidebar--primary a[href$='tensors/']")  # instant navigation, as a reader gets there
    page.wait_for_url("**/tensors/")
    assert page.get_attribute("body", "data-md-color-scheme") == "default"
    page.click("[data-md-component=palette] label:visible")
    assert page.get_attribute("body", "data-md-color-scheme") == "slate"
    _switch(page, "en")
    page.wait_for_url("**/en/tensors/")
    assert page.get_attribute("body", "data-md-color-scheme") == "slate"


def _first_recipe() -> str:
    return sorted(p.stem for p in (PROJECT.docs / "zh" / "recipes").glob("*.py"))[0]


# The other colour scheme, as the header's toggle sets it (Material's palette radio): only the
# colours are rendered again, the page and an open search panel stay as they are.
OTHER_SCHEME = """() => {
    const now = document.body.getAttribute('data-md-color-scheme');
    const other = document.querySelector(`form[data-md-component=palette] input:not([data-md-color-scheme="${now}"])`);
    other.click();
    return other.getAttribute('data-md-color-scheme');
}"""


@early(after="site")
def axe_views(tmp: Path, site):
    """axe-core on every view in both languages and both colour schemes, in a Chromium of its
    own while the other tests run: lang -> ({view (scheme): violations}, the views checked).
    Each view is loaded once and checked in one scheme, then in the other. None without Chromium
    or axe-core (the test then says why)."""
    if find_chromium() is None or not AXE.is_file():
        return None
    results = {}
    with beside(site) as (chromium, base):
        page = chromium.new_page()
        for lang in LANGS:
            found, checked = {}, set()
            for path in ("", "gpu-memory/", "all/", "compatibility/", f"recipes/{_first_recipe()}/", "search"):
                if path == "search":  # the search panel showing results, on the home page
                    page.goto(base + LANGS[lang])
                    page.click("input.md-search__input")
                    page.keyboard.type({"zh": "释放显存", "en": "free gpu memory"}[lang])
                    page.locator(".cheatsheet-search .md-search-result__item").first.wait_for()
                    page.keyboard.press("ArrowDown")  # the first result selected: Material tints it
                    page.locator(".cheatsheet-search .md-search-result__item").nth(1).hover()  # and the second hovered
                else:
                    page.goto(base + LANGS[lang] + path)
                page.add_script_tag(path=str(AXE))
                for turn in range(2):
                    scheme = page.evaluate(OTHER_SCHEME) if turn else page.get_attribute("body", "data-md-color-scheme")
                    page.wait_for_function(f"document.body.getAttribute('data-md-color-scheme') === '{scheme}'")
                    checked.add((path, scheme))
                    if violations := page.evaluate(AXE_RUN):
                        found[f"{path or '/'} ({scheme})"] = violations
            results[lang] = found, checked
        page.close()
    return results


@pytest.mark.parametrize("lang", LANGS)
def test_no_serious_accessibility_violations(axe_views, lang):
    """axe-core, WCAG 2 A and AA, in both colour schemes: no serious or critical violation on the
    home, a topic, the all-idioms, the compatibility and a recipe page, and in the search panel
    showing results."""
    need_browser(axe=True)
    found, checked = axe_views[lang]
    assert {scheme for _, scheme in checked} == {"default", "slate"} and len(checked) == 12, checked
    assert not found, found


@pytest.mark.parametrize("lang,missing,heading", [
    ("zh", "no-such-page/", "找不到"),
    ("en", "en/no-such-page/", "not found"),
])
def test_a_missing_page_answers_in_the_readers_language(browser_page, lang, missing, heading):
    """Served like GitHub Pages: every missing path gets the root 404.html."""
    page, base, _ = browser_page
    response = page.goto(base + missing)
    assert response.status == 404
    page.wait_for_function(f"document.documentElement.lang === '{lang}'")
    page.wait_for_selector("h1")
    assert heading in page.locator("article h1").inner_text().lower()
    assert page.locator("input.md-search__input").count() == 1
    home = page.locator("article a.home-link")
    assert home.count() == 1
    home.click()
    page.wait_for_url(base + LANGS[lang])


@early(after="site")
def pdfs(tmp: Path, site):
    """`python -m cheatsheet pdf` on a copy of the built site (the shared site stays as built),
    with a Chromium of its own while the other tests run, and each PDF's text, extracted once:
    lang -> (PDF, text). None without Chromium."""
    import pypdfium2

    from cheatsheet.site.pdf import build_pdfs

    if find_chromium() is None:
        return None
    copy = tmp / "site"
    shutil.copytree(site[0], copy)
    texts = {}
    for path in build_pdfs(copy):
        with contextlib.closing(pypdfium2.PdfDocument(path)) as pdf:
            # PDFium gives a hyphen that ends a line as U+FFFE (a possible hyphenation); in code it is a minus
            text = "".join(page.get_textpage().get_text_range() for page in pdf).replace("\ufffe", "-")
        texts[path.stem.rsplit("-", 1)[1]] = path, text
    return texts


@pytest.fixture(scope="module")
def printed(pdfs):
    need_browser()
    return {lang: path for lang, (path, _) in pdfs.items()}


@pytest.fixture(scope="module")
def printed_text(pdfs):
    need_browser()
    return {lang: text for lang, (_, text) in pdfs.items()}


def test_printable_cheat_sheet(site, printed, printed_text):
    """One A4-landscape PDF per language, linked from the home page, holding every entry's code
    line, dense (at least 40 entries a page: a cheat sheet, not a book), fonts embedded."""
    from pypdf import PdfReader

    site_dir, _ = site
    for lang, path in printed.items():
        reader = PdfReader(path)
        entries = sum(len(p.entries) for p in _topics(lang))
        assert len(reader.pages) <= -(-entries // 40), f"{path.name}: {len(reader.pages)} pages for {entries} entries"
        box = reader.pages[0].mediabox
        assert (round(float(box.width)), round(float(box.height))) == (842, 595), "A4 landscape"
        for page in reader.pages:
            for font in (page["/Resources"].get("/Font") or {}).values():
                font = font.get_object()
                if font["/Subtype"] == "/Type0":  # Type3 fonts carry their glyphs inline
                    descriptor = font["/DescendantFonts"][0].get_object()["/FontDescriptor"].get_object()
                    assert {"/FontFile", "/FontFile2", "/FontFile3"} & set(descriptor), f"{font['/BaseFont']} not embedded"
        printable = re.sub(r"[^\x21-\x7e]", "", printed_text[lang])  # code lines, compared without spaces and CJK comments
        missing = [e.id for p in _topics(lang) for e in p.entries
                   if re.sub(r"[^\x21-\x7e]", "", e.code_line.code) not in printable]
        assert not missing, missing
        home = (site_dir / LANGS[lang] / "index.html").read_text("utf-8")
        assert f'href="{path.name}"' in home


def test_printable_cheat_sheet_holds_the_chinese_text(printed_text):
    fonts = subprocess.run(["fc-list", ":lang=zh"], capture_output=True, text=True).stdout if shutil.which("fc-list") else ""
    if not fonts.strip():
        if os.environ.get("CHEATSHEET_REQUIRE_BROWSER"):
            pytest.fail("no CJK font: apt-get install -y fonts-noto-cjk")
        pytest.skip("no CJK font, so Chromium prints no Chinese glyphs: apt-get install -y fonts-noto-cjk")
    assert len(re.findall(r"[\u2e80-\u9fff]", printed_text["zh"])) > 5000, "the Chinese text is there"


# --- entry chrome: the record, the API docs, report a problem -----------------------------


def test_api_docs_file_is_what_the_installed_torch_resolves(inspect_names):
    """What `api-docs --check` checks, asked of this session's worker (torch imported there already)."""
    from cheatsheet.tools.api_docs import dump, table

    assert PROJECT.api_docs.read_text("utf-8") == dump(table(PROJECT.docs, inspect_names)), (
        f"{PROJECT.api_docs} is not what the installed torch resolves. Run: python -m cheatsheet api-docs")


@pytest.mark.parametrize("code,override,first", [
    ("x.view(2, 3)", None, "torch.Tensor.view"),
    ("model.eval()", None, "torch.nn.Module.eval"),
    ("mask = torch.ones(n, n, dtype=torch.bool).tril()", None, "torch.Tensor.tril"),
    ("loss = F.cross_entropy(logits, target)", None, "torch.nn.functional.cross_entropy"),
    ("del out\ngc.collect()\ntorch.cuda.empty_cache()", None, "torch.cuda.empty_cache"),  # gc is a module, not a tensor
    ("import numpy as np\nnp.random.seed(0)\nx.view(2, 3)", None, "torch.Tensor.view"),  # so is what the code imports
    ("backend = 'gloo'\ndist.init_process_group(backend)", None, "torch.distributed.init_process_group"),
    ("x.view(2, 3)", "torch.reshape", "torch.reshape"),
    # the vision page imports torchvision and v2 for its code lines
    ("t = v2.Compose([v2.ToImage(), v2.Normalize(mean, std)])", None, "torchvision.transforms.v2.Compose"),
])
def test_main_api_candidates(code, override, first):
    from cheatsheet.tools.api_docs import candidates

    assert candidates(code, override)[0] == first


def test_main_api_resolution_skips_what_torch_lacks(inspect_names):
    """`resolve` keeps the first candidate that the installed torch has and that is not a module;
    the committed table (checked against torch above) names empty_cache for `del out; gc.collect();
    torch.cuda.empty_cache()`, whose `gc.collect()` is no torch call."""
    from cheatsheet.model.api_links import load
    from cheatsheet.tools.api_docs import resolve, url

    assert resolve(["torch.Tensor.collect", "torch.cuda", "torch.cuda.empty_cache"], inspect_names) == "torch.cuda.empty_cache"
    links = load(PROJECT.api_docs)
    assert links["free-references-before-empty-cache"]["api"] == "torch.cuda.empty_cache"
    assert url("torch.cuda.empty_cache") == "https://docs.pytorch.org/docs/stable/generated/torch.cuda.empty_cache.html"
    assert url("torchvision.ops.nms") == "https://docs.pytorch.org/vision/stable/generated/torchvision.ops.nms.html"
    assert url("torch.distributed.barrier") == "https://docs.pytorch.org/docs/stable/distributed.html#torch.distributed.barrier"
    # The function torch.autograd.gradcheck shadows its module; its page is under the module's name.
    assert url("torch.autograd.gradcheck").endswith("/generated/torch.autograd.gradcheck.gradcheck.html")


def _said(verdicts, strings) -> str:
    """What the status line should say about the record, device by device (from the strings alone)."""
    from cheatsheet.model.devices import DEVICES

    groups = []
    for device in DEVICES:
        cells = []
        for v in verdicts:
            if v.device != device or v.state == "missing":
                continue
            cells.append(strings["status.needs_cuda"] if v.state == "needs-cuda"
                         else strings["status.needs_package"].format(release=v.release, package=v.row.note)
                         if v.state == "needs-package" else strings["status.needs_gpus"].format(release=v.release)
                         if v.state == "needs-gpus" else strings[f"status.{v.state}"].format(release=v.release))
        groups.append(strings["status.device"].format(cells=" · ".join(dict.fromkeys(cells)), device=strings[f"device.{device}"])
                      if cells else strings[f"status.{device}_missing"])
    return " — ".join(groups)


@pytest.mark.parametrize("lang", LANGS)
def test_every_entry_shows_what_the_record_says(site, lang):
    """Under each heading: the entry's row of the matrix, each mark's tooltip naming the row behind it."""
    from urllib.parse import parse_qs, urlsplit

    from cheatsheet.model import api_links
    from cheatsheet.model.record import Record
    from cheatsheet.site.strings import STRINGS

    _, port = site
    record = Record(PROJECT.record, PROJECT.snippets)
    links = api_links.load(PROJECT.api_docs)
    for page in _topics(lang):
        built = _built(site, lang, page)
        repo = re.search(r'<a href="([^"]+)" title="[^"]*" class="md-source">', built).group(1)  # the build's REPO_URL
        rel = page.path.relative_to(PROJECT.docs / lang).with_suffix("").as_posix()
        for entry in page.entries:
            chrome = re.search(rf'id="{entry.id}"[^>]*>.*?</h3>\s*<p class="entry-chrome" data-search-exclude>(.*?)</p>',
                               built, re.S)
            assert chrome, f"{page.path.name}#{entry.id}: no status line"
            line = html.unescape(re.sub(r"<[^>]+>", "", chrome.group(1)))
            verdicts = record.verdicts(entry)
            assert line.startswith(_said(verdicts, STRINGS[lang]) + " · "), (entry.id, line)
            titles = html.unescape(" ".join(re.findall(r'<span title="([^"]*)">', chrome.group(1))))
            for v in verdicts:
                if v.row:
                    assert f"PyTorch {v.row.torch}" in titles and v.row.date in titles, (entry.id, titles)
            if entry.id in links:
                assert f'href="{links[entry.id]["url"]}"' in chrome.group(1)
            report = re.search(r'href="([^"]*/issues/new\?[^"]*)"', chrome.group(1))
            assert report and report.group(1).startswith(repo + "/issues/new?"), line
            query = parse_qs(urlsplit(html.unescape(report.group(1))).query)
            assert query["template"] == ["wrong-entry.yml"]
            assert query["entry"] == [f"http://127.0.0.1:{port}/{LANGS[lang]}{rel}/#{entry.id}"]


def test_a_changed_entry_is_not_shown_as_verified():
    from cheatsheet.model.record import Row, verdict
    from cheatsheet.site.entry_status import status_line
    from cheatsheet.site.strings import STRINGS

    en = STRINGS["en"]
    row = Row("tensors.md", "x", "passed", "aaaa", "2.13.0+cpu", "3.11.7", "AMD EPYC", "2026-12-01")
    shown = lambda *found: re.sub(r"<[^>]+>", "", status_line(list(found), en)).strip()  # noqa: E731
    assert shown(verdict("cpu", row, "aaaa", "2.13.0"), verdict("cuda", None, "aaaa", "2.13.0")) == (
        "✓ 2.13.0 · CPU — CUDA: not yet run · works since 2.13.0")
    # changed since: neither verified nor "works since"
    assert shown(verdict("cpu", row, "bbbb", "2.13.0")) == "⚠ changed since verified on 2.13.0 · CPU"
    failed = Row("tensors.md", "x", "failed", "aaaa", "2.11.0+cu130", "3.11.7", "H200 (sm_90)", "2026-12-01")
    assert shown(verdict("cuda", failed, "aaaa", "2.11.0")) == "✗ 2.11.0 failed · CUDA"


def test_entry_chrome_and_page_table_in_the_browser(browser_page):
    """What a reader sees under a heading and at the top of a page, and where its links go."""
    page, base, _ = browser_page
    page.goto(base + "en/gpu-memory/")
    table = page.locator("details.at-a-glance")
    assert (table.is_visible()
            and table.locator("tbody tr").count() == len(parse_page(PROJECT.docs / "en" / "gpu-memory.md", "en").entries))
    table.locator("a[href$='#cuda-empty-cache']").click()
    page.wait_for_url("**/en/gpu-memory/#cuda-empty-cache")
    chrome = page.locator("h3#cuda-empty-cache + p.entry-chrome")
    assert chrome.is_visible()
    assert re.match(r"✓ \d+\.\d+\S* · ", chrome.inner_text()), chrome.inner_text()
    assert chrome.locator("a", has_text="API docs").get_attribute("href").endswith("/generated/torch.cuda.empty_cache.html")
    assert "template=wrong-entry.yml" in chrome.locator("a", has_text="Report a problem").get_attribute("href")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_compatibility_page_answers_i_am_on_this_release(browser_page, lang):
    """Pick a release: only its columns stay; "failed there" keeps exactly the rows with a failed
    cell in them, and the summary counts what the rows say. Reached as a reader does, by a click
    in the navigation (instant navigation: the page changes without a reload)."""
    import csv

    page, base, _ = browser_page
    page.goto(base + LANGS[lang] + "gpu-memory/")
    page.click(".md-sidebar--primary a[href$='/compatibility/']")
    page.wait_for_url(f"**/{LANGS[lang]}compatibility/")
    block = ".compat-matrix"
    page.wait_for_selector(f"{block} .compat-release")
    total = page.locator(f"{block} tbody tr").count()
    # an old release on record with failures whose cause is on record (its rows' first lines)
    release = "2.10.0"
    with open(PROJECT.record / release / "cpu.csv", encoding="utf-8", newline="") as f:
        failed = {row["entry"] for row in csv.DictReader(f) if row["result"] == "failed"}
    assert failed
    page.select_option(".compat-release", release)
    visible_heads = page.eval_on_selector_all(f"{block} thead th[data-release]:not([hidden])",
                                              "ths => ths.map(t => t.dataset.release)")
    assert visible_heads and set(visible_heads) == {release}
    page.select_option(".compat-show", "fails")
    rows = page.locator(f"{block} tbody tr:not([hidden])")
    shown = rows.count()
    assert 0 < shown <= len(failed)
    assert rows.evaluate_all("rs => rs.every(r => r.querySelector('td.compat-failed:not([hidden])'))")
    summary = page.inner_text(".compat-release-summary")
    assert release in summary and f"{shown}" in summary
    page.select_option(".compat-show", "works")
    works = page.locator(f"{block} tbody tr:not([hidden])").count()
    page.select_option(".compat-show", "nopass")
    nopass = page.locator(f"{block} tbody tr:not([hidden])").count()
    assert works + nopass == total and works > shown
    # back to every release: every column and row again
    page.select_option(".compat-release", "")
    assert page.locator(f"{block} tbody tr:not([hidden])").count() == total
    assert page.locator(f"{block} thead th[data-release][hidden]").count() == 0
    assert page.is_disabled(".compat-show")
