// A job body (or patch) as JSON from a file, or from stdin with "-".
import { readFile } from "node:fs/promises";
import type { JobCreate } from "../client/index";
import { UsageError } from "./context";

export async function readJobFile(path: string): Promise<JobCreate> {
  const text = path === "-" ? await readStdin() : await readFile(path, "utf8");
  try {
    return JSON.parse(text) as JobCreate;
  } catch (error) {
    throw new UsageError(`${path} is not valid JSON: ${(error as Error).message}`);
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
