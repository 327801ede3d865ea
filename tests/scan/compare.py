#!/usr/bin/env python3
"""Compares `mtrial scan --json` with bench/ast_scan.py on the same tree.

The contract (issue: "every torch-namespace call that Python's own parser
finds is there, at the right line, and nothing else is"):
- torch calls: the sets of (file, api, line, col) are equal, over the files
  that Python could parse;
- methods: every method mtrial reports (as a tensor method, or under
  not_tensor) is a method call ast sees at that line, and every ast method
  call whose name mtrial counts as a tensor method (it reported that name
  somewhere) is in one of mtrial's two lists;
- a method called on a literal (a str, a number, a display) is never in
  mtrial's tensor methods.

Usage: compare.py MTRIAL.json AST.json  -> prints a summary, exit 1 on any
difference (the first 20 of each kind are shown).
"""
import json
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def is_torch(api):
    return api == "torch" or api.startswith("torch.")


def main():
    mt, ref = load(sys.argv[1]), load(sys.argv[2])
    # files Python cannot parse, and files mtrial lists as skipped with a
    # reason (binary, not UTF-8, too large): neither side's calls count there
    unparsable = {f for f, _ in ref["errors"]} | {s["path"] for s in mt["files_skipped"]}
    # files absent from the tree ast read (a blob missing from a partial
    # mirror): mtrial lists those as skipped too
    unparsable |= {c["file"] for c in mt["calls"] + mt["methods"]} - set(ref["paths"])
    mt_calls = {(c["file"], c["api"], c["line"], c["col"]) for c in mt["calls"]
                if c["file"] not in unparsable}
    ref_calls = {tuple(c) for c in ref["calls"] if is_torch(c[1]) and c[0] not in unparsable}
    mt_methods = {(m["file"], m["name"], m["line"]) for m in mt["methods"]
                  if m["file"] not in unparsable}
    mt_nots = {(m["file"], m["name"], m["line"]) for m in mt.get("not_tensor", [])
               if m["file"] not in unparsable}
    names = {m[1] for m in mt_methods | mt_nots}
    ref_methods_all = {tuple(m) for m in ref["methods"] if m[0] not in unparsable}
    ref_methods = {m for m in ref_methods_all if m[1] in names}
    ref_literal = {tuple(m) for m in ref.get("literal_receivers", []) if m[0] not in unparsable}

    problems = {
        "torch calls ast found that mtrial missed": sorted(ref_calls - mt_calls),
        "torch calls mtrial reported that ast did not find": sorted(mt_calls - ref_calls),
        "methods mtrial reported that ast did not find":
            sorted((mt_methods | mt_nots) - ref_methods_all),
        "tensor-method calls ast found that mtrial missed":
            sorted(ref_methods - mt_methods - mt_nots),
        "methods on a literal mtrial counted as tensor methods":
            sorted(ref_literal & mt_methods),
    }
    print("compare: %d torch calls (ast %d), %d method calls (%d not on a tensor), "
          "%d files ast could not parse"
          % (len(mt_calls), len(ref_calls), len(mt_methods), len(mt_nots), len(unparsable)))
    print("compare: not compared (unparsable or skipped): %s" % ", ".join(sorted(unparsable)))
    bad = 0
    for what, items in problems.items():
        if items:
            bad += len(items)
            print("compare: %s: %d" % (what, len(items)))
            for item in items[:20]:
                print("   ", item)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
