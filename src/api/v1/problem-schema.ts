// The error body of every v1 route: an RFC 9457 problem.
import { z } from "zod";
import { ERROR_CODE_LIST } from "../../core/common/errors";

export const fieldErrorSchema = z.object({ path: z.string(), message: z.string() });

export const problemSchema = z
  .object({
    type: z.string().meta({ example: "urn:edgecron:problem:validation_failed" }),
    title: z.string().meta({ example: "Bad Request" }),
    status: z.number().int().meta({ example: 400 }),
    detail: z.string(),
    code: z.enum(ERROR_CODE_LIST),
    errors: z.array(fieldErrorSchema).optional(),
  })
  .meta({ description: "An RFC 9457 problem; `code` is one of docs/API.md's error table" });
