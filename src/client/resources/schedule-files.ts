// `client.scheduleFiles`: schedules as code (docs/SCHEDULES-AS-CODE.md). What applying a schedule
// file would change (`plan`), and making it so (`apply`): the same routes the CLI and CI use.
import type { FileApply, FilePlan } from "../../core/schedule-file/plan-schema";
import type { FileRequestInput } from "../../core/schedule-file/request";
import type { CallOptions, Transport } from "../transport";

export type ScheduleFileRequest = FileRequestInput;
export type ScheduleFilePlan = FilePlan;
export type ScheduleFileApply = FileApply;

export class ScheduleFilesResource {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** What applying the file (or one page of it: `scope`) would do; changes nothing. */
  plan(request: ScheduleFileRequest, options: CallOptions = {}): Promise<ScheduleFilePlan> {
    return this.#transport.call({
      method: "POST",
      path: "/v1/plans",
      body: request,
      idempotent: true,
      ...options,
    });
  }

  /**
   * Makes the tenant what the file says; a retry, or a second apply, finds nothing left to do.
   * 400 naming every bad field, or 409 `schedule_file_conflict`, before anything is written.
   */
  apply(request: ScheduleFileRequest, options: CallOptions = {}): Promise<ScheduleFileApply> {
    return this.#transport.call({
      method: "POST",
      path: "/v1/applies",
      body: request,
      idempotent: true,
      ...options,
    });
  }
}
