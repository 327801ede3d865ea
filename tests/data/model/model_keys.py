#!/usr/bin/env python3
"""Pins the keys the report's templates and the wizard read from the report
model against a model built from a real trial (`mtrial report --format json`).

The templates are walked as the renderer walks them (report/template.h: a
name is looked up in the current context, then outwards; a section over an
array is entered once per item; a block {{<name}}...{{/name}} is walked
where {{>name}} uses it, in that context). A name that resolves where it is read is
pinned by the model itself. A name that does not (an optional key the
fixture leaves out: a dataset, a withdrawn run) or is never read (inside a
section the fixture does not enter) must at least be a key some code of the
model makes: each part of its path a string literal of report/, trial/,
probes/, checks/, common/ or shim/. A key that is neither is a typo or a key the
model no longer makes, and fails. The wizard's keys are the literal paths
tui/*.c passes with a model (jv_get(ctx->model, "a.b")...; a "*" stands
for each item of an array, jv_int_at(ctx->model, "scan.top_ops.*.count",
i, 0)), checked the same way, and each screen's step_id, which must be one of the model's steps.

Usage: model_keys.py MODEL.json SOURCE_DIR
Prints "missing KEY in FILE:LINE" for each key that fails (exit 1), then
how many keys the model pinned and how many only the code vouches for."""
import json
import re
import sys

TOKEN = re.compile(r"\{\{([#^/&!<>]?)\s*([^}]*?)\s*\}\}")


def parse(text, name):
    """The template as a tree: (kind, name, line, children)."""
    root = []
    stack = [("root", None, 0, root)]
    for m in TOKEN.finditer(text):
        kind, key = m.group(1), m.group(2)
        line = text.count("\n", 0, m.start()) + 1
        if kind == "!":
            continue
        if kind in ("#", "^", "<"):
            node = (kind, key, line, [])
            stack[-1][3].append(node)
            stack.append(node)
        elif kind == "/":
            if stack[-1][1] != key:
                sys.exit(f"{name}:{line}: {{{{/{key}}}}} closes {stack[-1][1]}")
            stack.pop()
        else:
            stack[-1][3].append((">" if kind == ">" else "v", key, line, None))
    return root


def blocks(nodes, out):
    """The blocks defined anywhere in the tree, by name."""
    for kind, key, line, children in nodes:
        if kind == "<":
            out[key] = children
        if children:
            blocks(children, out)
    return out


MISSING = object()


def lookup(stack, key):
    """The value of `key` in the context stack, MISSING when no context has
    its first part or the rest of the path is not there."""
    if key == ".":
        return stack[-1]
    first, *rest = key.split(".")
    for ctx in reversed(stack):
        if isinstance(ctx, dict) and first in ctx:
            v = ctx[first]
            break
    else:
        return MISSING
    return follow(v, rest)


def follow(v, parts):
    """The value along parts from v; a "*" (the wizard's jv_*_at and
    jv_*_key: every item of an array, every member of an object) resolves
    when some item has the rest."""
    for n, part in enumerate(parts):
        if part == "*" and isinstance(v, (list, dict)):
            for item in (v if isinstance(v, list) else v.values()):
                found = follow(item, parts[n + 1:])
                if found is not MISSING:
                    return found
            return MISSING
        if isinstance(v, dict) and part in v:
            v = v[part]
        elif isinstance(v, list) and part.isdigit() and int(part) < len(v):
            v = v[int(part)]
        else:
            return MISSING
    return v


def truthy(v):
    return v not in (MISSING, None, False, "", 0) and v != [] and v != {}


def walk(nodes, stack, seen, found, defs, depth=0):
    """Evaluates every name as the renderer would: seen[(line, key)] is set
    when a name was evaluated, found[(line, key)] when it resolved."""
    for kind, key, line, children in nodes:
        if kind == "<":
            continue  # walked where it is used
        if kind == ">":
            if key not in defs:
                sys.exit(f"line {line}: no block {key}")
            if depth < 8:
                walk(defs[key], stack, seen, found, defs, depth + 1)
            continue
        v = lookup(stack, key)
        seen.add((line, key))
        if v is not MISSING:
            found.add((line, key))
        if kind == "#" and truthy(v):
            for item in (v if isinstance(v, list) else [v]):
                walk(children, stack + [item], seen, found, defs, depth)
        elif kind == "^" and not truthy(v):
            walk(children, stack, seen, found, defs, depth)


def names(nodes):
    for kind, key, line, children in nodes:
        if kind not in ("<", ">"):  # a block's name is no key of the model
            yield line, key
        if children:
            yield from names(children)


LITERAL = re.compile(r'"([A-Za-z_.][A-Za-z0-9_.*]*)"')
ESCAPED = re.compile(r'\\"([A-Za-z_][A-Za-z0-9_]*)\\"')  # JSON written by hand: \"key\":


def made_keys(src):
    """The identifiers the code that makes the model writes as literals,
    dotted schema paths ("workload.dataset.name") split into their parts;
    the shim's C++ makes the TorchScript inventory's keys."""
    import glob
    keys = set()
    for d in ("report", "trial", "probes", "checks", "common", "git", "python", "compat",
              "shim"):
        for path in glob.glob(f"{src}/{d}/*.c") + glob.glob(f"{src}/{d}/*.cc"):
            text = open(path, encoding="utf-8").read()
            for lit in LITERAL.findall(text) + ESCAPED.findall(text):
                keys.update(lit.split("."))
    return keys


def made(key, keys):
    """Each part of the path is made; "X_list" is the HTML list of X
    (set_op_list, report/model.c)."""
    def part_made(part):
        return part.isdigit() or part in keys or (part.endswith("_list") and part[:-5] in keys)
    return all(part_made(part) for part in key.split(".") if part not in (".", "*"))


def judge(key, where, resolved, keys, out):
    if resolved:
        out["pinned"] += 1
    elif key == "." or made(key, keys):
        out["vouched"] += 1
    else:
        out["problems"].append(f"missing {key} in {where}")


def check_templates(model, src, keys, out):
    for name in ("summary.md", "summary.html"):
        path = f"{src}/templates/{name}"
        tree = parse(open(path, encoding="utf-8").read(), path)
        seen, found = set(), set()
        walk(tree, [model], seen, found, blocks(tree, {}))
        for line, key in sorted(set(names(tree))):
            judge(key, f"templates/{name}:{line}", (line, key) in found, keys, out)


WIZARD = re.compile(r'jv_\w+\(\s*[\w>.-]*model\s*,\s*"([^"]+)"')
STEP_ID = re.compile(r'\.step_id\s*=\s*"([^"]+)"')


def check_wizard(model, src, keys, out):
    import glob
    steps = {s.get("id") for s in model.get("steps", [])}
    for path in sorted(glob.glob(f"{src}/tui/*.c")):
        text = open(path, encoding="utf-8").read()
        rel = path[len(src) + 1:]
        for m in WIZARD.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            judge(m.group(1), f"{rel}:{line}", lookup([model], m.group(1)) is not MISSING,
                  keys, out)
        for m in STEP_ID.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            if m.group(1) not in steps:
                out["problems"].append(f"missing step {m.group(1)} in {rel}:{line}")


def main():
    model = json.load(open(sys.argv[1], encoding="utf-8"))
    src = sys.argv[2]
    keys = made_keys(src)
    out = {"pinned": 0, "vouched": 0, "problems": []}
    check_templates(model, src, keys, out)
    check_wizard(model, src, keys, out)
    for p in out["problems"]:
        print(p)
    print(f"pinned by the model {out['pinned']}, only made by the code {out['vouched']}")
    sys.exit(1 if out["problems"] else 0)


if __name__ == "__main__":
    main()
