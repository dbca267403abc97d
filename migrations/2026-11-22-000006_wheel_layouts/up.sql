-- A money wheel's physical segment order is table configuration (the plan gives only how many
-- segments each box has). It is fixed at registration, like the rest of the table's row, and
-- also recorded in the registration's ledger entry.
ALTER TABLE gaming_tables ADD COLUMN wheel_layout TEXT[];
