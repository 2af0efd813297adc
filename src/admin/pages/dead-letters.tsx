import { Empty, Notice, Pager, ProblemBox, TableWrap } from "../components";
import { BASE } from "../env";
import { Time } from "../format";
import type { DeadLetter, Problem } from "../types";

function Payload({ letter }: { letter: DeadLetter }) {
  const body = letter.payload?.body;
  return (
    <details>
      <summary>Inspect</summary>
      <dl class="definition compact">
        <dt>Request</dt>
        <dd class="mono">
          {letter.payload?.method} {letter.payload?.url}
        </dd>
        <dt>Headers</dt>
        <dd>
          <pre>{JSON.stringify(letter.payload?.headers ?? {}, null, 2)}</pre>
        </dd>
        <dt>Body</dt>
        <dd>
          <pre>
            {body === undefined || body === null
              ? "(none)"
              : typeof body === "string"
                ? body
                : JSON.stringify(body, null, 2)}
          </pre>
        </dd>
        <dt>Last error</dt>
        <dd>
          <pre>{letter.last_error ?? "(none)"}</pre>
        </dd>
        <dt>Run</dt>
        <dd class="mono">{letter.run_id}</dd>
      </dl>
    </details>
  );
}

export function DeadLettersPage(props: {
  letters: DeadLetter[];
  nextCursor: string | null;
  jobId: string;
  csrf: string;
  problem?: Problem;
  notice?: string;
}) {
  return (
    <>
      <Notice text={props.notice} />
      <form method="get" action={`${BASE}/dead-letters`} class="filters" aria-label="Filter dead letters">
        <div class="field">
          <label for="filter-dl-job">Job ID</label>
          <input id="filter-dl-job" name="job_id" type="search" value={props.jobId} autocomplete="off" />
        </div>
        <div class="actions">
          <button type="submit">Filter</button>
        </div>
      </form>
      {props.problem ? <ProblemBox problem={props.problem} /> : null}
      {props.letters.length === 0 && !props.problem ? (
        <Empty>No dead letters. Every run found its target.</Empty>
      ) : null}
      {props.letters.length > 0 ? (
        <form
          method="post"
          action={`${BASE}/dead-letters/redrive`}
          id="redrive-form"
          data-confirm="Redrive the selected dead letters? Each becomes a new attempt at its target."
        >
          <input type="hidden" name="_csrf" value={props.csrf} />
          <div class="action-bar">
            <button type="submit" name="mode" value="selected">
              Redrive selected
            </button>
            <label class="inline">
              <input type="checkbox" data-select-all="dead-letter" /> Select all on this page
            </label>
          </div>
          <TableWrap label="Dead letters">
            <table>
              <thead>
                <tr>
                  <th scope="col">
                    <span class="visually-hidden">Select</span>
                  </th>
                  <th scope="col">Job</th>
                  <th scope="col">Scheduled</th>
                  <th scope="col">Attempt</th>
                  <th scope="col">Reason</th>
                  <th scope="col">Target status</th>
                  <th scope="col">Dead since</th>
                  <th scope="col">Details</th>
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {props.letters.map((letter) => (
                  <tr data-dead-letter-id={letter.id}>
                    <td>
                      <input
                        type="checkbox"
                        name="id"
                        value={letter.id}
                        id={`dl-${letter.id}`}
                        data-select="dead-letter"
                        aria-label={`Select dead letter ${letter.id}`}
                        disabled={Boolean(letter.redriven_at)}
                      />
                    </td>
                    <td>
                      <a href={`${BASE}/jobs/${encodeURIComponent(letter.job_id)}`} class="mono">
                        {letter.job_id}
                      </a>
                    </td>
                    <td>
                      <Time iso={letter.scheduled_at} />
                    </td>
                    <td>{letter.attempt}</td>
                    <td>{letter.reason}</td>
                    <td>{letter.target_status ?? "—"}</td>
                    <td>
                      <Time iso={letter.created_at} />
                      {letter.redriven_at ? (
                        <div class="muted">
                          redriven <Time iso={letter.redriven_at} />
                        </div>
                      ) : null}
                    </td>
                    <td>
                      <Payload letter={letter} />
                    </td>
                    <td>
                      {letter.redriven_at ? null : (
                        <button
                          type="submit"
                          name="one"
                          value={letter.id}
                          class="secondary small"
                          aria-label={`Redrive dead letter ${letter.id}`}
                          data-confirm={`Redrive dead letter ${letter.id} of job ${letter.job_id}? It becomes a new attempt at its target.`}
                        >
                          Redrive
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        </form>
      ) : null}
      <Pager base={`${BASE}/dead-letters`} params={{ job_id: props.jobId }} cursor={props.nextCursor} />
    </>
  );
}
