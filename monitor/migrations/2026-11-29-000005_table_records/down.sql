DROP TABLE monitor_rounds;
