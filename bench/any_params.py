"""Count the parameters of ``nanohubmcp`` typed ``Any``: overall, and at the seams between packages.

Run from the repository root::

    python bench/any_params.py            # the two figures
    python bench/any_params.py --seams    # and every seam parameter typed Any (file:line function parameter)
    python bench/any_params.py --all      # and every parameter typed Any

What is counted (read from the source with ``ast``; nothing is imported):

- a *parameter* is a named parameter of a ``def`` or ``async def`` (positional or keyword), without
  ``self``/``cls`` and without ``*args``/``**kwargs`` (those are reported on their own line); it is
  *typed Any* when its annotation is exactly ``Any`` (``typing.Any``), not a type that contains it;
- a *package* is a subpackage of ``nanohubmcp`` (``server``, ``transports``, ...) or a module at its
  top (``facade``, ``serving``, ...);
- a function is *at a seam* when a module of another package imports it (``from x import f``,
  ``import x`` then ``x.f``), or imports the class it is a method of; imports inside functions and
  under ``TYPE_CHECKING`` count, and re-exports through a package's ``__init__`` are followed.
  Objects reached through attributes of other objects (``server.core.registry.add``) are not seen.
"""

from __future__ import annotations

import argparse
import ast
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "nanohubmcp"


@dataclass
class Module:
    name: str
    path: Path
    tree: ast.Module
    functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = field(default_factory=dict)
    classes: dict[str, ast.ClassDef] = field(default_factory=dict)
    reexports: dict[str, tuple[str, str]] = field(default_factory=dict)


def package_of(module: str) -> str:
    """``nanohubmcp.server.core`` -> ``server``; ``nanohubmcp.facade`` -> ``facade``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def load(root: Path) -> dict[str, Module]:
    modules: dict[str, Module] = {}
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts.pop()
        name = ".".join(parts)
        module = Module(name, path, ast.parse(path.read_text(), str(path)))
        for node in module.tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                module.functions[node.name] = node
            elif isinstance(node, ast.ClassDef):
                module.classes[node.name] = node
        modules[name] = module
    for module in modules.values():
        for node in module.tree.body:
            if isinstance(node, ast.ImportFrom):
                source = absolute(module, node)
                for alias in node.names:
                    module.reexports.setdefault(alias.asname or alias.name, (source, alias.name))
    return modules


def absolute(module: Module, node: ast.ImportFrom) -> str:
    """The absolute module name an ``ImportFrom`` reads from."""
    if not node.level:
        return node.module or ""
    base = module.name.split(".")
    if module.path.name != "__init__.py":
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
    return ".".join([*base, node.module] if node.module else base)


def resolve(modules: dict[str, Module], module: str, name: str, depth: int = 0) -> tuple[str, str] | None:
    """Where ``module.name`` is defined: (module, name) of a function or class, or None."""
    found = modules.get(module)
    if found is None or depth > 10:
        return None
    if name in found.functions or name in found.classes:
        return module, name
    if name in found.reexports:
        source, original = found.reexports[name]
        return resolve(modules, source, original, depth + 1)
    return None


def used_across(modules: dict[str, Module]) -> set[tuple[str, str]]:
    """(module, name) of every function or class some module of another package uses."""
    used: set[tuple[str, str]] = set()
    for module in modules.values():
        aliases: dict[str, str] = {}  # local name -> module it stands for
        for node in ast.walk(module.tree):
            if isinstance(node, ast.ImportFrom):
                source = absolute(module, node)
                for alias in node.names:
                    local = alias.asname or alias.name
                    if f"{source}.{alias.name}" in modules:
                        aliases[local] = f"{source}.{alias.name}"
                        continue
                    target = resolve(modules, source, alias.name)
                    if target is not None and package_of(target[0]) != package_of(module.name):
                        used.add(target)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name in modules:
                        aliases[alias.asname or alias.name] = alias.name
        for node in ast.walk(module.tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
                source = aliases[node.value.id]
                target = resolve(modules, source, node.attr)
                if target is not None and package_of(target[0]) != package_of(module.name):
                    used.add(target)
    return used


@dataclass
class Param:
    module: str
    line: int
    function: str
    name: str
    annotation: str | None


def params_of(
    fn: ast.FunctionDef | ast.AsyncFunctionDef, module: Module, qualname: str
) -> tuple[list[Param], list[Param]]:
    """(named parameters, ``*args``/``**kwargs``) of ``fn``, without self/cls."""
    args = fn.args
    named = [
        Param(module.name, a.lineno, qualname, a.arg, ast.unparse(a.annotation) if a.annotation else None)
        for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]
        if a.arg not in ("self", "cls")
    ]
    star = [
        Param(module.name, a.lineno, qualname, a.arg, ast.unparse(a.annotation) if a.annotation else None)
        for a in (args.vararg, args.kwarg)
        if a is not None
    ]
    return named, star


def is_any(param: Param) -> bool:
    return param.annotation in ("Any", "typing.Any")


Def = ast.FunctionDef | ast.AsyncFunctionDef


def functions(modules: dict[str, Module]) -> list[tuple[Module, str, str | None, Def]]:
    """Every def: (module, qualified name, defining top-level class or None, node)."""
    found = []
    for module in modules.values():

        def visit(node: ast.AST, prefix: str, top: str | None, module: Module = module) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    found.append((module, prefix + child.name, top, child))
                    visit(child, prefix + child.name + ".", top)
                elif isinstance(child, ast.ClassDef):
                    visit(child, prefix + child.name + ".", top if top is not None else child.name)
                else:
                    visit(child, prefix, top)

        visit(module.tree, "", None)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seams", action="store_true", help="list the seam parameters typed Any")
    parser.add_argument("--all", action="store_true", help="list every parameter typed Any")
    parser.add_argument("--root", type=Path, default=ROOT)
    options = parser.parse_args(argv)
    modules = load(options.root)
    used = used_across(modules)
    total, typed_any, stars, stars_any, seam_total = 0, [], 0, 0, 0
    seam_any: list[Param] = []
    for module, qualname, top, fn in functions(modules):
        named, star = params_of(fn, module, qualname)
        stars += len(star)
        stars_any += sum(is_any(p) for p in star)
        total += len(named)
        typed_any += [p for p in named if is_any(p)]
        depth = qualname.count(".")
        if top is not None:  # a method of a top-level class (not a function nested in one)
            at_seam = depth == 1 and (module.name, top) in used
        else:
            at_seam = depth == 0 and (module.name, qualname) in used
        last = qualname.split(".")[-1]
        if at_seam and (not last.startswith("_") or last == "__init__"):
            seam_total += len(named)
            seam_any += [p for p in named if is_any(p)]
    share = 100.0 * len(typed_any) / total if total else 0.0
    print(f"parameters: {total}, typed Any: {len(typed_any)} ({share:.1f} %)")
    print(f"at package seams: {seam_total}, typed Any: {len(seam_any)}")
    print(f"*args/**kwargs: {stars}, typed Any: {stars_any}")
    listing = typed_any if options.all else seam_any if options.seams else []
    for p in listing:
        path = modules[p.module].path.relative_to(options.root.parent)
        print(f"  {path}:{p.line} {p.function}({p.name})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
