// Where a shard's injected faults take effect (which faults exist: src/test-faults.ts). The
// ShardScheduler consults them through one seam, `ShardTestSeam`; unless the EDGECRON_TEST_HOOKS
// binding is "1" that seam is INERT_SHARD_SEAM, which reads nothing, stores nothing and injects
// nothing.

import type { ShardFaults, ShardTestCommand } from "../../src/test-faults";
import { setTzdataOverride } from "../../src/tzdata";
import type { TickSettings } from "./dispatch/pass-settings";
import type { ArmedAlarm } from "./wheel/armed-alarm";

export interface ShardTestSeam {
  /** Before an RPC that can be made to fail: throws while an injected failure is pending. */
  beforeRpc(): Promise<void>;
  /** The pass's settings with the send faults and the mid-pass crash wired in. */
  tickSettings(settings: TickSettings): TickSettings;
  /** Before the write-behind (history, job statuses, dead letters): throws while D1 is made to fail. */
  beforeFlush(): void;
  /** True while a simulated alarm loss must stay unrepaired. */
  alarmHeld(nowMs: number): boolean;
  /** Jobs re-derived per alarm after a tz database change (undefined: the default). */
  rederiveBatchJobs(): number | undefined;
  run(command: ShardTestCommand, alarm: ArmedAlarm): Promise<ShardFaults>;
}

export const INERT_SHARD_SEAM: ShardTestSeam = {
  beforeRpc: async () => {},
  tickSettings: (settings) => settings,
  beforeFlush: () => {},
  alarmHeld: () => false,
  rederiveBatchJobs: () => undefined,
  run: async () => {
    throw new Error("test hooks are disabled");
  },
};

const FAULTS_KEY = "faults";

/** The seam for this shard: live (faults loaded from storage) only with test hooks enabled. */
export async function loadShardTestSeam(env: Env, storage: DurableObjectStorage): Promise<ShardTestSeam> {
  if (env.EDGECRON_TEST_HOOKS !== "1") return INERT_SHARD_SEAM;
  return new LiveShardTestSeam(storage, (await storage.get<ShardFaults>(FAULTS_KEY)) ?? {});
}

class LiveShardTestSeam implements ShardTestSeam {
  private alarmLostUntilMs = 0;

  constructor(
    private readonly storage: DurableObjectStorage,
    private faults: ShardFaults,
  ) {}

  async beforeRpc(): Promise<void> {
    if (!this.faults.failClaims) return;
    await this.setFaults({ ...this.faults, failClaims: this.faults.failClaims - 1 });
    throw new Error("fault injected: shard RPC fails");
  }

  tickSettings(settings: TickSettings): TickSettings {
    const { alarmThrowAfterJobs, failSendBatch, dropDispatches } = this.faults;
    const real = settings.queue;
    return {
      ...settings,
      beforeFire: (fired) => {
        if (alarmThrowAfterJobs !== undefined && fired >= alarmThrowAfterJobs)
          throw new Error(`fault injected: alarm throws after ${fired} timers`);
      },
      queue: {
        sendBatch: async (messages) => {
          if (failSendBatch) throw new Error("fault injected: sendBatch throws");
          if (dropDispatches) return;
          return real.sendBatch(messages);
        },
      },
    };
  }

  beforeFlush(): void {
    if (this.faults.failWriteBehind) throw new Error("fault injected: D1 write fails");
  }

  alarmHeld(nowMs: number): boolean {
    return nowMs < this.alarmLostUntilMs;
  }

  rederiveBatchJobs(): number | undefined {
    return this.faults.rederiveBatchJobs;
  }

  async run(command: ShardTestCommand, alarm: ArmedAlarm): Promise<ShardFaults> {
    if (command.op === "set_faults") await this.setFaults(command.faults);
    if (command.op === "set_tzdata") setTzdataOverride(command.override);
    if (command.op === "lose_alarm") {
      await alarm.delete();
      this.alarmLostUntilMs = Date.now() + command.lostForMs;
    }
    return this.faults;
  }

  private async setFaults(faults: ShardFaults): Promise<void> {
    this.faults = faults;
    await this.storage.put(FAULTS_KEY, faults);
  }
}
