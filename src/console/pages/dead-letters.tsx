import type { ListPageProps } from "../components";
import { Empty, JobRef, Notice, Pager, ProblemBox, RunLink, TableWrap } from "../components";
import { BASE } from "../env";
import { FilterForm, JobIdFilter } from "../filters";
import { Time } from "../format";
import type { DeadLetter } from "../types";

function bodyText(body: unknown): string {
  if (body === undefined || body === null) return "(none)";
  return typeof body === "string" ? body : JSON.stringify(body, null, 2);
}

/**
 * A dead letter's request, error and run, in a row spanning the whole table under its own row.
 * Shown while it is the URL's #fragment (the row's Inspect link), so it needs no script.
 */
function LetterDetail({ letter, columns }: { letter: DeadLetter; columns: number }) {
  return (
    <tr class="row-detail" id={`inspect-${letter.id}`} data-detail-of={letter.id}>
      <td colspan={columns}>
        <div class="row-detail-head">
          <h2>Dead letter {letter.id}</h2>
          <a href="#dead-letters-table" class="button secondary small">
            Close
          </a>
        </div>
        <dl class="definition">
          <dt>Request</dt>
          <dd class="mono">
            {letter.payload?.method} {letter.payload?.url}
          </dd>
          <dt>Run</dt>
          <dd>
            <RunLink runId={letter.run_id} /> (attempt {letter.attempt})
          </dd>
          <dt>Reason</dt>
          <dd>{letter.reason}</dd>
          <dt>Last error</dt>
          <dd>
            <pre>{letter.last_error ?? "(none)"}</pre>
          </dd>
          <dt>Headers</dt>
          <dd>
            <pre>{JSON.stringify(letter.payload?.headers ?? {}, null, 2)}</pre>
          </dd>
          <dt>Body</dt>
          <dd>
            <pre>{bodyText(letter.payload?.body)}</pre>
          </dd>
        </dl>
      </td>
    </tr>
  );
}

const COLUMNS = 8;

export function DeadLettersPage(
  props: ListPageProps & { letters: DeadLetter[]; jobNames: ReadonlyMap<string, string>; jobId: string },
) {
  return (
    <>
      <Notice text={props.notice} />
      <FilterForm path="/dead-letters" label="Filter dead letters">
        <JobIdFilter id="filter-dl-job" value={props.jobId} />
      </FilterForm>
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
            <table id="dead-letters-table" class="dead-letters">
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
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {props.letters.map((letter) => [
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
                      <JobRef jobId={letter.job_id} names={props.jobNames} />
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
                    <td class="row-actions">
                      <a
                        href={`#inspect-${letter.id}`}
                        class="button secondary small"
                        aria-label={`Inspect dead letter ${letter.id}`}
                      >
                        Inspect
                      </a>
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
                  </tr>,
                  <LetterDetail letter={letter} columns={COLUMNS} />,
                ])}
              </tbody>
            </table>
          </TableWrap>
        </form>
      ) : null}
      <Pager base={`${BASE}/dead-letters`} params={{ job_id: props.jobId }} cursor={props.nextCursor} />
    </>
  );
}
