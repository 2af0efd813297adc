import { z } from "zod";

/** What a job does with an instant due while its previous run is still in flight. */
export const overlapPolicySchema = z.enum(["allow", "skip", "buffer_one", "buffer_all"]);
export type OverlapPolicy = z.infer<typeof overlapPolicySchema>;

export type OverlapDecision = "run" | "skip" | "buffer";

/**
 * What to do with a due instant of a job whose previous run may still be in flight.
 *
 * | policy       | nothing in flight | in flight                                        |
 * |--------------|-------------------|--------------------------------------------------|
 * | `allow`      | run               | run                                              |
 * | `skip`       | run               | skip                                             |
 * | `buffer_one` | run               | buffer if nothing is buffered yet, else skip     |
 * | `buffer_all` | run               | buffer while `bufferedCount < maxBuffered`, else skip |
 *
 * For the buffer policies a run that is buffered but not yet promoted (nothing in flight, the
 * shard has not started it) counts as in flight: the new instant queues behind it, so buffered
 * runs always start in scheduled order.
 *
 * @example overlapDecision({ policy: "buffer_one", inFlightCount: 1, bufferedCount: 1, maxBuffered: 100 }) === "skip"
 */
export function overlapDecision(input: {
  policy: OverlapPolicy;
  inFlightCount: number;
  bufferedCount: number;
  maxBuffered: number;
}): OverlapDecision {
  const { policy, inFlightCount, bufferedCount, maxBuffered } = input;
  switch (policy) {
    case "allow":
      return "run";
    case "skip":
      return inFlightCount > 0 ? "skip" : "run";
    case "buffer_one":
      if (inFlightCount === 0 && bufferedCount === 0) return "run";
      return bufferedCount === 0 ? "buffer" : "skip";
    case "buffer_all":
      if (inFlightCount === 0 && bufferedCount === 0) return "run";
      return bufferedCount < maxBuffered ? "buffer" : "skip";
  }
}
