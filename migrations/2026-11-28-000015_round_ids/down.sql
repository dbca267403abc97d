DROP TABLE round_ids;
