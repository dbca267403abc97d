REVOKE SELECT ON __diesel_schema_migrations FROM dozor_writer;
