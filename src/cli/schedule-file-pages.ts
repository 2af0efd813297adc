// A schedule file cut into the requests the API takes (1 MiB, 1,000 jobs each), and their answers
// put back together as one plan of the whole file. A file that fits is one request, planned and
// applied as a whole. A bigger one goes as pages of jobs sorted by name, each speaking for its
// name range (`scope.names`), and one page for the calendars: first (so the jobs may name them),
// and, with prune, last (a calendar goes only once no job of the file names it).
import type { ScheduleFileApply, ScheduleFilePlan, ScheduleFileRequest } from "../client/index";
import { compareNames } from "../core/schedule-file/names";
import type { PlanCounts } from "../core/schedule-file/plan-schema";
import { MAX_REQUEST_JOBS } from "../core/schedule-file/request";

/** Bytes of JSON a page's jobs may take: the body cap (1 MiB) less room for the rest. */
export const PAGE_JOB_BYTES = 900 * 1024;

export interface FileRequestParts {
  managedBy: string;
  calendars: unknown[];
  jobs: unknown[];
  prune: boolean;
  adopt: boolean;
}

export interface Page {
  /** What the page does: the whole file, the calendars (before or after the jobs), or jobs. */
  kind: "whole" | "calendars-first" | "jobs" | "calendars-last";
  request: ScheduleFileRequest;
  /** The file's index of each of the request's jobs. */
  fileIndexes: number[];
}

const nameOf = (job: unknown): string | null => {
  const name = (job as { name?: unknown } | null)?.name;
  return typeof name === "string" ? name : null;
};

/**
 * The requests of a file, in the order an apply sends them (a plan sends the same ones but never
 * the first calendars page when `prune` sends the last: both would plan the same calendars).
 */
export function pagesOf(
  parts: FileRequestParts,
  calendarBytes = JSON.stringify(parts.calendars).length,
): Page[] {
  // The items are the API's to check: sent as the file has them.
  const base = {
    managed_by: parts.managedBy,
    adopt: parts.adopt,
    calendars: parts.calendars as ScheduleFileRequest["calendars"],
  };
  const sizes = parts.jobs.map((job) => JSON.stringify(job).length);
  const total = sizes.reduce((sum, size) => sum + size, 0);
  if (parts.jobs.length <= MAX_REQUEST_JOBS && total + calendarBytes <= PAGE_JOB_BYTES) {
    return [
      {
        kind: "whole",
        request: { ...base, prune: parts.prune, jobs: parts.jobs as ScheduleFileRequest["jobs"] },
        fileIndexes: parts.jobs.map((_job, index) => index),
      },
    ];
  }
  // Jobs without a usable name go first: the API names their mistakes, whatever the range.
  const order = parts.jobs
    .map((job, index) => ({ index, name: nameOf(job) }))
    .sort((a, b) => (a.name === null ? -1 : b.name === null ? 1 : compareNames(a.name, b.name)));
  const chunks: (typeof order)[] = [];
  let chunk: typeof order = [];
  let bytes = calendarBytes;
  for (const item of order) {
    const size = sizes[item.index] ?? 0;
    const previous = chunk[chunk.length - 1];
    // Two jobs of one name stay in one page, where the API names both.
    const sameName = previous !== undefined && previous.name !== null && previous.name === item.name;
    if (
      chunk.length > 0 &&
      !sameName &&
      (chunk.length >= MAX_REQUEST_JOBS || bytes + size > PAGE_JOB_BYTES)
    ) {
      chunks.push(chunk);
      chunk = [];
      bytes = calendarBytes;
    }
    chunk.push(item);
    bytes += size;
  }
  if (chunk.length > 0) chunks.push(chunk);
  const jobPages = chunks.map((items, position): Page => {
    const next = chunks[position + 1]?.[0]?.name ?? null;
    const from = position === 0 ? null : (items[0]?.name ?? null);
    return {
      kind: "jobs",
      request: {
        ...base,
        prune: parts.prune,
        scope: { calendars: false, names: { from, to: position === chunks.length - 1 ? null : next } },
        jobs: items.map((item) => parts.jobs[item.index]) as ScheduleFileRequest["jobs"],
      },
      fileIndexes: items.map((item) => item.index),
    };
  });
  const calendarsPage = (kind: "calendars-first" | "calendars-last", prune: boolean): Page => ({
    kind,
    request: { ...base, prune, scope: { calendars: true, names: null }, jobs: [] },
    fileIndexes: [],
  });
  return [
    calendarsPage("calendars-first", false),
    ...jobPages,
    ...(parts.prune ? [calendarsPage("calendars-last", true)] : []),
  ];
}

/** The pages a plan sends: with prune, the calendars are planned once, as the last page. */
export function planPagesOf(pages: readonly Page[]): Page[] {
  return pages.some((page) => page.kind === "calendars-last")
    ? pages.filter((page) => page.kind !== "calendars-first")
    : [...pages];
}

/** A request's field path (`jobs.3.name`) as the file's (`jobs.1207.name`). */
export function filePath(page: Page, path: string): string {
  const match = /^jobs\.(\d+)(\.|$)/.exec(path);
  if (match === null) return path;
  const index = page.fileIndexes[Number(match[1])];
  return index === undefined ? path : `jobs.${index}${path.slice(`jobs.${match[1]}`.length)}`;
}

const addCounts = (a: PlanCounts, b: PlanCounts): PlanCounts => ({
  create: a.create + b.create,
  update: a.update + b.update,
  adopt: a.adopt + b.adopt,
  delete: a.delete + b.delete,
  unchanged: a.unchanged + b.unchanged,
});

const emptyCounts = (): PlanCounts => ({ create: 0, update: 0, adopt: 0, delete: 0, unchanged: 0 });

/** Whether a plan changes anything. */
export function hasChanges(plan: ScheduleFilePlan): boolean {
  const { jobs, calendars } = plan.summary;
  return [jobs, calendars].some((counts) => counts.create + counts.update + counts.adopt + counts.delete > 0);
}

/** The pages' answers as one plan of the file, with the file's indexes. */
export function mergePlans<T extends ScheduleFilePlan | ScheduleFileApply>(
  answers: readonly { page: Page; plan: T }[],
  managedBy: string,
  prune: boolean,
): ScheduleFilePlan {
  const merged: ScheduleFilePlan = {
    managed_by: managedBy,
    prune,
    summary: { jobs: emptyCounts(), calendars: emptyCounts() },
    jobs: [],
    calendars: [],
    notes: [],
  };
  for (const { page, plan } of answers) {
    merged.summary.jobs = addCounts(merged.summary.jobs, plan.summary.jobs);
    merged.summary.calendars = addCounts(merged.summary.calendars, plan.summary.calendars);
    merged.jobs.push(
      ...plan.jobs.map((entry) =>
        "index" in entry ? { ...entry, index: page.fileIndexes[entry.index] ?? entry.index } : entry,
      ),
    );
    merged.calendars.push(...plan.calendars);
    merged.notes.push(...plan.notes);
  }
  return merged;
}
