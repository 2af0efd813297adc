// QStash URL groups (/v2/topics): a tenant's named lists of endpoints, read when a publish names
// one. An edit reads, changes and writes the list, again when another edit overtook it, so two
// concurrent edits never drop each other's endpoints.
import { EdgecronError } from "../../core/common/errors";
import {
  deleteUrlGroup,
  findUrlGroup,
  listUrlGroups,
  saveUrlGroup,
  type UrlGroup,
  type UrlGroupEndpoint,
} from "../../db/qstash-url-groups";

export type { UrlGroup, UrlGroupEndpoint };

/** Edits that lose the race this many times in a row answer 409 (the caller tries again). */
const SAVE_TRIES = 5;

export function readUrlGroup(env: Env, tenantId: string, name: string): Promise<UrlGroup | null> {
  return findUrlGroup(env.DB, tenantId, name);
}

export function listTenantUrlGroups(env: Env, tenantId: string): Promise<UrlGroup[]> {
  return listUrlGroups(env.DB, tenantId);
}

/** Whether a group of that name was there to delete. */
export function removeUrlGroup(env: Env, tenantId: string, name: string): Promise<boolean> {
  return deleteUrlGroup(env.DB, tenantId, name);
}

/**
 * Replaces the group's endpoints with `edit(current)` (null: no such group yet), creating the
 * group if need be; `edit` may throw to refuse.
 */
export async function editUrlGroup(
  env: Env,
  tenantId: string,
  name: string,
  edit: (current: UrlGroupEndpoint[] | null) => UrlGroupEndpoint[],
  nowMs: () => number,
): Promise<void> {
  for (let attempt = 0; attempt < SAVE_TRIES; attempt += 1) {
    const group = await findUrlGroup(env.DB, tenantId, name);
    const endpoints = edit(group?.endpoints ?? null);
    const expected = group === null ? null : { updatedAtMs: group.updatedAtMs };
    if (await saveUrlGroup(env.DB, tenantId, name, endpoints, expected, nowMs())) return;
  }
  throw new EdgecronError("version_conflict", `url group ${name} is being edited: try again`);
}
