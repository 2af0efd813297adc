// Public surface of the edgecron client: `import { EdgecronClient } from "edgecron/client"` in Node,
// Workers or browsers (package.json `exports`; built by scripts/build-client.mjs).
export { EdgecronClient, type EdgecronClientOptions } from "./client";
export { EdgecronNetworkError, EdgecronProblemError } from "./errors";
export type { CreateOptions, UpdateOptions } from "./resources/jobs";
export { MAX_BATCH_SIZE } from "./resources/jobs";
export type { ScheduleFileApply, ScheduleFilePlan, ScheduleFileRequest } from "./resources/schedule-files";
export type { RetryPolicy } from "./retry";
export type { CallOptions, FetchLike, RawResponse, RequestSpec } from "./transport";
export type * from "./types";
export {
  canonicalSignatureString,
  type Secrets,
  type SignedRequestParts,
  sha256Hex,
  type VerifyFailureReason,
  type VerifyOptions,
  type VerifyPartsInput,
  type VerifyRequestOptions,
  type VerifyResult,
  verifySignature,
  verifySignatureParts,
} from "./verify";
