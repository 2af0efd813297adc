import { nextFireTimes } from "../../src/core/schedule";

/**
 * True once the schedule engine (src/core/schedule.ts) is merged. Until then nextFireTimes is a
 * placeholder that throws, and tests that need real fire times are skipped (not failed).
 */
export const engineReady = (() => {
  try {
    nextFireTimes({ type: "interval", every: "1m", anchor: "2026-01-01T00:00:00.000Z" }, 0, 1);
    return true;
  } catch {
    return false;
  }
})();
