import type { ListPageProps } from "../components";
import { Badge, ColumnHeads, Empty, Notice, Pager, ProblemBox, TableWrap } from "../components";
import { BASE } from "../env";
import { FilterForm, FilterSelect, SearchFilter } from "../filters";
import { describeSchedules, describeTarget, jobZone, Time, ZonedTime } from "../format";
import { JOB_STATUSES, type Job } from "../types";
import { BulkActions } from "./control";

export function JobsPage(props: ListPageProps & { status: string; name: string; jobs: Job[] }) {
  return (
    <>
      <Notice text={props.notice} />
      <FilterForm
        path="/jobs"
        label="Filter jobs"
        actions={
          <a class="button secondary" href={`${BASE}/jobs/new`}>
            New job
          </a>
        }
      >
        <FilterSelect
          id="filter-status"
          name="status"
          label="Status"
          any="Any status"
          values={JOB_STATUSES}
          selected={props.status}
        />
        <SearchFilter id="filter-name" name="name" label="Name starts with" value={props.name} />
      </FilterForm>
      <BulkActions status={props.status} name={props.name} csrf={props.csrf} />
      {props.problem ? <ProblemBox problem={props.problem} /> : null}
      {props.jobs.length === 0 && !props.problem ? (
        <Empty>
          No jobs match. <a href={`${BASE}/jobs/new`}>Create one</a>.
        </Empty>
      ) : null}
      {props.jobs.length > 0 ? (
        <TableWrap label="Jobs">
          <table class="jobs">
            <ColumnHeads names={["Name", "Status", "Schedule", "Next fire", "Target", "Updated"]} />
            <tbody>
              {props.jobs.map((job) => {
                const next = job.next_fire_times?.[0];
                const zone = jobZone(job);
                return (
                  <tr>
                    <td>
                      <a href={`${BASE}/jobs/${encodeURIComponent(job.id)}`}>{job.name}</a>
                      <div class="muted mono">{job.id}</div>
                    </td>
                    <td>
                      <Badge value={job.status} />
                    </td>
                    <td>{describeSchedules(job)}</td>
                    <td>
                      {next ? (
                        <>
                          <Time iso={next} />
                          {zone && zone !== "UTC" ? (
                            <div class="muted zoned">
                              <ZonedTime iso={next} zone={zone} />
                            </div>
                          ) : null}
                        </>
                      ) : (
                        <span class="muted">none</span>
                      )}
                    </td>
                    <td class="mono wrap">{describeTarget(job.target)}</td>
                    <td>
                      <Time iso={job.updated_at} />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </TableWrap>
      ) : null}
      <Pager
        base={`${BASE}/jobs`}
        params={{ status: props.status, name: props.name }}
        cursor={props.nextCursor}
      />
    </>
  );
}
