// The footer line that says which targets this deployment calls: local mode (what `npm start` runs
// by default) calls private and metadata addresses that production refuses, and an operator trying
// jobs locally must be able to see which of the two is in force (and what an allow-list lets through).
import { formatAllowedTarget } from "../core/targets/target-policy";
import type { ConfiguredTargetPolicy } from "../service/private-targets";

export function TargetPolicyLine({ policy }: { policy: ConfiguredTargetPolicy }) {
  if (policy.allowPrivate) {
    return (
      <p class="footer-line" data-target-policy="local">
        Targets: <strong>local mode</strong>, any http(s) URL is called, private, loopback and cloud-metadata
        addresses included (production refuses them)
      </p>
    );
  }
  const allowed = policy.allowedTargets.map(formatAllowedTarget);
  return (
    <p class="footer-line" data-target-policy="production">
      Targets: <strong>production policy</strong>, private, loopback, link-local and cloud-metadata addresses
      and internal names are refused
      {allowed.length > 0 ? (
        <>
          ; allowed through it: <code>{allowed.join(", ")}</code>
        </>
      ) : null}
      {policy.ignoredAllowListEntries.length > 0 ? (
        <>
          ; ignored allow-list entries (not host or host:port):{" "}
          <code>{policy.ignoredAllowListEntries.join(", ")}</code>
        </>
      ) : null}
    </p>
  );
}
