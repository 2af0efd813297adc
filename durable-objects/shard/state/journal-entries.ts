// A journal row's content: what one commit changed (../store/journal.ts stores the rows), and its
// split into parts when it is too long for one row.

import type { Run } from "../records/run";
import type { JobRecord } from "./job-book";
import type { SettledStats } from "./stats-book";

/** A run that left memory: [run id, job id, instant, 1 if it settled into history]. */
export type GoneRun = [string, string, number, 0 | 1];

export interface JournalEntry {
  seq: number;
  atMs: number;
  fence: number;
  page: number;
  runs?: Run[];
  gone?: GoneRun[];
  settled?: SettledStats[];
  jobs?: JobRecord[];
  jobsGone?: string[];
  /** Settled runs the stats no longer count (pruned, revived): [tenant, state, n]. */
  uncounted?: [string, string, number][];
}

/** A journal row stays under this (SQLite values are capped at 2 MB in a Durable Object). */
const MAX_ENTRY_CHARS = 1_000_000;

/**
 * The entry's journal rows, numbered from `firstSeq`: one, or past ~1 MB parts of at most ~1 MB
 * each (runs and jobs spread over them). The entry is serialized once when it fits: a commit per
 * claim or report serialized it twice (to measure, then to write), a visible share of a burst.
 */
export function journalBodies(entry: JournalEntry, firstSeq: number): string[] {
  const whole = JSON.stringify({ ...entry, seq: firstSeq });
  if (whole.length <= MAX_ENTRY_CHARS) return [whole];
  return splitEntry(entry, whole.length).map((part, index) =>
    JSON.stringify({ ...part, seq: firstSeq + index }),
  );
}

function splitEntry(entry: JournalEntry, size: number): JournalEntry[] {
  const parts = Math.ceil(size / MAX_ENTRY_CHARS) + 1;
  const slice = <T>(list: T[] | undefined, index: number): T[] => {
    if (list === undefined || list.length === 0) return [];
    const per = Math.ceil(list.length / parts);
    return list.slice(index * per, (index + 1) * per);
  };
  // The first part carries what left (gone before changed, as the replay applies them).
  return Array.from({ length: parts }, (_, index) => ({
    ...entry,
    gone: index === 0 ? entry.gone : [],
    settled: index === 0 ? entry.settled : [],
    uncounted: index === 0 ? entry.uncounted : [],
    jobsGone: index === 0 ? entry.jobsGone : [],
    runs: slice(entry.runs, index),
    jobs: slice(entry.jobs, index),
  }));
}
