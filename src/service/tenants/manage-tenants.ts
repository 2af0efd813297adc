// Tenants as the admin manages them: create, list, read, edit, and the signing secret's rotation
// (rotate: a next secret signs beside the current; promote: the next becomes the current). The
// alert webhook is checked like a job target (the same SSRF policy), so it is refused here.
import { EdgecronError } from "../../core/common/errors";
import { validationError } from "../../core/common/field-errors";
import {
  findTenant,
  insertTenant,
  listTenants,
  promoteSigningSecret as promoteStoredSigningSecret,
  setNextSigningSecret,
  type TenantRow,
  updateTenant,
} from "../../db/tenants";
import { newId, requireOwnId } from "../ids";
import { targetUrlProblem } from "../private-targets";
import { newSigningSecret } from "../random-secrets";
import { forgetTenantSecrets } from "../tenant-secrets";
import { tenantNotFound } from "./suspend-tenant";

export type { TenantRow };

export interface TenantEdit {
  name?: string;
  alertWebhookUrl?: string | null;
}

export async function createTenant(
  env: Env,
  input: { name: string; alertWebhookUrl: string | null },
  nowMs: number,
): Promise<TenantRow> {
  checkWebhookUrl(env, input.alertWebhookUrl);
  const row: TenantRow = {
    id: newId("ten", nowMs),
    name: input.name,
    signing_secret: newSigningSecret(),
    signing_secret_next: null,
    alert_webhook_url: input.alertWebhookUrl,
    created_at_ms: nowMs,
  };
  await insertTenant(env.DB, row);
  return row;
}

/** Every tenant, newest first (at most 1000). */
export function listAllTenants(env: Env): Promise<TenantRow[]> {
  return listTenants(env.DB);
}

/** The tenant named by `rawId`; a malformed or unknown id is 404 `tenant_not_found`. */
export async function readTenant(env: Env, rawId: string): Promise<TenantRow> {
  const id = requireOwnId(rawId, "ten", tenantNotFound);
  const tenant = await findTenant(env.DB, id);
  if (tenant === null) throw tenantNotFound(id);
  return tenant;
}

/** Whether a tenant of this id exists (the admin's `Edgecron-Tenant` names one). */
export async function tenantExists(env: Env, id: string): Promise<boolean> {
  return (await findTenant(env.DB, id)) !== null;
}

export async function editTenant(env: Env, rawId: string, edit: TenantEdit): Promise<TenantRow> {
  const { id } = await readTenant(env, rawId);
  checkWebhookUrl(env, edit.alertWebhookUrl);
  await updateTenant(env.DB, id, {
    ...(edit.name === undefined ? {} : { name: edit.name }),
    ...(edit.alertWebhookUrl === undefined ? {} : { alert_webhook_url: edit.alertWebhookUrl }),
  });
  return readTenant(env, id);
}

/** Starts a rotation: a new next secret signs beside the current one. */
export async function rotateSigningSecret(env: Env, rawId: string): Promise<TenantRow> {
  const { id } = await readTenant(env, rawId);
  await setNextSigningSecret(env.DB, id, newSigningSecret());
  // Other isolates pick the change up when their cache entry expires (30 s): see README.
  forgetTenantSecrets(id);
  return readTenant(env, id);
}

/** Finishes a rotation: the next secret becomes the current one; 409 when none was started. */
export async function promoteSigningSecret(env: Env, rawId: string): Promise<TenantRow> {
  const tenant = await readTenant(env, rawId);
  if (tenant.signing_secret_next === null) {
    throw new EdgecronError("no_next_signing_secret", "Rotate the signing secret before promoting it");
  }
  await promoteStoredSigningSecret(env.DB, tenant.id);
  forgetTenantSecrets(tenant.id);
  return readTenant(env, tenant.id);
}

/** The alert webhook is called like a job target: the same SSRF policy, refused at the API. */
function checkWebhookUrl(env: Env, url: string | null | undefined): void {
  if (url === null || url === undefined) return;
  const problem = targetUrlProblem(env, url);
  if (problem !== null) throw validationError([{ path: "alert_webhook_url", message: problem }]);
}
