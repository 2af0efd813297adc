// Which kind of workers-pool file is running. Integration files drive the real Worker (D1, Durable
// Objects, queues); unit files test pure code and must not pay for loading the Worker.

/** True for a file under test/integration/, which needs the Worker, its schemas and the alarm check. */
export function loadsWorker(testFilePath: string): boolean {
  return testFilePath.includes("/test/integration/");
}
