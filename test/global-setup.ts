import type { TestProject } from "vitest/node";
import { startRecordingTarget } from "./helpers/target-server";

export default async function setup(project: TestProject) {
  const target = await startRecordingTarget();
  project.provide("targetUrl", target.url);
  return () => new Promise<void>((resolve) => target.server.close(() => resolve()));
}
