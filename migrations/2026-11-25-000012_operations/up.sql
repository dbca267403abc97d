-- Table operating periods and the cage are records like rounds (signed by their station, with a
-- seq_no). Period audits and the Ministry's package read them by station and sequence; a
-- partial index avoids a scan of the whole ledger.
CREATE INDEX ledger_entries_operations ON ledger_entries (table_id, seq_no)
    WHERE record_type IN ('table_open', 'table_fill', 'table_credit', 'table_drop',
                          'table_tips', 'table_close', 'cage_open', 'cage_transaction',
                          'cage_close');
