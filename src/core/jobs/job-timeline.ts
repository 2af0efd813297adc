import { durationMs } from "../common/duration";
import {
  type CompiledWindow,
  compileWindow,
  placeInWindow,
  type WindowPlacement,
} from "../schedules/delivery-window";
import { type CompiledExclusions, isExcluded, NO_EXCLUSIONS } from "../schedules/exclusions";
import { flexibleOffsetMs } from "../schedules/flexible-window";
import { fireJitterMs } from "../schedules/jitter";
import { schedulesOf, unionFireTimes } from "../schedules/schedule-set";
import type { JobSpec } from "./job-spec";

/**
 * One upcoming instant of a job: the schedule's instant and when it actually fires (jitter, the
 * flexible window's point, or the delivery window's next opening).
 */
export interface JobFire {
  scheduledAtMs: number;
  fireAtMs: number;
  /**
   * The instant does not run: an exclusion (calendar or inline `exclude`) covers it, or it is
   * outside the delivery window (then `skipReason` says so). The shard records it SKIPPED.
   */
  excluded?: true;
  skipReason?: string;
}

/** The fields of a job that decide where its instants fire (a preview has them too). */
export type TimingSpec = Pick<
  JobSpec,
  "schedule" | "schedules" | "start_at" | "end_at" | "jitter" | "window" | "flexible_window"
>;

/** The job's delivery window, in its own zone or else the zone of the job's first cron spec. */
export function windowOf(spec: Pick<JobSpec, "window" | "schedule" | "schedules">): CompiledWindow | null {
  const window = spec.window ?? null;
  if (window === null) return null;
  const cron = schedulesOf(spec).find((schedule) => schedule.type === "cron");
  return compileWindow(window, cron?.type === "cron" ? cron.timezone : "UTC");
}

/**
 * Why the job's delivery window skips its instant `scheduledAtMs` (a stored timer), or null when
 * it runs: decided again from the spec, exactly as when the timer was set.
 */
export function windowSkipReason(spec: JobSpec, jobId: string, scheduledAtMs: number): string | null {
  if ((spec.window ?? null) === null) return null;
  const [placed] = upcomingFires(spec, jobId, scheduledAtMs - 1, 1);
  return placed?.scheduledAtMs === scheduledAtMs ? (placed.skipReason ?? null) : null;
}

/**
 * Where one instant fires, given the next instant of the schedule (or null): inside the window at
 * the instant plus jitter and the flexible window's offset, which never reach the window's close
 * nor the next instant (so a job's runs stay in order); outside it, at the opening (plus the
 * flexible offset) or skipped (see placeInWindow).
 */
export function placeFire(
  spec: Pick<JobSpec, "jitter" | "flexible_window">,
  jobId: string,
  window: CompiledWindow | null,
  scheduledAtMs: number,
  nextScheduledAtMs: number | null,
): JobFire {
  const jitterMs = spec.jitter === null ? 0 : durationMs(spec.jitter);
  const flexMs = spec.flexible_window == null ? 0 : durationMs(spec.flexible_window.max);
  const placement: WindowPlacement =
    window === null
      ? { kind: "inside", closeMs: null }
      : placeInWindow(window, scheduledAtMs, nextScheduledAtMs);
  if (placement.kind === "skipped")
    return { scheduledAtMs, fireAtMs: scheduledAtMs, excluded: true, skipReason: placement.reason };
  const baseMs = placement.kind === "deferred" ? placement.openingMs : scheduledAtMs;
  let limitMs = Number.POSITIVE_INFINITY;
  if (placement.closeMs !== null) limitMs = placement.closeMs - 1;
  let fireAtMs = baseMs;
  if (placement.kind === "inside") fireAtMs += fireJitterMs(jobId, scheduledAtMs, jitterMs);
  if (window !== null) fireAtMs = Math.min(fireAtMs, limitMs);
  if (flexMs > 0) {
    if (nextScheduledAtMs !== null) limitMs = Math.min(limitMs, nextScheduledAtMs - 1);
    const spreadMs = Math.max(0, Math.min(flexMs, limitMs - fireAtMs));
    fireAtMs += flexibleOffsetMs(jobId, scheduledAtMs, spreadMs);
  }
  return { scheduledAtMs, fireAtMs };
}

/**
 * The job's next `count` instants strictly after `afterMs` (a scheduled instant, not a fire
 * time), the union of its specs inside its [start_at, end_at] window, each with its jittered fire
 * time; excluded instants are listed too, flagged (the shard records them as SKIPPED when due).
 * `max_runs` is not applied here: it depends on how many runs happened, which the shard knows.
 */
export function upcomingFires(
  spec: TimingSpec,
  jobId: string,
  afterMs: number,
  count: number,
  exclusions: CompiledExclusions = NO_EXCLUSIONS,
): JobFire[] {
  const startMs = spec.start_at === null ? null : Date.parse(spec.start_at);
  const endMs = spec.end_at === null ? null : Date.parse(spec.end_at);
  const window = windowOf(spec);
  // Where an instant fires can depend on the next one (the window's folding, the flexible spread).
  const needsNext = window !== null || spec.flexible_window != null;
  // Instants before start_at never fire: begin just before the window opens.
  const fromMs = startMs !== null && startMs - 1 > afterMs ? startMs - 1 : afterMs;
  const fires: JobFire[] = [];
  const instants = unionFireTimes(schedulesOf(spec), fromMs, needsNext ? count + 1 : count);
  for (let index = 0; index < Math.min(count, instants.length); index++) {
    const scheduledAtMs = instants[index] ?? 0;
    if (endMs !== null && scheduledAtMs > endMs) break;
    const following = instants[index + 1];
    const nextMs = following === undefined || (endMs !== null && following > endMs) ? null : following;
    if (isExcluded(scheduledAtMs, exclusions))
      fires.push({ scheduledAtMs, fireAtMs: scheduledAtMs, excluded: true });
    else fires.push(placeFire(spec, jobId, window, scheduledAtMs, nextMs));
  }
  return fires;
}

/**
 * The first fire of a job created (or first placed on its shard) at `createdAtMs`: its first
 * instant strictly after creation, exactly as the create response's `next_fire_times[0]` and the
 * schedule preview from that time list it (both are `upcomingFires` / `nextFireTimes` after the
 * same instant). So an interval without anchor, anchored at its creation, first fires one
 * `every` later; a future `anchor` or `start_at` is itself the first fire. One exception: a
 * job whose only spec is a one-shot whose `at` is already past (accepted within the misfire
 * grace) still fires, late.
 *
 * @example firstFire(specEvery15mAnchoredAt(t), "job_1", t) // { scheduledAtMs: t + 900_000, fireAtMs: t + 900_000 }
 */
export function firstFire(
  spec: JobSpec,
  jobId: string,
  createdAtMs: number,
  exclusions: CompiledExclusions = NO_EXCLUSIONS,
): JobFire | null {
  let afterMs = createdAtMs;
  const [only, ...others] = schedulesOf(spec);
  if (only?.type === "once" && only.at !== undefined && others.length === 0) {
    afterMs = Math.min(afterMs, Date.parse(only.at) - 1);
  }
  return upcomingFires(spec, jobId, afterMs, 1, exclusions)[0] ?? null;
}
