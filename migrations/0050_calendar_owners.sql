-- A calendar a schedule file manages carries the file's label (`edgecron apply`,
-- src/core/schedule-file/): its plans compare the calendar with the file, and `--prune` deletes
-- only calendars that carry it. NULL: no file manages the calendar.
ALTER TABLE calendars ADD COLUMN managed_by TEXT;
