DROP TRIGGER adjudications_append_only ON adjudications;
DROP TRIGGER adjudications_no_truncate ON adjudications;
DROP TRIGGER findings_append_only ON findings;
DROP TRIGGER findings_no_truncate ON findings;
GRANT UPDATE, DELETE ON adjudications, findings TO dozor_writer;
