import { ColumnHeads, RunLink, TableWrap } from "../components";
import { BASE } from "../env";
import type { Problem } from "../types";

/** One dead letter of a bulk redrive: the new attempt, or why the API refused it. */
export type RedriveOutcome =
  | { id: string; ok: true; runId: string; attempt: number }
  | { id: string; ok: false; problem: Problem };

/**
 * What a bulk redrive did, item by item, when any item failed: each refused dead letter with the
 * API's code and reason beside the ones that went, so the operator knows exactly what is left.
 */
export function RedriveReport({ outcomes }: { outcomes: RedriveOutcome[] }) {
  const done = outcomes.filter((outcome) => outcome.ok).length;
  return (
    <>
      <p role="alert" class="callout error">
        Redrove {done} of {outcomes.length} dead letter(s); {outcomes.length - done} failed (below).
      </p>
      <TableWrap label="Redrive results">
        <table class="redrive-report">
          <ColumnHeads names={["Dead letter", "Result", "Why"]} />
          <tbody>
            {outcomes.map((outcome) => (
              <tr data-redrive-id={outcome.id} data-redrive-result={outcome.ok ? "redriven" : "failed"}>
                <td class="mono">{outcome.id}</td>
                <td>{outcome.ok ? "redriven" : "failed"}</td>
                <td>
                  {outcome.ok ? (
                    <>
                      attempt {outcome.attempt} of <RunLink runId={outcome.runId} />
                    </>
                  ) : (
                    <>
                      <code>{outcome.problem.code ?? outcome.problem.status}</code>{" "}
                      {outcome.problem.detail ?? outcome.problem.title}
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
      <p>
        <a href={`${BASE}/dead-letters`}>Back to dead letters</a>
      </p>
    </>
  );
}
