import type { Problem } from "../../core/common/errors";

export { EdgecronError, type FieldError, type Problem, toProblem } from "../../core/common/errors";
export { fieldErrorsOf, joinPath, validationError } from "../../core/common/field-errors";

export function problemResponse(problem: Problem, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(problem), {
    status: problem.status,
    headers: { "content-type": "application/problem+json", ...headers },
  });
}
