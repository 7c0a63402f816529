"""Static checks of code: does it parse, is each shell command installed, does each included
snippets/ file exist; and the torch names it uses, which `name_problems` checks against what the
installed torch says (does the name exist, is it deprecated)."""

from __future__ import annotations

import ast
import os
import shlex
import shutil
import sys
from pathlib import Path

from cheatsheet.check.findings import Findings, NameUse, problem
from cheatsheet.check.torch_api import torch_names
from cheatsheet.model.pages import Fence
from cheatsheet.model.rules import Problem

# Shell words that are not programs on PATH.
SHELL_BUILTINS = {"cd", "export", "echo", "set", "test", "[", "true", "false", "printf", "read", "source", ".", "unset", "exit"}
SHELL_OPERATORS = {"|", "||", "&&", ";", "&", "(", ")"}


def python_code(fence: Fence, label: str, aliases: dict | None = None, path: Path | None = None) -> Findings:
    """`path`: a snippets/ file that the fence includes, checked instead of the fence's code."""
    code, first_line = (path.read_text("utf-8"), 0) if path else (fence.code, fence.line)
    path = path or fence.path
    try:
        tree = ast.parse(code)
    except SyntaxError as e:
        return Findings([problem(path, first_line + (e.lineno or 1), label, "CODE001",
                                 f"Python does not parse: {e.msg}. Fix the syntax; a code line must be valid Python "
                                 "on its own (indent a `with` body, close brackets).")])
    return Findings(names=[NameUse(name, fence, path, first_line + lineno, label) for name, lineno in torch_names(tree, aliases)])


def shell_code(fence: Fence, label: str, snippets: Path) -> Findings:
    found = Findings()
    for offset, line in enumerate(fence.code.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
            lexer.whitespace_split = True
            words = list(lexer)
        except ValueError as e:
            found.problems.append(problem(fence.path, fence.line + offset, label, "CODE001",
                                          f"shell line does not parse: {e}. Close the quotes."))
            continue
        command: list[str] = []
        for word in [*words, ";"]:
            if word not in SHELL_OPERATORS:
                command.append(word)
                continue
            found.extend(_shell_command(command, fence, fence.line + offset, label, snippets))
            command = []
    return found


def _shell_command(argv: list[str], fence: Fence, line: int, label: str, snippets: Path) -> Findings:
    argv = [w for w in argv if "=" not in w.split("/")[0] or w.startswith("-")]  # drop VAR=value prefixes
    if not argv or argv[0] in SHELL_BUILTINS:
        return Findings()
    if argv[0] in ("python", "python3") and len(argv) > 2 and argv[1] == "-m":
        return Findings(names=[NameUse(argv[2], fence, fence.path, line, label, is_module=True)])
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    if shutil.which(argv[0], path=path) is None and not (snippets / argv[0]).exists():
        return Findings([problem(fence.path, line, label, "CODE002",
                                 f"command `{argv[0]}` is not installed here. Use a command that requirements.txt "
                                 "or the system provides.")])
    return Findings()


def include(fence: Fence, label: str, snippets: Path) -> Findings:
    """A fence that shows a snippets/ file (`--8<-- "NAME"`): the file exists; a Python one parses."""
    path = snippets / fence.include
    if not path.is_file():
        return Findings([problem(fence.path, fence.line, label, "CODE004",
                                 f'snippets/{fence.include} does not exist. Add the file to snippets/ or fix the name '
                                 f'in `--8<-- "{fence.include}"`.')])
    if path.suffix == ".py":
        return python_code(fence, label, path=path)
    return Findings()


def name_problems(use: NameUse, found: dict) -> list[Problem]:
    """What torch said about one used name (`found`: {"exists", "deprecated"}), as problems."""
    if not found["exists"]:
        what = f"module `{use.name}` (python -m)" if use.is_module else f"`{use.name}`"
        return [problem(use.path, use.line, use.label, "CODE002",
                        f"{what} does not exist in the installed PyTorch. Check the spelling against the PyTorch docs, "
                        "or use the current name.")]
    if found["deprecated"] and "uses-deprecated" not in use.fence.options:
        return [problem(use.path, use.line, use.label, "CODE003",
                        f"`{use.name}` is deprecated; PyTorch says: “{found['deprecated']}” Use the replacement it names "
                        "(an entry that shows a deprecated API on purpose marks its fences `uses-deprecated`).")]
    return []
