"""The sheet as data for the package itself: what `python -m cheatsheet find` and the MCP server
read, so that an installed package answers without a built site (setup.py writes it into the
wheel; in a checkout, cheatsheet/tools/find.py writes it on first use and again when a page or
the record changes).

Per language, from the page model and the record, with the site's own code:

    <lang>/index.json    the site's search index of the entries (search_index.documents: the
                         same documents, boosts and synonyms as search/entries.json), built by the
                         site's own search-rank.js and saved as MiniSearch saves an index, so
                         that `find` loads it (a few times quicker than indexing again)
    <lang>/entries.json  each entry as api/entries.json holds it, with its Markdown as
                         llms-full.txt gives it (`markdown`) and its examples as the page shows
                         them, output lines under their statements (`shown`)
    js/                  the site's ranking (search-rank.js) and MiniSearch, run as they are

Only the entries are documents: the site also lists its pages and sections, which a terminal or
an assistant does not want (the test that compares the two rankings reads the entries alone).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import yaml

from cheatsheet.model.langs import URL_PREFIX
from cheatsheet.model.pages import Page, site_pages
from cheatsheet.model.record import Record
from cheatsheet.project import Project
from cheatsheet.site import ranking, search_index, sheet_data
from cheatsheet.site.entry_status import checked, entry_since
from cheatsheet.site.strings import for_language

SCRIPTS = Path(__file__).resolve().parent.parent.parent / "overrides" / "assets" / "javascripts"


def _front_matter_boost(page: Page) -> float | None:
    """The page's `search: boost:`, as Material's search reads it from the front matter."""
    boost = ((yaml.safe_load(page.front_matter) or {}).get("search") or {}).get("boost")
    return float(boost) if boost is not None else None


def _url(page: Page, docs: Path) -> str:
    """The page's address as MkDocs builds it (directory URLs), relative to its language's root."""
    return sheet_data.published(page.path.relative_to(docs / page.lang).as_posix())


def build(project: Project, out: Path, site_url: str | None = None) -> Path:
    """Write the package's data into `out`; returns it."""
    site_url = site_url if site_url is not None else os.environ.get("SITE_URL")
    record = Record.load(project.record, project.snippets)
    tmp = out.with_name(out.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    for lang, prefix in URL_PREFIX.items():
        docs_dir = project.docs / lang
        pages = [p for p in site_pages(project.docs, lang) if p.entries]
        urls = {p.path: _url(p, project.docs) for p in pages}
        boosts = {p.path: b for p in pages if (b := _front_matter_boost(p)) is not None}
        documents = search_index.documents(pages, urls, project.docs, lang, [], boosts)
        texts = [doc.pop("x") for doc in documents]
        base = (site_url.rstrip("/") + "/" + prefix) if site_url else None
        entries = []
        for page in pages:
            src_uri = page.path.relative_to(docs_dir).as_posix()
            for entry in page.entries:
                verdicts = checked(record.verdicts(entry), entry)
                data = sheet_data.entry_data(src_uri, page, entry, base, verdicts, project.snippets)
                data["shown"] = [{"lang": lang_, "code": code, "requires_cuda": cuda}
                                 for lang_, code, cuda in sheet_data.shown_fences(entry, project.snippets)]
                data["markdown"] = sheet_data.entry_markdown(src_uri, page, entry, base, verdicts, for_language(lang),
                                                             project.snippets)
                data["works_since"] = entry_since(verdicts)[1]  # as the status line says it
                entries.append(data)
        (tmp / lang).mkdir(parents=True)
        (tmp / lang / "index.json").write_text(_built_index(search_index.index_data(lang, documents), texts), "utf-8")
        _dump(tmp / lang / "entries.json", {"lang": lang, "entries": entries})
    (tmp / "js").mkdir()
    for name in ranking.SCRIPTS:
        shutil.copyfile(SCRIPTS / name, tmp / "js" / name)
    shutil.rmtree(out, ignore_errors=True)
    tmp.rename(out)
    return out


def _built_index(data: dict, texts: list[str]) -> str:
    """The index that search-rank.js builds from `data` and `texts`, as JSON (Index.prototype.toJSON)."""
    ctx = ranking.context(SCRIPTS)
    try:
        return ctx.eval(f"var index = new CheatsheetRank.Index(JSON.parse({json.dumps(json.dumps(data, ensure_ascii=False))}));"
                        f"index.addTexts(JSON.parse({json.dumps(json.dumps(texts, ensure_ascii=False))}));"
                        "JSON.stringify(index)")
    finally:
        ctx.close()


def sources(project: Project) -> list[Path]:
    """What the data is made from: when one of them is newer, it is out of date (the pages, the
    record, the synonyms, the tuning queries, the ranking scripts and the site code that writes the data)."""
    return [*project.docs.rglob("*.md"), *project.docs.rglob("*.py"), *project.record.rglob("*.csv"),
            search_index.SYNONYMS, search_index.ASKED, *(SCRIPTS / name for name in ranking.SCRIPTS),
            *Path(__file__).parent.glob("*.py"), *Path(__file__).parent.parent.joinpath("model").glob("*.py")]


def _dump(path: Path, data) -> None:
    path.write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")), "utf-8")
