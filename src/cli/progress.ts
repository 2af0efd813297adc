import type { Io } from "./context";

export interface Progress {
  update(sent: number, created: number, failed: number): void;
  done(created: number, failed: number): void;
}

const BAR_WIDTH = 30;

/** A one-line progress bar on stderr, redrawn in place; silent when stderr is not a terminal. */
export function createProgress(io: Io, total: number, enabled: boolean): Progress {
  if (!enabled || !io.stderr.isTTY || total === 0) return { update() {}, done() {} };
  return {
    update(sent, created, failed) {
      io.stderr.write(`\r${progressLine(sent, total, created, failed)}`);
    },
    done() {
      io.stderr.write("\n");
    },
  };
}

/** `[###########-------------------]  3000/8000  created 2990  failed 10`. */
export function progressLine(sent: number, total: number, created: number, failed: number): string {
  const filled = total === 0 ? BAR_WIDTH : Math.round((sent / total) * BAR_WIDTH);
  const bar = `${"#".repeat(filled)}${"-".repeat(BAR_WIDTH - filled)}`;
  return `[${bar}] ${String(sent).padStart(String(total).length)}/${total}  created ${created}  failed ${failed}`;
}
