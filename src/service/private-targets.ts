// Whether this deployment may call private and loopback addresses: the one reading of the
// `ALLOW_PRIVATE_TARGETS` switch, for the create checks and for every call the consumers make.
import { targetAddressProblem } from "../core/ssrf";

/** `ALLOW_PRIVATE_TARGETS` is a local-development switch: anything but "true" is production. */
export function allowsPrivateTargets(env: Env): boolean {
  return env.ALLOW_PRIVATE_TARGETS === "true";
}

/**
 * Why this deployment would refuse to call `url` (the target policy of src/core/ssrf.ts, as for
 * every job target), or null: for URLs taken now and called later outside a job's own checks.
 * @example targetUrlProblem(env, "ftp://example.com/") // "target URL must use http or https, not ftp"
 */
export function targetUrlProblem(env: Env, url: string): string | null {
  return targetAddressProblem(url, { allowPrivate: allowsPrivateTargets(env) });
}
