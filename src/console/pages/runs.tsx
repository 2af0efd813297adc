import type { ListPageProps } from "../components";
import {
  ActionForm,
  Badge,
  Empty,
  JobRef,
  Notice,
  Pager,
  ProblemBox,
  RunLink,
  TableWrap,
} from "../components";
import { BASE } from "../env";
import { FilterForm, JobIdFilter, StateFilter } from "../filters";
import { Time } from "../format";
import { LatenessCell, WaitingNote } from "../run-wait-cells";
import { RUN_STATES, type Run } from "../types";

const RETRYABLE = new Set(["FAILED", "DEAD_LETTERED"]);

export function RunsTable({
  runs,
  csrf,
  showJob,
  jobNames = new Map(),
}: {
  runs: Run[];
  csrf: string;
  showJob: boolean;
  jobNames?: ReadonlyMap<string, string>;
}) {
  return (
    <TableWrap label="Runs">
      <table class="runs">
        <thead>
          <tr>
            {showJob ? <th scope="col">Job</th> : null}
            <th scope="col">Scheduled</th>
            <th scope="col">Kind</th>
            <th scope="col">State</th>
            <th scope="col">Attempt</th>
            <th scope="col">Lateness</th>
            <th scope="col">Target status</th>
            <th scope="col">Error</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {runs.map((run) => (
            <tr data-run-id={run.id} data-state={run.state}>
              {showJob ? (
                <td>
                  <JobRef jobId={run.job_id} names={jobNames} />
                </td>
              ) : null}
              <td>
                <Time iso={run.scheduled_at} />
                <div>
                  <RunLink runId={run.id} label="History" />
                </div>
              </td>
              <td>{run.kind}</td>
              <td>
                <Badge value={run.state} />
                {run.state === "RUNNING" && run.accepted_at ? <div class="muted">awaiting target</div> : null}
                <WaitingNote run={run} />
                {run.next_attempt_at ? (
                  <div class="muted">
                    next attempt <Time iso={run.next_attempt_at} />
                  </div>
                ) : null}
              </td>
              <td>
                {run.attempt}/{run.max_attempts}
              </td>
              <td>
                <LatenessCell run={run} />
              </td>
              <td>{run.target_status ?? "—"}</td>
              <td class="error-text">{run.error ?? "—"}</td>
              <td>
                {RETRYABLE.has(run.state) ? (
                  <ActionForm
                    action={`${BASE}/runs/${encodeURIComponent(run.id)}/retry`}
                    csrf={csrf}
                    label="Retry"
                    ariaLabel={`Retry run ${run.id}`}
                    confirm={`Retry run ${run.id} now?`}
                  />
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

export function RunsPage(
  props: ListPageProps & { state: string; jobId: string; runs: Run[]; jobNames: ReadonlyMap<string, string> },
) {
  return (
    <>
      <Notice text={props.notice} />
      <FilterForm path="/runs" label="Filter runs">
        <StateFilter values={RUN_STATES} selected={props.state} />
        <JobIdFilter id="filter-job" value={props.jobId} />
      </FilterForm>
      {props.problem ? <ProblemBox problem={props.problem} /> : null}
      {props.runs.length ? (
        <RunsTable runs={props.runs} csrf={props.csrf} showJob={true} jobNames={props.jobNames} />
      ) : props.problem ? null : (
        <Empty>No runs match.</Empty>
      )}
      <Pager
        base={`${BASE}/runs`}
        params={{ state: props.state, job_id: props.jobId }}
        cursor={props.nextCursor}
      />
    </>
  );
}
