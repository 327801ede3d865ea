/* The go/no-go decision: every criterion of trial.yaml judged from the
 * record (runs, correctness checks, the latest probe, effort), and a verdict
 * that never comes from missing data.
 *
 * Each criterion is "met", "not_met" or "unknown". Unknown is what the record
 * cannot yet say, never a pass. By kind:
 *
 *   quality          the candidate's evaluations of quality_target.metric
 *                    against the criterion's threshold (else the target's),
 *                    per track: met when a track reaches it (only on the
 *                    optimized track: met with that condition); not_met when
 *                    finished candidate runs evaluated the metric and none
 *                    reached it; unknown without such a run.
 *   correctness      the recorded checks, the latest of each pair compared:
 *                    not_met when one fails; met when all pass. `check model`
 *                    (a CPU estimate of a number format, not the candidate
 *                    system) alone is not enough; its failures are conditions.
 *                    Only checks between the two systems count: a check whose
 *                    sides are both runs of one system (baseline against
 *                    baseline: its run-to-run spread) is named in the
 *                    evidence as not counted; a side read from a file is
 *                    taken as the command line says (REF baseline, CAND
 *                    candidate).
 *                    A threshold is not applied (the checks' tolerances
 *                    decide), and the evidence says so.
 *   ops              the latest probe against the trial's table (trial.yaml's
 *                    probe.table, else MT_DECIDE_DEFAULT_TABLE; a probe
 *                    against another table is left out, and the source says
 *                    so): not_met for an unsupported op, or more
 *                    CPU-fallback ops than the threshold (when given);
 *                    unknown while ops are unknown; ops that rely on the
 *                    team's overrides, partial ops and CPU fallbacks the
 *                    threshold allows are conditions.
 *   time_to_quality  the candidate's median time to the target from run start
 *   cost_to_quality  (cost: hourly price x that time) over the baseline's:
 *                    met when the ratio <= threshold; the other clock
 *                    (device-hours to the target) is in the evidence, never
 *                    mixed in. Time counts from run start (MLPerf's way);
 *                    when the clock from submission (compilation included)
 *                    breaks the threshold, met carries that condition. A
 *                    candidate whose finished runs never reached the target
 *                    is not_met; no baseline run that reached it, or no
 *                    price, is unknown.
 *   effort           the hours timed for both tracks against the threshold
 *                    (else tracks.optimized.budget_hours); no time recorded
 *                    is unknown.
 *   custom           judged by the team (criteria.*.judgement, with its
 *                    evidence in criteria.*.evidence); unknown without one.
 *
 * Rehearsal runs (run.rehearsal: made to test the pipeline, the launcher
 * or the log format) are never evidence: no criterion counts them as
 * reaching or as missing the target, nor among the failed attempts. A run
 * criterion's evidence names the rehearsals it left out; when only
 * rehearsals are recorded it is unknown, and its missing says a real run
 * is needed and how many rehearsals were left out. Rehearsal checks
 * (check.rehearsal: stand-ins compared to test the comparison) likewise:
 * correctness leaves them out, names them in its evidence, and with only
 * rehearsal checks (or CPU estimates) is unknown, its missing asking for a
 * real comparison and counting the rehearsal checks left out.
 *
 * Verdict, first rule that applies:
 *   NO_GO                any criterion not_met: the record shows a failure,
 *                        and evidence still missing elsewhere cannot turn it
 *                        into a go (it is listed under "missing" all the same);
 *   NOT_ENOUGH_EVIDENCE  any criterion unknown, or trial.yaml lists none;
 *   GO_WITH_CONDITIONS   all met, some only under conditions;
 *   GO                   all met without conditions. */
#ifndef MT_DECIDE_H
#define MT_DECIDE_H

#include <stdint.h>
#include <jansson.h>
#include "trial.h"

/* The table ops are judged against when trial.yaml sets no probe.table:
 * the one `mtrial probe` uses then (core/probe_trial.h's
 * MT_PROBE_DEFAULT_TABLE; tests/unit/test_decide.c checks they agree). */
#define MT_DECIDE_DEFAULT_TABLE "torchneuron-2.14"

/* The table the trial judges ops against, as probes name it: trial.yaml's
 * probe.table (a table's name, or a file: the name it declares), else the
 * one `mtrial probe` uses by default. Borrowed from spec or a static buffer. */
const char *mt_decide_table(const mt_spec *spec);

#define MT_VERDICT_GO "GO"
#define MT_VERDICT_GO_WITH_CONDITIONS "GO_WITH_CONDITIONS"
#define MT_VERDICT_NO_GO "NO_GO"
#define MT_VERDICT_NOT_ENOUGH_EVIDENCE "NOT_ENOUGH_EVIDENCE"

/* Decides from `spec` and `evidence` (both borrowed; the shape below): no
 * I/O, so tests and the wizard can decide from evidence they hold. The
 * evidence is this module's own input, written for it from the other
 * layers' typed views (report/decision.c's mt_decision_evidence):
 *
 *   runs          [run]   mt_journal_runs_json's rows, flattened by
 *                         mt_runs_flatten
 *   checks        [{id, kind, passed, rehearsal, reference, candidate,
 *                    reference_system, candidate_system}] newest first (kind:
 *                    compare, model, curves; a side's system only where it
 *                    was a trial's run)
 *   probe         {id, created, from {source}, table {name, version,
 *                  retrieved}, ops [{op, status, source, conditions [text]}],
 *                  apis [{api, op (null: none), status, source}]}: the
 *                  latest probe against mt_decide_table(spec), or null
 *   probe_other   {id, table}: a later probe against another table, or null
 *   overrides     mt_journal_overrides_json's rows
 *   effort        mt_journal_effort_summary_json at the decision's time
 *   effort_running  true while an effort timer runs
 *
 * *out (new reference, the caller's):
 *
 *   verdict      one of the MT_VERDICT_* strings
 *   headline     the verdict in words ("GO WITH CONDITIONS")
 *   summary      "4 of 6 criteria met, 1 not met, 1 unknown"
 *   counts       {met, not_met, unknown}
 *   criteria     [{name, kind, description, status: met|not_met|unknown,
 *                  evidence: a sentence with the numbers,
 *                  source: the records it read ("runs #3, #5; trial.yaml
 *                  quality_target"),
 *                  threshold, value (numbers or null: value is what was
 *                  compared with threshold: a ratio, hours, a count, the
 *                  best evaluation), track (the track that decided it, or
 *                  null), conditions [text], missing [{what, command}];
 *                  quality adds by_track {TRACK: {best, run, reached}};
 *                  time and cost to quality add figures {candidate,
 *                  baseline: {median, device_hours, from_submission_s}}
 *                  (median in seconds or currency, device-hours to the
 *                  target, seconds from submission; null when unknown)}]
 *                in trial.yaml's order; a track is "portability",
 *                "optimized" or "no track" (runs recorded without one)
 *   failed       [{criterion, evidence}]       the not_met ones
 *   missing      [{criterion, what, command}]  what would settle the unknown
 *                                              ones, and the command that
 *                                              records it
 *   conditions   [{criterion, text}]           what must hold for a met one
 *   caveats      [text]                        every caveat, most important
 *                                              first
 *   caveat       the first of them (for a report's first screen), or null
 *
 * Returns 0, or MT_EINVALID for a criterion kind it does not know, naming
 * the criterion. */
int mt_decide_from(json_t **out, const mt_spec *spec, json_t *evidence);

/* 1 when `decision` (from mt_decide_from) is a plain GO, else 0. */
int mt_decide_is_go(const json_t *decision);

#endif
