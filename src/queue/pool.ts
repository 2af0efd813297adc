/**
 * Runs `fn` over `items` with at most `concurrency` calls in flight; results keep the order of
 * `items`. Never rejects because one item failed: each result is settled like
 * Promise.allSettled's, so one bad target cannot sink a whole queue batch.
 *
 * Why a pool at all: under `wrangler dev` every outbound fetch is proxied through wrangler's
 * Node process and holds several sockets for seconds; thousands at once exhaust file
 * descriptors (docs/TOOLCHAIN.md). The consumer sends every target call through here.
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

/**
 * A concurrency limit shared by independent callers: `limit(fn)` starts fn once fewer than
 * `concurrency` are running, in call order. The dispatch consumer shares one across the messages
 * of a batch, so target calls stay bounded however many messages are in flight.
 *
 * @example
 * const limit = limiter(64);
 * const outcomes = await Promise.all(runs.map((run) => limit(() => call(run))));
 */
export function limiter(concurrency: number): <R>(fn: () => Promise<R>) => Promise<R> {
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
  }
  let running = 0;
  const waiting: (() => void)[] = [];
  const release = () => {
    running -= 1;
    waiting.shift()?.();
  };
  return async <R>(fn: () => Promise<R>): Promise<R> => {
    if (running >= concurrency) await new Promise<void>((resolve) => waiting.push(resolve));
    running += 1;
    try {
      return await fn();
    } finally {
      release();
    }
  };
}
