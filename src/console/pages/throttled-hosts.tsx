// The destination hosts the tenant's calls are throttled at (they said "slow down"), on the
// Limits page: each host's limit now, calls in flight, runs waiting, pause and last signal.
import { ColumnHeads, Empty, TableWrap } from "../components";
import { Time } from "../format";

export interface ThrottledHostView {
  origin: string;
  limit: number;
  in_flight: number;
  waiting: number;
  paused_until: string | null;
  last_signal: "rate_limited" | "unavailable" | "timeout";
  last_signal_at: string;
}

const SIGNAL_TEXT: Record<ThrottledHostView["last_signal"], string> = {
  rate_limited: "429 Too Many Requests",
  unavailable: "503 Service Unavailable",
  timeout: "timed out",
};

export function ThrottledHosts({ hosts }: { hosts: ThrottledHostView[] }) {
  if (hosts.length === 0) {
    return <Empty>No target host is throttled: none answered 429 or 503 or timed out lately.</Empty>;
  }
  return (
    <TableWrap label="Throttled hosts">
      <table data-field="throttled-hosts">
        <ColumnHeads
          names={["Host", "Limit (calls in flight)", "In flight", "Waiting", "Paused until", "Last signal"]}
        />
        <tbody>
          {hosts.map((host) => (
            <tr data-host-row={host.origin}>
              <th scope="row">{host.origin}</th>
              <td>{host.limit}</td>
              <td>{host.in_flight}</td>
              <td>{host.waiting}</td>
              <td>{host.paused_until === null ? "not paused" : <Time iso={host.paused_until} />}</td>
              <td>
                {SIGNAL_TEXT[host.last_signal]} (<Time iso={host.last_signal_at} />)
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}
