// The target policy's switches: local mode lets every http(s) URL through; the production policy
// refuses private and internal targets except the hosts its allow-list names (how `npm start` tries
// production's rules against a local target).
import { describe, expect, it } from "vitest";
import { resolvedTargetProblem, targetAddressProblem } from "../../src/core/targets/ssrf";
import {
  isAllowedTarget,
  parseAllowedTargets,
  type TargetPolicy,
} from "../../src/core/targets/target-policy";

const production = (allowList = ""): TargetPolicy => ({
  allowPrivate: false,
  allowedTargets: parseAllowedTargets(allowList).allowed,
});

describe("parseAllowedTargets", () => {
  it("reads host and host:port entries, separated by commas or spaces, as the URL parser writes hosts", () => {
    expect(parseAllowedTargets(" 127.0.0.1:9000, [::1]  DB,127.1:80 ")).toEqual({
      allowed: [
        { host: "127.0.0.1", port: 9000 },
        { host: "[::1]", port: null },
        { host: "db", port: null },
        { host: "127.0.0.1", port: 80 },
      ],
      ignored: [],
    });
  });

  it("ignores, and returns, what is not host[:port]", () => {
    expect(
      parseAllowedTargets("http://127.0.0.1:9000 127.0.0.1:0 127.0.0.1:70000 ::1 a/b u@h 999.1.1.1 ok:1")
        .ignored,
    ).toEqual(["http://127.0.0.1:9000", "127.0.0.1:0", "127.0.0.1:70000", "::1", "a/b", "u@h", "999.1.1.1"]);
    expect(parseAllowedTargets(undefined)).toEqual({ allowed: [], ignored: [] });
  });
});

describe("isAllowedTarget", () => {
  const allowed = parseAllowedTargets("127.0.0.1:9000, [::1]:8443, db").allowed;
  it.each([
    ["http://127.0.0.1:9000/hook", true],
    ["https://127.0.0.1:9000/hook", true],
    ["http://2130706433:9000/", true],
    ["http://127.0.0.1:9001/hook", false],
    ["http://127.0.0.1/hook", false],
    ["https://[::1]:8443/", true],
    ["http://db/hook", true],
    ["http://DB.:5432/", true],
    ["http://db.internal/", false],
    ["http://localhost:9000/", false],
  ])("%s: %s", (url, expected) => {
    expect(isAllowedTarget(new URL(url), allowed)).toBe(expected);
  });

  it("matches a bare port against the scheme's default", () => {
    const web = parseAllowedTargets("10.0.0.5:80, 10.0.0.6:443").allowed;
    expect(isAllowedTarget(new URL("http://10.0.0.5/"), web)).toBe(true);
    expect(isAllowedTarget(new URL("https://10.0.0.5/"), web)).toBe(false);
    expect(isAllowedTarget(new URL("https://10.0.0.6/"), web)).toBe(true);
  });
});

describe("targetAddressProblem under each policy", () => {
  it("local mode calls private, metadata and single-label targets; never other schemes or credentials", () => {
    const local = { allowPrivate: true };
    for (const url of [
      "http://169.254.169.254/latest/meta-data/",
      "http://db/hook",
      "http://127.0.0.1:9000/",
    ]) {
      expect(targetAddressProblem(url, local)).toBeNull();
    }
    expect(targetAddressProblem("ftp://127.0.0.1/", local)).toMatch(/http or https/);
    expect(targetAddressProblem("http://u:p@127.0.0.1/", local)).toMatch(/credentials/);
  });

  it("the production policy refuses them, naming the address, but for what its allow-list names", () => {
    const policy = production("127.0.0.1:9000");
    expect(targetAddressProblem("http://127.0.0.1:9000/hook", policy)).toBeNull();
    expect(targetAddressProblem("http://127.0.0.1:9001/hook", policy)).toMatch(/127\.0\.0\.1 is loopback/);
    expect(targetAddressProblem("http://169.254.169.254/latest/meta-data/", policy)).toMatch(
      /169\.254\.169\.254/,
    );
    expect(targetAddressProblem("http://db/hook", policy)).toMatch(/db/);
    expect(targetAddressProblem("http://db/hook", production("db"))).toBeNull();
    expect(targetAddressProblem("http://u:p@127.0.0.1:9000/", policy)).toMatch(/credentials/);
  });

  it("does not resolve an allow-listed name (it is let through by name), and resolves the rest", async () => {
    let lookups = 0;
    const resolveHost = async () => {
      lookups += 1;
      return ["10.0.0.5"];
    };
    const policy = { ...production("billing.corp.example:8080"), resolveHost };
    expect(await resolvedTargetProblem("http://billing.corp.example:8080/hook", policy)).toBeNull();
    expect(lookups).toBe(0);
    expect(await resolvedTargetProblem("http://billing.corp.example:9090/hook", policy)).toMatchObject({
      kind: "refused",
    });
    expect(lookups).toBe(1);
  });
});
