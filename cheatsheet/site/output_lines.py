"""The output lines of highlighted code (`#>`, `#cpu>`, `#cuda>`, `#torch<2.13>`), marked so that the stylesheet
shows them as output and the copy button leaves them out (the copied code still runs: they are
comments)."""

from __future__ import annotations

import re

# One whole output line as Pygments renders it: optional indentation, the comment, the newline.
MARKER = r"#(?:cpu|cuda|torch(?:&lt;|&gt;=)[0-9.]+)?&gt;"
OUTPUT_LINE = re.compile(r'((?:<span class="w">[ \t]*</span>)?<span class="c1">' + MARKER + r'[^<]*</span>\n?)')


def mark(html: str) -> str:
    return OUTPUT_LINE.sub(r'<span class="output-line">\1</span>', html)
