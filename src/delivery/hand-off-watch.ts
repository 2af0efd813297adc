// When a call has run long enough to be handed off (dispatch-consumer.ts). One timer per batch
// checks every call in flight, instead of a timer, a race and a cleared timer per call: over a
// 20,000-run burst those were a visible share of the consumer's CPU per run.

export const HANDED_OFF = Symbol("handed off");

/** How often the watch looks at the calls in flight: a call is handed off within this of its deadline. */
const CHECK_EVERY_MS = 20;

interface Watched {
  deadlineMs: number;
  handOff: () => void;
}

export class HandOffWatch {
  readonly #afterMs: number;
  readonly #watched = new Set<Watched>();
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(afterMs: number) {
    this.#afterMs = afterMs;
  }

  /**
   * The call's outcome, or HANDED_OFF once it has run `afterMs` and `mayHandOff()` still says yes
   * (asked at that moment: room for handed-off calls may have run out meanwhile).
   */
  watch<T>(call: Promise<T>, mayHandOff: () => boolean): Promise<T | typeof HANDED_OFF> {
    return new Promise<T | typeof HANDED_OFF>((resolve, reject) => {
      const entry: Watched = {
        deadlineMs: Date.now() + this.#afterMs,
        handOff: () => {
          if (!mayHandOff()) return;
          this.#watched.delete(entry);
          resolve(HANDED_OFF);
        },
      };
      this.#watched.add(entry);
      this.#arm();
      call.then(
        (value) => {
          if (this.#watched.delete(entry)) resolve(value);
        },
        (error: unknown) => {
          if (this.#watched.delete(entry)) reject(error);
        },
      );
    });
  }

  #arm(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => this.#check(), CHECK_EVERY_MS);
  }

  #check(): void {
    this.#timer = undefined;
    const nowMs = Date.now();
    for (const entry of [...this.#watched]) if (entry.deadlineMs <= nowMs) entry.handOff();
    if (this.#watched.size > 0) this.#arm();
  }
}
