// Whether this deployment may call private and loopback addresses: the one reading of the
// `ALLOW_PRIVATE_TARGETS` switch, for the create checks and for every call the consumers make.

/** `ALLOW_PRIVATE_TARGETS` is a local-development switch: anything but "true" is production. */
export function allowsPrivateTargets(env: Env): boolean {
  return env.ALLOW_PRIVATE_TARGETS === "true";
}
