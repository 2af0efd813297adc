// The alarm this shard instance has set, kept in memory so an unchanged plan costs no storage
// call (getAlarm/setAlarm are storage operations).
import type { AlarmPlan } from "./alarm-plan";

export class ArmedAlarm {
  /** The instant of the alarm set, as far as this instance knows (null: none). */
  atMs: number | null = null;

  constructor(
    private readonly storage: DurableObjectStorage,
    /** Told of every setAlarm (billed as one row written: src/rows-meter.ts). */
    private readonly onSet?: () => void,
  ) {}

  async apply(plan: AlarmPlan): Promise<void> {
    if (plan.action === "keep") return;
    if (plan.action === "clear") {
      await this.delete();
      return;
    }
    await this.storage.setAlarm(plan.atMs);
    this.onSet?.();
    this.atMs = plan.atMs;
  }

  async delete(): Promise<void> {
    await this.storage.deleteAlarm();
    this.atMs = null;
  }
}
