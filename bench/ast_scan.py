#!/usr/bin/env python3
"""The reference for `mtrial scan`: the same inventory, from Python's own parser.

Used by tests/scan (every torch call ast finds must be in mtrial's inventory,
at the same line and column, and nothing else) and by bench/scan (the speed
baseline). It applies the resolution rules documented in python/extract.h:

- imports made at module level (outside def/class bodies, in any block) bind
  names for the whole module; imports inside a def or class bind from their
  line to the end of that body, for nested bodies too;
- `import a.b` binds `a`; `import a.b as c` binds c -> a.b; `from a import b
  as c` binds c -> a.b; relative and star imports bind nothing;
- a call whose callee is a Name or an Attribute chain rooted at a bound Name
  resolves to the binding plus the rest of the chain;
- local names hide imports, in the order mtrial's token walk binds them:
  inside a function, its parameters, the targets of assignments (after the
  statement; a single name for an augmented one), of for loops, with and except clauses (from the statement
  on), and the names of nested defs and classes; a lambda's parameters and
  a comprehension's targets inside them. Module-level and class-level
  assignments hide no import;
- a method call is a call whose callee is an Attribute that does not resolve
  and is not called directly on `self` (`self.norm(x)` is a submodule); it is
  reported by name at the line of the name. One whose receiver is a literal
  (a str, a number, a list, dict or set display) is also listed under
  literal_receivers: mtrial must never count those as tensor methods.

Usage: ast_scan.py DIR  (prints JSON: files, calls [[file, api, line, col]],
methods [[file, name, line]], literal_receivers [[file, name, line]],
errors [[file, message]])
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


LITERALS = (ast.JoinedStr, ast.List, ast.ListComp, ast.Dict, ast.DictComp, ast.Set,
            ast.SetComp, ast.Tuple)
COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def target_names(node):
    """The Names an assignment target binds (not attributes, subscripts)."""
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, (ast.Tuple, ast.List)):
        return [n for e in node.elts for n in target_names(e)]
    return []


class Scanner(ast.NodeVisitor):
    def __init__(self, path, module):
        self.path = path
        # (kind, names): kind "module", "function" or "class"; names maps a
        # name to its import target, or None for a local
        self.scopes = [("module", module)]
        self.calls = []
        self.methods = []
        self.literal = []

    def lookup(self, name):
        for _, scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def bind_local(self, names):
        kind, scope = self.scopes[-1]
        if kind == "function":
            for n in names:
                scope[n] = None

    def visit_body(self, nodes):
        for n in nodes:
            self.visit(n)

    def visit_FunctionDef(self, node):
        # decorators, defaults and annotations belong to the outer scope
        self.visit_body(node.decorator_list)
        self.bind_local([node.name])
        self.visit(node.args)
        if node.returns:
            self.visit(node.returns)
        a = node.args
        params = [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs]
        params += [p.arg for p in (a.vararg, a.kwarg) if p]
        self.scopes.append(("function", {p: None for p in params}))
        self.visit_body(node.body)
        self.scopes.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        self.visit_body(node.decorator_list)
        self.bind_local([node.name])
        self.visit_body(node.bases)
        self.visit_body(node.keywords)
        self.scopes.append(("class", {}))
        self.visit_body(node.body)
        self.scopes.pop()

    def visit_Lambda(self, node):
        a = node.args
        params = [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs]
        params += [p.arg for p in (a.vararg, a.kwarg) if p]
        self.scopes.append(("function", {p: None for p in params}))
        self.visit(node.args)
        self.visit(node.body)
        self.scopes.pop()

    def visit_comprehension_scope(self, node):
        names = [n for g in node.generators for n in target_names(g.target)]
        self.scopes.append(("function", {n: None for n in names}))
        self.generic_visit(node)
        self.scopes.pop()

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = \
        visit_comprehension_scope

    def visit_Assign(self, node):
        self.visit(node.value)
        self.visit_body(node.targets)
        self.bind_local([n for t in node.targets for n in target_names(t)])

    def visit_AnnAssign(self, node):
        self.visit(node.annotation)
        if node.value:
            self.visit(node.value)
        self.visit(node.target)
        if isinstance(node.target, ast.Name):
            self.bind_local([node.target.id])

    def visit_AugAssign(self, node):
        self.visit(node.value)
        self.visit(node.target)
        self.bind_local(target_names(node.target))

    def visit_For(self, node):
        self.bind_local(target_names(node.target))
        self.generic_visit(node)

    visit_AsyncFor = visit_For

    def visit_With(self, node):
        self.bind_local([item.optional_vars.id for item in node.items
                         if isinstance(item.optional_vars, ast.Name)])
        self.generic_visit(node)

    visit_AsyncWith = visit_With

    def visit_ExceptHandler(self, node):
        if node.name:
            self.bind_local([node.name])
        self.generic_visit(node)

    def visit_Import(self, node):
        if len(self.scopes) > 1:
            self.scopes[-1][1].update(import_bindings(node))

    visit_ImportFrom = visit_Import

    def visit_Call(self, node):
        parts = chain_of(node.func)
        target = self.lookup(parts[0]) if parts else None
        if target is not None:
            api = ".".join([target] + parts[1:])
            self.calls.append([self.path, api, node.lineno, node.col_offset])
        elif isinstance(node.func, ast.Attribute) and not (
                isinstance(node.func.value, ast.Name) and node.func.value.id == "self"):
            site = [self.path, node.func.attr, node.func.end_lineno]
            self.methods.append(site)
            value = node.func.value
            if isinstance(value, LITERALS) or isinstance(value, ast.Constant):
                self.literal.append(site)
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
    result["literal_receivers"].extend(s.literal)
    result["files"] += 1
    result["paths"].append(rel)


def main():
    root = sys.argv[1]
    result = {"files": 0, "paths": [], "calls": [], "methods": [], "literal_receivers": [],
              "errors": []}
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
