"""Site search: the benchmark (benchmarks/search_eval.py: 200 queries put to the built site in
Chromium, every tenth typed into the search box and the rest ranked in one call through the same
function the list renders from, scored on the first three visible results, gated per language), the index
(cheatsheet/search_index.py) and the browser glue (overrides/assets/javascripts/search.js)."""

import csv
import json
import re
from collections import Counter
from urllib.parse import parse_qs, urlsplit

import pytest

from benchmarks.search_eval import (
    BLIND,
    BLIND_GATE,
    BLIND_MORE,
    BLIND_MORE_GATE,
    GAP,
    GATE,
    HELD_OUT,
    PASTED,
    PASTED_GATE,
    load,
    node_ranked,
    report,
    task_words,
    tuning_queries,
    visible_results,
)
from cheatsheet.model.langs import URL_PREFIX
from cheatsheet.model.pages import LABELS, parse_page, site_files, site_pages
from cheatsheet.project import repo
from cheatsheet.site import search_index

PROJECT = repo()


def _ids(lang: str) -> set[str]:
    return {e.id for p in site_files(PROJECT.docs / lang) for e in parse_page(p, lang).entries}


def test_the_query_set_is_200_queries_with_real_answers():
    queries = load()
    assert Counter(q.lang for q in queries) == {"zh": 100, "en": 100}
    assert len({(q.lang, q.text) for q in queries}) == len(queries), "no query twice"
    for lang in ("zh", "en"):
        known = _ids(lang)
        unknown = [(q.text, sorted(q.answers - known)) for q in queries if q.lang == lang and q.answers - known]
        assert not unknown, f"answers that are no entry id on the {lang} site: {unknown}"
    assert {q.kind for q in queries} <= {"task", "question", "api", "api-cross", "synonym", "typo", "compound"}


@pytest.mark.parametrize("title,words", [
    ("释放显存：torch.cuda.empty_cache()", "释放显存"),
    ("TorchScript 已弃用", "TorchScript 已弃用"),
    ("Skip gradient sync during gradient accumulation with no_sync", "Skip gradient sync during gradient accumulation"),
    ("torch.compile", "torch.compile"),
])
def test_task_words_leave_out_the_api(title, words):
    assert task_words(title) == words


def test_search_ranks_the_answer_in_the_first_three_visible_results(search_page):
    from benchmarks.search_eval import evaluate

    # every tenth query typed into the box (and its list compared), the rest ranked in one call
    scores = evaluate(search_page, load(), typed_every=10)
    print(report(scores))
    assert {lang: s["typed"] for lang, s in scores.items()} == {"zh": 10, "en": 10}
    for lang, (hit1, hit3) in GATE.items():
        assert scores[lang]["hit1"] >= hit1 and scores[lang]["hit3"] >= hit3, report({lang: scores[lang]})


def test_the_pasted_set_is_error_messages_with_real_answers():
    queries = load(PASTED)
    counts = Counter(q.lang for q in queries)
    assert counts["zh"] == counts["en"] >= 20 and len({(q.lang, q.text) for q in queries}) == len(queries)
    for lang in ("zh", "en"):
        assert not [q.text for q in queries if q.lang == lang and q.answers - _ids(lang)]


def test_the_blind_tuning_half_finds_its_answers(search_page):
    """The blind corpus's tuning half (its queries that some entry answers), put to the site like
    the 200-query set; the held-out half is only reported (bench --search)."""
    from benchmarks.search_eval import evaluate

    scores = evaluate(search_page, [q for q in load(BLIND, "tuning") if q.answered], typed_every=25)
    print(report(scores))
    for lang, (hit1, hit3) in BLIND_GATE.items():
        assert scores[lang]["hit1"] >= hit1 and scores[lang]["hit3"] >= hit3, report({lang: scores[lang]})


def test_the_further_chinese_queries_find_their_answers(search_page):
    """BLIND_MORE, the real Chinese queries collected after the corpus, all for tuning."""
    from benchmarks.search_eval import evaluate

    scores = evaluate(search_page, [q for q in load(BLIND_MORE) if q.answered], typed_every=25)
    print(report(scores))
    for lang, (hit1, hit3) in BLIND_MORE_GATE.items():
        assert scores[lang]["hit1"] >= hit1 and scores[lang]["hit3"] >= hit3, report({lang: scores[lang]})


def test_node_ranks_as_the_browser_does(site, search_page):
    """benchmarks/search_rank.js (the quick figures) runs the site's own search-rank.js in Node:
    its results are the browser's, query for query."""
    site_dir, _ = site
    queries = [q for q in load(BLIND, "tuning")][::7] + load()[::9]
    ranked = node_ranked(site_dir, queries)
    for lang in ("zh", "en"):
        mine = [q.text for q in queries if q.lang == lang]
        assert search_page[lang].evaluate("queries => cheatsheetSearch.shown(queries)", mine) == ranked[lang]


def test_a_pasted_error_message_finds_its_entry(search_page):
    from benchmarks.search_eval import evaluate

    scores = evaluate(search_page, load(PASTED), typed_every=10)
    print(report(scores))
    for lang, hit3 in PASTED_GATE.items():
        assert scores[lang]["hit3"] >= hit3, report({lang: scores[lang]})


def test_the_blind_corpus_is_real_queries_with_sources_and_real_answers():
    queries = load(BLIND)
    assert len(queries) >= 400 and sum(q.lang == "zh" for q in queries) >= 150 and sum(q.kind == "error" for q in queries) >= 100
    assert len({(q.lang, q.text.lower()) for q in queries}) == len(queries), "no query twice"
    assert {q.kind for q in queries} == {"question", "error"}
    assert not [q.text for q in queries if not re.match(r"https?://\S+$", q.source)], "every query has its source address"
    for lang in ("zh", "en"):
        known = _ids(lang) | {GAP}
        assert not [(q.text, sorted(q.answers - known)) for q in queries if q.lang == lang and q.answers - known]
    assert not [q.text for q in queries if GAP in q.answers and len(q.answers) > 1], "GAP stands alone"
    halves = Counter(q.half for q in queries)
    assert set(halves) == {"tuning", "held-out"} and min(halves.values()) >= 0.4 * len(queries), halves


def test_the_further_chinese_queries_are_real_with_sources_and_none_from_the_corpus():
    queries = load(BLIND_MORE)
    assert len(queries) >= 200 and {q.lang for q in queries} == {"zh"} and {q.kind for q in queries} == {"question", "error"}
    assert not [q.text for q in queries if not re.match(r"https?://\S+$", q.source)], "every query has its source address"
    corpus = {re.sub(r"\s+", "", q.text.lower()) for q in load(BLIND)}
    mine = [re.sub(r"\s+", "", q.text.lower()) for q in queries]
    assert len(set(mine)) == len(mine) and not corpus & set(mine), "no query twice, none of the corpus's"
    known = _ids("zh") | {GAP}
    assert not [q.text for q in queries if q.answers - known]
    assert not [q.text for q in queries if GAP in q.answers and len(q.answers) > 1], "GAP stands alone"


@pytest.mark.parametrize("path", [BLIND, BLIND_MORE], ids=lambda p: p.name)
def test_the_blind_labels_are_the_first_labelling_and_what_both_second_labellers_found(path):
    """`answers` = `first_answers` joined with the entries both second labellers named (benchmarks/
    README.md): a label edited by hand anywhere else breaks this."""
    with path.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    wrong = []
    for row in rows:
        first, a, b = (row[key].split() for key in ("first_answers", "second_a", "second_b"))
        merged = [x for x in first if x != GAP] + [x for x in a if x in b and x not in first and x != GAP]
        if row["answers"].split() != (merged or [GAP]):
            wrong.append((row["query"], row["answers"], merged))
    assert not wrong, wrong[:5]
    for lang in ("zh", "en"):
        known = _ids(lang) | {GAP}
        for key in ("first_answers", "second_a", "second_b"):
            assert not [(row["query"], key) for row in rows if row["lang"] == lang and set(row[key].split()) - known]


def test_the_vocabulary_rows_come_from_the_tuning_queries():
    """A row of the user-vocabulary table names the tuning queries (tuning_queries) that showed the
    need for it; none may name a held-out one, whose queries nobody tunes on."""
    tuning = {q.text for q in tuning_queries()}
    with search_index.SYNONYMS.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader((line for line in f if not line.startswith("#")), delimiter="\t", quoting=csv.QUOTE_NONE))
    cited = [(row["typed"], query) for row in rows for query in filter(None, (row["because"] or "").split(" ¦ "))]
    assert cited and not [c for c in cited if c[1] not in tuning]


def test_the_asked_table_is_the_tuning_queries_and_their_labels():
    """search_asked.tsv (the tuning queries the index learns from) is written from the tuning sets'
    labels alone (`bench --write-asked`), not by hand; no held-out query is in it."""
    from benchmarks.search_eval import asked_rows

    assert search_index.asked() == asked_rows(), "run `python -m cheatsheet bench --write-asked`"
    held_out = {q.text for q in load(BLIND, "held-out")}
    assert not [query for _, query, _ in search_index.asked() if query in held_out]


def test_the_held_out_set_has_its_own_queries_with_real_answers():
    queries = load(HELD_OUT)
    assert min(Counter(q.lang for q in queries).values()) >= 45
    tuned = {(q.lang, q.text.lower()) for q in load()}
    assert not [q.text for q in queries if (q.lang, q.text.lower()) in tuned], "a held-out query is also in the tuned set"
    for lang in ("zh", "en"):
        assert not [q.text for q in queries if q.lang == lang and q.answers - _ids(lang)]


# --- the index (cheatsheet/search_index.py) ------------------------------------------------------


@pytest.mark.parametrize("lang,prefix", URL_PREFIX.items())
def test_the_index_has_each_entry_once_with_its_code_line_and_fields(site, lang, prefix):
    site_dir, _ = site
    docs = json.loads((site_dir / prefix / search_index.INDEX).read_text("utf-8"))["docs"]
    texts = json.loads((site_dir / prefix / search_index.TEXT).read_text("utf-8"))
    assert len(texts) == len(docs) and not [d for d in docs if "x" in d], "the texts are in their own file, in the same order"
    for doc, text in zip(docs, texts):
        doc["x"] = text
    entries = [d for d in docs if d["k"] in ("entry", "error")]
    for page in site_pages(PROJECT.docs, lang):
        for entry in page.entries if page.kind == "topic" else []:
            [doc] = [d for d in entries if d["u"].endswith(f"/#{entry.id}")]
            assert doc["t"] == entry.title and doc["c"] == entry.code_line.code.strip(), entry.id
            assert doc["x"] and "`" not in doc["x"] and not any(label in doc["x"] for label in LABELS[lang].values()), doc["x"]
            assert doc.get("w", "") == search_index.once_each(entry.search_words)  # each word once
            assert (lang == "zh") == ("a" in doc), "the Chinese site's documents carry the English title"
            front = re.match(r"---\n(.*?)\n---\n", page.text, re.S)  # the page's `search: boost:`, as Material reads it
            boost = re.search(r"^  boost: ([\d.]+)$", front.group(1), re.M) if front else None
            assert doc.get("b", 1) == (float(boost.group(1)) if boost else 1), entry.id
    assert len(entries) == sum(len(p.entries) for p in site_pages(PROJECT.docs, lang) if p.kind == "topic")
    material = json.loads((site_dir / prefix / "search" / "search_index.json").read_text("utf-8"))
    assert material["docs"] == [] and material["config"]["separator"], (
        "Material keeps its config (highlighting), not its documents")


def test_entry_text_is_the_fields_without_markdown():
    page = parse_page(PROJECT.docs / "en" / "gpu-memory.md", "en")
    text = search_index.entry_text(page, page.entry("cuda-empty-cache"))
    assert text.startswith("empty = ") and "Prerequisites" not in text and "**" not in text and "- " not in text


def test_output_lines_are_indexed_normalised():
    page = parse_page(PROJECT.docs / "en" / "autograd.md", "en")
    assert "Trying to backward through the graph a second time" in search_index.output_text(page.entry("retain-graph"))
    assert search_index.normalise('File "/a/b.py", line 4, in f x: torch.Size([64, 3]) 64x512 at 0x7f3a') == "x torch.Size at"


def test_synonyms_are_well_formed():
    for lang in ("zh", "en"):
        rows = search_index.synonyms(lang)
        assert rows and all(typed == typed.lower() and typed.strip() and site.strip() for typed, site in rows.items()), lang


def test_the_vendored_minisearch_is_the_locked_package():
    package = PROJECT.root / "node_modules" / "minisearch" / "dist" / "umd" / "index.js"
    if not package.exists():
        pytest.skip("node_modules is missing: run npm ci")
    assert (PROJECT.root / "overrides" / "assets" / "javascripts" / "minisearch.js").read_bytes() == package.read_bytes()


# --- in Chromium: the glue (overrides/assets/javascripts/search.js) ----------------------------


@pytest.fixture(scope="module")
def search_page(browser):
    """Both languages' home pages, search box focused and the whole index loaded, shared by this module."""
    from benchmarks.search_eval import open_search

    chromium, base = browser
    pages = open_search(chromium, base)
    yield pages
    for page in pages.values():
        page.close()


@pytest.mark.parametrize("text,tokens", [
    ("显存不足", ["显存", "存不", "不足"]),  # overlapping pairs, the same in the index and the query
    ("梯", ["梯"]),
    ("torch.cuda.empty_cache()", ["torch.cuda.empty_cache", "torch", "cuda", "empty_cache", "emptycache", "empty", "cach"]),
    ("requires_grad_", ["requires_grad_", "requires_grad", "requiresgrad", "requir", "grad"]),
    ("Freezing layers", ["freez", "layer"]),
    ("用one_hot编码", ["用", "one_hot", "onehot", "one", "hot", "编码"]),
    ("请问torch的gather函数", ["请问", "torch", "的", "gather", "函数"]),  # Latin and Chinese apart without spaces
])
def test_tokenize(search_page, text, tokens):
    assert search_page["zh"].evaluate("t => cheatsheetSearch.tokenize(t)", text) == tokens


@pytest.mark.parametrize("text", [
    'Traceback (most recent call last): File "/home/u/train.py", line 42, in <module> loss.backward()',
    "RuntimeError: mat1 and mat2 shapes cannot be multiplied (64x512 and 256x10)",
    "size mismatch: torch.Size([10, 2048]) at 0x7f3a D:\\code\\attn.py:17: UserWarning 1e-05 全1张量",
])
def test_the_index_and_the_query_drop_the_same_noise(search_page, text):
    """search.js's NOISE and the index builder's: the builder's text tokenizes as the raw text does."""
    tokenize = "t => cheatsheetSearch.tokenize(t)"
    assert search_page["zh"].evaluate(tokenize, search_index.normalise(text)) == search_page["zh"].evaluate(tokenize, text)


@pytest.mark.parametrize("query,terms,words", [
    ("梯度累积", ["梯度", "度累", "累积"], ["梯度累积"]),  # a run of matched pairs is one word
    ("显存不足怎么办", ["显存", "不足"], ["显存", "不足"]),
    ("梯", ["梯度"], ["梯"]),
    ("empty_cache", ["empty_cache", "empty", "cach"], ["empty_cache", "empty", "cach"]),
])
def test_matched_words(search_page, query, terms, words):
    assert search_page["zh"].evaluate("([q, t]) => cheatsheetSearch.matchedWords(q, t)", [query, terms]) == words


@pytest.mark.parametrize("lang,query,added,not_added", [
    ("zh", "清理GPU内存", ["显存", "释放"], []),  # Chinese: as a substring
    ("en", "lr decay", ["learning rate"], []),  # code and English: as a whole word
    ("en", "flr schedule", [], ["learning rate"]),
])
def test_synonyms_add_the_sites_words(search_page, lang, query, added, not_added):
    expanded = search_page[lang].evaluate("q => cheatsheetSearch.load().then(() => cheatsheetSearch.expand(q))", query)
    assert (expanded.startswith(query) and all(w in expanded for w in added)
            and not any(w in expanded for w in not_added)), expanded


def test_mark_keeps_words_whole_and_escapes(search_page):
    mark = "([t, w]) => cheatsheetSearch.mark(t, w)"
    page = search_page["zh"]
    assert page.evaluate(mark, ["梯度累积：损失除以累积步数", ["梯度累积"]]) == "<mark>梯度累积</mark>：损失除以累积步数"
    assert page.evaluate(mark, ["Freeze layers <b>", ["freez"]]) == "<mark>Freeze</mark> layers &lt;b&gt;"
    assert page.evaluate(mark, ["显存的不足", ["显存不足"]]) == "<mark>显存</mark>的<mark>不足</mark>"  # not whole: its pairs


@pytest.mark.parametrize("lang,query,first", [
    ("zh", "释放显存", {"cuda-empty-cache"}),  # the home page's example queries
    ("zh", "梯度累积", {"gradient-accumulation", "gradient-accumulation-loop"}),
    ("zh", "冻结参数", {"freeze-requires-grad"}),
    ("zh", "one_hot", {"one-hot-encoding"}),  # API names typed on the Chinese site
    ("zh", "requires_grad_", {"requires-grad"}),
    ("en", "free gpu memory", {"cuda-empty-cache"}),
    ("en", "weights_only", {"weights-only-unpickling-error", "save-load-state-dict"}),
])
def test_the_first_visible_result_is_the_entry(search_page, lang, query, first):
    page = search_page[lang]
    page.click("input.md-search__input")
    results = visible_results(page, query)
    assert results and results[0] in first, results
    panel = page.inner_text(".md-search-result")
    assert "缺少" not in panel and "Missing" not in panel


def test_slash_enter_and_highlight_after_instant_navigation(browser_page):
    """`/` opens search and Enter goes to the best result on a page reached by instant
    navigation; the target page marks the matched Chinese word whole."""
    page, base, _ = browser_page
    page.goto(base)
    page.click("nav.md-nav a[href$='gpu-memory/']")
    page.wait_for_url("**/gpu-memory/")
    page.wait_for_selector("#cuda-empty-cache")
    page.keyboard.press("/")
    page.keyboard.type("梯度累积")
    page.keyboard.press("End")
    first = page.locator(".cheatsheet-search .md-search-result__item").first
    first.wait_for()
    assert first.locator("h2 mark").all_inner_texts() == ["梯度累积"]
    assert parse_qs(urlsplit(first.locator("a").get_attribute("href")).query)["h"] == ["梯度累积"]
    page.keyboard.press("Enter")
    page.wait_for_url("**#gradient-accumulation*")
    page.wait_for_selector("mark[data-md-highlight]")
    marks = page.locator("mark[data-md-highlight]").all_inner_texts()
    assert marks and set(marks) == {"梯度累积"}, marks


def test_the_index_is_fetched_on_the_first_search_not_on_page_load(browser_page):
    """Both files: the documents, then, once they are in and the first results shown, their
    texts (the first result waits for the smaller file alone)."""
    page, base, _ = browser_page
    fetched = []
    page.on("request", lambda request: fetched.append(request.url))
    page.goto(base + "en/")
    page.wait_for_load_state("networkidle")
    assert not [url for url in fetched if url.endswith(search_index.INDEX)]
    page.click("input.md-search__input")
    page.keyboard.type("freeze")
    page.locator(".cheatsheet-search .md-search-result__item").first.wait_for()
    page.evaluate("cheatsheetSearch.complete()")
    assert ([url for url in fetched if url.endswith(search_index.INDEX)]
            and [url for url in fetched if url.endswith(search_index.TEXT)])
    timing = page.evaluate("""names => names.map(name => performance.getEntriesByType("resource")
        .filter(r => r.name.endsWith(name)).map(r => [r.startTime, r.responseEnd])[0])""",
                           [search_index.INDEX, search_index.TEXT])
    assert timing[1][0] >= timing[0][1], f"the texts were fetched beside the documents, not after them: {timing}"


def test_results_shown_before_the_texts_are_indexed_are_ranked_again_after(browser_page):
    page, base, _ = browser_page
    page.goto(base)
    page.click("input.md-search__input")
    page.keyboard.type("显存一直涨")  # typed at once: the first results come from the titles alone
    page.locator(".cheatsheet-search .md-search-result__item").first.wait_for()
    page.evaluate("cheatsheetSearch.complete()")
    full = page.evaluate("q => cheatsheetSearch.shown([q]).then(r => r[0].slice(0, 5))", "显存一直涨")  # what the list holds
    page.wait_for_function("ids => [...document.querySelectorAll('.cheatsheet-search a')].slice(0, 5)"
                           ".map(a => a.hash.slice(1)).join() === ids.join()", arg=full)


def test_search_and_the_page_script_work_on_the_404_page(browser_page):
    """The root 404.html's base is "/": the scripts build the site root without a second slash."""
    page, base, _ = browser_page
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(base + "no-such-page/")
    page.click("input.md-search__input")
    page.keyboard.type("释放显存")
    first = page.locator(".cheatsheet-search .md-search-result__item a").first
    first.wait_for()
    assert first.get_attribute("href").startswith(base + "gpu-memory/") and not errors, errors


def test_search_words_count_each_word_once():
    """The search words list the ways readers ask; a word they share counts once, not per way."""
    assert search_index.once_each("GPU memory | free GPU memory | Memory leak") == "GPU memory free leak"
    assert search_index.once_each("显存 爆了 | 显存 不够") == "显存 爆了 不够"
