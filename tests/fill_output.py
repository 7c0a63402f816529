"""Write the real output of examples into their `#>` lines, on both language pages.

    python tests/fill_output.py docs/zh/gpu-memory.md            # every entry on the page
    python tests/fill_output.py docs/zh/gpu-memory.md cuda-empty-cache

Runs each Python example on CPU the way the tests do, statement by statement, and puts what
each top-level statement printed right after it as `#> ` lines, in docs/zh and docs/en alike.
Fences with device-specific lines (`#cpu>` / `#cuda>`) or `requires-cuda` are left alone:
write those from a run on the device (the failing test prints the actual output).
"""

from __future__ import annotations

import ast
import contextlib
import io
import sys
import tempfile
import warnings
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from entry_format import OUTPUT_LINE, ROOT, Fence, comparable_code, parse_page  # noqa: E402
from harness import hide_accelerators, restored_torch_state  # noqa: E402


def outputs_by_statement(code: str) -> list[tuple[int, str]]:
    """(end line within the fence, printed text) for each top-level statement that printed."""
    tree = ast.parse(code)
    namespace = {"__name__": "__main__"}
    results = []
    with contextlib.ExitStack() as stack:
        workdir = stack.enter_context(tempfile.TemporaryDirectory(prefix="example-"))
        stack.enter_context(restored_torch_state())
        stack.enter_context(contextlib.chdir(workdir))
        stack.enter_context(hide_accelerators())
        stack.enter_context(warnings.catch_warnings())
        warnings.simplefilter("error")
        torch.seed()
        for stmt in tree.body:
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                exec(compile(ast.Module([stmt], []), "<example>", "exec"), namespace)
            if printed.getvalue():
                results.append((stmt.end_lineno, printed.getvalue()))
    return results


def without_output(fence: Fence) -> Fence:
    code = "\n".join(line for line in fence.code.splitlines() if not OUTPUT_LINE.match(line))
    return Fence(fence.lang, fence.options, fence.attrs, code, fence.line, fence.path)


def rewrite(fence: Fence, outputs: list[tuple[int, str]], statement_ends: list[int]) -> str:
    """The fence's code with `#>` lines replaced by `outputs` (given for another copy of the code)."""
    lines = [line for line in fence.code.splitlines() if not OUTPUT_LINE.match(line)]
    body = "\n".join(lines)
    own_ends = [s.end_lineno for s in ast.parse(body).body]
    # Statements are the same in both languages; map by position, not line number.
    end_map = dict(zip(statement_ends, own_ends))
    inserts: dict[int, list[str]] = {}
    for end, text in outputs:
        inserts[end_map[end]] = [f"#> {line}".rstrip() for line in text.rstrip("\n").split("\n")]
    out = []
    for number, line in enumerate(lines, start=1):
        out.append(line)
        out.extend(inserts.get(number, []))
    return "\n".join(out) + "\n"


def fill(zh_path: Path, only: str | None) -> int:
    zh_path = zh_path.resolve()
    rel = zh_path.relative_to(ROOT / "docs" / "zh")
    en_path = ROOT / "docs" / "en" / rel
    pages = {"zh": parse_page(zh_path, "zh")}
    if en_path.exists():  # a page not yet translated is filled in Chinese only
        pages["en"] = parse_page(en_path, "en")
    texts = {lang: page.path.read_text("utf-8") for lang, page in pages.items()}
    en_entries = {e.id: e for e in pages["en"].entries} if "en" in pages else {}
    changed = 0
    for entry in pages["zh"].entries:
        if only and entry.id != only:
            continue
        en_examples = en_entries[entry.id].examples if entry.id in en_entries else [None] * len(entry.examples)
        for zh_fence, en_fence in zip(entry.examples, en_examples):
            if not zh_fence.is_python or zh_fence.snippet or zh_fence.requires_cuda:
                continue
            if any((m := OUTPUT_LINE.match(line)) and m.group(1) for line in zh_fence.code.splitlines()):
                print(f"{entry.id}: has #cpu>/#cuda> lines, left alone")
                continue
            if en_fence is not None and comparable_code(without_output(zh_fence)) != comparable_code(without_output(en_fence)):
                print(f"{entry.id}: the code differs between docs/zh and docs/en (PAIR003); make it identical first, then run this again")
                continue
            stripped = "\n".join(line for line in zh_fence.code.splitlines() if not OUTPUT_LINE.match(line))
            ends = [s.end_lineno for s in ast.parse(stripped).body]
            outputs = outputs_by_statement(stripped)
            for lang, fence in (("zh", zh_fence), ("en", en_fence)):
                if fence is None:
                    continue
                new = rewrite(fence, outputs, ends)
                if new != fence.code:
                    texts[lang] = texts[lang].replace(fence.code, new, 1)
                    changed += 1
            print(f"{entry.id}: {sum(t.count(chr(10)) for _, t in outputs)} output line(s)")
    for lang, page in pages.items():
        page.path.write_text(texts[lang], "utf-8")
    return changed


if __name__ == "__main__":
    if not 1 <= len(sys.argv) - 1 <= 2:
        sys.exit(__doc__)
    fill(Path(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else None)
