"""Each entry's main API and its page in the official PyTorch documentation.

The main API is read from the entry's code line, without importing torch: an override written in
the heading (`{ #id data-api="torch.nn.Module.train" }`), else the torch names the line uses, in
order, else the methods it calls (`x.view(...)` -> `torch.Tensor.view`, `model.eval()` ->
`torch.nn.Module.eval`). `resolve` keeps the first candidate that exists in the installed torch.
The result is committed (verification/api-docs.csv, written by `python -m cheatsheet api-docs`)
so that the docs build, which has no torch, can link every entry to its documentation; a test
keeps the file equal to what the installed torch resolves.
"""

from __future__ import annotations

import ast
import csv
import importlib
import io
import re
from pathlib import Path

from cheatsheet.check.torch_api import CODE_LINE_ALIASES, _dotted, torch_names
from cheatsheet.model.pages import LANGS, parse_page, site_files

DOCS_URL = "https://docs.pytorch.org/docs/stable/"
OVERRIDE = re.compile(r'data-api="([^"]+)"')
# Documented on one page per module, with an anchor per name; everything else has its own page
# under generated/.
MODULE_PAGES = {
    "torch.distributed": "distributed.html",
    "torch.utils.data": "data.html",
    "torch.utils.checkpoint": "checkpoint.html",
    "torch.export": "export.html",
    "torch.amp": "amp.html",
    "torch.onnx": "onnx.html",
    "torch.nn.init": "nn.init.html",
    "torch.backends": "backends.html",
    "torch.autograd.graph": "autograd.html",
    "torch.autograd.function": "autograd.html",
    "torch.nested": "nested.html",
    "torch.special": "special.html",
    "torch.testing": "testing.html",
    "torch.profiler": "profiler.html",
    "torch.random": "random.html",
    "torch.hub": "hub.html",
}
# What a method call's receiver usually is, by the variable name the entries use for it.
RECEIVERS = {
    "model": "torch.nn.Module", "module": "torch.nn.Module", "net": "torch.nn.Module", "layer": "torch.nn.Module",
    "encoder": "torch.nn.Module", "head": "torch.nn.Module", "backbone": "torch.nn.Module",
    "optimizer": "torch.optim.Optimizer", "opt": "torch.optim.Optimizer",
    "scheduler": "torch.optim.lr_scheduler.LRScheduler",
    "scaler": "torch.amp.GradScaler",
    "ctx": "torch.autograd.function.FunctionCtx", "self": "torch.nn.Module",
}


def _call_name(call: ast.Call) -> str | None:
    """`torch.tril(...)` -> torch.tril, `F.relu(...)` -> torch.nn.functional.relu,
    `model.eval()` -> torch.nn.Module.eval, `x.view(...)` -> torch.Tensor.view."""
    func = call.func
    if not isinstance(func, ast.Attribute) or func.attr.startswith("_"):
        return None
    name = _dotted(func)
    root = name.partition(".")[0] if name else None
    if root in CODE_LINE_ALIASES:
        return CODE_LINE_ALIASES[root] + name[len(root):]
    receiver = func.value
    if isinstance(receiver, ast.Name) and receiver.id not in RECEIVERS and len(receiver.id) > 12:
        return None  # a long name is a module or helper of the example, not a tensor
    cls = RECEIVERS.get(receiver.id if isinstance(receiver, ast.Name) else "", "torch.Tensor")
    return f"{cls}.{func.attr}"


def candidates(code: str, override: str | None = None) -> list[str]:
    """Dotted names that may be the code line's main API, best first: statement by statement,
    the outermost call first (`torch.ones(n, n).tril()` is about tril), then any other torch name."""
    found = [override] if override else []
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return found
    for statement in tree.body:
        for node in ast.walk(statement):  # breadth first: outer calls before inner ones
            if isinstance(node, ast.Call):
                name = _call_name(node)
                if name:
                    found.append(name)
                    if name.startswith(tuple(RECEIVERS.values())):
                        found.append("torch.Tensor." + name.rpartition(".")[2])
    found += [name for name, _ in torch_names(tree, CODE_LINE_ALIASES) if name.count(".")]
    return list(dict.fromkeys(found))


def _lookup(name: str):
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            obj = getattr(obj, attr)
        return obj
    raise AttributeError(name)


def url(name: str) -> str:
    module = next((m for m in sorted(MODULE_PAGES, key=len, reverse=True) if name.startswith(m + ".")), None)
    return DOCS_URL + (f"{MODULE_PAGES[module]}#{name}" if module else f"generated/{name}.html")


def resolve(names: list[str]) -> str | None:
    """The first name that exists in the installed torch and is not a module (needs torch)."""
    import types

    for name in names:
        try:
            obj = _lookup(name)
        except (AttributeError, ImportError):
            continue
        if not isinstance(obj, types.ModuleType):
            return name
    return None


def table(docs: Path) -> list[dict[str, str]]:
    """One row per entry of the Chinese pages (ids and code are the same in English)."""
    rows = []
    for path in site_files(docs / LANGS[0]):
        page = parse_page(path, LANGS[0])
        if page.kind != "topic":
            continue
        lines = page.text.splitlines()
        for entry in page.entries:
            if entry.code_line is None or entry.code_line.lang != "python":
                continue
            override = OVERRIDE.search(lines[entry.line - 1])
            name = resolve(candidates(entry.code_line.code, override.group(1) if override else None))
            if name:
                rows.append({"entry": entry.id, "api": name, "url": url(name)})
    return rows


def dump(rows: list[dict[str, str]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=["entry", "api", "url"], lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def load(path: Path) -> dict[str, dict[str, str]]:
    if not path.is_file():
        return {}
    with path.open(encoding="utf-8", newline="") as f:
        return {row["entry"]: row for row in csv.DictReader(f)}
