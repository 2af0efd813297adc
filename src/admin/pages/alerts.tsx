import { ALERT_KINDS } from "../../core/alert-kinds";
import { Badge, Empty, JobRef, Pager, ProblemBox, RunLink, TableWrap } from "../components";
import { BASE } from "../env";
import { Time } from "../format";
import type { Alert, Problem } from "../types";

export function AlertsPage(props: {
  kind: string;
  alerts: Alert[];
  jobNames: ReadonlyMap<string, string>;
  nextCursor: string | null;
  problem?: Problem;
}) {
  return (
    <>
      <form method="get" action={`${BASE}/alerts`} class="filters" aria-label="Filter alerts">
        <div class="field">
          <label for="filter-kind">Kind</label>
          <select id="filter-kind" name="kind">
            <option value="">Any kind</option>
            {ALERT_KINDS.map((kind) => (
              <option value={kind} selected={kind === props.kind}>
                {kind.replaceAll("_", " ")}
              </option>
            ))}
          </select>
        </div>
        <div class="actions">
          <button type="submit">Filter</button>
        </div>
      </form>
      {props.problem ? <ProblemBox problem={props.problem} /> : null}
      {props.alerts.length === 0 && !props.problem ? <Empty>No alerts.</Empty> : null}
      {props.alerts.length > 0 ? (
        <TableWrap label="Alerts">
          <table class="alerts">
            <thead>
              <tr>
                <th scope="col">Status</th>
                <th scope="col">Kind</th>
                <th scope="col">Message</th>
                <th scope="col">Job</th>
                <th scope="col">Run</th>
                <th scope="col">When (UTC)</th>
              </tr>
            </thead>
            <tbody>
              {props.alerts.map((alert) => (
                <tr data-alert-id={alert.id}>
                  <td>
                    <Badge value={alert.resolved_at ? "RESOLVED" : "OPEN"} />
                  </td>
                  <td>{alert.kind}</td>
                  <td class="message-text">{alert.message}</td>
                  <td>{alert.job_id ? <JobRef jobId={alert.job_id} names={props.jobNames} /> : "—"}</td>
                  <td>{alert.run_id ? <RunLink runId={alert.run_id} label="History" /> : "—"}</td>
                  <td>
                    <dl class="timeline">
                      <dt>raised</dt>
                      <dd>
                        <Time iso={alert.created_at} />
                      </dd>
                      <dt>delivered</dt>
                      <dd>
                        <Time iso={alert.delivered_at} />
                      </dd>
                      <dt>resolved</dt>
                      <dd>
                        <Time iso={alert.resolved_at} />
                      </dd>
                    </dl>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      ) : null}
      <Pager base={`${BASE}/alerts`} params={{ kind: props.kind }} cursor={props.nextCursor} />
    </>
  );
}
