"""Each entry's main API and its page in the official PyTorch documentation (torchvision's for
the torchvision names the vision page calls).

The main API is read from the entry's code line, without importing torch: an override written in
the heading (`{ #id data-api="torch.nn.Module.train" }`), else the torch names the line uses, in
order, else the methods it calls (`x.view(...)` -> `torch.Tensor.view`, `model.eval()` ->
`torch.nn.Module.eval`; a call on a module, `gc.collect()`, is no tensor method). `resolve` keeps
the first candidate that exists in the installed torch. The result is committed
(generated/api-docs.csv, the project's `api_docs`) so that the docs build, which has no torch, can
link every entry to its documentation. `refresh` rewrites it; `python -m cheatsheet api-docs`,
`new` and `fill` call it, and a test keeps the file equal to what the installed torch resolves.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import TYPE_CHECKING

from cheatsheet.check.torch_api import CODE_LINE_ALIASES, _dotted, torch_names
from cheatsheet.model.api_links import dump
from cheatsheet.model.pages import LANGS, parse_page, site_files
from cheatsheet.model.record import release_of

if TYPE_CHECKING:
    from cheatsheet.project import Project

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
    "torch.utils.tensorboard": "tensorboard.html",
    "torch.distributions": "distributions.html",
    "torch.distributed.fsdp": "distributed.fsdp.fully_shard.html",
    "torch.distributed.checkpoint": "distributed.checkpoint.html",
    "torch.distributed.elastic.multiprocessing.errors": "elastic/errors.html",
    "torch.multiprocessing": "multiprocessing.html",
    "torch.library": "library.html",
    "torch.fx": "fx.html",
}
# Libraries documented beside torch, by the names their pages' code lines call them (the page's
# introduction imports them: `import torchvision`, `from torchvision.transforms import v2`), and
# where each documents its names.
LIBRARY_ALIASES = {"torchvision": "torchvision", "v2": "torchvision.transforms.v2"}
LIBRARY_DOCS = {"torchvision": "https://docs.pytorch.org/vision/stable/generated/"}
# Names whose page is under another name: the function shadows the module it is defined in.
DOCUMENTED_AS = {
    "torch.autograd.gradcheck": "torch.autograd.gradcheck.gradcheck",
    "torch.autograd.gradgradcheck": "torch.autograd.gradcheck.gradgradcheck",
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
# Modules a code line may call without importing them (`gc.collect()`, `random.seed(0)`): a call
# on one of these, or on any name the code imports, is not a method of a tensor.
MODULES = {
    "gc", "os", "sys", "math", "random", "time", "io", "copy", "json", "re", "itertools", "functools", "collections",
    "pathlib", "shutil", "subprocess", "pickle", "warnings", "contextlib", "dataclasses", "typing", "tempfile",
    "logging", "operator", "threading", "multiprocessing", "inspect", "numpy", "np", "pandas", "pd",
}


def imported(tree: ast.AST) -> dict[str, str]:
    """Names the code binds by importing, with what they name: `import numpy as np` -> np: numpy,
    `from torch.nn.attention import sdpa_kernel` -> sdpa_kernel: torch.nn.attention.sdpa_kernel."""
    bound = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                bound[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom):
            for a in node.names:
                bound[a.asname or a.name] = f"{node.module}.{a.name}" if node.module and not node.level else ""
    return bound


def _call_name(call: ast.Call, bound: dict[str, str]) -> str | None:
    """`torch.tril(...)` -> torch.tril, `F.relu(...)` -> torch.nn.functional.relu,
    `model.eval()` -> torch.nn.Module.eval, `x.view(...)` -> torch.Tensor.view; None for a call on
    a module (`gc.collect()`, `np.random.seed(0)`) or on what the code imports from outside torch."""
    func = call.func
    if not isinstance(func, ast.Attribute) or func.attr.startswith("_"):
        return None
    name = _dotted(func)
    root = name.partition(".")[0] if name else None
    aliases = {**CODE_LINE_ALIASES, **LIBRARY_ALIASES}
    if root in aliases:
        return aliases[root] + name[len(root):]
    if root in bound:
        target = bound[root]
        return target + name[len(root):] if target.partition(".")[0] in ("torch", *LIBRARY_DOCS) else None
    if root in MODULES:
        return None
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
    bound = imported(tree)
    for statement in tree.body:
        for node in ast.walk(statement):  # breadth first: outer calls before inner ones
            if isinstance(node, ast.Call):
                name = _call_name(node, bound)
                if name:
                    found.append(name)
                    if name.startswith(tuple(RECEIVERS.values())):
                        found.append("torch.Tensor." + name.rpartition(".")[2])
    found += [name for name, _ in torch_names(tree, CODE_LINE_ALIASES) if name.count(".")]
    return list(dict.fromkeys(found))


def url(name: str) -> str:
    library = name.partition(".")[0]
    if library in LIBRARY_DOCS:
        return f"{LIBRARY_DOCS[library]}{name}.html"
    name = DOCUMENTED_AS.get(name, name)
    module = next((m for m in sorted(MODULE_PAGES, key=len, reverse=True) if name.startswith(m + ".")), None)
    return DOCS_URL + (f"{MODULE_PAGES[module]}#{name}" if module else f"generated/{name}.html")


def resolve(names: list[str], inspect=None) -> str | None:
    """The first name that exists in the installed torch and is not a module. `inspect`: a
    function like check.torch_api.inspect_names, which the test suite passes to ask its worker
    (where torch is imported already); without it, torch is imported here."""
    return _first(names, (inspect or _inspect_here)(names))


def _inspect_here(names: list[str]) -> dict[str, dict]:
    from cheatsheet.check.torch_api import inspect_names

    return inspect_names(names)


def _first(names: list[str], found: dict[str, dict]) -> str | None:
    return next((n for n in names if found[n]["exists"] and not found[n]["module"]), None)


def table(docs: Path, inspect=None) -> list[dict[str, str]]:
    """One row per entry of the Chinese pages (ids and code are the same in English); the names
    are resolved in one call of `inspect` (see `resolve`)."""
    wanted = []
    for path in site_files(docs / LANGS[0]):
        page = parse_page(path, LANGS[0])
        if page.kind != "topic":
            continue
        for entry in page.entries:
            if entry.code_line is None or entry.code_line.lang != "python":
                continue
            override = OVERRIDE.search(entry.heading)
            wanted.append((entry.id, candidates(entry.code_line.code, override.group(1) if override else None)))
    found = (inspect or _inspect_here)([name for _, names in wanted for name in names])
    return [{"entry": entry_id, "api": name, "url": url(name)}
            for entry_id, names in wanted if (name := _first(names, found))]


def pin_owns(project: Project, torch_version: str) -> bool:
    """Generated files are written from the pin's torch only: a run on another release (a release
    leg, a contributor's second venv) leaves them as they are."""
    return not project.pin or release_of(torch_version) == project.pin


def refresh(project: Project, inspect=None, torch_version: str | None = None) -> bool:
    """Rewrite the project's api-docs.csv with what the installed torch resolves (needs torch,
    here or behind `inspect`, as in `resolve`); whether the file changed. With `torch_version`
    (the torch that would resolve) not the pin's, nothing is written (`pin_owns`)."""
    if torch_version is not None and not pin_owns(project, torch_version):
        return False
    path = project.api_docs
    fresh = dump(table(project.docs, inspect))
    if path.is_file() and path.read_text("utf-8") == fresh:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(fresh, "utf-8")
    return True
