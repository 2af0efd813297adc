import { Badge, Empty, Pager, ProblemBox, TableWrap } from "../components";
import { BASE } from "../env";
import { Time } from "../format";
import type { Alert, Problem } from "../types";

const KINDS = ["missed_run", "dead_letter", "failure", "paused_after_failures"];

export function AlertsPage(props: {
  kind: string;
  alerts: Alert[];
  nextCursor: string | null;
  problem?: Problem;
}) {
  return (
    <>
      <form method="get" action={`${BASE}/alerts`} class="filters" aria-label="Filter alerts">
        <div class="field">
          <label for="filter-kind">Kind</label>
          <input
            id="filter-kind"
            name="kind"
            type="search"
            list="alert-kinds"
            value={props.kind}
            autocomplete="off"
          />
          <datalist id="alert-kinds">
            {KINDS.map((kind) => (
              <option value={kind} />
            ))}
          </datalist>
        </div>
        <div class="actions">
          <button type="submit">Filter</button>
        </div>
      </form>
      {props.problem ? <ProblemBox problem={props.problem} /> : null}
      {props.alerts.length === 0 && !props.problem ? <Empty>No alerts.</Empty> : null}
      {props.alerts.length > 0 ? (
        <TableWrap label="Alerts">
          <table>
            <thead>
              <tr>
                <th scope="col">Status</th>
                <th scope="col">Kind</th>
                <th scope="col">Message</th>
                <th scope="col">Job / run</th>
                <th scope="col">Raised</th>
                <th scope="col">Delivered</th>
                <th scope="col">Resolved</th>
              </tr>
            </thead>
            <tbody>
              {props.alerts.map((alert) => (
                <tr>
                  <td>
                    <Badge value={alert.resolved_at ? "RESOLVED" : "OPEN"} />
                  </td>
                  <td>{alert.kind}</td>
                  <td>{alert.message}</td>
                  <td>
                    {alert.job_id ? (
                      <a href={`${BASE}/jobs/${encodeURIComponent(alert.job_id)}`} class="mono">
                        {alert.job_id}
                      </a>
                    ) : (
                      "—"
                    )}
                    {alert.run_id ? <div class="muted mono">{alert.run_id}</div> : null}
                  </td>
                  <td>
                    <Time iso={alert.created_at} />
                  </td>
                  <td>
                    <Time iso={alert.delivered_at} />
                  </td>
                  <td>
                    <Time iso={alert.resolved_at} />
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
