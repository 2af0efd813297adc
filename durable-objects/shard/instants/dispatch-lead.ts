// How far ahead of its instant a run may be created and sent at most, whatever DISPATCH_LEAD_MS
// says (../dispatch/pass-settings.ts reads the setting): firing a job reads it too, to tell whether
// the job's end is within the lead of now.

/** Beyond this a run waits on the timing wheel, not in the queue. */
export const MAX_DISPATCH_LEAD_MS = 60_000;
