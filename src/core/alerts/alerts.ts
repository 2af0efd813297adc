// Where an alert stands: its states for an operator, whether it reached anyone, who resolved it
// (its kinds are in alert-kinds.ts). The API, the console and the CLI all list exactly these.

export { ALERT_KINDS, type AlertKind } from "./alert-kinds";

/**
 * Where an alert stands: open (nobody acted on it), acknowledged (an operator has seen it; still
 * unresolved), resolved (an operator resolved it, or its cause went away: a missed_run alert
 * resolves itself when its job fires again).
 */
export const ALERT_STATES = ["open", "acknowledged", "resolved"] as const;
export type AlertState = (typeof ALERT_STATES)[number];

/**
 * Delivery of an alert: pending (not tried yet), delivered (every URL answered 2xx), failed (the
 * last attempt failed; retried for an hour), none (no webhook and no on_failure URL: nowhere to go).
 * Each URL is delivered (and retried) on its own; the alert sums them up.
 */
export const ALERT_DELIVERIES = ["pending", "delivered", "failed", "none"] as const;
export type AlertDelivery = (typeof ALERT_DELIVERIES)[number];

/** Where an alert is delivered: its tenant's webhook, and for a dead-lettered run the job's on_failure URL. */
export type AlertDeliveryTarget = "webhook" | "on_failure";

/** Who or what resolved an alert. */
export const ALERT_RESOLUTIONS = ["job_fired_again", "operator", "throttle_ended"] as const;
export type AlertResolution = (typeof ALERT_RESOLUTIONS)[number];

/**
 * An alert's state from its two times; resolved wins over acknowledged.
 *
 * @example alertStateOf({ acknowledgedAtMs: 5, resolvedAtMs: null }) === "acknowledged"
 */
export function alertStateOf(alert: {
  acknowledgedAtMs: number | null;
  resolvedAtMs: number | null;
}): AlertState {
  if (alert.resolvedAtMs !== null) return "resolved";
  return alert.acknowledgedAtMs !== null ? "acknowledged" : "open";
}
