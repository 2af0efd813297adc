import { iso, isoOrNull, parseJsonColumn } from "../../../core/common/stored-values";
import type { DeadLetterRow } from "../../../service/dead-letters";

/** The dead letter resource of docs/API.md. */
export function deadLetterResource(row: DeadLetterRow) {
  return {
    id: row.id,
    job_id: row.job_id,
    run_id: row.run_id,
    attempt: row.attempt,
    scheduled_at: iso(row.scheduled_at_ms),
    reason: row.reason,
    last_error: row.last_error,
    target_status: row.target_status,
    payload: parseJsonColumn<unknown>(row.payload_json, null),
    created_at: iso(row.created_at_ms),
    redriven_at: isoOrNull(row.redriven_at_ms),
  };
}
