// docs/API.md tables every error code exactly once, as the catalogue in src/core/common/errors.ts has it.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ERROR_CODES } from "../../src/core/common/errors";

const API_DOC = readFileSync(join(import.meta.dirname, "..", "..", "docs", "API.md"), "utf8");

describe("the error catalogue", () => {
  it("is tabled in docs/API.md: every code once, with the status it decides", () => {
    const rows = [...API_DOC.matchAll(/^\| `([a-z_]+)` *\| (\d{3}) *\|/gm)].map((row) => [
      row[1],
      Number(row[2]),
    ]);
    expect(rows).toEqual(Object.entries(ERROR_CODES).map(([code, { status }]) => [code, status]));
  });
});
