"""Torch names in code, and what the installed PyTorch says about them.

`torch_names` reads names from code without importing torch (all branches of an example, CUDA-only
ones included). `inspect_names` runs where torch is imported (a worker, or the CLI) and tells, per
dotted name, whether it exists and whether torch marks it deprecated: a `__deprecated__` marker
(PEP 702, on the object, its `__init__` or what it wraps), a DeprecationWarning or FutureWarning
raised when the name is looked up, or a deprecation notice heading its docstring.
"""

from __future__ import annotations

import ast
import re

# Imports a code line may take for granted (each page says so in its introduction).
CODE_LINE_ALIASES = {"torch": "torch", "nn": "torch.nn", "F": "torch.nn.functional", "dist": "torch.distributed"}


def _dotted(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def torch_names(tree: ast.AST, aliases: dict[str, str] | None = None) -> list[tuple[str, int]]:
    """Dotted torch names used anywhere in `tree` (every branch), with line numbers, aliases expanded."""
    aliases = dict(aliases or {})
    found: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "torch":
                    found.append((a.name, node.lineno))
                    aliases[a.asname or a.name.split(".")[0]] = a.name if a.asname else "torch"
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "torch" and not node.level:
            for a in node.names:
                if a.name != "*":
                    found.append((f"{node.module}.{a.name}", node.lineno))
                    aliases[a.asname or a.name] = f"{node.module}.{a.name}"
    inner = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and id(node) not in inner:
            # Report each chain once, at its full length.
            value = node.value
            while isinstance(value, ast.Attribute):
                inner.add(id(value))
                value = value.value
            name = _dotted(node)
            if name is None:
                continue
            root, _, rest = name.partition(".")
            if root in aliases:
                found.append((f"{aliases[root]}.{rest}", node.lineno))
    return sorted(found, key=lambda item: item[1])


# --- with torch imported -------------------------------------------------------

def resolve_name(dotted: str):
    """The object a dotted name names (`torch.nn.Module.eval`), importing submodules that are not
    attributes of their package until imported; AttributeError if it does not exist. The one
    resolver of the project: the checker and the API-docs table both use it."""
    import importlib

    parts = dotted.split(".")
    obj = importlib.import_module(parts[0])
    for i, part in enumerate(parts[1:], start=1):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            try:
                obj = importlib.import_module(".".join(parts[: i + 1]))
            except ImportError:
                raise AttributeError(dotted) from None
    return obj


def _marker(obj) -> str | None:
    """A PEP 702 marker on the object, its constructor, or anything it wraps."""
    seen = set()
    candidates = [obj]
    if isinstance(obj, type):
        candidates += [obj.__dict__.get("__init__"), obj.__dict__.get("__new__")]
    while candidates:
        c = candidates.pop()
        if c is None or id(c) in seen:
            continue
        seen.add(id(c))
        message = getattr(c, "__deprecated__", None)
        if isinstance(message, str):
            return message
        candidates += [getattr(c, "__wrapped__", None), getattr(c, "__func__", None)]
    return None


def _docstring_notice(obj, short_name: str) -> str | None:
    """A `.. warning::` in the docstring that says the object itself (not one of its arguments)
    is deprecated: "This function is deprecated ...", ":func:`torch.name` is deprecated ..."."""
    doc = obj.__dict__.get("__doc__") if isinstance(obj, type) else getattr(obj, "__doc__", None)
    if not isinstance(doc, str) or "deprecated" not in doc:
        return None
    subject = rf"(?:This (?:function|method|class|module|API)|(?::\w+:)?`*(?:[\w.]*\.)?{re.escape(short_name)}`*(?:\(\))?)"
    m = re.search(rf"\.\. warning::\s*\n\s*({subject} (?:is|has been) (?:now )?deprecated[^\n]*(?:\n[ \t]+\S[^\n]*)*)", doc)
    return " ".join(m.group(1).split()) if m else None


def _warns_on_call(obj) -> str | None:
    """A DeprecationWarning or FutureWarning that the function's body raises on every call: a
    `warnings.warn(...)` among its top-level statements, or in every branch of a top-level `if`.
    (One raised only for some arguments is caught when an example runs with warnings as errors.)"""
    import inspect
    import textwrap

    # Not for classes: subclassing one whose constructor warns (torch.autograd.Function) is fine.
    func = getattr(obj, "__func__", obj)
    if isinstance(obj, type) or not hasattr(func, "__code__"):
        return None
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
    except (OSError, TypeError, SyntaxError):
        return None
    body = tree.body[0].body if tree.body and isinstance(tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef)) else []

    def warning(stmts) -> str | None:
        for stmt in stmts:
            if isinstance(stmt, ast.If) and stmt.orelse:
                both = [warning(stmt.body), warning(stmt.orelse)]
                if all(both):
                    return both[-1]
            call = stmt.value if isinstance(stmt, ast.Expr) else None
            if not (isinstance(call, ast.Call) and _dotted(call.func) in ("warnings.warn", "warn")):
                continue
            category = call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg == "category"), None)
            if _dotted(category) in ("DeprecationWarning", "FutureWarning") and call.args:
                strings = (n.value for n in ast.walk(call.args[0]) if isinstance(n, ast.Constant))
                return "".join(s for s in strings if isinstance(s, str))
        return None

    return warning(body)


def inspect_name(dotted: str) -> dict:
    """{"exists": bool, "module": bool, "deprecated": message or None} for one dotted name."""
    import types
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            obj = resolve_name(dotted)
        except Exception:  # a missing name, or a submodule that fails to import here
            return {"exists": False, "module": False, "deprecated": None}
    module = isinstance(obj, types.ModuleType)
    for w in caught:
        if issubclass(w.category, (DeprecationWarning, FutureWarning)):
            return {"exists": True, "module": module, "deprecated": str(w.message)}
    short_name = dotted.rsplit(".", 1)[-1]
    return {"exists": True, "module": module,
            "deprecated": _marker(obj) or _warns_on_call(obj) or _docstring_notice(obj, short_name)}


def inspect_names(names: list[str]) -> dict[str, dict]:
    return {name: inspect_name(name) for name in sorted(set(names))}
