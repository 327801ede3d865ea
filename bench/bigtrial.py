#!/usr/bin/env python3
"""Makes a large trial for bench/tui and bench/report (issue 18): NOTES notes
and RUNS runs in the journal of an initialised trial. The runs are copies of
real imported runs (`mtrial runs import` of the MLPerf log given, once per
system), so every run has the metrics mtrial itself derived; the notes are
written straight into the journal, as `mtrial note` would, because 100,000
processes would take longer than the benchmark.

usage: bench/bigtrial.py MTRIAL TRIAL_DIR LOG NOTES RUNS
"""
import os
import sqlite3
import subprocess
import sys
import tempfile


def main():
    mt, trial, log, nnotes, nruns = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
    with tempfile.TemporaryDirectory() as tmp:
        for n, system in enumerate(("baseline", "candidate")):
            # one attempt is imported once: each system's its own bytes (the
            # log and n more empty lines, which the reader skips)
            copy = os.path.join(tmp, "%s.log" % system)
            with open(log, "rb") as src, open(copy, "wb") as dst:
                dst.write(src.read() + b"\n" * n)
            subprocess.run([mt, "--trial", trial, "runs", "import", "--system", system, copy],
                           check=True, stdout=subprocess.DEVNULL)
    db = sqlite3.connect(trial + "/journal.db")
    # uid names the event a row was made from (issue 19): unique, not copied
    cols = [r[1] for r in db.execute("PRAGMA table_info(runs)") if r[1] not in ("id", "uid")]
    seeds = [r[0] for r in db.execute("SELECT id FROM runs ORDER BY id")]
    for i in range(nruns - len(seeds)):
        db.execute("INSERT INTO runs (%s) SELECT %s FROM runs WHERE id = ?" % (",".join(cols), ",".join(cols)),
                   (seeds[i % len(seeds)],))
    t0 = 1764547200000
    db.executemany("INSERT INTO notes (created_ms, track, text) VALUES (?, ?, ?)",
                   ((t0 + i * 1000, None if i % 3 else "portability",
                     "note %d: the loss spiked after step %d; checked the data loader and the learning rate" % (i, i * 7))
                    for i in range(nnotes)))
    db.commit()
    db.close()


if __name__ == "__main__":
    main()
