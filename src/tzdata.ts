// The runtime's tz database version, once per isolate (see src/core/cron/tzdata.ts for what it is).
// The Intl access lives here so the fingerprint itself stays pure; so does the test-only
// simulation of a tz database change (an override of the version and of some zones' rules).
import { z } from "zod";
import { type TzdataSource, tzdataFingerprint } from "./core/cron/tzdata";
import { patchedShiftMinutes, setZoneRulePatches, type ZoneRulePatch } from "./core/cron/zone";
import { logEvent } from "./log";

/** A simulated tz database: another version string, and zones whose offsets move. */
export interface TzdataOverride {
  version?: string;
  patches?: ZoneRulePatch[];
}

const overrideSchema = z.object({
  version: z.string().min(1).optional(),
  patches: z.array(z.object({ zone: z.string(), fromMs: z.number(), shiftMinutes: z.number() })).optional(),
});

let fingerprint: string | null = null;
let override: TzdataOverride | null = null;
/** The EDGECRON_TEST_TZDATA text last applied, so a changed binding is applied once. */
let appliedEnvText: string | undefined;

/**
 * The tz database version fire times are computed with in this isolate. Computed on first use
 * (~420 zones × 24 instants: 60-170 ms of CPU in local workerd on a busy 2-core machine), then
 * cached for the isolate's life.
 */
export function tzdataVersion(env: Env): string {
  applyEnvOverride(env);
  if (override?.version) return override.version;
  if (fingerprint === null) fingerprint = computeFingerprint();
  return fingerprint;
}

/** Tests only: simulates a deploy with another tz database (null restores the real one). */
export function setTzdataOverride(next: TzdataOverride | null): void {
  override = next === null ? null : overrideSchema.parse(next);
  setZoneRulePatches(override?.patches ?? []);
  // Patched rules are other rules: fingerprint them afresh.
  fingerprint = null;
}

function applyEnvOverride(env: Env): void {
  const text = env.EDGECRON_TEST_HOOKS === "1" ? env.EDGECRON_TEST_TZDATA : undefined;
  if (text === appliedEnvText) return;
  appliedEnvText = text;
  setTzdataOverride(text ? (JSON.parse(text) as TzdataOverride) : null);
}

function computeFingerprint(): string {
  const startedAtMs = performance.now();
  const version = tzdataFingerprint(intlSource());
  // Locally this measures the cost; on Cloudflare timers do not advance during compute (it logs 0).
  logEvent("tzdata.fingerprinted", { version, cpu_ms: Math.round(performance.now() - startedAtMs) });
  return version;
}

/** Offsets straight from Intl (one formatter per zone), plus any simulated rule change. */
function intlSource(): TzdataSource {
  const formatters = new Map<string, Intl.DateTimeFormat>();
  const formatterOf = (zone: string): Intl.DateTimeFormat => {
    let formatter = formatters.get(zone);
    if (!formatter) {
      formatter = new Intl.DateTimeFormat("en-US", { timeZone: zone, timeZoneName: "longOffset" });
      formatters.set(zone, formatter);
    }
    return formatter;
  };
  return {
    zones: Intl.supportedValuesOf("timeZone"),
    offsetMinutes: (zone, atMs) =>
      offsetMinutesOfLabel(formatterOf(zone).format(atMs)) + patchedShiftMinutes(zone, atMs),
    runtimeVersion: runtimeTzVersion(),
  };
}

/** "1/15/2026, GMT+05:30" -> 330; "GMT" alone is UTC. Only the offset part is read. */
export function offsetMinutesOfLabel(label: string): number {
  const match = /GMT([+-])(\d{1,2})(?::(\d{2}))?/.exec(label);
  if (!match) return 0;
  const minutes = Number(match[2]) * 60 + Number(match[3] ?? 0);
  return match[1] === "-" ? -minutes : minutes;
}

/** Node's `process.versions.tz` when the runtime fills it in (workerd leaves it empty). */
function runtimeTzVersion(): string | null {
  const versions = (globalThis as { process?: { versions?: Record<string, string | undefined> } }).process
    ?.versions;
  return versions?.tz ? versions.tz : null;
}
