// A job's spec and calendars, read from its definition row (../store/job-definitions.ts) when a
// pass, a claim or a report needs them, and cached per version: a version never changes its spec,
// and parsing a spec on every fire would dominate the tick.

import type { JobSpec } from "../../../src/core/jobs/job-spec";
import {
  type CompiledExclusions,
  compileExclusions,
  type ExclusionSet,
} from "../../../src/core/schedules/exclusions";
import type { JobRecord } from "../state/job-book";
import type { ShardState } from "../state/shard-state";
import { type JobDefinition, readJobDefinition, readJobDefinitions } from "../store/job-definitions";

const CACHE_LIMIT = 20_000;
const specCache = new Map<string, JobSpec>();
const exclusionCache = new Map<string, CompiledExclusions>();

/** Entries dropped at once when a cache is full: one walk per tenth of the cache, not per entry. */
const EVICT_AT_ONCE = CACHE_LIMIT / 10;

/** Adds to a bounded cache, dropping the oldest tenth when full (the jobs touched last stay). */
function remember<T>(cache: Map<string, T>, key: string, value: T): void {
  if (cache.size >= CACHE_LIMIT) {
    let dropped = 0;
    for (const oldest of cache.keys()) {
      cache.delete(oldest);
      if (++dropped >= EVICT_AT_ONCE) break;
    }
  }
  cache.set(key, value);
}

const specKey = (job: Pick<JobRecord, "job_id" | "version">) => `${job.job_id}@${job.version}`;

/** Caches a definition just written or read (a push has every spec at hand). */
export function rememberDefinition(definition: JobDefinition): JobSpec {
  const spec = JSON.parse(definition.spec_json) as JobSpec;
  remember(specCache, specKey(definition), spec);
  return spec;
}

function definitionOf(state: ShardState, jobId: string): JobDefinition {
  const definition = readJobDefinition(state.sql, jobId);
  if (definition === null) throw new Error(`job ${jobId} has no definition on this shard`);
  return definition;
}

/** The job's spec at its current version. */
export function jobSpec(state: ShardState, job: Pick<JobRecord, "job_id" | "version">): JobSpec {
  return specCache.get(specKey(job)) ?? rememberDefinition(definitionOf(state, job.job_id));
}

/** Reads the specs of many jobs in one statement where the cache lacks them (a consumer batch). */
export function preloadSpecs(state: ShardState, jobs: Iterable<Pick<JobRecord, "job_id" | "version">>): void {
  const missing = [...jobs].filter((job) => !specCache.has(specKey(job))).map((job) => job.job_id);
  if (missing.length === 0) return;
  for (const definition of readJobDefinitions(state.sql, missing).values()) rememberDefinition(definition);
}

/** The job's calendars and inline `exclude`, compiled once per version and calendar revision. */
export function jobExclusions(
  state: ShardState,
  job: Pick<JobRecord, "job_id" | "version" | "calendars_revision">,
): CompiledExclusions {
  const key = `${job.job_id}@${job.version}@${job.calendars_revision}`;
  let compiled = exclusionCache.get(key);
  if (compiled === undefined) {
    const definition = definitionOf(state, job.job_id);
    const exclude = jobSpec(state, job).exclude ?? null;
    const calendars = JSON.parse(definition.calendars_json || "[]") as ExclusionSet[];
    compiled = compileExclusions(exclude === null ? calendars : [...calendars, exclude]);
    remember(exclusionCache, key, compiled);
  }
  return compiled;
}

/** The exclusions of a spec and calendars not stored yet (a new job's first timer). */
export function exclusionsOfDefinition(spec: JobSpec, calendarsJson: string): CompiledExclusions {
  const calendars = JSON.parse(calendarsJson || "[]") as ExclusionSet[];
  const exclude = spec.exclude ?? null;
  return compileExclusions(exclude === null ? calendars : [...calendars, exclude]);
}
