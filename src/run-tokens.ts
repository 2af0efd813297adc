// The Worker's side of run tokens: the secret comes from the environment, once per isolate.
import { runTokenSecretFrom } from "./core/runs/run-token";

let cached: { dedicated: string | undefined; admin: string; secret: Promise<string> } | null = null;

export function runTokenSecret(env: Env): Promise<string> {
  const dedicated = env.EDGECRON_RUN_TOKEN_SECRET;
  const admin = env.EDGECRON_ADMIN_TOKEN ?? "";
  if (cached === null || cached.dedicated !== dedicated || cached.admin !== admin) {
    cached = { dedicated, admin, secret: runTokenSecretFrom(dedicated, admin) };
  }
  return cached.secret;
}
