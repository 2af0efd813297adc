// The code blocks of README.md and docs/*.md, and how the docs test runs each one. A block's fence
// info string is its language, then at most one role the test honours:
//   (none)      run as written: `sh` with bash (exit 0, every curl answered below 400, and each
//               `# {...}` line after a command equal to that command's JSON answer), `js`/`ts` as a
//               Node ES module in the repository (exit 0);
//   `receiver`  a long-running target: started, then sent a real job's calls;
//   `verifier`  a module exporting a signature check: called on a real signed call;
//   `worker`    a Worker module: its fetch handler is called with a real signed call;
//   `no-run`    not a program (an output sample, a format, a config fragment, a command list
//               with placeholders, or a command this test is itself running, such as npm start).
// Anything else fails the test. What it replaces, everywhere: the local addresses and token
// `npm start` prints (127.0.0.1:8787, dev-admin-token), the placeholder deployment URLs, and
// the tour's target port 9000, with those of the dev server and target this test started.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export const ROLES = ["run", "receiver", "verifier", "worker", "no-run"] as const;
export type Role = (typeof ROLES)[number];

export interface DocBlock {
  /** "README.md:58": where its fence opens. */
  where: string;
  language: string;
  role: string;
  code: string;
}

/** Every fenced block of README.md and docs/*.md, in order. */
export function docBlocks(root: string): DocBlock[] {
  const files = [
    "README.md",
    ...readdirSync(join(root, "docs"))
      .filter((name) => name.endsWith(".md"))
      .map((name) => `docs/${name}`),
  ];
  return files.flatMap((file) => blocksOf(file, readFileSync(join(root, file), "utf8")));
}

function blocksOf(file: string, text: string): DocBlock[] {
  const blocks: DocBlock[] = [];
  const lines = text.split("\n");
  let open: { line: number; info: string; body: string[] } | undefined;
  lines.forEach((line, index) => {
    const fence = /^\s*```(.*)$/.exec(line);
    if (!fence) {
      open?.body.push(line);
      return;
    }
    if (!open) {
      open = { line: index + 1, info: (fence[1] ?? "").trim(), body: [] };
      return;
    }
    const [language = "", role = "run", ...rest] = open.info.split(/\s+/);
    blocks.push({
      where: `${file}:${open.line}`,
      language,
      role: rest.length > 0 ? "unknown" : role,
      code: open.body.join("\n"),
    });
    open = undefined;
  });
  return blocks;
}

export interface Places {
  baseUrl: string;
  adminToken: string;
  targetPort: number;
}

/** The block with the local addresses, the token and the placeholder URLs replaced (see above). */
export function localised(code: string, places: Places): string {
  return code
    .replaceAll("http://127.0.0.1:8787", places.baseUrl)
    .replaceAll("https://edgecron.example.workers.dev", places.baseUrl)
    .replaceAll("https://edgecron.example.com", places.baseUrl)
    .replaceAll("dev-admin-token", places.adminToken)
    .replaceAll("127.0.0.1:9000", `127.0.0.1:${places.targetPort}`)
    .replaceAll(".listen(9000)", `.listen(${places.targetPort})`);
}

/**
 * A shell block as a bash script: stop at the first failure, curl failing on a 4xx/5xx answer
 * (printing it), and a command followed by a `# {...}` comment checked against that answer.
 */
export function checkedShell(code: string): string {
  const prelude = readFileSync(join(import.meta.dirname, "doc-shell-prelude.sh"), "utf8");
  const out: string[] = [];
  let command: string[] = [];
  for (const line of code.split("\n")) {
    const answer = /^# (\{.*\})\s*$/.exec(line);
    if (answer && command.length > 0) {
      out.push(`expect_json '${answer[1]}' "$(${command.join("\n")})"`);
      command = [];
    } else if (line.trim() === "" || /^\s*#/.test(line)) {
      out.push(...command, line);
      command = [];
    } else {
      command.push(line);
    }
  }
  out.push(...command);
  return prelude + out.join("\n");
}
