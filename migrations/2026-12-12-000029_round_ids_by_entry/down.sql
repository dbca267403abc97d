DROP INDEX round_ids_by_entry;
CREATE INDEX round_ids_by_entry ON round_ids USING brin (ledger_index)
    WITH (autosummarize = on);
