// The target policy this deployment runs: the one reading of its two switches, for the create
// checks, the console's line about it and every call the consumers make.
//   ALLOW_PRIVATE_TARGETS = "true"  local mode: every http(s) URL (what `npm start` runs by default);
//                                   anything else is the production policy (src/core/targets/ssrf.ts).
//   PRIVATE_TARGET_ALLOW_LIST       hosts (`host` or `host:port`) let through the production policy
//                                   (`EDGECRON_ALLOWED_TARGETS=127.0.0.1:9000 npm start` sets it).
import { targetAddressProblem } from "../core/targets/ssrf";
import { parseAllowedTargets, type TargetPolicy } from "../core/targets/target-policy";

/** The policy in force, and the allow-list entries it ignored (not `host[:port]`). */
export interface ConfiguredTargetPolicy extends Required<TargetPolicy> {
  ignoredAllowListEntries: readonly string[];
}

export function targetPolicyOf(env: Env): ConfiguredTargetPolicy {
  const { allowed, ignored } = parseAllowedTargets(env.PRIVATE_TARGET_ALLOW_LIST);
  return {
    allowPrivate: allowsPrivateTargets(env),
    allowedTargets: allowed,
    ignoredAllowListEntries: ignored,
  };
}

/** `ALLOW_PRIVATE_TARGETS` is a local-development switch: anything but "true" is production. */
export function allowsPrivateTargets(env: Env): boolean {
  return env.ALLOW_PRIVATE_TARGETS === "true";
}

/**
 * Why this deployment would refuse to call `url` (the target policy of src/core/targets/ssrf.ts, as for
 * every job target), or null: for URLs taken now and called later outside a job's own checks.
 * @example targetUrlProblem(env, "ftp://example.com/") // "target URL must use http or https, not ftp"
 */
export function targetUrlProblem(env: Env, url: string): string | null {
  return targetAddressProblem(url, targetPolicyOf(env));
}
