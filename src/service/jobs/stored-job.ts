// A job as the service hands it to the doors: the stored definition, its status and versions.
// Named here so a door renders it without reaching into the D1 layer.
export type { StoredJob } from "../../db/jobs";
