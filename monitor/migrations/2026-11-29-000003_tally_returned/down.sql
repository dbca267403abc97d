ALTER TABLE monitor_tallies DROP COLUMN returned_h;
