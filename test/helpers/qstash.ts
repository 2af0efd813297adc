// A /v2 (QStash-compatible) request from a workers-pool test, with the tenant key as the token.
import { SELF } from "cloudflare:test";
import { BASE } from "./api";

// biome-ignore lint/suspicious/noExplicitAny: test reads of JSON answers, checked by the assertions
export type Json = any;

export async function v2(
  method: string,
  path: string,
  token: string,
  headers: Record<string, string> = {},
  body?: string,
) {
  const res = await SELF.fetch(`${BASE}${path}`, {
    method,
    headers: { ...headers, authorization: `Bearer ${token}` },
    body,
  });
  const text = await res.text();
  return { status: res.status, body: (text === "" ? null : JSON.parse(text)) as Json };
}
