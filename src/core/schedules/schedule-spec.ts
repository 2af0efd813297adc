// A schedule as a job's body gives it: cron with its zone, a fixed interval, or one instant. The
// logic that reads a schedule (schedule.ts, schedule-set.ts) lives beside it, below the job spec.
import { z } from "zod";
import { durationSchema } from "../common/duration";
import { dstPolicySchema } from "../cron/dst";
import { cronExprIssues } from "../cron/validate";
import { zoneSchema } from "./exclusions";

const instant = z.iso.datetime({ offset: true, message: "must be an RFC 3339 timestamp" });

// Each field checks itself, so a bad zone never hides a bad expression (one round trip names
// both); only checks that need several fields (and now) run later, in schedule-check.ts.
export const cronScheduleSchema = z.strictObject({
  type: z.literal("cron"),
  expr: z
    .string()
    .min(1)
    .max(256)
    .superRefine((expr, ctx) => {
      for (const message of cronExprIssues(expr)) ctx.addIssue({ code: "custom", message });
    }),
  timezone: zoneSchema,
  dst: dstPolicySchema.optional(),
});

export const intervalScheduleSchema = z.strictObject({
  type: z.literal("interval"),
  every: durationSchema({ minMs: 1_000 }),
  anchor: instant.optional(),
});

/**
 * The first instant a one-shot may not name: the shard's alarm (workerd keeps alarm times as
 * int64 nanoseconds since the epoch, which end at 2262-04-11) must be able to hold it.
 */
export const MAX_ONCE_AT = "2200-01-01T00:00:00Z";

export const onceScheduleSchema = z
  .strictObject({
    type: z.literal("once"),
    at: instant.optional(),
    delay: durationSchema().optional(),
  })
  .superRefine((schedule, ctx) => {
    if ((schedule.at === undefined) === (schedule.delay === undefined)) {
      ctx.addIssue({ code: "custom", path: ["at"], message: "give exactly one of `at` or `delay`" });
    }
    if (schedule.at !== undefined && Date.parse(schedule.at) >= Date.parse(MAX_ONCE_AT)) {
      ctx.addIssue({ code: "custom", path: ["at"], message: `must be before ${MAX_ONCE_AT}` });
    }
  });

export const scheduleSchema = z.discriminatedUnion("type", [
  cronScheduleSchema,
  intervalScheduleSchema,
  onceScheduleSchema,
]);

/** Several specs whose instants are unioned (see schedule-set.ts); exactly one of `schedule` or this. */
export const MAX_SCHEDULES_PER_JOB = 10;
export const schedulesSchema = z.array(scheduleSchema).min(1).max(MAX_SCHEDULES_PER_JOB);

export type CronSchedule = z.infer<typeof cronScheduleSchema>;
export type IntervalSchedule = z.infer<typeof intervalScheduleSchema>;
export type OnceSchedule = z.infer<typeof onceScheduleSchema>;
export type Schedule = z.infer<typeof scheduleSchema>;
