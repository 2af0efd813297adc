// GET /v2/flowControl/{key}: a flow-control key's state (runs waiting, calls in flight, rate
// used) in the shape the client's flowControl.get parses, from the key's flow gate; and
// POST /v2/flowControl/{key}/resetRate, which starts the key's rate window over now, and
// /pause and /resume, which hold the key's runs at their shards and let them go again.
import { Hono } from "hono";
import type { FlowLimits } from "../../../core/load/flow-control";
import type { GateState } from "../../../gate/protocol";
import {
  flowControlKeyState,
  resetFlowControlKeyRate,
  setFlowControlKeyPaused,
} from "../../../service/flow-control-keys";
import type { AppEnv } from "../../http/app-env";

/** The shape QStash's `GET /v2/flowControl/{key}` answers, for the /v2 API. */
interface QStashFlowControlInfo {
  flowControlKey: string;
  waitListSize: number;
  parallelismMax: number;
  parallelismCount: number;
  rateMax: number;
  rateCount: number;
  ratePeriod: number;
  ratePeriodStart: number;
  isPaused: boolean;
  isPinnedParallelism: boolean;
  isPinnedRate: boolean;
}

/** A gate's state in QStash's shape (0 for an unlimited dimension, as QStash reports; period in seconds). */
function qstashFlowControlInfo(key: string, state: GateState): QStashFlowControlInfo {
  const limits: FlowLimits = state.limits ?? { rate: null, periodMs: 1_000, parallelism: null };
  return {
    flowControlKey: key,
    waitListSize: state.waiting,
    parallelismMax: limits.parallelism ?? 0,
    parallelismCount: state.inFlight,
    rateMax: limits.rate ?? 0,
    rateCount: state.rateCount,
    ratePeriod: Math.round(limits.periodMs / 1000),
    ratePeriodStart: state.ratePeriodStartMs,
    isPaused: state.paused === true,
    isPinnedParallelism: false,
    isPinnedRate: false,
  };
}

export const flowControl = new Hono<AppEnv>();

flowControl.get("/:key", async (c) => {
  const key = c.req.param("key");
  return c.json(qstashFlowControlInfo(key, await flowControlKeyState(c.env, c.get("tenantId"), key)));
});

flowControl.post("/:key/resetRate", async (c) => {
  await resetFlowControlKeyRate(c.env, c.get("tenantId"), c.req.param("key"));
  return c.body(null, 200);
});

flowControl.post("/:key/pause", async (c) => {
  await setFlowControlKeyPaused(c.env, c.get("tenantId"), c.req.param("key"), true);
  return c.body(null, 200);
});

flowControl.post("/:key/resume", async (c) => {
  await setFlowControlKeyPaused(c.env, c.get("tenantId"), c.req.param("key"), false);
  return c.body(null, 200);
});
