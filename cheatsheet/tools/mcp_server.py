"""The sheet for AI assistants: a Model Context Protocol server (the official Python SDK, `mcp`)
over standard input/output, `python -m cheatsheet mcp`. Two tools, the pair documentation sites
serve: `search` ranks entries as the site does (cheatsheet/tools/find.py) and `get_entry` returns
one as Markdown with its record. Both say what ran on the release asked for; nothing here
claims more than verification/ holds."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from cheatsheet.model.langs import UNMARKED, query_language
from cheatsheet.model.record import release_of
from cheatsheet.tools.find import LANGS, Sheet, SheetError

INSTRUCTIONS = (
    "A bilingual (Chinese, English) PyTorch cheat sheet whose every example ran in its tests. "
    "Call search with the user's question, an API name or a pasted error message (in Chinese or "
    "English); pass torch_version (e.g. 2.8.0) when you know the user's release, to learn whether "
    "the idiom ran there. Then call get_entry with an id for the whole entry: code line, what it "
    "does, prerequisites, a runnable example with its real output, and its verification record.")


def _release(torch_version: str | None) -> str | None:
    return release_of(torch_version.strip()) if torch_version and torch_version.strip() else None


def _lang(lang: str | None, query: str = "") -> str:
    if lang is None or not lang.strip():
        return query_language(query)
    if lang not in LANGS:
        raise ToolError(f"unknown language {lang!r}: use one of {', '.join(LANGS)}")
    return lang


def server(sheet: Sheet | None = None) -> MCPServer:
    """The server, over `sheet` (the package's data by default, loaded on the first call)."""
    app = MCPServer("pytorch-cheatsheet", instructions=INSTRUCTIONS)
    state = {"sheet": sheet}

    def the_sheet() -> Sheet:
        if state["sheet"] is None:
            state["sheet"] = Sheet()
        return state["sheet"]

    def search(query: str, lang: str | None = None, torch_version: str | None = None, limit: int = 5) -> list[dict]:
        """Find the cheat-sheet entries that answer a question, best first (the site's own ranking).

        query: the question, an API name or an error message, in Chinese or English.
        lang: one of the site's languages, {langs} (default: the query's language).
        torch_version: the user's torch (e.g. "2.8.0"); each entry's `status` and `record` then say
        what ran on that release (passed, failed, not run) and since when the idiom works.
        limit: how many entries (1-20)."""
        if not query or not query.strip():
            raise ToolError("the query is empty: pass a question, an API name or an error message")
        if not 1 <= limit <= 20:
            raise ToolError("limit must be between 1 and 20")
        release = _release(torch_version)
        try:
            answers = the_sheet().search(query, _lang(lang, query), limit)
        except SheetError as e:
            raise ToolError(str(e)) from None
        return [{key: value for key, value in a.as_json(release).items() if key != "example"} for a in answers]

    def get_entry(id: str, lang: str | None = None, torch_version: str | None = None) -> str:  # noqa: A002 (the tool's argument)
        """One entry as Markdown: title, code line, its fields, the runnable example with its real
        printed output, where it is on the site, and its verification record (every release and
        device; with torch_version, a line on that release first).

        id: an entry id from search (e.g. "cuda-empty-cache"); lang: one of {langs} (default {unmarked})."""
        lang = _lang(lang or UNMARKED)
        try:
            answer = the_sheet().get(id.strip(), lang)
        except SheetError as e:
            raise ToolError(str(e)) from None
        release = _release(torch_version)
        head = f"> {answer.status(release)}\n\n" if release else ""
        return head + answer.entry["markdown"]

    for tool in (search, get_entry):  # their descriptions name the languages of the table
        tool.__doc__ = tool.__doc__.format(langs=", ".join(LANGS), unmarked=UNMARKED)
        app.tool()(tool)
    return app
