/**
 * Runs `fn` over `items` with at most `concurrency` calls in flight; results keep the order of
 * `items`. Never rejects because one item failed: each result is settled like
 * Promise.allSettled's, so one bad target cannot sink a whole queue batch.
 *
 * Why a pool at all: under `wrangler dev` every outbound fetch is proxied through wrangler's
 * Node process and holds several sockets for seconds; thousands at once exhaust file
 * descriptors (docs/PERFORMANCE.md). The consumer sends every target call through here.
 *
 * @example
 * const results = await runPool(messages, 16, (message) => callTarget(...));
 * for (const result of results) if (result.status === "rejected") console.error(result.reason);
 */
export async function runPool<T, R>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<PromiseSettledResult<R>[]> {
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
  }
  const results = new Array<PromiseSettledResult<R>>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      try {
        // `await` inside try also catches a synchronous throw from fn.
        results[index] = { status: "fulfilled", value: await fn(items[index] as T, index) };
      } catch (reason) {
        results[index] = { status: "rejected", reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}

/** A held slot of a semaphore; releasing twice is harmless (the second call does nothing). */
export type Release = () => void;

/**
 * Slots shared by independent callers: `acquire()` resolves, in call order, once fewer than
 * `concurrency` slots are held. A holder may release before its work ends: the dispatch consumer
 * releases the slot of a call it hands off, so a hanging target does not keep it.
 *
 * @example
 * const slots = semaphore(64);
 * const release = await slots.acquire();
 * try { await call(); } finally { release(); }
 */
export function semaphore(concurrency: number): { acquire(): Promise<Release> } {
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
  }
  let held = 0;
  const waiting: ((release: Release) => void)[] = [];
  // A released slot passes straight to the first waiter, so no newcomer can take it in between.
  const slot = (): Release => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = waiting.shift();
      if (next) next(slot());
      else held -= 1;
    };
  };
  return {
    acquire() {
      if (held < concurrency) {
        held += 1;
        return Promise.resolve(slot());
      }
      return new Promise<Release>((resolve) => waiting.push(resolve));
    },
  };
}

/**
 * A concurrency limit shared by independent callers: `limit(fn)` starts fn once fewer than
 * `concurrency` are running, in call order.
 *
 * @example
 * const limit = limiter(64);
 * const outcomes = await Promise.all(runs.map((run) => limit(() => call(run))));
 */
export function limiter(concurrency: number): <R>(fn: () => Promise<R>) => Promise<R> {
  const slots = semaphore(concurrency);
  return async <R>(fn: () => Promise<R>): Promise<R> => {
    const release = await slots.acquire();
    try {
      return await fn();
    } finally {
      release();
    }
  };
}
