import type { Schedule } from "./job-spec";

/**
 * The next `count` fire instants (epoch ms, ascending) strictly after `afterMs`.
 * TEMPORARY signature holder: the full engine (cron DST rules, intervals, once) replaces this.
 */
export function nextFireTimes(schedule: Schedule, afterMs: number, count: number): number[] {
  void schedule;
  void afterMs;
  void count;
  throw new Error("nextFireTimes: not implemented yet");
}
