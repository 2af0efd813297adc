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

/** An entry split into parts of at most ~1 MB each (runs and jobs spread over them). */
export function splitEntry(entry: JournalEntry): JournalEntry[] {
  const size = JSON.stringify(entry).length;
  if (size <= MAX_ENTRY_CHARS) return [entry];
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
