import { DurableObject } from "cloudflare:workers";
import { logEvent } from "../../src/log";
import { countAlarmSet, meteredEnv, rowsMeterOn } from "../../src/rows-meter";
import { type MaintenanceSummary, runMaintenancePass } from "./pass";

/**
 * Runs the maintenance pass from a self-re-arming alarm: Cron Triggers never fire locally, and in
 * production the Cron Trigger is the backstop that calls the same pass.
 */
export class Maintenance extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.env = meteredEnv(env);
  }

  /** Arms the alarm if it is not armed; cheap enough to call on every isolate's first request. */
  async ensureScheduled(): Promise<void> {
    const intervalMs = this.intervalMs();
    if (intervalMs <= 0) return;
    if ((await this.ctx.storage.getAlarm()) === null) await this.setAlarm(Date.now() + intervalMs);
  }

  async runNow(): Promise<MaintenanceSummary> {
    return runMaintenancePass(this.env, Date.now());
  }

  override async alarm(): Promise<void> {
    try {
      await runMaintenancePass(this.env, Date.now());
    } catch (error) {
      logEvent("maintenance.failed", { error });
    } finally {
      const intervalMs = this.intervalMs();
      if (intervalMs > 0) await this.setAlarm(Date.now() + intervalMs);
    }
  }

  private async setAlarm(atMs: number): Promise<void> {
    await this.ctx.storage.setAlarm(atMs);
    if (rowsMeterOn(this.env)) countAlarmSet("maintenance");
  }

  private intervalMs(): number {
    return Number(this.env.MAINTENANCE_INTERVAL_MS) || 0;
  }
}
