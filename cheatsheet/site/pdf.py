"""The printable cheat sheet: Chromium prints each language's all-idioms page of the built site
(its print stylesheet: A4 landscape, four columns) to a PDF next to that language's home page.

    python -m cheatsheet pdf [SITE_DIR]   ->  SITE_DIR/pytorch-cheatsheet-zh.pdf, SITE_DIR/en/pytorch-cheatsheet-en.pdf
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from cheatsheet.model.langs import URL_PREFIX
from cheatsheet.site.browser import HOW_TO_INSTALL, chromium, find_chromium, serve

# Page numbers at the foot of each printed page.
FOOTER = ('<div style="font-size:6pt;width:100%;text-align:center">'
          '<span class="pageNumber"></span> / <span class="totalPages"></span></div>')


def pdf_path(site_dir: Path, lang: str) -> Path:
    return Path(site_dir) / URL_PREFIX[lang] / f"pytorch-cheatsheet-{lang}.pdf"


def build_pdfs(site_dir: Path, browser=None) -> list[Path]:
    """Print both languages; `browser` is a running Playwright Chromium (one is started if None)."""
    site_dir = Path(site_dir)
    if not (site_dir / "all" / "index.html").is_file():
        raise SystemExit(f"{site_dir}/all/index.html is missing: build the site first (mkdocs build)")
    if find_chromium() is None:
        raise SystemExit(f"no Chromium to print with: {HOW_TO_INSTALL}")
    written = []
    with serve(site_dir) as base, (contextlib.nullcontext(browser) if browser else chromium()) as browser:
        for lang, prefix in URL_PREFIX.items():
            page = browser.new_page()
            page.goto(base + prefix + "all/")
            page.evaluate("document.fonts.ready")
            out = pdf_path(site_dir, lang)
            page.pdf(path=str(out), prefer_css_page_size=True, print_background=False,
                     display_header_footer=True, header_template="<span></span>",
                     footer_template=FOOTER)
            page.close()
            written.append(out)
    return written
