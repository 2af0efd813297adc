import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

// End-to-end suites: real `wrangler dev` processes and real local HTTP targets, in plain Node.
// Most files spend their time waiting on real clocks (instants, leases, restarts), so they run
// two at a time on the 2-core machine. The files that assert how late fires land under their
// own load (or how soon a control action stops a flood's calls) run afterwards, one at a time,
// so no other suite's wrangler competes with them.
const ALONE = [
  "test/e2e/scheduling.e2e.ts",
  "test/e2e/slow-endpoints.e2e.ts",
  "test/e2e/operations.e2e.ts",
  "test/e2e/flood.e2e.ts",
  "test/e2e/hanging-calls.e2e.ts",
  "test/e2e/control-actions.e2e.ts",
];
// Of the others, the busiest: the 2,000-job crash rounds, and the files that start many wrangler
// processes (every `npm start` migrates three databases; the layout move runs `d1 execute`).
// The crash rounds start first and the rest wait till last, so the two lanes keep the light,
// mostly waiting files beside the crash rounds instead of two busy files side by side.
const FIRST = ["test/e2e/crash.e2e.ts"];
const LAST = ["test/e2e/start.e2e.ts", "test/e2e/local-settings.e2e.ts", "test/e2e/layout.e2e.ts"];
const shared = { testTimeout: 120_000, hookTimeout: 120_000 };

const rank = (spec: TestSpecification) => {
  const file = spec.moduleId.slice(import.meta.dirname.length + 1);
  return FIRST.includes(file) ? 0 : LAST.includes(file) ? 2 : 1;
};

/** vitest's order (group, then longest or largest first), with FIRST and LAST moved. */
class BusiestApart extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const group = (spec: TestSpecification) => spec.project.config.sequence.groupOrder;
    return (await super.sort(files)).sort((a, b) => group(a) - group(b) || rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    // Migrates one state directory up front; each fresh `wrangler dev` starts from a copy.
    globalSetup: ["./test/e2e/migrated-state.ts"],
    sequence: { sequencer: BusiestApart },
    projects: [
      {
        test: {
          ...shared,
          name: "e2e",
          include: ["test/e2e/**/*.e2e.ts"],
          exclude: ALONE,
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          ...shared,
          name: "e2e-alone",
          include: ALONE,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
