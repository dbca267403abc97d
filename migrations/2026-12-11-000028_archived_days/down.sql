DROP TABLE archived_days;
