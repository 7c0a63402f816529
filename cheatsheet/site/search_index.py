"""The site's search index: one document per entry, ranked in the browser by MiniSearch
(overrides/assets/javascripts/search.js). It comes in two files, fetched on the first search:
INDEX holds every document but its text and is enough to rank; TEXT holds the texts, which make
up most of the words, and refines the ranking once it is indexed too. Splitting them keeps the
first result quick on a large site.

An entry's document holds what a reader searches by: its title, its code line, its fields (助记,
作用, 使用前提 or the English ones) and, on the Chinese site, the English title of the same entry,
so that English task words typed on the Chinese site find it. The example code is left out: it
repeats the API names of other entries and would make the index several times larger. What the
examples print is kept (o): the output lines that read as a message (an exception or warning, or
a few words), so that a pasted error message finds the entry that shows it. Pages,
their ## sections and the recipes are documents too, ranked below the entries.

Material's own index (search/search_index.json) keeps its configuration, which Material's
highlighting on the target page reads, and loses its documents: the site searches with this one.
Of its documents this index takes only the pages' and sections' titles, addresses and the text
before a page's first heading, so Material's search plugin reads each page with its code blocks
emptied (hide_code, restore_code): they are most of a page's markup, and parsing them was about a
quarter of the build.
"""

from __future__ import annotations

import csv
import json
import re
from collections import Counter
from pathlib import Path

from cheatsheet.model.langs import OTHERS, SOURCE
from cheatsheet.model.pages import LABELS, Entry, Page, counterpart, parse_page

INDEX = "search/entries.json"
TEXT = "search/text.json"  # each document's text (x), in INDEX's order
SYNONYMS = Path(__file__).with_name("search_synonyms.tsv")
# The real queries of the search benchmark's tuning sets and the entries that answer them (written
# from their labels by `python -m cheatsheet bench --write-asked`, never by hand; the held-out half
# is never in it). An entry is indexed with the Chinese words of the ones that name it (q: how real
# readers say it), and counts how many of both languages name it (n): where a query could mean
# several entries, the one readers need more often ranks a little higher (search-rank.js, DEMAND).
ASKED = Path(__file__).with_name("search_asked.tsv")
CJK = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")  # search-rank.js's CJK
CJK_RUN = re.compile(CJK.pattern + "+")
# Kinds of documents and how much a match in them counts against a match in an entry. An error
# entry (`error-...`, the 常见报错 / Common errors pages) counts fully for a query that pastes or
# names an error, and as "error-task" for any other: it repeats the words of the entry it fixes.
BOOST = {"entry": 1.0, "error": 1.0, "error-task": 0.4, "recipe": 0.3, "section": 0.2, "page": 0.1}
PAGE_TEXT = 160  # characters of a page's own text kept in its document

_MARKDOWN = [
    (re.compile(r"!?\[([^\]]*)\]\([^)]*\)"), r"\1"),  # links and images: their text
    (re.compile(r"`+([^`]*)`+"), r"\1"),
    (re.compile(r"\*\*|__|(?<!\w)[*_](?!\s)|<[^>]+>"), ""),
    (re.compile(r"^\s*[-*] ", re.M), ""),  # list bullets
    (re.compile(r"\s+"), " "),
]


# What differs between a reader's run and an example's: the traceback's header and file lines, file
# paths, addresses, numbers and NxM shapes. Taken out of both the index and the query, the same way
# in search.js (NOISE: keep the two lists alike) so that a pasted message with other shapes or
# numbers matches the printed one. Applied to lower case there, so case-insensitive here.
NOISE = [re.compile(p, re.I) for p in (
    r"traceback \(most recent call last\):?",
    r'file "[^"]*", line [0-9]+(?:, in \S+)?',
    r"""(?:^|[\s"'(=])(?:[a-z]:|~|\.{1,2})?(?:[\\/][a-z0-9_.-]+){2,}:?(?:[0-9]+:?)?""",  # /a/b.py:12, C:\a\b.py
    r"(?<![a-z0-9_.])0x[0-9a-f]+(?![a-z0-9_])",  # at 0x7f3a...
    r"(?<![a-z0-9_.])[0-9]+(?:\.[0-9]+)?(?:e[-+]?[0-9]+)?(?:x[0-9]+)*(?![a-z0-9_])",  # 42, 0.5, 1e-05, 64x512
)]
# An output line kept in the index: it names an exception or a warning, or has three words (not
# values: tensor([...]), True, torch.Size([...]) say nothing a reader would paste).
MESSAGE = re.compile(r"[a-z]+(?:error|warning|exception)\b", re.I)
VALUES = {"tensor", "true", "false", "none", "nan", "inf", "cpu", "cuda"}
OUTPUT_CHARS = 600  # of an entry's output lines, at most


# A code block's contents, which hold no heading and none of Material's data-search- attributes.
CODE_BLOCK = re.compile(r"(<pre\b[^>]*>)(.*?)(</pre>)", re.S)


def hide_code(html: str) -> tuple[str, list[str]]:
    """`html` with every code block emptied, and the contents taken out, in order."""
    contents: list[str] = []

    def empty(match: re.Match) -> str:
        contents.append(match.group(2))
        return match.group(1) + match.group(3)

    return CODE_BLOCK.sub(empty, html), contents


def restore_code(html: str, contents: list[str]) -> str:
    """Put back what hide_code took out (after Material has read the page and stripped its
    data-search- attributes, which never stand inside a code block)."""
    if len(CODE_BLOCK.findall(html)) != len(contents):
        raise ValueError("the page's code blocks changed while Material's search plugin read it")
    blocks = iter(contents)
    return CODE_BLOCK.sub(lambda match: match.group(1) + next(blocks) + match.group(3), html)


def normalise(text: str) -> str:
    """`text` without NOISE, and without the punctuation the browser's tokenizer skips anyway."""
    for pattern in NOISE:
        text = pattern.sub(" ", text)
    text = re.sub(r"[^\w\s.]+|(?<!\w)\.+|\.+(?!\w)", " ", text)
    return re.sub(r"\s+", " ", text).strip()


def output_text(entry: Entry) -> str:
    """The lines the entry's examples print that read as a message, normalised, each once."""
    lines: list[str] = []
    for fence in entry.examples:
        for line in fence.expected_output("cpu") + fence.expected_output("cuda"):
            line = normalise(line)
            words = {w.lower() for w in line.split() if re.fullmatch(r"[A-Za-z]{3,}", w)} - VALUES
            if (MESSAGE.search(line) or len(words) >= 3) and line not in lines:
                lines.append(line)
    return "\n".join(lines)[:OUTPUT_CHARS]


def plain(markdown: str) -> str:
    for pattern, replacement in _MARKDOWN:
        markdown = pattern.sub(replacement, markdown)
    return markdown.strip()


def once_each(search_words: str) -> str:
    """The search words with each word once: they are a list of the ways readers ask (`|` between
    them), whose shared words (memory, 显存) would otherwise count as often as they recur."""
    seen, kept = set(), []
    for word in search_words.replace("|", " ").split():
        if word.lower() not in seen:
            seen.add(word.lower())
            kept.append(word)
    return " ".join(kept)


def entry_text(page: Page, entry: Entry) -> str:
    """The entry's fields as plain text: the paragraphs between its code line and its example."""
    labels = [label for key, label in LABELS[page.lang].items() if key != "example"]
    text = plain(entry.fields_markdown)
    for label in labels:
        text = text.replace(label, " ")
    return re.sub(r"\s+", " ", text).strip()


def documents(pages: list[Page], urls: dict[Path, str], docs: Path, lang: str, material_docs: list[dict],
              boosts: dict[Path, float] | None = None) -> list[dict]:
    """The documents of one language's index. `urls`: each page's address as MkDocs built it;
    `boosts`: a page's `search: boost:` (front matter, as Material's own search reads it) for its
    entries. Short keys keep it small: u address, t title, c code line, x text, a the other
    language's title, w the entry's search words, o what its examples print, p the page's title,
    k kind, b the page's boost (absent for 1), n how many real queries it answers (ASKED)."""
    boosts = boosts or {}
    demand = Counter(entry for _, _, entries in asked() for entry in entries)
    out: list[dict] = []
    entry_urls = set()
    for page in pages:
        if page.kind != "topic":
            continue
        url = urls[page.path]
        other = _other_titles(page, docs, lang)
        for entry in page.entries:
            doc = {"u": f"{url}#{entry.id}", "t": entry.title, "c": entry.code_line.code.strip() if entry.code_line else "",
                   "x": entry_text(page, entry), "p": page.title, "k": "error" if entry.id.startswith("error-") else "entry"}
            if other.get(entry.id):
                doc["a"] = other[entry.id]
            if entry.search_words:
                doc["w"] = once_each(entry.search_words)
            if output := output_text(entry):
                doc["o"] = output
            if boosts.get(page.path, 1) != 1:
                doc["b"] = boosts[page.path]
            if demand[entry.id]:
                doc["n"] = demand[entry.id]
            out.append(doc)
            entry_urls.add(doc["u"])
            entry_urls.update(f"{url}#{alias}" for alias in entry.alias_ids)
    recipe_urls = {urls[p.path] for p in pages if p.kind == "recipe"}
    titles = {}
    for doc in material_docs:
        location, title = doc["location"], doc["title"].replace("\u200b", "").rstrip("¶")
        if location in entry_urls or location in titles:  # mkdocs-jupyter pages come twice
            continue
        base = location.partition("#")[0]
        if "#" not in location:
            titles[base] = title
            kind = "recipe" if location in recipe_urls else "page"
            out.append({"u": location, "t": title, "c": "", "x": _plain_html(doc["text"])[:PAGE_TEXT], "p": "", "k": kind})
        elif base not in recipe_urls:  # a recipe's headings are steps of one program, not places to land
            out.append({"u": location, "t": title, "c": "", "x": "", "p": titles.get(base, ""), "k": "section"})
    return out


def _plain_html(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html.replace("\u200b", ""))).strip()


def _other_titles(page: Page, docs: Path, lang: str) -> dict[str, str]:
    """Entry id -> its titles in the other languages, for the source language's documents (so that
    English task words typed on the Chinese site find the entry)."""
    if lang != SOURCE:
        return {}
    titles: dict[str, list[str]] = {}
    for other in OTHERS:
        path = counterpart(page.path, docs, other)
        for e in parse_page(path, other).entries if path.exists() else []:
            titles.setdefault(e.id, []).append(e.title)
    return {entry_id: " / ".join(found) for entry_id, found in titles.items()}


def asked(path: Path = ASKED) -> list[tuple[str, str, list[str]]]:
    """The tuning sets' real queries as (language, query, the entries that answer it) (ASKED)."""
    with path.open(encoding="utf-8", newline="") as f:
        rows = csv.DictReader((line for line in f if not line.startswith("#")), delimiter="\t", quoting=csv.QUOTE_NONE)
        return [(r["lang"], r["query"], r["answers"].split()) for r in rows]


def asked_by(lang: str, docs: list[dict]) -> list[list]:
    """This language's real queries that hold Chinese, each once with the places in `docs` of the
    entries it names: search-rank.js gives each entry their Chinese words as a field (q)."""
    place = {doc["u"].partition("#")[2]: i for i, doc in enumerate(docs) if doc["k"] in ("entry", "error")}
    return [[" ".join(CJK_RUN.findall(query)), sorted(place[e] for e in entries if e in place)]
            for q_lang, query, entries in asked() if q_lang == lang and CJK.search(query) and any(e in place for e in entries)]


def index_data(lang: str, docs: list[dict]) -> dict:
    """What search-rank.js's Index is built from (search/entries.json; the package data's index)."""
    return {"boost": BOOST, "synonyms": synonyms(lang), "docs": docs, "asked": asked_by(lang, docs)}


def synonyms(lang: str, path: Path = SYNONYMS) -> dict[str, str]:
    """What a reader types -> the words the site uses for it, for one language."""
    with path.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader((line for line in f if not line.startswith("#")), delimiter="\t", quoting=csv.QUOTE_NONE))
    return {r["typed"]: r["site"] for r in rows if r["lang"] == lang}


def write(site_dir: Path, pages: list[Page], urls: dict[Path, str], docs: Path, lang: str, scripts: bool = False,
          boosts: dict[Path, float] | None = None) -> Path:
    """Write this language's index beside Material's, and empty Material's of its documents. With
    `scripts` (a site read from disk, where pages cannot fetch), each file also as a script that
    sets it on `window.__cheatsheetIndex` (search.js loads it from there on file:// pages)."""
    material = site_dir / "search" / "search_index.json"
    index = json.loads(material.read_text("utf-8"))
    index_docs = documents(pages, urls, docs, lang, index["docs"], boosts)
    texts = [doc.pop("x") for doc in index_docs]
    out = site_dir / INDEX
    for name, data in ((INDEX, index_data(lang, index_docs)), (TEXT, texts)):
        _dump(site_dir / name, data)
        if scripts:
            (site_dir / name).with_suffix(".js").write_text(
                f"(window.__cheatsheetIndex = window.__cheatsheetIndex || {{}})[{json.dumps(name)}] = "
                + (site_dir / name).read_text("utf-8") + ";\n", "utf-8")
    index["docs"] = []
    _dump(material, index)
    return out


def _dump(path: Path, data) -> None:
    path.write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")), "utf-8")
