import type { LatenessSummary } from "../../service/run-stats";
import { BarList, LatenessChart, PerMinuteChart } from "../charts";
import { Badge, ColumnHeads, Empty, JobRef, ProblemBox, RunLink, TableWrap } from "../components";

import { BASE } from "../env";
import { Time } from "../format";
import {
  type Alert,
  JOB_STATUSES,
  type Problem,
  RUN_STATES,
  type Run,
  type Stats,
  type TzdataStatus,
} from "../types";
import { TzdataCard } from "./tzdata-card";

const RUN_TONES: Record<string, string> = {
  SUCCEEDED: "good",
  FAILED: "bad",
  DEAD_LETTERED: "bad",
  RETRYING: "warn",
  SKIPPED: "muted",
  CANCELLED: "muted",
};

function countRows(
  counts: Record<string, number>,
  order: readonly string[],
  tones: Record<string, string> = {},
) {
  const keys = [
    ...order.filter((key) => key in counts),
    ...Object.keys(counts).filter((key) => !order.includes(key)),
  ];
  return keys.map((key) => ({ label: key, value: counts[key] ?? 0, tone: tones[key] }));
}

/**
 * The tenant learns why its runs are late while it floods: they wait in the shards for its share
 * of the dispatch window, which other tenants' work holds the rest of.
 */
function ShareWaitNotice({ wait }: { wait: Stats["share_wait"] }) {
  if (wait === undefined || !wait.throttled) return null;
  return (
    <section class="card wide" role="status" aria-labelledby="share-wait" data-field="share-wait">
      <h2 id="share-wait">Throttled by the tenant's share</h2>
      <p>
        {wait.waiting_runs.toLocaleString("en-US")} due {wait.waiting_runs === 1 ? "run waits" : "runs wait"}{" "}
        on {wait.shards} {wait.shards === 1 ? "shard" : "shards"} for this tenant's share of the dispatch
        window
        {wait.waiting_since === null ? "" : ", the oldest since "}
        {wait.waiting_since === null ? null : <Time iso={wait.waiting_since} />}. More due work than the
        scheduler can start is shared between the tenants with work due; an admin can raise this tenant's
        weight.
      </p>
    </section>
  );
}

export function OverviewPage(props: {
  stats: Stats | Problem;
  lateness: LatenessSummary;
  failures: Run[];
  alerts: Alert[];
  jobNames: ReadonlyMap<string, string>;
  /** Admin only (null for a tenant, or when the call failed). */
  tzdata: TzdataStatus | null;
}) {
  const { stats } = props;
  return (
    <>
      {"title" in stats ? null : <ShareWaitNotice wait={stats.share_wait} />}
      {"title" in stats ? (
        <ProblemBox problem={stats} />
      ) : (
        <div class="grid">
          <section class="card" aria-labelledby="jobs-by-status">
            <h2 id="jobs-by-status">Jobs by status</h2>
            <BarList
              id="jobs-chart"
              title="Jobs by status"
              rows={countRows(stats.jobs_by_status, JOB_STATUSES, { ACTIVE: "good", PAUSED: "warn" })}
            />
          </section>
          <section class="card" aria-labelledby="runs-by-state">
            <h2 id="runs-by-state">Runs by state</h2>
            <BarList
              id="runs-chart"
              title="Runs by state"
              rows={countRows(stats.runs_by_state, RUN_STATES, RUN_TONES)}
            />
          </section>
          <section class="card wide" aria-labelledby="per-minute">
            <h2 id="per-minute">Triggers per minute, last hour</h2>
            <PerMinuteChart points={stats.per_minute} />
          </section>
          <section class="card wide" aria-labelledby="lateness">
            <h2 id="lateness">Lateness percentiles, last hour</h2>
            <p class="muted">
              From scheduled instant to dispatch, split: the scheduler's own part runs from when a run could
              go out (its instant, or the end of what its job asked for) to its dispatch; the jobs' own waits
              (overlap buffers, flow control, tenant limits, backfills, catch-up, the instants a paused job
              missed, fired on resume) are counted apart.
            </p>
            <LatenessChart lateness={props.lateness} />
          </section>
        </div>
      )}
      <div class="grid">
        <section class="card wide" aria-labelledby="recent-failures">
          <h2 id="recent-failures">Recent failures</h2>
          {props.failures.length === 0 ? (
            <Empty>No failed or dead-lettered runs.</Empty>
          ) : (
            <TableWrap label="Recent failures">
              <table>
                <ColumnHeads names={["Run", "State", "Scheduled", "Attempt", "Target", "Error"]} />
                <tbody>
                  {props.failures.map((run) => (
                    <tr>
                      <td>
                        <JobRef jobId={run.job_id} names={props.jobNames} />
                        <RunLink runId={run.id} label="History" />
                      </td>
                      <td>
                        <Badge value={run.state} />
                      </td>
                      <td>
                        <Time iso={run.scheduled_at} />
                      </td>
                      <td>
                        {run.attempt}/{run.max_attempts}
                      </td>
                      <td>{run.target_status ?? "—"}</td>
                      <td class="error-text">{run.error ?? "—"}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )}
        </section>
        <section class="card wide" aria-labelledby="open-alerts">
          <h2 id="open-alerts">Open alerts</h2>
          {props.alerts.length === 0 ? (
            <Empty>No open alerts.</Empty>
          ) : (
            <ul class="alert-list">
              {props.alerts.map((alert) => (
                <li>
                  <Badge value={alert.kind} /> {alert.message} <Time iso={alert.created_at} />
                  {alert.job_id ? (
                    <>
                      {" "}
                      <a href={`${BASE}/jobs/${encodeURIComponent(alert.job_id)}`} title={alert.job_id}>
                        job {props.jobNames.get(alert.job_id) ?? alert.job_id}
                      </a>
                    </>
                  ) : null}
                </li>
              ))}
            </ul>
          )}
          <p>
            <a href={`${BASE}/alerts?state=open`}>Acknowledge or resolve them on the Alerts page →</a>
          </p>
        </section>
        {props.tzdata ? <TzdataCard status={props.tzdata} /> : null}
      </div>
    </>
  );
}
