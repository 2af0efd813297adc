import { SELF } from "cloudflare:test";

export const BASE = "http://edgecron.test";
export const ADMIN_TOKEN = "test-admin-token";

export interface JsonResponse<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  token?: string | null;
  body?: unknown;
  headers?: Record<string, string>;
}

/** A JSON request through the worker; `body` is sent as JSON unless it is already a string. */
export async function api<T = Record<string, unknown>>(
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<JsonResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  const token = options.token === undefined ? ADMIN_TOKEN : options.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
    headers["content-type"] ??= "application/json";
  }
  const res = await SELF.fetch(`${BASE}${path}`, { method, headers, body });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : null) as T };
}

/** A JSON request that must succeed: the answer's body, or an error naming its status and body. */
export async function apiOk<T>(method: string, path: string, token: string, body?: unknown): Promise<T> {
  const res = await api<T>(method, path, { token, body });
  if (res.status < 200 || res.status >= 300) {
    throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  }
  return res.body;
}

export interface TenantWithKey {
  tenantId: string;
  key: string;
  keyId: string;
}

let counter = 0;
/** A fresh tenant and one API key for it (names are unique: storage is shared within a file). */
export async function createTenantWithKey(label = "tenant"): Promise<TenantWithKey> {
  counter += 1;
  const tenant = await api<{ id: string }>("POST", "/v1/tenants", { body: { name: `${label}-${counter}` } });
  if (tenant.status !== 201) throw new Error(`tenant create failed: ${JSON.stringify(tenant.body)}`);
  const key = await api<{ id: string; key: string }>("POST", "/v1/api-keys", {
    body: { tenant_id: tenant.body.id },
  });
  if (key.status !== 201) throw new Error(`key create failed: ${JSON.stringify(key.body)}`);
  return { tenantId: tenant.body.id, key: key.body.key, keyId: key.body.id };
}

/** A valid job body; `overrides` replace top-level fields. Far-future one-shot by default. */
export function jobBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: `job-${crypto.randomUUID()}`,
    schedule: { type: "once", at: "2099-01-01T00:00:00.000Z" },
    target: { url: "https://example.com/hook" },
    ...overrides,
  };
}
