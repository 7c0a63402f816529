"""The sheet in a terminal and for assistants: the site's own ranking over the package's data.

`Sheet` answers a query with entries, best first, exactly as the site's search box ranks them:
it runs the site's search-rank.js and MiniSearch (cheatsheet/site/package_data.py copies them
with the index) in V8 through mini-racer, so there is one ranking, not a port. Each answer carries
what ran where: for the torch installed here (read from its metadata, never imported) or any
release asked for, the record's state on CPU and CUDA and the release it works since.

`python -m cheatsheet find` prints the answers with Rich (colour and width follow the terminal,
none when piped); `--json` for scripts. cheatsheet/tools/mcp_server.py serves the same `Sheet`.
"""

from __future__ import annotations

import importlib.metadata
import json
import re
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from cheatsheet.model.langs import LANGS, SOURCE, UNMARKED, query_language, wording
from cheatsheet.model.record import release_of, version_key
from cheatsheet.project import REPO, repo
from cheatsheet.site import ranking
from cheatsheet.site.strings import for_language

DATA = Path(__file__).resolve().parent.parent / "data"  # cheatsheet/data: in the wheel, or written here

# What only the terminal says; the states and devices are the site's own words (site/strings.py).
WORDS = {
    "zh": {"since": "{release} 及以上可用", "on": "torch {release}：{states}", "sep": "；",
           "not_recorded": "torch {release} 不在验证记录里（记录了 {releases}）", "what": "作用", "example": "示例",
           "none": "没有找到匹配的条目"},
    "en": {"since": "works since {release}", "on": "torch {release}: {states}", "sep": "; ",
           "not_recorded": "torch {release} is not in the record (it holds {releases})", "what": "What it does",
           "example": "Example", "none": "no entry matches"},
}


class SheetError(ValueError):
    """A question the sheet cannot answer as asked: an empty query, an unknown language or id."""


def installed_torch() -> str | None:
    """The torch release installed beside this package, from its metadata (torch is not imported)."""
    try:
        return release_of(importlib.metadata.version("torch"))
    except importlib.metadata.PackageNotFoundError:
        return None


def data_dir() -> Path:
    """The package's data. In a checkout (docs/ beside the package) it is written on first use
    and again whenever a page, the record or the ranking changed; an installed package has it."""
    project = repo()
    if (REPO / "docs").is_dir() and project.docs.is_dir():
        from cheatsheet.site import package_data  # a checkout only: it reads the pages

        stamp = DATA / SOURCE / "index.json"
        built = stamp.stat().st_mtime if stamp.is_file() else 0.0
        if any(path.stat().st_mtime > built for path in package_data.sources(project)):
            package_data.build(project, DATA)
    if not (DATA / SOURCE / "index.json").is_file():
        raise SheetError(f"{DATA} holds no data: install the package with pip (its build writes it), "
                         "or run this from a checkout of the repository")
    return DATA


@dataclass
class Answer:
    """One entry as find and the MCP server give it."""

    entry: dict
    lang: str

    @property
    def id(self) -> str:
        return self.entry["id"]

    def example(self) -> tuple[str, list[str]]:
        """The first example's code and its output lines (CPU's, or CUDA's for a GPU-only example)."""
        if not self.entry["examples"]:
            return "", []
        first = self.entry["examples"][0]
        output = first["output"].get("cpu") or first["output"].get("cuda") or []
        return first["code"], output

    def shown(self) -> str:
        """The first example as the page shows it: each statement's output lines right under it."""
        return self.entry["shown"][0]["code"] if self.entry.get("shown") else ""

    def reported(self, release: str | None) -> str | None:
        """The release the status speaks of: `release` if the record holds it, else (no release
        asked for) the newest on record; None for a release the record lacks."""
        releases = sorted({v["release"] for v in self.entry["record"]}, key=version_key, reverse=True)
        if release is None:
            return releases[0] if releases else None
        return release if release in releases else None

    def status(self, release: str | None) -> str:
        """What the record says for `release` (the newest on record when None), and since when it works."""
        words, strings = wording(WORDS, self.lang), for_language(self.lang)
        shown = self.reported(release)
        parts = []
        if shown is None and release is not None:
            releases = sorted({v["release"] for v in self.entry["record"]}, key=version_key, reverse=True)
            parts.append(words["not_recorded"].format(release=release, releases=", ".join(releases)))
        if shown is not None:
            states = [f"{strings['device.' + v['device']]} {strings['state.' + v['state']]}"
                      for v in self.entry["record"] if v["release"] == shown]
            parts.append(words["on"].format(release=shown, states=" · ".join(states)))
        if self.since:
            parts.append(words["since"].format(release=self.since))
        return words["sep"].join(parts)

    @property
    def since(self) -> str | None:
        """The release it works since, as the site's status line says it (written with the data)."""
        return self.entry.get("works_since")

    def failed(self, release: str | None) -> bool:
        """Whether the record has it failed on the release the status speaks of."""
        shown = self.reported(release)
        return any(v["state"] == "failed" for v in self.entry["record"] if v["release"] == shown)

    def as_json(self, release: str | None) -> dict:
        code, output = self.example()
        e = self.entry
        return {"id": e["id"], "title": e["title"], "page": e["page"], "url": e["url"], "code": e["code"],
                "what": e["fields"].get("what", ""), "example": code, "output": output,
                "since": self.since, "status": self.status(release),
                "record": [v for v in e["record"] if release is None or v["release"] == release]}


class Sheet:
    """The entries of both languages and the site's ranking over them: one V8 context per language,
    which holds the saved index and, for each query, loads the part of it the query can reach
    (search-rank.js's Index.loadFor: the same scores as the whole index, in a fraction of the time)."""

    def __init__(self, data: Path | None = None):
        self.data = data or data_dir()
        self._entries: dict[str, dict[str, dict]] = {}
        self._rankers: dict = {}
        self._loading: dict[str, threading.Thread] = {}

    def entries(self, lang: str) -> dict[str, dict]:
        if lang not in LANGS:
            raise SheetError(f"unknown language {lang!r}: the sheet is written in {', '.join(LANGS)}")
        if lang not in self._entries:
            data = json.loads((self.data / lang / "entries.json").read_text("utf-8"))
            self._entries[lang] = {e["id"]: e for e in data["entries"]}
        return self._entries[lang]

    def prepare(self, lang: str) -> None:
        """Start loading the language's index in V8 (it runs without the GIL) while Python reads the
        entries and the terminal library: the first answer comes sooner."""
        if lang in LANGS and lang not in self._loading and lang not in self._rankers:
            self._loading[lang] = threading.Thread(target=self._ranker, args=(lang,), daemon=True)
            self._loading[lang].start()

    def _ranker(self, lang: str):
        loading = self._loading.get(lang)
        if loading is not None and loading is not threading.current_thread():
            loading.join()
        if lang not in self._rankers:
            ctx = ranking.context(self.data / "js")
            saved = (self.data / lang / "index.json").read_text("utf-8")
            ctx.eval("function keep(text) { saved = JSON.parse(text); return 0; }")
            ctx.call("keep", saved)  # parsed once; each query loads only the terms it can reach
            self._rankers[lang] = ctx
        return self._rankers[lang]

    def ranked(self, query: str, lang: str | None = None) -> list[str]:
        """The ids of the entries the site's search lists for `query`, best first."""
        if not query.strip():
            raise SheetError("the query is empty: ask with a few words, an API name or an error message")
        lang = lang or query_language(query)
        self.entries(lang)  # checks the language
        found = self._ranker(lang).eval(f"var q = {json.dumps(query)}; JSON.stringify(CheatsheetRank.Index.loadFor(saved, q)"
                                        ".listed(q).map(function (r) { return r.u; }))")
        return [url.partition("#")[2] for url in json.loads(found) if "#" in url]

    def search(self, query: str, lang: str | None = None, limit: int = 3) -> list[Answer]:
        lang = lang or query_language(query)
        entries = self.entries(lang)
        return [Answer(entries[i], lang) for i in self.ranked(query, lang) if i in entries][:limit]

    def get(self, entry_id: str, lang: str = UNMARKED) -> Answer:
        entries = self.entries(lang)
        if entry_id not in entries:
            close = [i for i in entries if entry_id.lower() in i or i in entry_id.lower()][:5]
            hint = f"; did you mean {', '.join(close)}?" if close else "; search for it first"
            raise SheetError(f"no entry has the id {entry_id!r}{hint}")
        return Answer(entries[entry_id], lang)

    def close(self) -> None:
        for ctx in self._rankers.values():
            ctx.close()
        self._rankers.clear()


def plain(markdown: str) -> str:
    """A field's Markdown as a terminal shows it: code spans and links as their text."""
    return re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", markdown).replace("`", "")


def render(answers: list[Answer], release: str | None, lang: str, file=None) -> None:
    """The answers for a terminal reader: title, code line, what it does, the example, the record."""
    from rich.console import Console, Group
    from rich.panel import Panel
    from rich.syntax import Syntax
    from rich.text import Text

    console = Console(file=file or sys.stdout)
    words = wording(WORDS, lang)
    if not answers:
        console.print(words["none"])
        return
    for n, answer in enumerate(answers, start=1):
        e = answer.entry
        example = answer.shown().rstrip()
        what = Text.assemble((f"{words['what']}: ", "bold"), plain(e["fields"].get("what", "")))
        parts = [Syntax(e["code"] or "", "python", theme="ansi_dark", background_color="default", word_wrap=True), what,
                 Text(f"{words['example']}:", style="bold"),
                 Syntax(example, "python", theme="ansi_dark", background_color="default", word_wrap=True),
                 Text(answer.status(release), style="red" if answer.failed(release) else "green"),
                 Text(e["url"], style="dim")]
        console.print(Panel(Group(*parts), title=f"[bold]{n}. {e['title']}[/bold]", title_align="left",
                            subtitle=e["id"], subtitle_align="right"))

