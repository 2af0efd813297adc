import { ColumnHeads, TableWrap } from "../components";
import type { TzdataStatus } from "../types";

/**
 * Admin overview: the tz database fire times are computed with, and the shards whose timers are
 * still being re-derived for it (after a deploy brought new zone rules).
 */
export function TzdataCard({ status }: { status: TzdataStatus }) {
  const behind = status.shards.filter(
    (shard) => shard.timers_version !== status.tzdata || shard.rederiving_to !== null,
  );
  return (
    <section class="card wide" aria-labelledby="tzdata">
      <h2 id="tzdata">Time-zone data</h2>
      <p>
        Fire times use the tz database <code>{status.tzdata}</code>.{" "}
        {status.up_to_date
          ? `All ${status.shards.length} shards' timers use it.`
          : `${behind.length} of ${status.shards.length} shards are re-deriving their timers for it.`}
      </p>
      {behind.length === 0 ? null : (
        <TableWrap label="Shards re-deriving timers">
          <table>
            <ColumnHeads names={["Shard", "Timers computed with", "Jobs re-derived"]} />
            <tbody>
              {behind.map((shard) => (
                <tr>
                  <td>{shard.shard}</td>
                  <td>
                    <code>{shard.timers_version ?? "—"}</code>
                  </td>
                  <td>
                    {shard.rederiving_to === null ? "waiting" : `${shard.jobs_done} of ${shard.jobs_total}`}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </section>
  );
}
