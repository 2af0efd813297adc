// Post/redirect/get: actions redirect with a notice code; only these fixed texts are ever shown.
const NOTICES: Record<string, (count: string | undefined) => string> = {
  created: () => "Job created. It is scheduled; its next fire times are below.",
  updated: () => "Job saved: a new version is scheduled.",
  paused: () => "Job paused: nothing fires until you resume it.",
  resumed: () => "Job resumed.",
  triggered: () => "Run triggered: it shows in the run history once dispatched.",
  deleted: () => "Job deleted; its pending runs were cancelled.",
  backfilled: (count) => `Backfill accepted: ${count ?? "some"} run(s) created.`,
  retried: () => "Retry queued.",
  calendar_saved: () => "Calendar saved: the jobs that name it were re-scheduled with it.",
  calendar_deleted: () => "Calendar deleted.",
  redriven: (count) => `Redrive accepted for ${count ?? "the selected"} dead letter(s).`,
  acknowledged: () => "Alert acknowledged: it stays listed until resolved.",
  resolved: () => "Alert resolved.",
  bulk_pause: (count) => `Paused: ${count ?? "the"} matching job(s) are paused.`,
  bulk_resume: (count) => `Resumed: ${count ?? "the"} matching job(s) are active.`,
  bulk_delete: (count) => `Deleted: ${count ?? "the"} matching job(s); their pending runs were cancelled.`,
  suspended: () =>
    "Tenant suspended: no call of it starts, and its creates, triggers, backfills, retries and redrives are refused.",
  unsuspended: () => "Tenant unsuspended: its jobs run again.",
};

export function noticeText(code: string | undefined, count: string | undefined): string | undefined {
  if (!code) return undefined;
  const notice = NOTICES[code];
  return notice ? notice(count && /^\d+$/.test(count) ? count : undefined) : undefined;
}
