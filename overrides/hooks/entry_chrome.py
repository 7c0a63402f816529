"""MkDocs hook: under every entry's heading, one line rendered from data, never typed per entry:
what the verification record says about the entry (verification/*.csv, checked against the
entry's code as it is now), a link to the documentation of its main API
(verification/api-docs.csv), and, when the site knows its repository (REPO_URL), a link that
reports a problem with this entry through the wrong-entry issue form, prefilled."""

import html
from pathlib import Path
from urllib.parse import urlencode

from cheatsheet.model import record
from cheatsheet.model.pages import parse_page, site_lang
from cheatsheet.tools import api_docs

TEXT = {
    "zh": {"cpu": "✓ CPU · PyTorch {torch} · {date}", "cpu_stale": "⚠ 代码在上次验证（{date}）后改过",
           "cpu_cuda_only": "CPU：仅 GPU 示例", "cpu_failed": "✗ CPU 上失败（{date}）", "cpu_none": "尚无运行记录",
           "cuda": "✓ CUDA · {device} · PyTorch {torch} · {date}", "cuda_stale": "CUDA：代码在上次 GPU 验证后改过",
           "cuda_none": "CUDA：尚未在 GPU 上运行", "cuda_failed": "✗ CUDA 上失败（{date}）", "api": "API 文档", "report": "报告问题",
           "record": "验证记录"},
    "en": {"cpu": "✓ CPU · PyTorch {torch} · {date}", "cpu_stale": "⚠ changed since last verified ({date})",
           "cpu_cuda_only": "CPU: GPU-only example", "cpu_failed": "✗ failed on CPU ({date})", "cpu_none": "no run on record",
           "cuda": "✓ CUDA · {device} · PyTorch {torch} · {date}", "cuda_stale": "CUDA: changed since last verified on a GPU",
           "cuda_none": "CUDA: not yet run", "cuda_failed": "✗ failed on CUDA ({date})", "api": "API docs", "report": "Report a problem",
           "record": "verification record"},
}


def _status(text, row, current_hash, device) -> str:
    if row is None:
        return text[f"{device}_none"]
    if row.hash != current_hash:
        return text[f"{device}_stale"].format(date=row.date)
    if device == "cpu" and row.result == "needs-cuda":
        return text["cpu_cuda_only"]
    if row.result != "passed":
        return text[f"{device}_failed"].format(date=row.date)
    return text[device].format(torch=row.torch, date=row.date, device=row.device)


def on_config(config):
    # "Edit this page" needs the repository. Without REPO_URL (a reader's `mkdocs serve`), MkDocs
    # would warn about the bare edit path on every page, and the strict build would stop.
    if not config.repo_url:
        config.edit_uri = None
    return config


def on_page_markdown(markdown, page, config, files):
    parsed = parse_page(Path(page.file.abs_src_path), site_lang(config))
    if parsed.kind != "topic" or not parsed.entries:
        return markdown
    root = Path(config.config_file_path).parent
    rows = {device: record.load(root / "verification", device) for device in record.DEVICES}
    links = api_docs.load(root / "generated" / "api-docs.csv")
    text = TEXT[parsed.lang]
    repo = (config.repo_url or "").rstrip("/")
    lines = markdown.split("\n")
    source = parsed.text.split("\n")
    for entry in reversed(parsed.entries):  # bottom up: the places above stay right
        # Other hooks may have added lines above: find the heading by its text (ids are unique).
        at = lines.index(source[entry.line - 1]) + 1
        current = entry.code_hash(root / "snippets")
        parts = [html.escape(_status(text, (rows[d].get(entry.id) or (None, None))[1], current, d)) for d in record.DEVICES]
        if entry.id in links:
            parts.append(f'<a href="{html.escape(links[entry.id]["url"])}" title="{links[entry.id]["api"]}">{text["api"]}</a>')
        if repo and config.site_url:
            where = f"{config.site_url.rstrip('/')}/{page.url}#{entry.id}"
            query = urlencode({"template": "wrong-entry.yml", "title": f"[{entry.id}] ", "entry": where})
            parts.append(f'<a href="{repo}/issues/new?{html.escape(query)}">{text["report"]}</a>')
        chrome = f'<p class="entry-chrome" data-search-exclude>{" · ".join(parts)}</p>'
        lines[at:at] = ["", chrome, ""]
    return "\n".join(lines)
