ALTER TABLE adjudications DROP COLUMN statistics_detail;
