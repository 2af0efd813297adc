// calendars.replace: creates or replaces a calendar. The jobs that name it are marked unsynced in
// the same D1 batch, then pushed: their shards re-derive the timers (the outbox re-sends any push
// that fails).
import { type CalendarBody, type StoredCalendar, upsertCalendar } from "../../db/calendars";
import { jobStores } from "../../db/databases";
import { syncJobs } from "../job-writes";

export async function replaceCalendar(
  env: Env,
  tenantId: string,
  name: string,
  body: CalendarBody,
  nowMs: number,
): Promise<StoredCalendar> {
  const result = await upsertCalendar(env.DB, jobStores(env), tenantId, name, body, nowMs);
  await syncJobs(env, result.jobs);
  return result.calendar;
}
