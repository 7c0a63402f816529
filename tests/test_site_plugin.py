"""The site's MkDocs plugin (cheatsheet/site/plugin.py): each feature module as a plain function,
then one build of a small synthetic site in both languages, checked feature by feature; then
two builds by one plugin instance (no state carried over) and bad data (a PluginError naming the
file). The real site's build is the integration test: tests/test_site.py and its neighbours."""

import json
import logging
import os
import re
from html import escape
from pathlib import Path
from string import Formatter

import pytest
from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.exceptions import Abort, PluginError
from mkdocs.structure.files import get_files

from cheatsheet.model import record
from cheatsheet.model.langs import BY_CODE, LABELS, LANGS, URL_PREFIX
from cheatsheet.model.pages import parse_page, parse_recipe, parse_text
from cheatsheet.model.record import Row, Verdict, save, summary, verdict
from cheatsheet.project import repo
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
)
from cheatsheet.site import summary as verification_summary
from cheatsheet.site.strings import STRINGS

PROJECT = repo()
ZH, EN = STRINGS["zh"], STRINGS["en"]
ROW = dict(torch="2.13.0+cpu", python="3.11.7", device="AMD EPYC", date="2026-12-01")
NEW = dict(ROW, torch="2.14.1+cpu", date="2026-12-02")  # a newer release
GPU = dict(ROW, torch="2.13.0+cu130", device="H200 (sm_90)", source="gpu")


# --- the synthetic site ---------------------------------------------------------------------

def _entry(lang: str, title: str, attrs: str, code: str, printed: str, more: str = "") -> str:
    mnemonic, what, prereq, example = (LABELS[lang][key] for key in ("mnemonic", "what", "prereq", "example"))
    example = f"**{example}**"
    return (f"### {title} {{ {attrs} }}\n\n```python\n{code}\n```\n\n"
            f"- {mnemonic} m.\n- {what} {'第一句。第二句。' if lang == 'zh' else 'The first sentence. The second one.'}\n"
            f"- {prereq} none.\n\n{example}\n\n```python\n{code}\nprint({printed})\n#> {printed}\n{more}```\n\n")


GPU_LINE = 'print("on a GPU" if torch.cuda.is_available() else "")\n#cuda> on a GPU\n'


def _pages(lang: str) -> dict[str, str]:
    zh = lang == "zh"
    return {
        "index.md": f"# {'首页' if zh else 'Home'}\n\n<!-- verification-summary -->\n",
        "all.md": f"# {'全部速查' if zh else 'All idioms'}\n\n<!-- all-idioms -->\n",
        "compatibility.md": f"---\nsearch:\n  exclude: true\n---\n\n# {'兼容性' if zh else 'Compatibility'}\n\n"
                            "<!-- compatibility-matrix -->\n",
        "alpha.md": f"# {'甲页' if zh else 'Alpha'}\n\n{'介绍。' if zh else 'The introduction.'}\n\n"
                    + _entry(lang, "第一条" if zh else "The first", "#alpha-one", "x = 1", "1", GPU_LINE)
                    + _entry(lang, "第二条" if zh else "The second", '#alpha-two data-aliases="old-two"', "y = 2", "2",
                             GPU_LINE),
        "beta.md": f"# {'乙页' if zh else 'Beta'}\n\n{'介绍。' if zh else 'The introduction.'}\n\n"
                   f"## {'一节' if zh else 'A section'} {{ #a-section }}\n\n"
                   + _entry(lang, "第三条" if zh else "The third", '#beta-one data-aliases="alpha.md#old-beta"', "z = 3", "3"),
        "recipes/demo.py": f"# %% [markdown]\n# # {'演示' if zh else 'A demo'}\n#\n# {'一个程序。' if zh else 'One program.'}\n\n"
                           "# %%\nprint(4)\n#> 4\n",
    }


# The plugins listed before ours (the English site's are derived from these).
PLUGINS = """\
  - search
  - mkdocs-jupyter:
      include: ["recipes/*.py"]
      ignore: ["*.md"]
      execute: false
      no_prompt: true
      cache: false
"""
MKDOCS_YML = """\
site_name: Test
site_url: http://example.test/
repo_url: https://github.com/example/repo
docs_dir: docs/zh
site_dir: site
strict: true
theme:
  name: material
  custom_dir: {overrides}
  language: zh
  font: false
plugins:
{plugins}  - cheatsheet
markdown_extensions:
  - toc:
      permalink: true
  - attr_list
  - md_in_html
  - pymdownx.highlight
  - pymdownx.superfences
  - pymdownx.snippets:
      base_path: [{snippets}]
      check_paths: true
"""


def write_site(root: Path) -> Path:
    """The sources of a small site: two topic pages (3 entries, two aliases), a recipe, a home
    page, an all-idioms and a compatibility page per language, and a record of two releases:
    on 2.14.1 alpha-one and the recipe passed and alpha-two failed, on 2.13.0 alpha-one and the
    recipe passed and alpha-two's row is stale, and alpha-one passed on CUDA with 2.13.0;
    beta-one has no row at all."""
    for lang in LANGS:
        for name, text in _pages(lang).items():
            path = root / "docs" / lang / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, "utf-8")
    (root / "snippets").mkdir()
    (root / "pyproject.toml").write_text("[tool.cheatsheet]\n", "utf-8")
    (root / "generated").mkdir()
    (root / "generated" / "api-docs.csv").write_text(
        "entry,api,url\nalpha-one,torch.zeros,https://docs.pytorch.org/docs/stable/generated/torch.zeros.html\n", "utf-8")
    zh = MKDOCS_YML.format(overrides=PROJECT.root / "overrides", snippets=root / "snippets", plugins=PLUGINS)
    (root / "mkdocs.yml").write_text(zh, "utf-8")
    zh = root / "docs" / "zh"
    one = parse_page(zh / "alpha.md", "zh").entry("alpha-one").code_hash(root / "snippets")
    demo = parse_page(zh / "recipes" / "demo.py", "zh").entries[0].code_hash(root / "snippets")
    two = parse_page(zh / "alpha.md", "zh").entry("alpha-two").code_hash(root / "snippets")
    record = root / "verification"
    save(record, "2.14.1", "cpu", [Row("alpha.md", "alpha-one", "passed", one, **NEW),
                                   Row("alpha.md", "alpha-two", "failed", two, **NEW, note="AssertionError: 2 != 3"),
                                   Row("recipes/demo.py", "recipe-demo", "passed", demo, **NEW)])
    save(record, "2.13.0", "cpu", [Row("alpha.md", "alpha-one", "passed", one, **ROW),
                                   Row("alpha.md", "alpha-two", "passed", "0" * 16, **ROW),  # stale
                                   Row("recipes/demo.py", "recipe-demo", "passed", demo, **ROW)])
    save(record, "2.13.0", "cuda", [Row("alpha.md", "alpha-one", "passed", one, **GPU)])
    return root


def _build(root: Path):
    config = load_config(str(root / "mkdocs.yml"))
    build(config)
    return config


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = write_site(tmp_path_factory.mktemp("plugin-site"))
    _build(root)
    return root / "site"


def _html(site: Path, path: str) -> str:
    return (site / path / "index.html").read_text("utf-8")


# --- the modules, as plain functions ---------------------------------------------------------


def test_both_languages_have_the_same_strings():
    assert set(STRINGS) == {"zh", "en"}
    assert ZH.keys() == EN.keys()
    fields = lambda text: {name for _, name, _, _ in Formatter().parse(text) if name}  # noqa: E731
    assert not [key for key in ZH if fields(ZH[key]) != fields(EN[key])], "the same placeholders"


def _row(result="passed", hash="aaaa", **kw):
    return Row("alpha.md", "alpha-one", result, hash, **{**ROW, **kw})


def _verdict(device, row, hash="aaaa", release="2.13.0"):
    return verdict(device, row, hash, release)


@pytest.mark.parametrize("found,zh,en", [
    (_verdict("cpu", _row()), "✓ 2.13.0", "✓ 2.13.0"),
    (_verdict("cpu", _row(), "bbbb"), "⚠ 在 2.13.0 上验证后改过", "⚠ changed since verified on 2.13.0"),
    (_verdict("cpu", None), None, None),
    (_verdict("cpu", _row("needs-cuda")), "仅限 GPU", "GPU only"),
    (_verdict("cpu", _row("needs-package", note="torchvision")), "2.13.0 未运行：需要 torchvision",
     "2.13.0 not run: needs torchvision"),
    (_verdict("cpu", _row("failed", **NEW), release="2.14.1"), "✗ 2.14.1 上失败", "✗ 2.14.1 failed"),
    (_verdict("cuda", _row(**GPU)), "✓ 2.13.0", "✓ 2.13.0"),
])
def test_a_cell_of_the_status_line_says_what_the_verdict_says(found, zh, en):
    assert entry_status.cell_text(found, ZH) == zh
    assert entry_status.cell_text(found, EN) == en


def test_a_cells_tooltip_names_the_row_and_no_more():
    assert entry_status.row_title(_verdict("cuda", _row(**GPU)), EN) == (
        "PyTorch 2.13.0+cu130, Python 3.11.7, H200 (sm_90), 2026-12-01; a maintainer's GPU run")
    failed = _verdict("cpu", _row("failed", note="AssertionError: 2 != 3"))
    assert entry_status.row_title(failed, ZH) == (
        "PyTorch 2.13.0+cpu，Python 3.11.7，AMD EPYC，2026-12-01；本项目的测试套件；失败：AssertionError: 2 != 3")
    stale = entry_status.row_title(_verdict("cpu", _row(), "bbbb"), EN)
    assert stale.endswith("this project's test suite; the code changed after this run")


def _cell(row, title_lang=EN, release="2.13.0"):
    title = entry_status.row_title(_verdict("cpu", row, release=release), title_lang)
    return f'<span title="{title}">'.replace("'", "&#x27;")


def test_status_line_shows_the_matrix_row_and_links_the_api_and_the_issue_form():
    report = entry_status.report_url("https://github.com/o/r/", "http://x.test/alpha/#alpha-one", "alpha-one", "wrong-entry.yml")
    assert report == ("https://github.com/o/r/issues/new?template=wrong-entry.yml&title=%5Balpha-one%5D+"
                      "&entry=http%3A%2F%2Fx.test%2Falpha%2F%23alpha-one")
    new, old = _row(**NEW), _row()
    found = [_verdict("cpu", new, release="2.14.1"), _verdict("cpu", old), _verdict("cuda", None, release="2.14.1"),
             _verdict("cuda", None)]
    line = entry_status.status_line(found, EN, {"api": "torch.zeros", "url": "https://d.test/z.html"}, report)
    assert line == ('\n<p class="entry-chrome" data-search-exclude>'
                    f'{_cell(new, release="2.14.1")}✓ 2.14.1</span> · {_cell(old)}✓ 2.13.0</span> · CPU — CUDA: not yet run · '
                    '<span class="entry-since" title="from this release on, every recorded release passed on CPU; the record '
                    'goes back to 2.13.0, older releases were not run">works since 2.13.0</span> · '
                    '<a href="https://d.test/z.html" title="torch.zeros">API docs</a> · '
                    f'<a href="{report.replace("&", "&amp;")}">Report a problem</a></p>\n')
    text = re.sub(r"<[^>]+>", "", entry_status.status_line(found, ZH))
    assert text == "\n✓ 2.14.1 · ✓ 2.13.0 · CPU — CUDA：尚未在 GPU 上运行 · 2.13.0 及以上可用\n"


def test_a_pending_release_is_said_not_yet_run_never_passed():
    new = [_verdict("cpu", _row(**NEW), release="2.14.1"), _verdict("cpu", None)]
    line = entry_status.status_line(new, EN, pending=["2.13.0"])
    assert re.sub(r"<[^>]+>", "", line).strip() == "✓ 2.14.1 · CPU · not yet run on 2.13.0 · works since 2.14.1"
    assert "✓ 2.13.0" not in line


def test_works_since_is_derived_from_the_rows():
    """The earliest recorded release from which every later one passed; a failure on the newest
    gives none; a release whose row says nothing (needs-package, missing) neither extends nor breaks it."""
    def found(*states):
        return [_verdict("cpu", _row(state) if state != "missing" else None, release=release)
                for release, state in zip(("2.15.0", "2.14.1", "2.13.0", "2.11.0"), states)]

    assert record.since(found("passed", "passed", "passed", "passed"), "cpu") == "2.11.0"
    assert record.since(found("passed", "passed", "failed", "passed"), "cpu") == "2.14.1"
    assert record.since(found("failed", "passed", "passed", "passed"), "cpu") is None
    assert record.since(found("passed", "needs-package", "missing", "passed"), "cpu") == "2.11.0"
    assert record.since(found("missing", "missing", "missing", "missing"), "cpu") is None


def test_status_line_with_a_failed_and_a_stale_release():
    failed = _row("failed", **NEW, note="AssertionError: 2 != 3")
    found = [_verdict("cpu", failed, release="2.14.1"), _verdict("cpu", _row(), "bbbb"),
             _verdict("cuda", None, release="2.14.1"), _verdict("cuda", _row(**GPU))]
    line = entry_status.status_line(found, EN)
    assert re.sub(r"<[^>]+>", "", line) == "\n✗ 2.14.1 failed · ⚠ changed since verified on 2.13.0 · CPU — ✓ 2.13.0 · CUDA\n"
    assert ('title="PyTorch 2.14.1+cpu, Python 3.11.7, AMD EPYC, 2026-12-02; this project&#x27;s test suite; '
            'failed: AssertionError: 2 != 3"') in line
    assert re.sub(r"<[^>]+>", "", entry_status.status_line(found, ZH)) == (
        "\n✗ 2.14.1 上失败 · ⚠ 在 2.13.0 上验证后改过 · CPU — ✓ 2.13.0 · CUDA\n")
    # GPU only on two releases: said once, both rows in its tooltip; no row at all: said so
    gpu_only = [_verdict("cpu", _row("needs-cuda", **NEW), release="2.14.1"), _verdict("cpu", _row("needs-cuda"))]
    line = entry_status.status_line(gpu_only, EN)
    assert re.sub(r"<[^>]+>", "", line) == "\nGPU only · CPU\n" and "2.14.1+cpu" in line and "2.13.0+cpu" in line
    none = [_verdict("cpu", None), _verdict("cuda", None)]
    assert re.sub(r"<[^>]+>", "", entry_status.status_line(none, EN)) == "\nCPU: no run on record — CUDA: not yet run\n"


def test_a_row_that_says_nothing_known_is_an_error_naming_page_and_entry():
    entry = parse_text(Path("/docs/zh/alpha.md"), _pages("zh")["alpha.md"], "zh").entries[0]
    good = [_verdict("cpu", _row())]
    assert entry_status.checked(good, entry) == good
    with pytest.raises(PluginError, match=r"/docs/zh/alpha.md: entry `alpha-one`: its cpu row for torch 2.13.0 .* says `passd`"):
        entry_status.checked([Verdict("cpu", "passd", _row("passd"), "2.13.0")], entry)


def test_recipe_line_says_what_the_record_holds():
    new, old = _verdict("cpu", _row(**NEW), release="2.14.1"), _verdict("cpu", _row())
    missing = _verdict("cuda", None)
    text = lambda found, strings: re.sub(r"<span[^>]*>|</span>", "", recipes.verification_line(found, strings))  # noqa: E731
    assert text([new, old, missing], ZH) == (
        "这个实战在测试中作为一个程序完整运行过：✓ 2.14.1 · ✓ 2.13.0 · CPU — CUDA：尚未在 GPU 上运行。"
        "代码里的 <code>#&gt;</code> 行是记录在案的运行打印的输出。")
    assert text([new, old, missing], EN).startswith(
        "This recipe ran in the tests as one program: ✓ 2.14.1 · ✓ 2.13.0 · CPU — CUDA: not yet run. ")
    stale = _verdict("cpu", _row(), "bbbb")
    assert text([stale, missing], EN) == (
        "No recorded run of this recipe is for its code as it is now: ⚠ changed since verified on 2.13.0 · CPU — "
        "CUDA: not yet run. The <code>#&gt;</code> lines in the code are not yet checked again.")
    never = recipes.verification_line([_verdict("cpu", None), missing], EN)
    assert never.startswith("No run of this recipe is on record yet")
    note = recipes.note([old, missing], "recipes/demo.py", EN)
    assert note.startswith('<p class="recipe-verification">This recipe ran')
    assert note.endswith('<a class="md-button notebook-download" href="../demo.ipynb" download>Download notebook</a></p>')


def test_recipe_pages_lose_the_loaders_from_other_hosts():
    html = ('<h1>T</h1><script src=""> </script><script type="text/x-mathjax-config">x</script>'
            '<script type="module">import m from "https://cdnjs.cloudflare.com/m.js"</script><p>kept</p>')
    assert recipes.without_loaders(html) == "<h1>T</h1><p>kept</p>"
    assert recipes.is_recipe("recipes/demo.py") and not recipes.is_recipe("recipes.md") and not recipes.is_recipe("demo.py")


def _figures(states, torch=(), devices=("AMD EPYC",), dates=("2026-12-01",), sources=("ci",), entries=4):
    return {"entries": entries, "states": states, "torch": list(torch), "python": ["3.11.7"] if torch else [],
            "devices": list(devices) if torch else [], "dates": list(dates) if torch else [],
            "sources": list(sources) if torch else []}


def test_the_summary_has_a_line_per_release_and_device_with_rows():
    figures = {("2.13.0", "cpu"): _figures({"passed": 2, "needs-cuda": 1, "stale": 1}, ["2.13.0+cpu"]),
               ("2.14.1", "cpu"): _figures({"passed": 3, "failed": 1}, ["2.14.1+cpu"], dates=["2026-12-02"]),
               ("2.13.0", "cuda"): _figures({"missing": 4}),
               ("2.14.1", "cuda"): _figures({"missing": 4})}
    assert verification_summary.render(figures, ZH) == (
        "- **PyTorch 2.14.1，CPU**：3 / 4 个条目的示例通过（Python 3.11.7，AMD EPYC，2026-12-02；本项目的测试套件）；"
        "1 个条目的示例失败。\n"
        "- **PyTorch 2.13.0，CPU**：2 / 4 个条目的示例通过（Python 3.11.7，AMD EPYC，2026-12-01；本项目的测试套件）；"
        "另有 1 个条目的示例只能在 GPU 上运行。\n"
        "- **CUDA**：还没有记录在案的 GPU 运行，`#cuda>` 行尚未在 GPU 上核对。")
    assert verification_summary.render(figures, EN).splitlines()[0] == (
        "- **PyTorch 2.14.1, CPU**: the examples of 3 of 4 entries passed (Python 3.11.7, AMD EPYC, 2026-12-02; "
        "this project's test suite); the examples of 1 failed.")
    figures[("2.13.0", "cuda")] = _figures({"passed": 1, "missing": 3}, ["2.13.0+cu130"], devices=["H200 (sm_90)"],
                                           sources=["gpu"])
    lines = verification_summary.render(figures, EN).splitlines()
    assert lines[2] == (
        "- **PyTorch 2.13.0, CUDA**: the examples of 1 of 4 entries passed on a GPU (Python 3.11.7, H200 (sm_90), "
        "2026-12-01; a maintainer's GPU run); the `#cuda>` lines of the others are not yet checked on a GPU.")
    assert len(lines) == 3, "no 2.14.1 CUDA line, and no line saying there is no GPU run"
    # only stale rows: they vouch for nothing, and the line says so
    figures[("2.13.0", "cuda")] = _figures({"stale": 2, "missing": 2})
    assert verification_summary.render(figures, EN).splitlines()[2].startswith("- **PyTorch 2.13.0, CUDA**: all 2 rows predate")
    empty = {("2.13.0", d): _figures({"missing": 4}) for d in ("cpu", "cuda")}
    assert verification_summary.render(empty, EN).splitlines()[0] == "- **CPU**: the verification record is empty."
    assert verification_summary.render({}, EN).splitlines()[0] == "- **CPU**: the verification record is empty."


def test_the_matrix_has_a_table_per_page_a_row_per_entry_a_column_per_release_and_device():
    alpha, beta, demo = _page("en", "alpha.md"), _page("en", "beta.md"), _page("en", "recipes/demo.py")
    one, two = _row(**NEW, note=""), _row("failed", **NEW, note="AssertionError: 2 != 3")
    verdicts = {"alpha-one": [_verdict("cpu", one, release="2.14.1"), _verdict("cpu", _row()),
                              _verdict("cuda", _row(**GPU))],
                "alpha-two": [_verdict("cpu", two, release="2.14.1"), _verdict("cpu", _row(), "bbbb"),
                              _verdict("cuda", None)],
                "recipe-demo": [_verdict("cpu", _row("needs-cuda", **NEW), release="2.14.1"), _verdict("cpu", None),
                                _verdict("cuda", None)]}
    cols = [("2.14.1", "cpu"), ("2.13.0", "cpu"), ("2.13.0", "cuda")]
    view = compatibility.matrix([("alpha/", alpha), ("beta/", beta), ("recipes/demo/", demo)], verdicts, cols,
                                "compatibility/", EN)
    assert view.startswith('<div class="compat-matrix" data-search-exclude>\n'
                           '<p class="idiom-count">3 entries and 1 recipes; columns (PyTorch release and device): 3</p>\n'
                           '<p class="compat-legend-title">Legend</p>')
    assert "no CUDA columns" not in view  # there is one
    assert view.count('<section class="idiom-group">') == 3 and view.count("<table>") == 3
    assert '<h2 id="alpha"><a href="../alpha/">Alpha</a></h2>' in view and '<h2 id="recipes">Recipes</h2>' in view
    heads = re.findall(r'<th scope="col" data-release="([^"]+)" data-device="([^"]+)" title="([^"]*)">(.*?)</th>', view)
    assert [(r, d) for r, d, _, _ in heads[:3]] == cols
    release, device, title, shown = heads[0]
    assert re.sub(r"<[^>]+>", "", shown) == "2.14.1 CPU 2026-12-02 tests"
    assert title == "3 rows: PyTorch 2.14.1+cpu; Python 3.11.7; AMD EPYC; 2026-12-02; this project&#x27;s test suite"
    assert re.sub(r"<[^>]+>", "", heads[2][3]) == "2.13.0 CUDA 2026-12-01 GPU run"
    rows = re.findall(r'<tr><th scope="row"><a href="([^"]+)">([^<]+)</a></th>(.*?)</tr>', view)
    assert [(link, title) for link, title, _ in rows] == [
        ("../alpha/#alpha-one", "The first"), ("../alpha/#alpha-two", "The second"), ("../beta/#beta-one", "The third"),
        ("../recipes/demo/", "A demo")]
    cells = {link: re.findall(r'<td class="compat-([a-z-]+)"( title="[^"]*")?>(.*?)</td>', tds) for link, _, tds in rows}
    assert [c[0] for c in cells["../alpha/#alpha-one"]] == ["passed", "passed", "passed"]
    assert [c[0] for c in cells["../alpha/#alpha-two"]] == ["failed", "stale", "missing"]
    assert "failed: AssertionError: 2 != 3" in cells["../alpha/#alpha-two"][0][1]
    assert cells["../alpha/#alpha-two"][0][2] == '<span aria-hidden="true">✗</span><span class="compat-sr">failed</span>'
    assert cells["../alpha/#alpha-two"][2] == ("missing", "",
                                               '<span aria-hidden="true">—</span><span class="compat-sr">no run</span>')
    assert [c[0] for c in cells["../beta/#beta-one"]] == ["missing"] * 3  # no verdicts at all
    assert [c[0] for c in cells["../recipes/demo/"]] == ["needs-cuda", "missing", "missing"]
    assert cells["../recipes/demo/"][0][2] == "GPU only"
    assert '<input type="search" class="idiom-filter" placeholder="Type to filter' in view
    zh = compatibility.matrix([("alpha/", _page("zh", "alpha.md"))], {}, cols[:2], "compatibility/", ZH)
    assert "还没有记录在案的 GPU 运行，所以没有 CUDA 列" in zh
    assert '<li><span class="compat-passed" aria-hidden="true">✓</span> 通过：' in zh
    assert "<li>" + '<span class="compat-needs-cuda">仅限 GPU</span>：' in zh


def test_the_matrix_shows_only_columns_with_rows(tmp_path):
    from cheatsheet.model.record import Record

    root = write_site(tmp_path)
    record = Record(root / "verification", root / "snippets")
    assert record.columns == [("2.14.1", "cpu"), ("2.14.1", "cuda"), ("2.13.0", "cpu"), ("2.13.0", "cuda")]
    assert compatibility.columns(record) == [("2.14.1", "cpu"), ("2.13.0", "cpu"), ("2.13.0", "cuda")]


def test_output_lines_are_marked():
    code = ('<span class="n">x</span>\n<span class="w">    </span><span class="c1">#cpu&gt; 1</span>\n'
            '<span class="c1"># a comment</span>\n')
    assert output_lines.mark(code) == ('<span class="n">x</span>\n<span class="output-line"><span class="w">    </span>'
                                       '<span class="c1">#cpu&gt; 1</span>\n</span><span class="c1"># a comment</span>\n')


def test_gpu_output_lines_no_gpu_row_vouches_for_get_a_note():
    code = ('<h3 id="a">A</h3><pre><span class="output-line"><span class="c1">#&gt; 1</span>\n</span>'
            '<span class="output-line"><span class="c1">#cuda&gt; 2</span>\n</span></pre><h3 id="b">B</h3>'
            '<pre><span class="output-line"><span class="c1">#cuda&gt; 3</span>\n</span></pre>')
    plain = '<span class="output-line"><span class="c1">#cuda&gt; 2</span>\n</span>'
    flagged = ('<span class="output-line output-line--unconfirmed"><span class="c1">#cuda&gt; 2</span>'
               '<span class="output-note">  n&lt;</span>\n</span>')
    assert output_lines.unconfirmed(code, "a", False, "n<") == code.replace(plain, flagged)
    every = output_lines.unconfirmed(code, "a", True, "n<")  # a requires-cuda example: every line
    assert every.count("output-line--unconfirmed") == 2 and every.endswith('<span class="c1">#cuda&gt; 3</span>\n</span></pre>')


@pytest.mark.parametrize("lang,prefix", URL_PREFIX.items())
def test_gpu_output_is_marked_until_a_gpu_row_vouches_for_it(built, lang, prefix):
    html = _html(built, prefix + "alpha")
    one, two = html.split('id="alpha-one"')[1].split('id="alpha-two"')
    note = STRINGS[lang]["status.unconfirmed_output"]
    assert "#cuda&gt; on a GPU" in one and "output-line--unconfirmed" not in one  # passed on CUDA with 2.13.0
    assert ('output-line--unconfirmed"><span class="c1">#cuda&gt; on a GPU</span><span class="output-note">  '
            f'{escape(note)}</span>') in two  # no CUDA row
    assert two.count("output-line--unconfirmed") == 1  # its #> line, which a CPU run checks, is not marked


def test_markup_places_blocks_by_tags():
    html = ('<h1 id="t">T</h1>\n<p>intro</p>\n<h2 id="s">S</h2>\n'
            '<h3 data-x="1" id="a">A<a href="#a">¶</a></h3>\n<p>a</p>\n<h3 id="b">B</h3>')
    out, missing = markup.after_headings(html, {"a": "[A]", "c": "[C]"})
    assert '<h3 data-x="1" id="a">A<a href="#a">¶</a></h3>[A]\n<p>a</p>' in out and missing == {"c"}
    assert markup.before_first_heading(html, "[T]").startswith('<h1 id="t">T</h1>\n<p>intro</p>\n[T]<h2')
    assert markup.after_title(html, "[L]").startswith('<h1 id="t">T</h1>[L]\n<p>intro</p>')
    assert markup.after_title("<p>no title</p>", "[L]") == "[L]<p>no title</p>"


def _page(lang: str, name: str):
    parse = parse_recipe if name.endswith(".py") else parse_text
    return parse(Path(f"/docs/{lang}/{name}"), _pages(lang)[name], lang)


def test_at_a_glance_tables():
    alpha = _page("zh", "alpha.md")
    table = at_a_glance.page_table(alpha, ZH)
    assert table.startswith('<details class="at-a-glance abstract" open data-search-exclude>\n'
                            '<summary>本页速查（2 条）</summary>\n')
    assert '<tr><td><a href="#alpha-one">第一条</a></td><td><code>x = 1</code></td></tr>' in table
    view = at_a_glance.all_idioms([("alpha/", alpha), ("beta/", _page("zh", "beta.md")),
                                   ("recipes/demo/", _page("zh", "recipes/demo.py"))], "all/", ZH)
    assert view.startswith('<div class="all-idioms" data-search-exclude>\n<p class="idiom-count">共 3 个条目、1 个实战</p>')
    assert '<a href="../alpha/#alpha-one">第一条</a><div class="idiom-what">第一句。</div>' in view
    assert '<tr><td><a href="../recipes/demo/">演示</a></td><td>完整程序</td></tr>' in view


@pytest.mark.parametrize("lang,text,cut", [
    ("zh", "作用：" + "长" * 70 + "。", "长" * 60 + "…"),
    ("en", "What it does: " + "word " * 30 + "`a.b` ends.", ("word " * 24).strip() + "…"),
    ("en", "What it does: the `x.view` of [a link](y.md) and **bold** text. Then more.",
     "the <code>x.view</code> of a link and bold text."),
])
def test_at_a_glance_keeps_the_first_sentence_of_what_it_does(lang, text, cut):
    page = parse_text(Path("/p.md"), f"# T\n\n### E {{ #e }}\n\n```python\nx\n```\n\n- {text}\n", lang)
    assert at_a_glance.what(page, page.entries[0], STRINGS[lang]) == cut


def test_aliases_anchor_old_ids():
    pages = {"alpha.md": _page("zh", "alpha.md"), "beta.md": _page("zh", "beta.md")}
    moved = aliases.moved(pages)
    assert moved == {"alpha.md": {"old-beta": ("beta.md", "beta-one")}}
    urls = {"alpha.md": "alpha/", "beta.md": "beta/"}
    html = aliases.anchors('<p>x</p><h3 data-aliases="old-two" id="alpha-two">T</h3>', "alpha/", moved["alpha.md"], urls)
    assert html == ('<span id="old-beta" class="entry-alias" data-moved-to="../beta/#beta-one"></span>'
                    '<p>x</p><span id="old-two" class="entry-alias"></span><h3 data-aliases="old-two" id="alpha-two">T</h3>')
    with pytest.raises(PluginError, match=r"beta.md: entry `beta-one`: its alias `alpha.md#old-beta` names alpha.md"):
        aliases.moved({"beta.md": pages["beta.md"]})


def test_notebook_link_and_path():
    assert notebooks.notebook_path("sub/alpha.md") == "sub/alpha.ipynb"
    assert notebooks.download_link("alpha.md", "alpha/", EN) == (
        '\n<p><a class="md-button notebook-download" href="../alpha.ipynb" download>Download notebook</a></p>')


def test_the_english_site_is_derived_from_mkdocs_yml_and_its_row(tmp_path):
    root = write_site(tmp_path)
    config = load_config(str(root / "mkdocs.yml"))
    en = languages.site_config(config, "en")
    row = BY_CODE["en"]
    assert Path(en.site_dir) == root / "site" / "en" and en.site_url == "http://example.test/en/" and en.strict
    assert Path(en.docs_dir) == root / "docs" / "en" and en.theme["language"] == "en"
    assert en.site_name == row.site_name and en.site_description == row.site_description
    assert en.plugins["material/search"].config.lang == ["en"]
    assert not en.plugins["cheatsheet"].config.other_languages and en.plugins["cheatsheet"].config.lang == "en"
    assert list(en.plugins) == list(config.plugins)  # the same plugins, in the same order
    with pytest.raises(PluginError, match="no site is derived for `zh`"):
        languages.site_config(config, "zh")


def test_the_language_switch_links_every_language_from_each_site():
    assert languages.alternate("zh") == [{"name": "中文", "link": "./", "lang": "zh"},
                                         {"name": "English", "link": "en/", "lang": "en"}]
    assert languages.alternate("en") == [{"name": "中文", "link": "../", "lang": "zh"},
                                         {"name": "English", "link": "./", "lang": "en"}]


def test_a_nav_section_without_a_title_in_a_language_fails_naming_it(tmp_path):
    root = write_site(tmp_path)
    text = (root / "mkdocs.yml").read_text("utf-8") + "nav:\n  - index.md\n  - 新分组:\n      - alpha.md\n"
    (root / "mkdocs.yml").write_text(text, "utf-8")
    with pytest.raises(PluginError, match="the nav section `新分组` has no title in en: add \"新分组\""):
        languages.site_config(load_config(str(root / "mkdocs.yml")), "en")


# --- one build of the synthetic site ---------------------------------------------------------


def _chrome(html: str, entry_id: str) -> str:
    return html.split(f'id="{entry_id}"', 1)[1].split("</h3>", 1)[1].split("\n")[1]


@pytest.mark.parametrize("lang,prefix", URL_PREFIX.items())
def test_status_lines(built, lang, prefix):
    html = _html(built, prefix + "alpha")
    s = STRINGS[lang]
    chrome = _chrome(html, "alpha-one")
    assert chrome.startswith('<p class="entry-chrome" data-search-exclude><span title="PyTorch 2.14.1+cpu')
    shown = lambda line: re.sub(r"<[^>]+>", "", line)  # noqa: E731
    since = s["status.since"].format(release="2.13.0")  # every recorded release passed, the oldest 2.13.0
    assert shown(chrome).startswith(
        f"✓ 2.14.1 · ✓ 2.13.0 · CPU — ✓ 2.13.0 · CUDA · {since} · {s['status.api']} · {s['status.report']}")
    assert ('<a href="https://docs.pytorch.org/docs/stable/generated/torch.zeros.html" title="torch.zeros">'
            f'{s["status.api"]}</a>') in chrome
    assert f"entry=http%3A%2F%2Fexample.test%2F{prefix.replace('/', '%2F')}alpha%2F%23alpha-one" in chrome
    assert s["source.gpu"].replace("'", "&#x27;") in chrome  # the CUDA row's tooltip says who ran it
    two = _chrome(html, "alpha-two")
    failed, stale = s["status.failed"].format(release="2.14.1"), s["status.stale"].format(release="2.13.0")
    assert shown(two).startswith(f"{failed} · {stale} · CPU — {s['status.cuda_missing']} · {s['status.report']}")
    assert "AssertionError: 2 != 3" in two
    missing = _chrome(_html(built, prefix + "beta"), "beta-one")
    assert shown(missing).startswith(f"{s['status.cpu_missing']} — {s['status.cuda_missing']} · ")


@pytest.mark.parametrize("lang,prefix", URL_PREFIX.items())
def test_the_compatibility_page(built, lang, prefix):
    page = _html(built, prefix + "compatibility")
    assert "<!-- compatibility-matrix -->" not in page and '<div class="compat-matrix" data-search-exclude>' in page
    heads = re.findall(r'<th scope="col" data-release="([^"]+)" data-device="([^"]+)"', page)
    assert heads[:3] == [("2.14.1", "cpu"), ("2.13.0", "cpu"), ("2.13.0", "cuda")] and len(heads) == 3 * 3
    assert page.count('<section class="idiom-group">') == 3 and '<a href="../beta/#beta-one">' in page
    assert '<a href="../recipes/demo/">' in page
    docs = json.loads((built / prefix / "search" / "entries.json").read_text("utf-8"))["docs"]
    assert not [d for d in docs if d["u"].startswith("compatibility/")]


@pytest.mark.parametrize("prefix", URL_PREFIX.values())
def test_alias_anchors(built, prefix):
    alpha = _html(built, prefix + "alpha")
    assert '<span id="old-beta" class="entry-alias" data-moved-to="../beta/#beta-one"></span>' in alpha
    assert '<span id="old-two" class="entry-alias"></span><h3 data-aliases="old-two" id="alpha-two">' in alpha


@pytest.mark.parametrize("lang,prefix", URL_PREFIX.items())
def test_topic_pages_open_with_a_table_and_a_notebook_link(built, lang, prefix):
    for name, first in (("alpha", "<h3"), ("beta", "<h2")):
        html = _html(built, prefix + name)
        title_end = html.index("</h1>")
        assert html[title_end:].startswith(f'</h1>\n<p><a class="md-button notebook-download" href="../{name}.ipynb" download>'
                                           f'{STRINGS[lang]["notebook.download"]}</a></p>\n')
        table = html.index('<details class="at-a-glance abstract" open data-search-exclude>')
        assert html.index(first, title_end) == html.index("</details>", table) + len("</details>\n\n")
        assert json.loads((built / prefix / f"{name}.ipynb").read_text("utf-8"))["cells"]


@pytest.mark.parametrize("lang,prefix", URL_PREFIX.items())
def test_the_all_idioms_page_and_the_home_page_summary(built, lang, prefix):
    page = _html(built, prefix + "all")
    assert STRINGS[lang]["all.count"].format(n=3, r=1) in page and "<!-- all-idioms -->" not in page
    assert page.count('<section class="idiom-group">') == 3 and '<a href="../beta/#beta-one">' in page
    home = _html(built, prefix)
    assert "verification-summary" not in home
    lines = [re.sub(r"<[^>]+>", "", li) for li in re.findall(r"<li>(.*?)</li>", home.split('class="md-content"', 1)[1])]
    expected = {"zh": ["PyTorch 2.14.1，CPU：2 / 4 个条目的示例通过", "PyTorch 2.13.0，CPU：2 / 4 个条目的示例通过",
                       "PyTorch 2.13.0，CUDA：1 / 4 个条目的示例在 GPU 上通过"],
                "en": ["PyTorch 2.14.1, CPU: the examples of 2 of 4 entries passed",
                       "PyTorch 2.13.0, CPU: the examples of 2 of 4 entries passed",
                       "PyTorch 2.13.0, CUDA: the examples of 1 of 4 entries passed on a GPU"]}[lang]
    assert [line[:len(start)] for line, start in zip(lines, expected)] == expected and len(lines) == 3, lines


@pytest.mark.parametrize("lang,prefix", URL_PREFIX.items())
def test_the_recipe_page_and_notebook(built, lang, prefix):
    html = _html(built, prefix + "recipes/demo")
    line = re.search(r'</h1><p class="recipe-verification">(.*?)</p>', html, re.S)
    shown = re.sub(r"<span[^>]*>|</span>", "", line.group(1))
    assert STRINGS[lang]["recipe.ran"].format(runs=f"✓ 2.14.1 · ✓ 2.13.0 · CPU — {STRINGS[lang]['status.cuda_missing']}") in shown
    book = json.loads((built / prefix / "recipes" / "demo.ipynb").read_text("utf-8"))
    assert len(book["cells"]) == 2 and "jupytext" not in book["metadata"]


@pytest.mark.parametrize("lang,prefix", URL_PREFIX.items())
def test_the_search_index_and_the_page_script(built, lang, prefix):
    docs = json.loads((built / prefix / "search" / "entries.json").read_text("utf-8"))["docs"]
    assert [d["u"] for d in docs if d["k"] == "entry"] == ["alpha/#alpha-one", "alpha/#alpha-two", "beta/#beta-one"]
    assert [d["u"] for d in docs if d["k"] == "recipe"] == ["recipes/demo/"]
    assert json.loads((built / prefix / "search" / "search_index.json").read_text("utf-8"))["docs"] == []
    html = _html(built, prefix + "alpha")
    assert '<span class="output-line"><span class="c1">#&gt; 1</span>' in html
    assert re.search(rf'assets/javascripts/cheatsheet.js"\s+data-loading="{STRINGS[lang]["page.loading"]}"></script>', html)
    assert "<script>" not in html.split('<script src="../assets/javascripts/search.js"></script>', 1)[1]


# A page as Material's search plugin gets it: a preface, headings, code blocks whose text looks
# like markup, a block kept out of search and an attribute the plugin strips from the page.
SEARCHED_PAGE = """<p>Intro <code>x</code></p>
<h1 id="title">Title<a class="headerlink" href="#title">&para;</a></h1>
<div class="highlight" data-search-note="kept out"><pre><span></span><code>x = "&lt;h2 id=&quot;no&quot;&gt;"
</code></pre></div>
<details class="at-a-glance" data-search-exclude><summary>At a glance</summary><h4 id="inside">Inside</h4></details>
<h2 id="part">Part <code>torch.no_grad()</code><a class="headerlink" href="#part">&para;</a></h2>
<p>Text</p><pre data-search-x="y"><code>print(1)  # &lt;/pre&gt;</code></pre>
<h3 id="entry" data-search="words">Entry</h3><pre></pre>"""


def _material_search(content: str) -> tuple[str, list[dict]]:
    """What Material's search plugin makes of a page: the page's content after it, and its documents."""
    from types import SimpleNamespace

    from material.plugins.search.plugin import SearchIndex, SearchPlugin
    from mkdocs.structure.toc import get_toc

    plugin = SearchPlugin()
    assert plugin.load_config({}) == ([], [])
    plugin.search_index = SearchIndex(**plugin.config)
    page = SimpleNamespace(content=content, meta={}, toc=get_toc([]), url="p/", title="Page")
    plugin.on_page_context({}, page=page, config=None, nav=None)
    return page.content, plugin.search_index.entries


def test_material_search_reads_the_page_without_its_code_and_the_page_keeps_it():
    hidden, contents = search_index.hide_code(SEARCHED_PAGE)
    assert "print(1)" not in hidden and len(contents) == 3
    full_content, full_docs = _material_search(SEARCHED_PAGE)
    read_content, read_docs = _material_search(hidden)
    # what this site's index takes of Material's documents: every address and title, and a page's text
    assert [(d["location"], d["title"]) for d in read_docs] == [(d["location"], d["title"]) for d in full_docs]
    prefaces = [[d["text"] for d in docs if "#" not in d["location"]] for docs in (read_docs, full_docs)]
    assert prefaces[0] == prefaces[1] == ["<p>Intro <code>x</code></p>"]
    assert "data-search-note" not in read_content and "data-search-exclude" in read_content
    assert search_index.restore_code(read_content, contents) == full_content
    with pytest.raises(ValueError, match="code blocks changed"):
        search_index.restore_code(read_content + "<pre></pre>", contents)


# --- state and errors -------------------------------------------------------------------------


def _touch(path: Path) -> None:
    """A new modification time, so that the parsed-page cache reads the file again."""
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))


def test_two_builds_by_one_plugin_instance_share_nothing(tmp_path):
    root = write_site(tmp_path)
    config = load_config(str(root / "mkdocs.yml"))
    plugin = config.plugins["cheatsheet"]
    build(config)
    assert '<span id="old-beta"' in _html(root / "site", "alpha")
    (root / "docs" / "zh" / "beta.md").unlink()  # its entry and its alias go
    alpha = root / "docs" / "zh" / "alpha.md"
    alpha.write_text(alpha.read_text("utf-8").replace('data-aliases="old-two"', ""), "utf-8")
    _touch(alpha)
    build(config)
    assert config.plugins["cheatsheet"] is plugin
    site = root / "site"
    html = _html(site, "alpha")
    assert '<span id="old-beta"' not in html and '<span id="old-two"' not in html
    assert ZH["all.count"].format(n=2, r=1) in _html(site, "all")
    docs = json.loads((site / "search" / "entries.json").read_text("utf-8"))["docs"]
    assert [d["u"] for d in docs if d["k"] == "entry"] == ["alpha/#alpha-one", "alpha/#alpha-two"]
    assert set(plugin.pages) == {"index.md", "all.md", "compatibility.md", "alpha.md", "recipes/demo.py"}
    assert summary(root / "docs", root / "snippets", root / "verification")[("2.13.0", "cpu")]["entries"] == 3
    assert "beta-one" not in _html(site, "compatibility")


def test_a_bad_row_stops_the_build_naming_page_and_entry(tmp_path, caplog):
    root = write_site(tmp_path)
    cpu = root / "verification" / "2.13.0" / "cpu.csv"
    cpu.write_text(cpu.read_text("utf-8").replace("alpha-one,passed", "alpha-one,passd"), "utf-8")
    with caplog.at_level(logging.ERROR, logger="mkdocs"), pytest.raises(Abort):
        _build(root)
    page = root / "docs" / "zh" / "alpha.md"
    assert f"{page}: entry `alpha-one`: its cpu row for torch 2.13.0 in the verification record says `passd`" in caplog.text


def test_an_alias_to_no_page_is_a_plugin_error_naming_the_file(tmp_path):
    root = write_site(tmp_path)
    beta = root / "docs" / "zh" / "beta.md"
    beta.write_text(beta.read_text("utf-8").replace("alpha.md#old-beta", "gone.md#old-beta"), "utf-8")
    _touch(beta)
    config = load_config(str(root / "mkdocs.yml"))
    plugin = config.plugins["cheatsheet"]
    plugin.on_config(config)
    with pytest.raises(PluginError, match=rf"{beta}: entry `beta-one`: its alias `gone.md#old-beta` names gone.md"):
        plugin.on_files(get_files(config), config=config)


def test_the_real_sites_english_config_and_nav_are_derived():
    """The English site's config is mkdocs.yml with the English row applied: the same plugins and
    nav structure, the nav in English (sections from the row, pages by the row or their heading)."""
    config = load_config(str(PROJECT.root / "mkdocs.yml"))
    assert config.plugins["cheatsheet"].config.other_languages
    en = languages.site_config(config, "en")
    assert list(en.plugins) == list(config.plugins)

    def files(nav):
        for item in nav:
            value = next(iter(item.values())) if isinstance(item, dict) else item
            yield from files(value) if isinstance(value, list) else [value]

    assert list(files(en.nav)) == list(files(config.nav))
    sections = [next(iter(item)) for item in en.nav if isinstance(item, dict) and isinstance(next(iter(item.values())), list)]
    assert sections and not any(re.search("[\u4e00-\u9fff]", title) for title in sections), sections
    assert not (PROJECT.root / "overrides" / "hooks").exists()
