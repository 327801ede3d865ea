#!/bin/bash
# How v12.sql was made: a trial recorded by mtrial at 959ef9f (journal
# schema 12, the last before events; `git log -- trial/events.c` names the
# first commit with them, 89eef39), dumped with sqlite3, the scratch
# repository's path written @REPO@. Run with that build's binary:
#   tests/data/journal/make_v12.sh OLD_BUILD/mtrial
# It rewrites v12.sql and v12-run.log beside this script.
set -e
OLD=$(realpath "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
D=$(mktemp -d)
R=$D/repo
mkdir -p "$R" && cd "$R"
git -c init.defaultBranch=main init -q
printf 'import torch\nx = torch.zeros(3).cumsum(0)\n' >train.py
git add train.py && git -c user.name=t -c user.email=t@example.com commit -qm init
"$OLD" init --name old-team >/dev/null
"$OLD" note --track portability --tag compile "first compile took 10 min" >/dev/null
"$OLD" effort add --duration 1h30m --track portability --category setup "drivers" >/dev/null
"$OLD" note "a plain note" >/dev/null
"$OLD" note "a typo" >/dev/null
"$OLD" rm note 3 --why "typo" >/dev/null
"$OLD" scan >/dev/null
"$OLD" override aten::cumsum cpu_fallback --note "seen on trn1, SDK 2.20" >/dev/null
"$OLD" run --system baseline --label old -- sh -c \
	'for i in 1 2 3; do echo "mtrial:step=$i loss=$((10 - i)).0"; done' >/dev/null 2>&1
sqlite3 .mtrial/journal.db .dump | sed "s|$R|@REPO@|g" >"$HERE/v12.sql"
cp .mtrial/runs/*.log "$HERE/v12-run.log"
rm -rf "$D"
