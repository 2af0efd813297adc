// /v2/topics: QStash URL groups (the client's `urlGroups`). A group is a named list of endpoints;
// publishing to its name sends one message to each (./url-group-publish.ts). Adding an endpoint
// that is there already (same URL) changes nothing; removing names endpoints by name or URL.
import { type Context, Hono } from "hono";
import {
  editUrlGroup,
  listTenantUrlGroups,
  readUrlGroup,
  removeUrlGroup,
  type UrlGroup,
  type UrlGroupEndpoint,
} from "../../../service/qstash/url-groups";
import type { AppEnv } from "../../http/app-env";
import { checkDestination } from "../destination";
import { badRequest, notFound } from "../errors";
import type { HeaderError } from "../headers";
import { isUrlGroupName, URL_GROUP_NAME_MESSAGE } from "./url-group-publish";

/** The most endpoints one group holds: a publish makes one message each. */
export const MAX_GROUP_ENDPOINTS = 100;

export const urlGroups = new Hono<AppEnv>();

function groupView(group: UrlGroup) {
  return {
    createdAt: group.createdAtMs,
    updatedAt: group.updatedAtMs,
    name: group.name,
    endpoints: group.endpoints.map((endpoint) => ({
      ...(endpoint.name === undefined ? {} : { name: endpoint.name }),
      url: endpoint.url,
    })),
  };
}

function checkGroupName(name: string): string {
  if (!isUrlGroupName(name)) throw badRequest([{ header: "name", message: URL_GROUP_NAME_MESSAGE }]);
  return name;
}

/** The `{endpoints: [{name?, url?}]}` body; `needUrl` for an add, else a name or a URL each. */
async function endpointsOf(c: Context<AppEnv>, needUrl: boolean): Promise<UrlGroupEndpoint[]> {
  let body: unknown;
  try {
    body = JSON.parse(await c.req.text());
  } catch {
    throw badRequest([{ header: "body", message: "must be JSON {endpoints: [{name?, url}]}" }]);
  }
  const list = (body as { endpoints?: unknown } | null)?.endpoints;
  if (!Array.isArray(list) || list.length === 0 || list.length > MAX_GROUP_ENDPOINTS)
    throw badRequest([
      { header: "endpoints", message: `must be a list of 1 to ${MAX_GROUP_ENDPOINTS} endpoints` },
    ]);
  const errors: HeaderError[] = [];
  const endpoints = list.map((raw, index): UrlGroupEndpoint => {
    const item = (typeof raw === "object" && raw !== null ? raw : {}) as Record<string, unknown>;
    const { name, url } = item;
    if (name !== undefined && (typeof name !== "string" || name === "" || name.length > 200))
      errors.push({ header: `endpoints[${index}].name`, message: "must be a string of 1 to 200 characters" });
    if (url !== undefined || needUrl) {
      const checked = typeof url === "string" ? checkDestination(url) : null;
      if (checked === null || !checked.ok)
        errors.push({ header: `endpoints[${index}].url`, message: "must be an absolute http(s) URL" });
    }
    if (!needUrl && name === undefined && url === undefined)
      errors.push({ header: `endpoints[${index}]`, message: "must name the endpoint by name or url" });
    return {
      url: typeof url === "string" ? url : "",
      ...(typeof name === "string" ? { name } : {}),
    };
  });
  if (errors.length > 0) throw badRequest(errors);
  return endpoints;
}

urlGroups.post("/:name/endpoints", async (c) => {
  const name = checkGroupName(c.req.param("name"));
  const added = await endpointsOf(c, true);
  await editUrlGroup(
    c.env,
    c.get("tenantId"),
    name,
    (current) => {
      const kept = (current ?? []).filter((endpoint) => !added.some((item) => item.url === endpoint.url));
      const endpoints = [...kept, ...added];
      if (endpoints.length > MAX_GROUP_ENDPOINTS)
        throw badRequest([{ header: "endpoints", message: `a group holds at most ${MAX_GROUP_ENDPOINTS}` }]);
      return endpoints;
    },
    Date.now,
  );
  return c.body(null, 200);
});

urlGroups.delete("/:name/endpoints", async (c) => {
  const name = c.req.param("name");
  const removed = await endpointsOf(c, false);
  const named = (endpoint: UrlGroupEndpoint) =>
    removed.some(
      (item) =>
        (item.url === "" || item.url === endpoint.url) &&
        (item.name === undefined || item.name === endpoint.name),
    );
  await editUrlGroup(
    c.env,
    c.get("tenantId"),
    name,
    (current) => {
      if (current === null) throw notFound(`url group ${name} not found`);
      return current.filter((endpoint) => !named(endpoint));
    },
    Date.now,
  );
  return c.body(null, 200);
});

urlGroups.get("/", async (c) => c.json((await listTenantUrlGroups(c.env, c.get("tenantId"))).map(groupView)));

urlGroups.get("/:name", async (c) => {
  const group = await readUrlGroup(c.env, c.get("tenantId"), c.req.param("name"));
  if (group === null) throw notFound(`url group ${c.req.param("name")} not found`);
  return c.json(groupView(group));
});

urlGroups.delete("/:name", async (c) => {
  if (!(await removeUrlGroup(c.env, c.get("tenantId"), c.req.param("name"))))
    throw notFound(`url group ${c.req.param("name")} not found`);
  return c.body(null, 200);
});
