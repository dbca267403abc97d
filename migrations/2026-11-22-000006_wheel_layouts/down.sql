ALTER TABLE gaming_tables DROP COLUMN wheel_layout;
