-- The server's own login (a member of dozor_writer) checks at /readyz that every migration is
-- applied; it reads the migration table and can change nothing in it.
GRANT SELECT ON __diesel_schema_migrations TO dozor_writer;
