// What `npm start` gives the Worker besides wrangler.toml: the lines of .dev.vars, the
// OpenTelemetry settings of its environment, and the target policy it runs. Pure: scripts/start.mjs
// reads the files and the environment and passes the result on as `--var`s.
//
// Why .dev.vars needs us: wrangler.toml's `[secrets] required` list (a deploy without the admin
// token fails) makes wrangler load only the listed secrets from .dev.vars and ignore every other
// line, so `OTEL_EXPORTER_OTLP_ENDPOINT=...` there, as the README says, did nothing.

/** The Worker's OpenTelemetry settings, taken from npm start's environment as the OTel SDKs do. */
export const OTEL_VARS = ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_HEADERS", "OTEL_SERVICE_NAME"];

/** npm start's own switches: read from the environment or .dev.vars, never given to the Worker. */
export const START_SWITCHES = ["EDGECRON_TARGET_POLICY", "EDGECRON_ALLOWED_TARGETS"];

/** The Worker vars the target-policy switch sets (a .dev.vars line for them is overridden). */
const POLICY_VARS = ["ALLOW_PRIVATE_TARGETS", "PRIVATE_TARGET_ALLOW_LIST"];

export const TARGET_POLICIES = ["local", "production"];

/**
 * The names in wrangler.toml's `[secrets] required = [...]` (wrangler loads those itself).
 * @param {string} toml
 * @returns {string[]}
 */
export function requiredSecrets(toml) {
  const section = /^\[secrets\]\s*$([\s\S]*?)(?=^\[|(?![\s\S]))/m.exec(toml)?.[1] ?? "";
  const list = /^required\s*=\s*\[([^\]]*)\]/m.exec(section)?.[1] ?? "";
  return [...list.matchAll(/"([^"]+)"/g)].map((match) => /** @type {string} */ (match[1]));
}

/**
 * @typedef {object} LocalSettings
 * @property {Record<string, string>} vars  the Worker vars to pass, in addition to wrangler.toml's
 * @property {"local" | "production"} policy
 * @property {string} allowedTargets  EDGECRON_ALLOWED_TARGETS as given ("" when unset)
 * @property {string[]} notes  lines worth printing (a setting that has no effect)
 */

/**
 * @param {{ devVars: Record<string, string | undefined>, env: Record<string, string | undefined>, required: string[] }} input
 *   devVars: .dev.vars parsed; env: npm start's environment; required: wrangler's required secrets
 * @returns {LocalSettings}
 * @example localSettings({ devVars: { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" }, env: {}, required: [] })
 *   // vars: { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318", ALLOW_PRIVATE_TARGETS: "true", ... }
 */
export function localSettings({ devVars, env, required }) {
  const setting = (/** @type {string} */ name) => env[name] ?? devVars[name];
  const policyName = (setting("EDGECRON_TARGET_POLICY") ?? "local").trim().toLowerCase() || "local";
  if (policyName !== "local" && policyName !== "production") {
    throw new Error(
      `EDGECRON_TARGET_POLICY is ${JSON.stringify(setting("EDGECRON_TARGET_POLICY"))}: use local (the default) or production`,
    );
  }
  const allowedTargets = (setting("EDGECRON_ALLOWED_TARGETS") ?? "").trim();
  /** @type {Record<string, string>} */
  const vars = {};
  /** @type {string[]} */
  const notes = [];
  for (const [name, value] of Object.entries(devVars)) {
    if (value === undefined || required.includes(name) || START_SWITCHES.includes(name)) continue;
    if (POLICY_VARS.includes(name)) {
      notes.push(
        `.dev.vars's ${name} is ignored: EDGECRON_TARGET_POLICY and EDGECRON_ALLOWED_TARGETS choose the target policy`,
      );
      continue;
    }
    vars[name] = value;
  }
  for (const name of OTEL_VARS) {
    const value = env[name];
    if (value !== undefined) vars[name] = value;
  }
  vars.ALLOW_PRIVATE_TARGETS = policyName === "local" ? "true" : "false";
  if (policyName === "production" && allowedTargets !== "") vars.PRIVATE_TARGET_ALLOW_LIST = allowedTargets;
  if (policyName === "local" && allowedTargets !== "") {
    notes.push(
      "EDGECRON_ALLOWED_TARGETS has no effect in local mode, which calls every target: add EDGECRON_TARGET_POLICY=production",
    );
  }
  return { vars, policy: policyName, allowedTargets, notes };
}

/**
 * The line npm start prints about the target policy.
 * @param {LocalSettings} settings
 * @returns {string}
 */
export function targetPolicyLine(settings) {
  if (settings.policy === "local") {
    return (
      "target policy: local mode: every http(s) target is called, private, loopback and cloud-metadata " +
      "addresses included (EDGECRON_TARGET_POLICY=production runs production's)"
    );
  }
  const allowed =
    settings.allowedTargets === "" ? "" : `, except ${settings.allowedTargets} (EDGECRON_ALLOWED_TARGETS)`;
  return `target policy: production: private, loopback, link-local and metadata addresses and internal names refused${allowed}`;
}
