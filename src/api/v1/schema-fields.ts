// The fields and wrappers the v1 API's shapes are built from: instants as the API writes and reads
// them, counts, and the page and list envelopes.
import { z } from "zod";

export const time = z.iso.datetime().meta({ example: "2026-12-01T09:00:00.000Z" });
export const nullableTime = time.nullable();
export const requestInstant = z.iso.datetime({ offset: true, message: "must be an RFC 3339 timestamp" });
export const count = z.number().int().min(0);

export const page = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), next_cursor: z.string().nullable() });
export const list = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item) });
