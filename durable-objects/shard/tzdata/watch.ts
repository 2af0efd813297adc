// The shard's side of a tz database change, for the facade: compare the runtime's version with
// the timers' once per version seen (the comparison reads storage), then re-derive in the alarm.
import { logEvent } from "../../../src/log";
import { tzdataVersion } from "../../../src/tzdata";
import type { ShardState } from "../state/shard-state";
import { observeTzdata, REDERIVE_BATCH_JOBS, rederiveBatch } from "./timers-version";

export class TzdataWatch {
  private observedVersion: string | null = null;
  private rederiving = false;

  constructor(
    private readonly state: ShardState,
    private readonly env: Env,
  ) {}

  /** True while timers are still being re-derived: the alarm must come back soon. */
  get pending(): boolean {
    return this.rederiving;
  }

  /** Cheap unless the runtime's version differs from the last one seen by this instance. */
  observe(): void {
    const version = tzdataVersion(this.env);
    if (version === this.observedVersion) return;
    this.observedVersion = version;
    this.rederiving = observeTzdata(this.state.sql, version, Date.now());
  }

  /** One bounded batch of re-derivation (in the alarm, before the tick); true while jobs remain. */
  pass(shard: number, batchJobs = REDERIVE_BATCH_JOBS): boolean {
    this.observe();
    if (!this.rederiving) return false;
    this.rederiving = rederiveBatch(this.state, Date.now(), batchJobs);
    if (!this.rederiving) logEvent("shard.tzdata_rederived", { shard, version: this.observedVersion });
    return this.rederiving;
  }
}
