// A publish (or enqueue, or batch item) whose destination names a URL group of the tenant
// instead of a URL: one message per endpoint of the group, each a job of its own with its own
// delivery, retries and dead letter, all checked before any is stored.
import { readUrlGroup } from "../../../service/qstash/url-groups";
import { EdgecronError } from "../../http/problem";
import { checkDestination } from "../destination";
import { badRequest, notFound } from "../errors";
import type { HeaderError } from "../headers";
import { type MessageParts, type PreparedMessage, prepareMessage } from "../messages/message-service";

const GROUP_NAME = /^[A-Za-z0-9._-]{1,94}$/;
export const URL_GROUP_NAME_MESSAGE = "must be 1-94 letters, digits, '.', '_' or '-'";

export function isUrlGroupName(name: string): boolean {
  return GROUP_NAME.test(name);
}

/**
 * The messages of a publish: one for a URL, one per endpoint for a URL group's name. A name that
 * is no group of the tenant is a 404; a group without endpoints a 400 (nothing would be sent).
 */
export async function prepareDestinationMessages(parts: MessageParts): Promise<PreparedMessage[]> {
  const name = parts.destination;
  if (checkDestination(name).ok || !GROUP_NAME.test(name)) return [await prepareMessage(parts)];
  const group = await readUrlGroup(parts.env, parts.tenantId, name);
  const prefix = parts.errorPrefix ?? "";
  if (group === null) throw notFound(`${prefix}url group ${name} not found`);
  if (group.endpoints.length === 0)
    throw badRequest([{ header: `${prefix}destination`, message: `url group ${name} has no endpoints` }]);
  const prepared: PreparedMessage[] = [];
  const errors: HeaderError[] = [];
  for (const endpoint of group.endpoints) {
    try {
      prepared.push(
        await prepareMessage({
          ...parts,
          destination: endpoint.url,
          errorPrefix: `${prefix}[${endpoint.name ?? endpoint.url}] `,
          urlGroup: { name, endpointName: endpoint.name ?? null },
        }),
      );
    } catch (error) {
      if (!(error instanceof EdgecronError) || error.errors === undefined) throw error;
      errors.push(...error.errors.map((field) => ({ header: field.path, message: field.message })));
    }
  }
  if (errors.length > 0) throw badRequest(errors);
  return prepared;
}
