REVOKE ALL ON checkpoints FROM dozor_writer;
DROP TABLE checkpoints;
