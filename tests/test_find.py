"""The sheet in a terminal and for assistants: `python -m cheatsheet find` and the MCP server rank
with the site's own ranking, over the package's data, and say what ran where."""

import json
import subprocess
import sys

import anyio
import pytest
from mcp import Client

from benchmarks import search_eval
from cheatsheet.model.langs import query_language
from cheatsheet.model.pages import site_pages
from cheatsheet.project import repo
from cheatsheet.tools.find import Sheet, SheetError, installed_torch
from cheatsheet.tools.mcp_server import server

PROJECT = repo()


@pytest.fixture(scope="module")
def sheet():
    sheet = Sheet()
    yield sheet
    sheet.close()


def _entry_ids(lang: str) -> set[str]:
    return {e.id for p in site_pages(PROJECT.docs, lang) if p.kind == "topic" for e in p.entries}


def test_find_ranks_the_benchmark_as_the_site_does(site, sheet):
    """The 200-query benchmark through the site's index in Node and through `find`: the same first
    three entries for at least 98 % of the queries (they run the same search-rank.js; the site
    also lists pages and sections, which `find` leaves out)."""
    site_dir, _ = site
    queries = search_eval.load()
    on_site = search_eval.node_ranked(site_dir, queries)
    same, total, differ = 0, 0, []
    for lang in ("zh", "en"):
        entries = _entry_ids(lang)
        for query, ranked in zip([q for q in queries if q.lang == lang], on_site[lang]):
            site_top = [i for i in ranked if i in entries][:3]
            found = sheet.ranked(query.text, lang)[:3]
            total += 1
            if found == site_top:
                same += 1
            else:
                differ.append((query.text, site_top, found))
    assert total == len(queries) and same / total >= 0.98, differ[:10]


def test_the_language_is_the_querys():
    assert query_language("释放显存") == "zh" and query_language("看看view函数") == "zh"
    assert query_language("free GPU memory") == "en"


def test_find_prints_the_entry_and_what_ran_on_the_installed_torch():
    done = subprocess.run([sys.executable, "-m", "cheatsheet", "find", "梯度累积", "--json", "-n", "2"],
                          capture_output=True, text=True, cwd=PROJECT.root, check=True)
    answers = json.loads(done.stdout)
    assert {a["id"] for a in answers} == {"gradient-accumulation", "gradient-accumulation-loop"}  # either order
    first = answers[0]
    assert first["code"] and first["what"] and first["example"] and first["output"] and first["url"]
    release = installed_torch()
    assert release and f"torch {release}" in first["status"] and {v["release"] for v in first["record"]} == {release}
    assert first["since"] and first["since"] in first["status"]
    # a reader's terminal: title, code line, the example with its output lines, the record's line
    shown = subprocess.run([sys.executable, "-m", "cheatsheet", "find", "free", "GPU", "memory", "-n", "1"],
                           capture_output=True, text=True, cwd=PROJECT.root, check=True).stdout
    entry = Sheet().get("cuda-empty-cache", "en").entry
    assert entry["title"] in shown and "torch.cuda.empty_cache()" in shown
    assert "#cpu> CPU tensors are freed when deleted; there is no CUDA cache to empty" in shown  # wrapped, not cut
    assert f"torch {release}" in shown


def test_find_says_what_it_cannot_do():
    empty = subprocess.run([sys.executable, "-m", "cheatsheet", "find", " "], capture_output=True, text=True,
                           cwd=PROJECT.root)
    assert empty.returncode == 2 and "the query is empty" in empty.stderr
    wrong = subprocess.run([sys.executable, "-m", "cheatsheet", "find", "x", "--lang", "fr"], capture_output=True,
                           text=True, cwd=PROJECT.root)
    assert wrong.returncode == 2 and "invalid choice: 'fr'" in wrong.stderr


def test_a_release_not_on_record_is_said_so(sheet):
    answer = sheet.get("cuda-empty-cache", "en")
    assert "torch 1.13.1 is not in the record" in answer.status("1.13.1")
    with pytest.raises(SheetError, match="unknown language"):
        sheet.search("x", "fr")
    with pytest.raises(SheetError, match="did you mean cuda-empty-cache"):
        sheet.get("empty-cache", "en")


# --- the MCP server, through the SDK's own client, in-process ---------------------------------


def _mcp(sheet, calls):
    async def run():
        async with Client(server(sheet)) as client:
            return [await client.list_tools()] + [await client.call_tool(name, args) for name, args in calls]
    return anyio.run(run)


def test_the_mcp_server_searches_and_returns_entries(sheet):
    tools, found, entry, on_old = _mcp(sheet, [
        ("search", {"query": "CUDA error: device-side assert triggered", "limit": 3}),
        ("get_entry", {"id": "error-cross-entropy-target-dtype", "lang": "en"}),
        ("search", {"query": "expected scalar type Long but found Float", "torch_version": "2.8.0+cu128"}),
    ])
    assert {t.name for t in tools.tools} == {"search", "get_entry"}
    assert all(t.description and t.input_schema for t in tools.tools)
    assert not found.is_error
    results = found.structured_content["result"]
    assert [r["id"] for r in results] == sheet.ranked("CUDA error: device-side assert triggered", "en")[:3]
    assert {"id", "title", "code", "status", "since", "record", "url"} <= set(results[0])
    assert not entry.is_error
    markdown = entry.content[0].text
    assert markdown.startswith("### ") and "#torch<2.12> RuntimeError: expected scalar type Long but found Float" in markdown
    # on the user's release, the record's rows for it: the old wording ran there
    assert not on_old.is_error
    first = on_old.structured_content["result"][0]
    assert first["id"] == "error-cross-entropy-target-dtype"
    assert "torch 2.8.0" in first["status"] and [v["release"] for v in first["record"]] == ["2.8.0", "2.8.0"]


@pytest.mark.parametrize("name,args,message", [
    ("get_entry", {"id": "no-such-entry"}, "no entry has the id 'no-such-entry'"),
    ("search", {"query": "   "}, "the query is empty"),
    ("search", {"query": "view", "lang": "fr"}, "unknown language 'fr'"),
    ("search", {"query": "view", "limit": 0}, "limit must be between 1 and 20"),
])
def test_the_mcp_server_answers_bad_input_with_a_clear_error(sheet, name, args, message):
    _, result = _mcp(sheet, [(name, args)])
    assert result.is_error and message in result.content[0].text


def test_the_readme_snippet_starts_a_server_the_sdk_client_can_use():
    """The README's client configuration, as written: its command on PATH (the environment's bin/),
    spoken to over standard input/output by the SDK's client."""
    import os
    import re
    from pathlib import Path

    from mcp import StdioServerParameters

    readme = (PROJECT.root / "README.md").read_text("utf-8")
    snippet = json.loads(re.search(r"```json\n(.*?)```", readme, re.S).group(1))["mcpServers"]["pytorch-cheatsheet"]
    for lang in ("zh", "en"):
        home = (PROJECT.docs / lang / "index.md").read_text("utf-8")
        assert json.loads(re.search(r"```json\n(.*?)```", home, re.S).group(1))["mcpServers"]["pytorch-cheatsheet"] == snippet
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    params = StdioServerParameters(command=snippet["command"], args=snippet["args"], env=env, cwd=str(PROJECT.root))

    async def run():
        async with Client(params) as client:
            tools = await client.list_tools()
            found = await client.call_tool("search", {"query": "释放显存", "limit": 1})
            return {t.name for t in tools.tools}, found
    names, found = anyio.run(run)
    assert names == {"search", "get_entry"}
    assert not found.is_error and found.structured_content["result"][0]["id"] == "cuda-empty-cache"
