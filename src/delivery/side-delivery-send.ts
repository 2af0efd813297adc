// One attempt of a side delivery: the address checked like a target's, the request signed in the
// delivery's signing style, sent with its timeout, and the answer classified. Never throws.

import { qstashSignature } from "../core/qstash/jwt";
import { resolvedTargetProblem } from "../core/targets/ssrf";
import type { SideDelivery, SideDeliveryResult } from "../queue/side-delivery-types";
import { targetPolicyOf } from "../service/private-targets";
import { tenantSecrets } from "../service/tenant-secrets";
import { resolverFromEnv } from "./dns-resolver";
import { signatureHeader, USER_AGENT } from "./target-call";

export async function sendSideDelivery(
  env: Env,
  delivery: SideDelivery,
  nowMs: number,
): Promise<SideDeliveryResult> {
  const { allowPrivate, allowedTargets } = targetPolicyOf(env);
  const problem = await resolvedTargetProblem(delivery.url, {
    allowPrivate,
    allowedTargets,
    resolveHost: resolverFromEnv(env),
  });
  if (problem !== null) {
    return { ok: false, status: null, error: problem.error, retryable: problem.kind === "unresolved" };
  }
  try {
    const response = await fetch(delivery.url, {
      method: delivery.method,
      redirect: "manual",
      signal: AbortSignal.timeout(delivery.timeoutMs),
      headers: await headersOf(env, delivery, nowMs),
      body: delivery.body,
    });
    await response.body?.cancel();
    if (response.status >= 200 && response.status < 300) return { ok: true, status: response.status };
    return { ok: false, status: response.status, error: `HTTP ${response.status}`, retryable: true };
  } catch (error) {
    return { ok: false, status: null, error: String(error), retryable: true };
  }
}

async function headersOf(env: Env, delivery: SideDelivery, nowMs: number): Promise<Headers> {
  const headers = new Headers(delivery.headers);
  if (!headers.has("user-agent")) headers.set("user-agent", USER_AGENT);
  headers.set("idempotency-key", delivery.idempotencyKey);
  const { signing } = delivery;
  if (signing.style === "qstash") await signAsQstash(env, headers, delivery, signing.tenantId, nowMs);
  if (signing.style === "edgecron") {
    const secrets = (await tenantSecrets(env.DB, [signing.tenantId], nowMs)).get(signing.tenantId) ?? [];
    if (secrets.length > 0) {
      headers.set(
        "edgecron-signature",
        await signatureHeader(
          secrets,
          Math.floor(nowMs / 1000),
          {
            method: delivery.method,
            url: delivery.url,
            idempotencyKey: delivery.idempotencyKey,
            runId: signing.runId,
            attempt: signing.attempt,
          },
          delivery.body ?? "",
        ),
      );
    }
  }
  return headers;
}

/** QStash's signature with the tenant's current secret (looked up at send time, like ours). */
async function signAsQstash(
  env: Env,
  headers: Headers,
  delivery: SideDelivery,
  tenantId: string,
  nowMs: number,
): Promise<void> {
  const [current] = (await tenantSecrets(env.DB, [tenantId], nowMs)).get(tenantId) ?? [];
  if (current === undefined) return;
  headers.set(
    "upstash-signature",
    await qstashSignature(crypto.subtle, {
      signingKey: current,
      url: delivery.url,
      body: delivery.body ?? "",
      nowMs,
      jti: `jwt_${crypto.randomUUID().replaceAll("-", "")}`,
    }),
  );
}
