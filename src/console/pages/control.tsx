// Stopping runaway work from the console: a bulk action on the jobs a filter shows, and (admin)
// suspending the tenant.
import { ActionForm } from "../components";
import { BASE } from "../env";

const BULK_ACTIONS = [
  [
    "pause",
    "Pause all matching",
    "Pause every ACTIVE job this filter matches? Nothing of them fires until resumed.",
  ],
  [
    "resume",
    "Resume all matching",
    "Resume every PAUSED job this filter matches? Missed fire times follow each job's misfire policy.",
  ],
  [
    "delete",
    "Delete all matching",
    "Delete every job this filter matches? Pending runs are cancelled. This cannot be undone.",
  ],
] as const;

/** Under the jobs filter: the same status and name prefix, applied to every matching job. */
export function BulkActions(props: { status: string; name: string; csrf: string }) {
  if (props.status === "" && props.name === "") {
    return <p class="muted">Filter by status or name to act on every matching job at once.</p>;
  }
  // Only the fields the filter sets: the bulk route refuses an empty one.
  const hidden = {
    ...(props.status === "" ? {} : { status: props.status }),
    ...(props.name === "" ? {} : { name: props.name }),
  };
  return (
    <div class="action-bar" data-bulk-actions="">
      {BULK_ACTIONS.map(([action, label, confirm]) => (
        <ActionForm
          action={`${BASE}/jobs/bulk/${action}`}
          csrf={props.csrf}
          label={label}
          confirm={confirm}
          hidden={hidden}
          variant={action === "delete" ? "danger" : "secondary"}
        />
      ))}
    </div>
  );
}

/** On the Limits page, for the admin: suspend or unsuspend the tenant the console acts as. */
export function SuspendTenant(props: { tenantId: string; suspendedAt: string | null; csrf: string }) {
  const path = `${BASE}/tenant/${props.suspendedAt === null ? "suspend" : "unsuspend"}`;
  return (
    <div data-field="tenant-suspension">
      <h2>Suspension</h2>
      <p>
        {props.suspendedAt === null
          ? "The tenant is active."
          : `The tenant is suspended since ${props.suspendedAt}: nothing of it runs; its creates, triggers, backfills, retries and redrives are refused.`}
      </p>
      {props.suspendedAt === null ? (
        <ActionForm
          action={path}
          csrf={props.csrf}
          label="Suspend tenant"
          variant="danger"
          hidden={{ tenant_id: props.tenantId }}
          confirm="Suspend this tenant? No call of it starts, its waiting runs are cancelled, and its creates, triggers, backfills, retries and redrives are refused until you unsuspend it."
        />
      ) : (
        <ActionForm
          action={path}
          csrf={props.csrf}
          label="Unsuspend tenant"
          variant="primary"
          hidden={{ tenant_id: props.tenantId }}
          confirm="Unsuspend this tenant? Missed fire times follow each job's misfire policy."
        />
      )}
    </div>
  );
}
