"""The baseline of bench/import: json.loads of every :::MLLOG line of the
given files, nothing else (no events, no figures, no journal)."""
import json
import sys

PREFIX = ":::MLLOG"

n = 0
for path in sys.argv[1:]:
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f.read().split("\n"):
            i = line.find(PREFIX)
            if i >= 0:
                try:
                    json.loads(line[i + len(PREFIX):])
                    n += 1
                except ValueError:
                    pass
print(n)
