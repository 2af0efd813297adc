// How a file's job is compared with the job the tenant has: both as a create stores them
// (defaults filled, schedules normalized), so a job the file leaves alone is "unchanged" without
// the create's costlier checks, and a plan shows only the fields that really differ.
import { parseDurationMs } from "../common/duration";
import { type JobSpec, jobCreateSchema, type Schedule } from "../jobs/job-spec";
import { normalizeSchedule } from "../jobs/normalize";
import { schedulesOf } from "../schedules/schedule-set";

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function utcIso(instant: string | null): string | null {
  return instant === null ? null : new Date(Date.parse(instant)).toISOString();
}

/**
 * The file's job body with the stored anchor filled in where the file gives an interval none:
 * a create anchors such an interval at its own instant, so without this every apply would move
 * it. Only where the stored job's spec at the same position is an interval of the same length
 * and neither job has a `start_at` (which is then the anchor); an interval that changed length
 * is anchored at the apply, as an edit through the API anchors it.
 * @example withStoredAnchors({ schedule: { type: "interval", every: "15m" } }, storedSpec)
 * // { schedule: { type: "interval", every: "15m", anchor: "2026-03-01T10:00:00.000Z" } }
 */
export function withStoredAnchors(input: Record<string, unknown>, stored: JobSpec): Record<string, unknown> {
  if ((input.start_at ?? null) !== null || stored.start_at !== null) return input;
  const storedSchedules = schedulesOf(stored);
  const anchored = (raw: unknown, index: number): unknown => {
    const before = storedSchedules[index];
    if (!isPlainObject(raw) || raw.type !== "interval" || raw.anchor !== undefined) return raw;
    if (before?.type !== "interval" || before.anchor === undefined) return raw;
    const every = parseDurationMs(raw.every);
    return every !== null && every === parseDurationMs(before.every)
      ? { ...raw, anchor: before.anchor }
      : raw;
  };
  if (Array.isArray(input.schedules)) return { ...input, schedules: input.schedules.map(anchored) };
  if (input.schedule !== undefined) return { ...input, schedule: anchored(input.schedule, 0) };
  return input;
}

/**
 * The spec as a create would store it, without the checks that need the tenant or `now`: instants
 * in UTC, each schedule normalized. Null when only a create can say (an interval with no anchor
 * and no start_at is anchored at the create's instant; a one-shot `delay` counts from it).
 */
export function comparableSpec(spec: JobSpec): JobSpec | null {
  const startAt = utcIso(spec.start_at);
  const anchorMs = startAt === null ? null : Date.parse(startAt);
  const normalized = (schedule: Schedule): Schedule | null => {
    if (schedule.type === "interval" && schedule.anchor === undefined && anchorMs === null) return null;
    if (schedule.type === "once" && schedule.delay !== undefined) return null;
    return normalizeSchedule(schedule, 0, anchorMs ?? 0);
  };
  const schedules = schedulesOf(spec).map(normalized);
  if (schedules.some((schedule) => schedule === null)) return null;
  const comparable: JobSpec = { ...spec, start_at: startAt, end_at: utcIso(spec.end_at) };
  if (spec.schedules !== undefined) comparable.schedules = schedules as Schedule[];
  else if (spec.schedule !== undefined) comparable.schedule = schedules[0] as Schedule;
  return comparable;
}

/**
 * A stored spec with the defaults of fields added since it was written (a job from before
 * `window` existed has none), so it compares field by field with a spec parsed today.
 */
export function storedComparable(stored: JobSpec): JobSpec {
  const parsed = jobCreateSchema.safeParse(stored);
  return parsed.success ? (comparableSpec(parsed.data) ?? parsed.data) : stored;
}
