DROP INDEX ledger_entries_operations;
