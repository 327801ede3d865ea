#!/usr/bin/env python3
"""The reference for `mtrial scan`: the same inventory, from Python's own parser.

Used by tests/scan (every torch call ast finds must be in mtrial's inventory,
at the same line and column, and nothing else) and by bench/scan (the speed
baseline). It applies the resolution rules documented in probes/extract.h:

- imports made at module level (outside def/class bodies, in any block) bind
  names for the whole module; imports inside a def or class bind from their
  line to the end of that body, for nested bodies too;
- `import a.b` binds `a`; `import a.b as c` binds c -> a.b; `from a import b
  as c` binds c -> a.b; relative and star imports bind nothing;
- a call whose callee is a Name or an Attribute chain rooted at a bound Name
  resolves to the binding plus the rest of the chain;
- a method call is a call whose callee is an Attribute that does not resolve
  and is not called directly on `self` (`self.norm(x)` is a submodule); it is
  reported by name at the line of the name.

Usage: ast_scan.py DIR  (prints JSON: files, calls [[file, api, line, col]],
methods [[file, name, line]], errors [[file, message]])
"""
import ast
import json
import os
import sys


def chain_of(node):
    """['a', 'b', 'c'] for a.b.c, or None when not rooted at a Name."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return parts[::-1]


def import_bindings(node):
    out = []
    if isinstance(node, ast.Import):
        for a in node.names:
            if a.asname:
                out.append((a.asname, a.name))
            else:
                root = a.name.split(".")[0]
                out.append((root, root))
    elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        for a in node.names:
            if a.name != "*":
                out.append((a.asname or a.name, node.module + "." + a.name))
    return out


SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def module_bindings(tree):
    found = {}

    def visit(node):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, SCOPES):
                continue  # their bodies are not module level
            for name, target in import_bindings(child):
                found[name] = target
            visit(child)

    visit(tree)
    return found


class Scanner(ast.NodeVisitor):
    def __init__(self, path, module):
        self.path = path
        self.scopes = [module]
        self.calls = []
        self.methods = []

    def lookup(self, name):
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def visit_scope(self, node):
        # decorators, defaults, bases and annotations belong to the outer scope
        for d in node.decorator_list:
            self.visit(d)
        for field in ("args", "bases", "keywords", "returns"):
            value = getattr(node, field, None)
            if isinstance(value, list):
                for v in value:
                    self.visit(v)
            elif value is not None:
                self.visit(value)
        self.scopes.append({})
        for stmt in node.body:
            self.visit(stmt)
        self.scopes.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = visit_scope

    def visit_Import(self, node):
        if len(self.scopes) > 1:
            self.scopes[-1].update(import_bindings(node))

    visit_ImportFrom = visit_Import

    def visit_Call(self, node):
        parts = chain_of(node.func)
        target = self.lookup(parts[0]) if parts else None
        if target is not None:
            api = ".".join([target] + parts[1:])
            self.calls.append([self.path, api, node.lineno, node.col_offset])
        elif isinstance(node.func, ast.Attribute) and not (
                isinstance(node.func.value, ast.Name) and node.func.value.id == "self"):
            self.methods.append([self.path, node.func.attr, node.func.end_lineno])
        self.generic_visit(node)


def scan_file(path, rel, result):
    try:
        with open(path, "rb") as f:
            source = f.read()
        tree = ast.parse(source, filename=rel)
    except (SyntaxError, ValueError, UnicodeDecodeError) as e:
        result["errors"].append([rel, str(e)])
        return
    s = Scanner(rel, module_bindings(tree))
    s.visit(tree)
    result["calls"].extend(s.calls)
    result["methods"].extend(s.methods)
    result["files"] += 1
    result["paths"].append(rel)


def main():
    root = sys.argv[1]
    result = {"files": 0, "paths": [], "calls": [], "methods": [], "errors": []}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != ".git")
        for name in sorted(filenames):
            if name.endswith(".py"):
                path = os.path.join(dirpath, name)
                if os.path.islink(path):
                    continue
                scan_file(path, os.path.relpath(path, root), result)
    json.dump(result, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
