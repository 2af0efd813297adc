// Resource shapes the console reads: the typed client's, which derive them from the API's own
// schemas (src/api/v1/schemas.ts), so a field the API renames breaks the console's build.
import type { CalendarDetail, Calendar as CalendarResource } from "../client/types";
import type { Problem as ServerProblem } from "../core/common/errors";

export type {
  Alert,
  DeadLetter,
  Job,
  JobTarget,
  Me,
  Page,
  Run,
  RunEvent,
  Stats,
  Tenant,
  TzdataStatus,
} from "../client/types";

/** A calendar as listed; `jobs` only on GET /v1/calendars/{name}. */
export type Calendar = CalendarResource & Partial<Pick<CalendarDetail, "jobs">>;

/**
 * A problem as the console shows it: the API's problem+json, or one the console makes for an
 * answer that is not one (no `type`, maybe no `detail` or `code`).
 */
export interface Problem
  extends Pick<ServerProblem, "title" | "status">,
    Partial<Pick<ServerProblem, "type" | "detail" | "code" | "errors">> {}

export type ApiResult<T> =
  | { ok: true; status: number; data: T }
  | { ok: false; status: number; problem: Problem };

export { JOB_STATUSES, RUN_STATES } from "../core/runs/run-state";
