// The typed client's error codes and resource types are the server's own (checked by tsc, which
// typechecks test/node, and run as a test so a regression names itself).
import { describe, expectTypeOf, it } from "vitest";
import type { EdgecronProblemError, ErrorCode, Job, JobStatus, Run, RunState } from "../../src/client";
import type { ErrorCode as ServerErrorCode } from "../../src/core/common/errors";
import type { JOB_STATUSES, RUN_STATES } from "../../src/core/runs/run-state";

describe("the typed client", () => {
  it("types a problem's code as the server's error catalogue", () => {
    expectTypeOf<ErrorCode>().toEqualTypeOf<ServerErrorCode>();
    expectTypeOf<EdgecronProblemError["code"]>().toEqualTypeOf<ErrorCode | undefined>();
    expectTypeOf<"job_not_found">().toExtend<ErrorCode>();
    expectTypeOf<"no_such_code">().not.toExtend<ErrorCode>();
  });

  it("types statuses and states from the server's lists", () => {
    expectTypeOf<JobStatus>().toEqualTypeOf<(typeof JOB_STATUSES)[number]>();
    expectTypeOf<RunState>().toEqualTypeOf<(typeof RUN_STATES)[number]>();
    expectTypeOf<Job["status"]>().toEqualTypeOf<JobStatus>();
    expectTypeOf<Run["state"]>().toEqualTypeOf<RunState>();
  });
});
