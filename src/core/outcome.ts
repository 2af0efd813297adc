/** What happened when we called a target, classified once (see classifyTargetResponse). */
export type TargetOutcome =
  | { kind: "success"; status: number; durationMs: number }
  | {
      kind: "retryable";
      status: number | null;
      error: string;
      retryAfterMs: number | null;
      durationMs: number;
    }
  | { kind: "permanent"; status: number | null; error: string; durationMs: number };
