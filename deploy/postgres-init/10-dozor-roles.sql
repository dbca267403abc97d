-- Run once by the postgres image when it creates the cluster. The owner (POSTGRES_USER `dozor`)
-- owns the schema and runs the migrations; the server logs in as `dozor_server`, a member of
-- `dozor_writer` only (the migrations grant that role SELECT and INSERT, never UPDATE or DELETE).
CREATE ROLE dozor_writer NOLOGIN;
CREATE ROLE dozor_server LOGIN PASSWORD 'change-me-too' IN ROLE dozor_writer;
