"""The site's MkDocs plugin (cheatsheet/site/plugin.py): each feature module as a plain function,
then one build of a small synthetic site in both languages, checked feature by feature; then
two builds by one plugin instance (no state carried over) and bad data (a PluginError naming the
file). The real site's build is the integration test: tests/test_site.py and its neighbours."""

import json
import logging
import os
import re
from pathlib import Path
from string import Formatter

import pytest
from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.exceptions import Abort, PluginError
from mkdocs.structure.files import get_files

from cheatsheet.model.pages import parse_page, parse_recipe, parse_text
from cheatsheet.model.record import Row, Verdict, save, summary, verdict
from cheatsheet.project import repo
from cheatsheet.site import aliases, at_a_glance, english, entry_status, markup, notebooks, output_lines, recipes
from cheatsheet.site import summary as verification_summary
from cheatsheet.site.strings import STRINGS

PROJECT = repo()
ZH, EN = STRINGS["zh"], STRINGS["en"]
ROW = dict(torch="2.13.0+cpu", python="3.11.7", device="AMD EPYC", date="2026-12-01")
GPU = dict(ROW, torch="2.13.0+cu130", device="H200 (sm_90)")


# --- the synthetic site ---------------------------------------------------------------------

LABELS = {"zh": ("助记：", "作用：", "使用前提：", "**解释性示例：**"),
          "en": ("Mnemonic:", "What it does:", "Prerequisites:", "**Example:**")}


def _entry(lang: str, title: str, attrs: str, code: str, printed: str) -> str:
    mnemonic, what, prereq, example = LABELS[lang]
    return (f"### {title} {{ {attrs} }}\n\n```python\n{code}\n```\n\n"
            f"- {mnemonic} m.\n- {what} {'第一句。第二句。' if lang == 'zh' else 'The first sentence. The second one.'}\n"
            f"- {prereq} none.\n\n{example}\n\n```python\n{code}\nprint({printed})\n#> {printed}\n```\n\n")


def _pages(lang: str) -> dict[str, str]:
    zh = lang == "zh"
    return {
        "index.md": f"# {'首页' if zh else 'Home'}\n\n<!-- verification-summary -->\n",
        "all.md": f"# {'全部速查' if zh else 'All idioms'}\n\n<!-- all-idioms -->\n",
        "alpha.md": f"# {'甲页' if zh else 'Alpha'}\n\n{'介绍。' if zh else 'The introduction.'}\n\n"
                    + _entry(lang, "第一条" if zh else "The first", "#alpha-one", "x = 1", "1")
                    + _entry(lang, "第二条" if zh else "The second", '#alpha-two data-aliases="old-two"', "y = 2", "2"),
        "beta.md": f"# {'乙页' if zh else 'Beta'}\n\n{'介绍。' if zh else 'The introduction.'}\n\n"
                   f"## {'一节' if zh else 'A section'} {{ #a-section }}\n\n"
                   + _entry(lang, "第三条" if zh else "The third", '#beta-one data-aliases="alpha.md#old-beta"', "z = 3", "3"),
        "recipes/demo.py": f"# %% [markdown]\n# # {'演示' if zh else 'A demo'}\n#\n# {'一个程序。' if zh else 'One program.'}\n\n"
                           "# %%\nprint(4)\n#> 4\n",
    }


# The plugins both languages list before ours (a child config's `plugins:` replaces its parent's).
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
{plugins}  - cheatsheet:
      languages:
        en: mkdocs.en.yml
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
MKDOCS_EN_YML = """\
INHERIT: mkdocs.yml
docs_dir: docs/en
site_dir: site/en
theme:
  language: en
plugins:
{plugins}  - cheatsheet
"""


def write_site(root: Path) -> Path:
    """The sources of a small site: two topic pages (3 entries, two aliases), a recipe, a home
    page and an all-idioms page per language, and a record with one current row, one stale row
    and one entry without a row on CPU, and one current CUDA row."""
    for lang in ("zh", "en"):
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
    (root / "mkdocs.en.yml").write_text(MKDOCS_EN_YML.format(plugins=PLUGINS), "utf-8")
    zh = root / "docs" / "zh"
    one = parse_page(zh / "alpha.md", "zh").entry("alpha-one").code_hash(root / "snippets")
    demo = parse_page(zh / "recipes" / "demo.py", "zh").entries[0].code_hash(root / "snippets")
    save(root / "verification", "cpu", [Row("alpha.md", "alpha-one", "passed", one, **ROW),
                                        Row("alpha.md", "alpha-two", "passed", "0" * 16, **ROW),  # stale
                                        Row("recipes/demo.py", "recipe-demo", "passed", demo, **ROW)])
    save(root / "verification", "cuda", [Row("alpha.md", "alpha-one", "passed", one, **GPU)])
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


@pytest.mark.parametrize("found,zh,en", [
    (verdict("cpu", _row(), "aaaa"), "✓ CPU · PyTorch 2.13.0+cpu · 2026-12-01", "✓ CPU · PyTorch 2.13.0+cpu · 2026-12-01"),
    (verdict("cpu", _row(), "bbbb"), "⚠ 代码在上次验证（2026-12-01）后改过", "⚠ changed since last verified (2026-12-01)"),
    (verdict("cpu", None, "bbbb"), "尚无运行记录", "no run on record"),
    (verdict("cpu", _row("needs-cuda"), "aaaa"), "CPU：仅 GPU 示例", "CPU: GPU-only example"),
    (verdict("cpu", _row("failed"), "aaaa"), "✗ CPU 上失败（2026-12-01）", "✗ failed on CPU (2026-12-01)"),
    (verdict("cuda", _row(**GPU), "aaaa"), "✓ CUDA · H200 (sm_90) · PyTorch 2.13.0+cu130 · 2026-12-01",
     "✓ CUDA · H200 (sm_90) · PyTorch 2.13.0+cu130 · 2026-12-01"),
    (verdict("cuda", _row(**GPU), "bbbb"), "CUDA：代码在上次 GPU 验证后改过", "CUDA: changed since last verified on a GPU"),
    (verdict("cuda", None, "aaaa"), "CUDA：尚未在 GPU 上运行", "CUDA: not yet run"),
    (verdict("cuda", _row("failed", **GPU), "aaaa"), "✗ CUDA 上失败（2026-12-01）", "✗ failed on CUDA (2026-12-01)"),
])
def test_status_text_says_what_the_verdict_says(found, zh, en):
    assert entry_status.status_text(found, ZH) == zh
    assert entry_status.status_text(found, EN) == en


def test_status_line_links_the_api_and_the_issue_form():
    report = entry_status.report_url("https://github.com/o/r/", "http://x.test/alpha/#alpha-one", "alpha-one", "wrong-entry.yml")
    assert report == ("https://github.com/o/r/issues/new?template=wrong-entry.yml&title=%5Balpha-one%5D+"
                      "&entry=http%3A%2F%2Fx.test%2Falpha%2F%23alpha-one")
    found = [verdict("cpu", _row(), "aaaa"), verdict("cuda", None, "aaaa")]
    line = entry_status.status_line(found, EN, {"api": "torch.zeros", "url": "https://d.test/z.html"}, report)
    assert line == ('\n<p class="entry-chrome" data-search-exclude>✓ CPU · PyTorch 2.13.0+cpu · 2026-12-01 · CUDA: not yet run · '
                    '<a href="https://d.test/z.html" title="torch.zeros">API docs</a> · '
                    f'<a href="{report.replace("&", "&amp;")}">Report a problem</a></p>\n')
    assert entry_status.status_line(found, ZH) == ('\n<p class="entry-chrome" data-search-exclude>'
                                                   '✓ CPU · PyTorch 2.13.0+cpu · 2026-12-01 · CUDA：尚未在 GPU 上运行</p>\n')


def test_a_row_that_says_nothing_known_is_an_error_naming_page_and_entry():
    entry = parse_text(Path("/docs/zh/alpha.md"), _pages("zh")["alpha.md"], "zh").entries[0]
    good = [verdict("cpu", _row(), "aaaa")]
    assert entry_status.checked(good, entry) == good
    with pytest.raises(PluginError, match=r"/docs/zh/alpha.md: entry `alpha-one`: its cpu row .* says `passd`"):
        entry_status.checked([Verdict("cpu", "passd", _row("passd"))], entry)


def test_recipe_line_says_what_the_record_holds():
    passed, missing = verdict("cpu", _row(), "aaaa"), verdict("cuda", None, "aaaa")
    assert recipes.verification_line([passed, missing], ZH) == (
        "这个实战在测试中作为一个程序完整运行过：CPU 上通过（PyTorch 2.13.0+cpu，2026-12-01）；GPU 上尚未运行。"
        "代码里的 <code>#&gt;</code> 行是那次运行打印的输出。")
    line = recipes.verification_line([passed, missing], EN)
    assert "passed on CPU (PyTorch 2.13.0+cpu, 2026-12-01); not yet run on a GPU." in line
    stale = verdict("cpu", _row(), "bbbb")
    assert "its code changed after the last recorded run" in recipes.verification_line([stale, missing], EN)
    never = recipes.verification_line([verdict("cpu", None, "a"), missing], EN)
    assert never.startswith("No run of this recipe is on record yet")
    note = recipes.note([passed, missing], "recipes/demo.py", EN)
    assert note.startswith('<p class="recipe-verification">This recipe ran')
    assert note.endswith('<a class="md-button notebook-download" href="../demo.ipynb" download>Download notebook</a></p>')


def test_recipe_pages_lose_the_loaders_from_other_hosts():
    html = ('<h1>T</h1><script src=""> </script><script type="text/x-mathjax-config">x</script>'
            '<script type="module">import m from "https://cdnjs.cloudflare.com/m.js"</script><p>kept</p>')
    assert recipes.without_loaders(html) == "<h1>T</h1><p>kept</p>"
    assert recipes.is_recipe("recipes/demo.py") and not recipes.is_recipe("recipes.md") and not recipes.is_recipe("demo.py")


def test_the_summary_counts_the_verdicts():
    figures = {"cpu": {"entries": 4, "states": {"passed": 2, "needs-cuda": 1, "stale": 1}, "torch": ["2.13.0+cpu"],
                       "python": ["3.11.7"], "devices": ["AMD EPYC"], "dates": ["2026-12-01"]},
               "cuda": {"entries": 4, "states": {"missing": 4}, "torch": [], "python": [], "devices": [], "dates": []}}
    assert verification_summary.render(figures, ZH) == (
        "- **CPU**：2 / 4 个条目的示例通过（PyTorch 2.13.0+cpu，Python 3.11.7，AMD EPYC，2026-12-01）；"
        "另有 1 个条目的示例只能在 GPU 上运行。\n"
        "- **CUDA**：还没有记录在案的 GPU 运行，`#cuda>` 行尚未在 GPU 上核对。")
    figures["cuda"] = dict(figures["cpu"], states={"passed": 1}, torch=["2.13.0+cu130"], devices=["H200 (sm_90)"])
    assert verification_summary.render(figures, EN).splitlines()[1] == (
        "- **CUDA**: the examples of 1 of 4 entries passed on a GPU (PyTorch 2.13.0+cu130, H200 (sm_90), 2026-12-01); "
        "the `#cuda>` lines of the others are not yet checked on a GPU.")
    empty = {d: dict(figures["cuda"], torch=[], states={}) for d in ("cpu", "cuda")}
    assert verification_summary.render(empty, EN).splitlines()[0] == "- **CPU**: the verification record is empty."


def test_output_lines_are_marked():
    code = ('<span class="n">x</span>\n<span class="w">    </span><span class="c1">#cpu&gt; 1</span>\n'
            '<span class="c1"># a comment</span>\n')
    assert output_lines.mark(code) == ('<span class="n">x</span>\n<span class="output-line"><span class="w">    </span>'
                                       '<span class="c1">#cpu&gt; 1</span>\n</span><span class="c1"># a comment</span>\n')


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


def test_the_english_site_goes_below_the_default_one(tmp_path):
    root = write_site(tmp_path)
    config = load_config(str(root / "mkdocs.yml"))
    en = english.site_config(config, "en", str(root / "mkdocs.en.yml"))
    assert Path(en.site_dir) == root / "site" / "en" and en.site_url == "http://example.test/en/" and en.strict
    assert Path(en.docs_dir) == root / "docs" / "en" and en.theme["language"] == "en"
    with pytest.raises(PluginError, match="`languages` names `zh`"):
        english.check_language("zh", config.config_file_path)


# --- one build of the synthetic site ---------------------------------------------------------


@pytest.mark.parametrize("lang,prefix", [("zh", ""), ("en", "en/")])
def test_status_lines(built, lang, prefix):
    html = _html(built, prefix + "alpha")
    s = STRINGS[lang]
    chrome = html.split('id="alpha-one"', 1)[1].split("</h3>", 1)[1].split("\n")[1]
    assert chrome.startswith(f'<p class="entry-chrome" data-search-exclude>✓ CPU · PyTorch 2.13.0+cpu · 2026-12-01 · '
                             f'✓ CUDA · H200 (sm_90) · PyTorch 2.13.0+cu130 · 2026-12-01 · '
                             f'<a href="https://docs.pytorch.org/docs/stable/generated/torch.zeros.html" title="torch.zeros">'
                             f'{s["status.api"]}</a>')
    assert f"entry=http%3A%2F%2Fexample.test%2F{prefix.replace('/', '%2F')}alpha%2F%23alpha-one" in chrome
    stale = html.split('id="alpha-two"', 1)[1].split("</h3>", 1)[1].split("\n")[1]
    assert stale.startswith(f'<p class="entry-chrome" data-search-exclude>{s["status.cpu_stale"].format(date="2026-12-01")} · '
                            f'{s["status.cuda_missing"]} · <a href="https://github.com/example/repo/issues/new?')
    missing = _html(built, prefix + "beta").split('id="beta-one"', 1)[1].split("</h3>", 1)[1].split("\n")[1]
    assert missing.startswith(f'<p class="entry-chrome" data-search-exclude>{s["status.cpu_missing"]} · '
                              f'{s["status.cuda_missing"]} · ')


@pytest.mark.parametrize("prefix", ["", "en/"])
def test_alias_anchors(built, prefix):
    alpha = _html(built, prefix + "alpha")
    assert '<span id="old-beta" class="entry-alias" data-moved-to="../beta/#beta-one"></span>' in alpha
    assert '<span id="old-two" class="entry-alias"></span><h3 data-aliases="old-two" id="alpha-two">' in alpha


@pytest.mark.parametrize("lang,prefix", [("zh", ""), ("en", "en/")])
def test_topic_pages_open_with_a_table_and_a_notebook_link(built, lang, prefix):
    for name, first in (("alpha", "<h3"), ("beta", "<h2")):
        html = _html(built, prefix + name)
        title_end = html.index("</h1>")
        assert html[title_end:].startswith(f'</h1>\n<p><a class="md-button notebook-download" href="../{name}.ipynb" download>'
                                           f'{STRINGS[lang]["notebook.download"]}</a></p>\n')
        table = html.index('<details class="at-a-glance abstract" open data-search-exclude>')
        assert html.index(first, title_end) == html.index("</details>", table) + len("</details>\n\n")
        assert json.loads((built / prefix / f"{name}.ipynb").read_text("utf-8"))["cells"]


@pytest.mark.parametrize("lang,prefix", [("zh", ""), ("en", "en/")])
def test_the_all_idioms_page_and_the_home_page_summary(built, lang, prefix):
    page = _html(built, prefix + "all")
    assert STRINGS[lang]["all.count"].format(n=3, r=1) in page and "<!-- all-idioms -->" not in page
    assert page.count('<section class="idiom-group">') == 3 and '<a href="../beta/#beta-one">' in page
    home = _html(built, prefix)
    assert "verification-summary" not in home
    assert {"zh": "2 / 4 个条目的示例通过", "en": "the examples of 2 of 4 entries passed"}[lang] in home
    assert {"zh": "1 / 4 个条目的示例在 GPU 上通过", "en": "the examples of 1 of 4 entries passed on a GPU"}[lang] in home


@pytest.mark.parametrize("lang,prefix", [("zh", ""), ("en", "en/")])
def test_the_recipe_page_and_notebook(built, lang, prefix):
    html = _html(built, prefix + "recipes/demo")
    passed = {"zh": "CPU 上通过（PyTorch 2.13.0+cpu，2026-12-01）；GPU 上尚未运行",
              "en": "passed on CPU (PyTorch 2.13.0+cpu, 2026-12-01)"}
    assert '</h1><p class="recipe-verification">' in html and passed[lang] in html
    book = json.loads((built / prefix / "recipes" / "demo.ipynb").read_text("utf-8"))
    assert len(book["cells"]) == 2 and "jupytext" not in book["metadata"]


@pytest.mark.parametrize("lang,prefix", [("zh", ""), ("en", "en/")])
def test_the_search_index_and_the_page_script(built, lang, prefix):
    docs = json.loads((built / prefix / "search" / "entries.json").read_text("utf-8"))["docs"]
    assert [d["u"] for d in docs if d["k"] == "entry"] == ["alpha/#alpha-one", "alpha/#alpha-two", "beta/#beta-one"]
    assert [d["u"] for d in docs if d["k"] == "recipe"] == ["recipes/demo/"]
    assert json.loads((built / prefix / "search" / "search_index.json").read_text("utf-8"))["docs"] == []
    html = _html(built, prefix + "alpha")
    assert '<span class="output-line"><span class="c1">#&gt; 1</span>' in html
    assert re.search(rf'assets/javascripts/cheatsheet.js"\s+data-loading="{STRINGS[lang]["page.loading"]}"></script>', html)
    assert "<script>" not in html.split('<script src="../assets/javascripts/search.js"></script>', 1)[1]


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
    assert set(plugin.pages) == {"index.md", "all.md", "alpha.md", "recipes/demo.py"}
    assert summary(root / "docs", root / "snippets", root / "verification")["cpu"]["entries"] == 3


def test_a_bad_row_stops_the_build_naming_page_and_entry(tmp_path, caplog):
    root = write_site(tmp_path)
    cpu = root / "verification" / "cpu.csv"
    cpu.write_text(cpu.read_text("utf-8").replace("alpha-one,passed", "alpha-one,passd"), "utf-8")
    with caplog.at_level(logging.ERROR, logger="mkdocs"), pytest.raises(Abort):
        _build(root)
    page = root / "docs" / "zh" / "alpha.md"
    assert f"{page}: entry `alpha-one`: its cpu row in the verification record says `passd`" in caplog.text


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


def test_the_real_site_lists_the_plugin_in_both_languages():
    """mkdocs.en.yml's `plugins:` replaces mkdocs.yml's (INHERIT merges dicts, not lists)."""
    for name, languages in (("mkdocs.yml", {"en"}), ("mkdocs.en.yml", set())):
        config = load_config(str(PROJECT.root / name))
        assert set(config.plugins["cheatsheet"].config.languages) == languages, name
    assert not (PROJECT.root / "overrides" / "hooks").exists()
