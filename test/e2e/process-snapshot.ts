// What a hung `wrangler dev` looks like from the operating system, for a failing e2e round: every
// workerd and wrangler process (an old one from a killed group still alive?), each workerd's CPU
// over one second (100 %: a JS loop that never yields; idle: a promise that never settles), its
// threads and what they wait in, and which of them holds files of the state directory.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/** CPU ticks (user + system) a process (or, with its task path, a thread) used so far; undefined once gone. */
function cpuTicksOf(procPath: string): number | undefined {
  try {
    // The command name may hold spaces: the fields after it start after the last ')'.
    const stat = readFileSync(`${procPath}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
}

function readOr(path: string, fallback: string): string {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return fallback;
  }
}

/** Each thread of `pid`: its name, state (R running, S sleeping, D in the kernel) and wait channel. */
function threadsOf(pid: number): string[] {
  try {
    return readdirSync(`/proc/${pid}/task`).map((tid) => {
      const stat = readOr(`/proc/${pid}/task/${tid}/stat`, "");
      const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
      const name = readOr(`/proc/${pid}/task/${tid}/comm`, "?");
      const ticks = cpuTicksOf(`/proc/${pid}/task/${tid}`);
      return `${tid} ${name} ${state} wchan=${readOr(`/proc/${pid}/task/${tid}/wchan`, "?")} ticks=${ticks}`;
    });
  } catch {
    return ["(gone)"];
  }
}

/** The open files of `pid` under `dir` (SQLite databases and their journals). */
function filesUnder(pid: number, dir: string): string[] {
  try {
    return readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
      try {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        return target.startsWith(dir) ? [`fd ${fd} -> ${target.slice(dir.length)}`] : [];
      } catch {
        return [];
      }
    });
  } catch {
    return ["(gone)"];
  }
}

/**
 * The process table's workerd and wrangler rows, then for each workerd holding files of `stateDir`
 * its CPU, threads and some of those files.
 */
export async function processSnapshot(stateDir: string): Promise<string> {
  const table = execFileSync("ps", ["-eo", "pid,pgid,ppid,stat,etime,pcpu,rss,args"], { encoding: "utf8" })
    .split("\n")
    .filter((line, index) => index === 0 || /workerd|wrangler|dev-server/.test(line));
  const workerdPids = table
    .slice(1)
    .filter((line) => /workerd/.test(line) && !/\bps\b/.test(line))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
  const before = new Map(workerdPids.map((pid) => [pid, cpuTicksOf(`/proc/${pid}`)]));
  const sampleMs = 1_000;
  await new Promise((resolve) => setTimeout(resolve, sampleMs));
  const ticksPerSecond = 100;
  const lines = [`uptime/load: ${readOr("/proc/loadavg", "?")}`, ...table];
  for (const pid of workerdPids) {
    // Only the runtimes on this state directory (the live one, and any old one still holding it):
    // other workerd processes on the machine are someone else's and only load it.
    const files = filesUnder(pid, stateDir);
    if (files.length === 0) continue;
    const first = before.get(pid);
    const second = cpuTicksOf(`/proc/${pid}`);
    const cpuPercent =
      first === undefined || second === undefined
        ? "?"
        : (((second - first) / ticksPerSecond / (sampleMs / 1_000)) * 100).toFixed(0);
    lines.push(`workerd ${pid}: cpu ${cpuPercent} % over ${sampleMs} ms`);
    lines.push(...threadsOf(pid).map((thread) => `  thread ${thread}`));
    lines.push(
      `  ${files.length} open files under the state directory, e.g.`,
      ...files.slice(0, 8).map((file) => `  ${file}`),
    );
  }
  return lines.join("\n");
}
