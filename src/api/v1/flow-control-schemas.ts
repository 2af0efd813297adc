// The v1 API's answers about flow control: a key's state and the hosts its calls are throttled at.
import { z } from "zod";
import { FLOW_KEY_MESSAGE, FLOW_KEY_PATTERN } from "../../core/load/flow-control";
import { HOST_SIGNALS } from "../../core/load/host-throttle";
import { count, nullableTime, page, time } from "./schema-fields";

/** A flow-control key's state (GET /v1/flow-control/{key}). */
export const flowControlStateSchema = z.object({
  key: z.string(),
  waiting: count.meta({ description: "Runs due and waiting for a permit, as their shards last reported" }),
  in_flight: count.meta({ description: "Calls holding a parallelism permit" }),
  rate_count: count.meta({ description: "Runs started in the current rate window" }),
  rate_period_start: time.meta({ description: "When the current rate window began" }),
  limits: z
    .object({
      rate: z.number().int().nullable(),
      period: z.string(),
      parallelism: z.number().int().nullable(),
    })
    .nullable()
    .meta({ description: "The limits the latest run of the key carried; null: no run has asked yet" }),
  updated_at: nullableTime,
});
export const throttledHostSchema = z.object({
  origin: z.string().meta({ example: "https://api.example.com" }),
  limit: count.meta({
    description: "Calls allowed in flight to the host now (grows back by one per window of 2xx)",
  }),
  in_flight: count.meta({ description: "Calls holding one of the host's permits" }),
  waiting: count.meta({ description: "Runs due and waiting for the host, as their shards last reported" }),
  paused_until: nullableTime.meta({
    description: "No call starts before this (the host's Retry-After); null: not paused",
  }),
  last_signal: z.enum(HOST_SIGNALS).meta({ description: "What the host last answered that slowed it down" }),
  last_signal_at: time,
});
export const flowControlParams = z.object({
  key: z
    .string()
    .regex(FLOW_KEY_PATTERN, FLOW_KEY_MESSAGE)
    .meta({ param: { name: "key", in: "path" }, example: "billing-api" }),
});

export const flowControlPageSchema = page(flowControlStateSchema).extend({
  hosts: z.array(throttledHostSchema).meta({
    description:
      "Destination hosts the tenant's calls are throttled at (they answered 429, 503 or timed out), in origin order, at most 50",
  }),
});
