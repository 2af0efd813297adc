-- Jobs a schedule file manages (`edgecron apply`, src/core/schedule-file/) carry the file's label in
-- their spec's `managed_by`. A plan reads them by label and name range, to find the ones the file no
-- longer holds (`--prune`): this index serves that read. Partial, so jobs no file manages (the
-- great majority) write no entry into it.
CREATE INDEX jobs_managed_by
  ON jobs(tenant_id, json_extract(spec_json, '$.managed_by'), name)
  WHERE json_extract(spec_json, '$.managed_by') IS NOT NULL;
