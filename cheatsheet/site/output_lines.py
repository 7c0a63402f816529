"""The output lines of highlighted code (`#>`, `#cpu>`, `#cuda>`, `#torch<2.13>`), marked so that the stylesheet
shows them as output and the copy button leaves them out (the copied code still runs: they are
comments). Output only a GPU prints (`#cuda>` lines, and every line of a `requires-cuda` example)
that no current GPU row of the record vouches for is marked as such, with a note saying so."""

from __future__ import annotations

import re
from html import escape

# One output line as Pygments renders it: optional indentation, then the comment (its marker in a group).
MARKER = r"#(?:cpu|cuda|torch(?:&lt;|&gt;=)[0-9.]+)?&gt;"
LINE = r'(?:<span class="w">[ \t]*</span>)?<span class="c1">(' + MARKER + r')[^<]*</span>'
OUTPUT_LINE = re.compile(r"(" + LINE + r"\n?)")  # with its newline


def mark(html: str) -> str:
    return OUTPUT_LINE.sub(r'<span class="output-line">\1</span>', html)


SECTION_END = re.compile(r"<h[1-3][\s>]")
# A line `mark` marked: (indentation and comment)(marker)(newline).
MARKED_LINE = re.compile(r'<span class="output-line">(' + LINE + r')(\n?)</span>')


def unconfirmed(html: str, entry_id: str, every_line: bool, note: str) -> str:
    """In the section of `entry_id` (its heading to the next heading), mark the output lines only a
    GPU prints (`#cuda>`), or every output line (`every_line`: the entry's examples all need CUDA),
    as not run on a GPU for the code as it is, with `note` (plain text) after each."""
    start = html.find(f'id="{entry_id}"')
    if start < 0:
        return html
    found = SECTION_END.search(html, html.find(">", start))
    end = found.start() if found else len(html)

    def flag(line: re.Match) -> str:
        if not every_line and line.group(2) != "#cuda&gt;":
            return line.group(0)
        return (f'<span class="output-line output-line--unconfirmed">{line.group(1)}'
                f'<span class="output-note">  {escape(note)}</span>{line.group(3)}</span>')

    return html[:start] + MARKED_LINE.sub(flag, html[start:end]) + html[end:]
