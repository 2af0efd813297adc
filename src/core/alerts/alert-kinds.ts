/** What an alert can be about: one list for the raiser, the API, the CLI and the console's filter. */
export const ALERT_KINDS = [
  "dead_lettered",
  "paused_after_failures",
  "missed_run",
  "tenant_throttled",
] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];
