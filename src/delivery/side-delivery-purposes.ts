// What each purpose of a side delivery records once an attempt ends.
import { recordAlertDeliveryAttempt } from "../db/alert-deliveries";
import type { SideDelivery, SideDeliveryAttempt } from "../queue/side-delivery-types";

/** Records the attempt where its purpose keeps delivery state; throws when that store fails. */
export async function recordSideDeliveryAttempt(
  env: Env,
  delivery: SideDelivery,
  attempt: SideDeliveryAttempt,
): Promise<void> {
  const { purpose } = delivery;
  switch (purpose.kind) {
    case "alert":
      await recordAlertDeliveryAttempt(env.DB, purpose.alertId, purpose.target, {
        delivered: attempt.ok,
        error: attempt.ok ? null : attempt.error,
        atMs: Date.now(),
      });
      return;
    case "qstash_callback":
      return;
  }
}
