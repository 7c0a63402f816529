"""The sheet as data, for tools and assistants: three files per language, written at build time
from the page model and the verification record (nothing in them is typed by hand).

    llms.txt           the llmstxt.org format: `# title`, `> summary`, a paragraph, then one
                       section per page with entries (one linked line for the page, one per
                       entry with its code line), the recipes, and the other pages as Optional
    llms-full.txt      every entry as Markdown (`entry_markdown`): title, code line, fields, the
                       examples with their checked output lines, its address and its record
    api/entries.json   every entry as JSON, described by schemas/entries.schema.json (published
                       beside it as api/entries.schema.json)

An entry's Markdown is also what its "copy Markdown" button copies (`copy_button`). Addresses
are the published site's (directory URLs) even in the copy read from disk, which names files,
and the links of the pages' Markdown (other.md#id, #id) become such addresses.
"""

from __future__ import annotations

import html
import json
import posixpath
import re
from collections.abc import Callable, Mapping
from dataclasses import asdict
from pathlib import Path

from cheatsheet.model.langs import LABELS
from cheatsheet.model.pages import Entry, Page
from cheatsheet.model.record import Verdict, works_since
from cheatsheet.project import REPO
from cheatsheet.site.entry_status import entry_since, row_title, unconfirmed_gpu_output

LLMS = "llms.txt"
FULL = "llms-full.txt"
ENTRIES = "api/entries.json"
SCHEMA = "api/entries.schema.json"
SCHEMA_SOURCE = REPO / "schemas" / "entries.schema.json"


# A link in a page's Markdown to a page of the site (other.md#id, ../gpu-memory.md, recipes/x.py) or to an anchor (#id).
LINK = re.compile(r"\]\(((?:[\w./-]+\.(?:md|py))?(?:#[\w-]+)?)\)")


def published(src_uri: str) -> str:
    """The address of the page with this source path on the published site, relative to its
    root: directory URLs (gpu-memory.md -> gpu-memory/, recipes/x.py -> recipes/x/, index.md -> "")
    whatever this build uses."""
    stem = posixpath.splitext(src_uri)[0]
    if posixpath.basename(stem) == "index":
        return posixpath.dirname(stem) + "/" if posixpath.dirname(stem) else ""
    return stem + "/"


def address(site_url: str | None, src_uri: str) -> str:
    """The page's full published address (relative to the site root without a site_url)."""
    return (site_url.rstrip("/") + "/" if site_url else "") + published(src_uri)


def absolute_links(markdown: str, src_uri: str, site_url: str | None) -> str:
    """The Markdown of the page at `src_uri` with its links to the site's pages as published addresses."""
    def resolve(m: re.Match) -> str:
        if not m.group(1):  # `[text]()`
            return m.group(0)
        path, _, anchor = m.group(1).partition("#")
        target = posixpath.normpath(posixpath.join(posixpath.dirname(src_uri), path)) if path else src_uri
        return f"]({address(site_url, target)}{'#' + anchor if anchor else ''})"
    return LINK.sub(resolve, markdown)


def entry_address(site_url: str | None, src_uri: str, page: Page, entry: Entry) -> str:
    """Where the entry is on the published site: its page, and its #id on a topic page."""
    return address(site_url, src_uri) + ("" if page.kind == "recipe" else f"#{entry.id}")


def fields(page: Page, entry: Entry, src_uri: str, site_url: str | None) -> dict[str, str]:
    """Each field's Markdown without its label (mnemonic, what, prereq), in page order."""
    return {key: absolute_links(entry.field_markdown(key), src_uri, site_url)
            for key, _ in sorted(entry.fields.items(), key=lambda item: item[1])}


def shown_fences(entry: Entry, snippets: Path) -> list[tuple[str, str, bool]]:
    """(language, code as shown, requires CUDA) of the fences after the example marker: the
    examples with their output lines, and the scripts they include (snippets/NAME)."""
    shown = []
    for fence in entry.with_role("example", "include"):
        code = (snippets / fence.include).read_text("utf-8") if fence.include else fence.code
        shown.append((fence.lang, code, fence.requires_cuda))
    return shown


def record_lines(verdicts: list[Verdict], strings: Mapping[str, str]) -> list[str]:
    """One Markdown list item per release and device: the state in words, the row behind it."""
    lines = []
    for v in verdicts:
        said = dict(release=v.release, device=strings[f"device.{v.device}"], state=strings[f"state.{v.state}"])
        lines.append(strings["data.record_row"].format(**said, row=row_title(v, strings)) if v.row
                     else strings["data.record_none"].format(**said))
    return lines or [f"- {strings['compat.none']}"]


def entry_markdown(src_uri: str, page: Page, entry: Entry, site_url: str | None, verdicts: list[Verdict],
                   strings: Mapping[str, str], snippets: Path) -> str:
    """The entry as Markdown: its heading, code line and fields as the page writes them, the
    example marker, the examples (a recipe: its whole file), its address and its record."""
    if page.kind == "recipe":
        parts = [f"### {entry.title}"]
    else:
        parts = [entry.head_markdown, f"**{LABELS[page.lang]['example']}**"]
    for lang, code, requires_cuda in shown_fences(entry, snippets):
        if requires_cuda:
            parts.append(strings["notebook.cuda"])
        parts.append(f"```{lang}\n{code.rstrip()}\n```")
    if unconfirmed := unconfirmed_gpu_output(entry, verdicts):
        parts.append(strings[f"data.unconfirmed_{unconfirmed}"])
    parts = [absolute_links(part, src_uri, site_url) for part in parts]
    parts.append(strings["data.source"].format(url=entry_address(site_url, src_uri, page, entry)))
    parts.append("\n".join([strings["data.record"], *record_lines(verdicts, strings)]))
    device, release = entry_since(verdicts)  # as the status line says it
    if release:
        parts.append(strings["data.since"].format(release=release, device=strings[f"device.{device}"]))
    return "\n\n".join(parts) + "\n"


def entry_data(src_uri: str, page: Page, entry: Entry, site_url: str | None, verdicts: list[Verdict], snippets: Path) -> dict:
    """The entry as entries.json holds it (schemas/entries.schema.json says what each key is)."""
    return {
        "id": entry.id,
        "kind": page.kind,
        "page": src_uri,
        "page_title": page.title,
        "url": entry_address(site_url, src_uri, page, entry),
        "title": entry.title,
        "code": entry.code_line.code.rstrip() if entry.code_line else None,
        "fields": fields(page, entry, src_uri, site_url),
        "examples": [{"lang": f.lang, "code": f.source, "requires_cuda": f.requires_cuda,
                      "output": {device: f.expected_output(device) for device in f.devices()}} for f in entry.examples],
        "scripts": [{"name": f.include, "code": (snippets / f.include).read_text("utf-8")} for f in entry.with_role("include")],
        "record": [{"release": v.release, "device": v.device, "state": v.state, "row": asdict(v.row) if v.row else None}
                   for v in verdicts],
        "since": works_since(verdicts),
        "aliases": list(entry.aliases),
    }


def copy_button(markdown: str, title: str, strings: Mapping[str, str]) -> str:
    """The button that copies an entry's Markdown (overrides/assets/javascripts/cheatsheet.js),
    and the status it reports to (screen readers hear "copied")."""
    return (f'<button type="button" class="entry-copy" data-markdown="{html.escape(markdown)}" '
            f'aria-label="{html.escape(strings["copy.aria"].format(title=title))}" '
            f'data-done="{html.escape(strings["copy.done"])}">{html.escape(strings["copy.label"])}</button>'
            '<span class="entry-copy-status" role="status"></span>')


def link(text: str, url: str) -> str:
    """A Markdown link; brackets in its text (`output[:, -1]`) escaped."""
    return "[" + text.replace("[", "\\[").replace("]", "\\]") + f"]({url})"


def _one_line(code: str) -> str:
    """A code line of several lines on one line of llms.txt."""
    return " ⏎ ".join(line.strip() for line in code.strip().splitlines())


def llms_txt(site: Mapping[str, str], sections: list[tuple[Page, str, list[tuple[Entry, str]]]],
             others: list[tuple[str, str]], strings: Mapping[str, str]) -> str:
    """`site`: name, description and the data files' addresses (full, json, schema); `sections`:
    (page, address, [(entry, address)]) of the pages with entries in nav order; `others`: (title,
    address) of the pages without."""
    out = [f"# {site['name']}", f"> {site['description']}",
           strings["data.about"].format(full=site["full"], json=site["json"], schema=site["schema"])]
    recipes = [(page, url) for page, url, _ in sections if page.kind == "recipe"]
    for page, url, entries in sections:
        if page.kind == "recipe":
            continue
        lines = [f"- {link(page.title, url)}: {strings['data.page_line'].format(n=len(entries))}"]
        lines += [f"- {link(entry.title, where)}: `{_one_line(entry.code_line.code)}`" if entry.code_line
                  else f"- {link(entry.title, where)}" for entry, where in entries]
        out.append(f"## {page.title}\n\n" + "\n".join(lines))
    if recipes:
        out.append(f"## {strings['all.recipes']}\n\n"
                   + "\n".join(f"- {link(page.entries[0].title, url)}: {strings['all.recipe']}" for page, url in recipes))
    if others:  # llmstxt.org's "Optional" section: what a tool may skip when short of room
        out.append("## Optional\n\n" + "\n".join(f"- {link(title, url)}" for title, url in others))
    return "\n\n".join(out) + "\n"


def llms_full(site: Mapping[str, str], sections: list[tuple[Page, str, list[str]]], strings: Mapping[str, str]) -> str:
    """`sections`: (page, address, the Markdown of each of its entries) in nav order."""
    out = [f"# {site['name']}", f"> {site['description']}", strings["data.full_about"]]
    for page, url, entries in sections:
        out.append(f"## {page.title}\n\n{url}")
        out += [markdown.rstrip("\n") for markdown in entries]
    return "\n\n".join(out) + "\n"


def write(site_dir: Path, nav: list[tuple[str, Page]], verdicts: Callable[[Entry], list[Verdict]],
          site: Mapping[str, str], strings: Mapping[str, str], snippets: Path) -> dict[str, int]:
    """Write llms.txt, llms-full.txt, api/entries.json and its schema into `site_dir`. `nav`:
    (source path, page) of every page in nav order; `verdicts`: an entry's verdicts, one per
    column of the record; `site`: its lang, name, description and address (url, may be None).
    Returns each file's size in bytes."""
    site_dir, site_url = Path(site_dir), site["url"]
    root = address(site_url, "index.md")
    about = {**site, "full": root + FULL, "json": root + ENTRIES, "schema": root + SCHEMA}
    sections, full, entries, others = [], [], [], []
    for src_uri, page in nav:
        url = address(site_url, src_uri)
        if not page.entries:
            others.append((page.title, url))
            continue
        sections.append((page, url, [(e, entry_address(site_url, src_uri, page, e)) for e in page.entries]))
        full.append((page, url, [entry_markdown(src_uri, page, e, site_url, verdicts(e), strings, snippets)
                                 for e in page.entries]))
        entries += [entry_data(src_uri, page, e, site_url, verdicts(e), snippets) for e in page.entries]
    (site_dir / "api").mkdir(exist_ok=True)
    (site_dir / LLMS).write_text(llms_txt(about, sections, others, strings), "utf-8")
    (site_dir / FULL).write_text(llms_full(about, full, strings), "utf-8")
    data = {"lang": site["lang"], "site": site["name"], "url": root, "schema": about["schema"], "entries": entries}
    (site_dir / ENTRIES).write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")), "utf-8")
    (site_dir / SCHEMA).write_bytes(SCHEMA_SOURCE.read_bytes())
    return {name: (site_dir / name).stat().st_size for name in (LLMS, FULL, ENTRIES, SCHEMA)}
