"""The sheet as data (cheatsheet/site/sheet_data.py): llms.txt, llms-full.txt and api/entries.json
of both languages in the built site, validated against the committed JSON Schema and compared
with the pages and the verification record; and the "Copy Markdown" button of an entry, which
copies that entry's part of llms-full.txt."""

import json
import re
import subprocess
import sys

import pytest

from cheatsheet.model.langs import URL_PREFIX
from cheatsheet.model.pages import parse_text
from cheatsheet.model.record import load
from cheatsheet.project import repo
from cheatsheet.site import sheet_data
from cheatsheet.site.strings import STRINGS

PROJECT = repo()
LANGS = URL_PREFIX
SCHEMA = PROJECT.root / "schemas" / "entries.schema.json"


def _nav_pages(lang):
    """(source path, page) of the pages with entries, in the nav order of the language's config."""
    from mkdocs.config import load_config

    from cheatsheet.model.pages import parse_page

    def flat(items):
        for item in items:
            value = next(iter(item.values())) if isinstance(item, dict) else item
            yield from flat(value) if isinstance(value, list) else [value]

    from cheatsheet.model.langs import SOURCE
    from cheatsheet.site import languages

    config = load_config(str(PROJECT.root / "mkdocs.yml"))
    config = config if lang == SOURCE else languages.site_config(config, lang)
    pages = [(src, parse_page(PROJECT.docs / lang / src, lang)) for src in flat(config.nav)]
    return [(src, page) for src, page in pages if page.entries]


def _data(site, lang):
    site_dir, _ = site
    folder = site_dir / LANGS[lang]
    return (json.loads((folder / sheet_data.ENTRIES).read_text("utf-8")), (folder / sheet_data.LLMS).read_text("utf-8"),
            (folder / sheet_data.FULL).read_text("utf-8"))


def test_entries_json_validates_against_the_committed_schema(site):
    site_dir, _ = site
    check = [sys.executable, "-m", "check_jsonschema"]
    meta = subprocess.run([*check, "--check-metaschema", str(SCHEMA)], capture_output=True, text=True)
    assert meta.returncode == 0, meta.stdout + meta.stderr
    files = [str(site_dir / prefix / sheet_data.ENTRIES) for prefix in LANGS.values()]
    proc = subprocess.run([*check, "--schemafile", str(SCHEMA), *files], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for prefix in LANGS.values():  # published beside it, as committed
        assert (site_dir / prefix / sheet_data.SCHEMA).read_bytes() == SCHEMA.read_bytes()


def test_the_schema_check_catches_a_broken_entry(site, tmp_path):
    site_dir, _ = site
    data = json.loads((site_dir / sheet_data.ENTRIES).read_text("utf-8"))
    data["entries"][0]["record"][0]["state"] = "fine"
    broken = tmp_path / "entries.json"
    broken.write_text(json.dumps(data), "utf-8")
    proc = subprocess.run([sys.executable, "-m", "check_jsonschema", "--schemafile", str(SCHEMA), str(broken)],
                          capture_output=True, text=True)
    assert proc.returncode == 1 and "fine" in proc.stdout + proc.stderr


@pytest.mark.parametrize("lang", LANGS)
def test_the_data_files_agree_with_the_pages_and_the_record(site, lang):
    """Every entry in nav order with its page's code line, output lines and aliases, its record
    rows those of verification/*.csv; one linked line per page and entry in llms.txt; every
    entry's heading, code line and record in llms-full.txt."""
    data, llms, full = _data(site, lang)
    site_dir, port = site
    root = f"http://127.0.0.1:{port}/{LANGS[lang]}"
    assert data["lang"] == lang and data["url"] == root
    pages = _nav_pages(lang)
    expected = [(src, page, e) for src, page in pages for e in page.entries]
    assert [e["id"] for e in data["entries"]] == [e.id for _, _, e in expected]
    record = {(r, d): {entry: row for entry, (_, row) in load(PROJECT.record, r, d).items()}
              for r in (p.name for p in PROJECT.record.iterdir() if p.is_dir()) for d in ("cpu", "cuda")}
    for (src, page, entry), got in zip(expected, data["entries"]):
        assert got["page"] == src and got["kind"] == page.kind and got["title"] == entry.title
        assert got["code"] == (entry.code_line.code.rstrip() if entry.code_line else None), entry.id
        assert [(x["code"], x["output"]) for x in got["examples"]] == [
            (f.source, {d: f.expected_output(d) for d in f.devices()}) for f in entry.examples], entry.id
        assert got["aliases"] == list(entry.aliases)
        if page.kind == "topic":
            assert set(got["fields"]) == set(entry.fields), entry.id
        rows = {(v["release"], v["device"]): v["row"] for v in got["record"] if v["row"]}
        committed = {col: vars(rows_[entry.id]) for col, rows_ in record.items() if entry.id in rows_}
        assert rows == committed, entry.id
        # the address is a built page holding the entry
        path, _, anchor = got["url"].removeprefix(root).partition("#")
        built = (site_dir / LANGS[lang] / path / "index.html").read_text("utf-8")
        assert not anchor or f'id="{anchor}"' in built, got["url"]
        # one linked line in llms.txt; the entry's Markdown in llms-full.txt
        assert f"- {sheet_data.link(entry.title, got['url'])}" in llms, entry.id
        heading = full.index(f"\n### {entry.title}\n")
        assert STRINGS[lang]["data.source"].format(url=got["url"]) in full[heading:], entry.id
        if entry.code_line:
            assert entry.code_line.code.rstrip() in full[heading:], entry.id
    for src, page in pages:
        assert f"- {sheet_data.link(page.title, root + sheet_data.published(src))}" in llms, src


@pytest.mark.parametrize("lang", LANGS)
def test_llms_txt_is_in_the_llmstxt_format(site, lang):
    """A `# title`, a `> summary`, then `##` sections of `- [name](url)` lines (llmstxt.org)."""
    _, llms, full = _data(site, lang)
    blocks = llms.split("\n\n")
    assert blocks[0].startswith("# ") and blocks[1].startswith("> ") and "llms-full.txt" in blocks[2]
    sections = re.split(r"^## .+\n\n", llms, flags=re.M)[1:]
    assert len(sections) >= 10 and llms.count("\n## Optional\n") == 1
    for section in sections:
        lines = section.strip().splitlines()
        assert all(re.match(r"- \[(?:[^\]\\]|\\.)+\]\(https?://[^)\s]+\)(: .+)?$", line) for line in lines), section[:200]
    assert full.startswith(blocks[0] + "\n\n" + blocks[1] + "\n\n")


def test_an_entrys_markdown_from_the_page_model():
    """Heading, code line and fields as written, the example marker, the examples with their output
    lines, a CUDA-only example said to be one, `#cuda>` lines no GPU row passed said to be unconfirmed, the
    links as published addresses, the record."""
    from cheatsheet.model.record import Row, verdict

    text = ("# 页\n\n### 第一条 { #alpha-one data-search=\"甲\" }\n\n```python\nx = 1\n```\n\n"
            "- 助记：m，见 [第二条](#alpha-two) 和 [别页](other.md#beta)。\n- 使用前提：无。\n\n**解释性示例：**\n\n"
            "```python\nprint(1)\n#> 1\n```\n\n```{.python requires-cuda}\nprint(2)\n#cuda> 2\n```\n")
    page = parse_text(PROJECT.docs / "zh" / "recipes" / "x.md", text, "zh")
    entry = page.entries[0]
    row = Row("recipes/x.md", "alpha-one", "passed", entry.code_hash(PROJECT.snippets), "2.14.1+cpu", "3.11.7", "AMD EPYC",
              "2026-12-01")
    found = [verdict("cpu", row, entry.code_hash(PROJECT.snippets), "2.14.1"), verdict("cuda", None, "", "2.14.1")]
    markdown = sheet_data.entry_markdown("recipes/x.md", page, entry, "https://s.test/", found, STRINGS["zh"], PROJECT.snippets)
    assert markdown == (
        "### 第一条\n\n```python\nx = 1\n```\n\n"
        "- 助记：m，见 [第二条](https://s.test/recipes/x/#alpha-two) 和 [别页](https://s.test/recipes/other/#beta)。\n"
        "- 使用前提：无。\n\n**解释性示例：**\n\n```python\nprint(1)\n#> 1\n```\n\n这个示例需要 CUDA。\n\n"
        "```python\nprint(2)\n#cuda> 2\n```\n\n`#cuda>` 行还没有在 GPU 上按现在的代码运行过。\n\n"
        "来源：https://s.test/recipes/x/#alpha-one\n\n验证记录：\n"
        "- PyTorch 2.14.1，CPU：通过（PyTorch 2.14.1+cpu，Python 3.11.7，AMD EPYC，2026-12-01；本项目的测试套件）\n"
        "- PyTorch 2.14.1，CUDA：无记录\n\n"
        "可用版本：2.14.1 及以上（CPU，由验证记录得出）\n")
    data = sheet_data.entry_data("recipes/x.md", page, entry, "https://s.test/", found, PROJECT.snippets)
    assert data["since"] == {"cpu": "2.14.1", "cuda": None}  # derived from the rows
    assert data["fields"]["prereq"] == "无。" and data["examples"][1] == {
        "lang": "python", "code": "print(2)\n", "requires_cuda": True, "output": {"cuda": ["2"]}}
    assert [v["state"] for v in data["record"]] == ["passed", "missing"]


@pytest.mark.parametrize("src,url", [("index.md", ""), ("gpu-memory.md", "gpu-memory/"), ("recipes/demo.py", "recipes/demo/"),
                                     ("a/index.md", "a/")])
def test_addresses_are_the_published_sites(src, url):
    assert sheet_data.published(src) == url


# --- the copy button, in a browser ------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_copy_markdown_copies_the_entry_by_keyboard(site, browser_page, lang):
    """Tab to the entry's button and press Enter: the clipboard gets the entry's part of
    llms-full.txt, and the status beside the button says it was copied."""
    _, _, full = _data(site, lang)
    page, base, _ = browser_page
    page.goto(base + LANGS[lang])
    page.click(".md-sidebar--primary a[href$='/gpu-memory/']")  # as a reader arrives: instant navigation
    page.wait_for_url(f"**/{LANGS[lang]}gpu-memory/")
    page.wait_for_selector("h3#cuda-empty-cache + p.entry-chrome button.entry-copy")
    page.evaluate("navigator.clipboard.writeText = text => (window.copied = text, Promise.resolve())")
    strings = STRINGS[lang]
    button = page.locator("h3#cuda-empty-cache + p.entry-chrome button.entry-copy")
    title = page.locator("h3#cuda-empty-cache").evaluate("h => h.firstChild.textContent.trim()")
    assert button.inner_text() == strings["copy.label"]
    assert button.get_attribute("aria-label") == strings["copy.aria"].format(title=title)
    button.evaluate("b => b.previousElementSibling.focus()")  # the link before it, then Tab
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.classList.contains('entry-copy')")
    page.keyboard.press("Enter")
    page.wait_for_function("window.copied !== undefined")
    copied = page.evaluate("window.copied")
    start = full.index(f"### {title}\n")
    assert copied == full[start:full.index("\n### ", start)]
    assert "torch.cuda.empty_cache()" in copied and "#cpu> " in copied
    assert page.locator("h3#cuda-empty-cache + p.entry-chrome .entry-copy-status").inner_text() == strings["copy.done"]


def test_the_record_lines_say_every_state_with_the_row_behind_it():
    from cheatsheet.model.record import Row, verdict

    row = lambda result, note="": Row("a.md", "a", result, "h", "2.13.0+cpu", "3.11.7", "AMD EPYC", "2026-12-01",  # noqa: E731
                                      note=note)
    found = [verdict("cpu", row("failed", "AssertionError: 2 != 3"), "h", "2.13.0"), verdict("cpu", row("passed"), "x", "2.12.0"),
             verdict("cpu", row("needs-package", "torchvision"), "h", "2.11.0")]
    assert sheet_data.record_lines(found, STRINGS["en"]) == [
        "- PyTorch 2.13.0, CPU: failed (PyTorch 2.13.0+cpu, Python 3.11.7, AMD EPYC, 2026-12-01; this project's test suite; "
        "failed: AssertionError: 2 != 3)",
        "- PyTorch 2.12.0, CPU: changed since (PyTorch 2.13.0+cpu, Python 3.11.7, AMD EPYC, 2026-12-01; this project's test "
        "suite; the code changed after this run)",
        "- PyTorch 2.11.0, CPU: not run (PyTorch 2.13.0+cpu, Python 3.11.7, AMD EPYC, 2026-12-01; this project's test suite; "
        "2.11.0 not run: needs torchvision)"]
    assert sheet_data.record_lines([], STRINGS["zh"]) == ["- 验证记录为空。"]
