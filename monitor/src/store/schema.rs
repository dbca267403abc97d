//! The monitor's tables (monitor/migrations), as diesel sees them.

diesel::table! {
    monitor_casinos (casino) {
        casino -> Text,
        size -> Int8,
        frontier -> Bytea,
        last_leaf -> Nullable<Bytea>,
        checkpoint_size -> Nullable<Int8>,
        checkpoint_root -> Nullable<Bytea>,
        checkpoint_note -> Nullable<Text>,
        checkpoint_at -> Nullable<Timestamptz>,
        halted -> Nullable<Text>,
        last_attempt_at -> Nullable<Timestamptz>,
        last_success_at -> Nullable<Timestamptz>,
        last_error -> Nullable<Text>,
        failures -> Int4,
    }
}

diesel::table! {
    monitor_checkpoints (casino, size) {
        casino -> Text,
        size -> Int8,
        root -> Bytea,
        note -> Text,
        verified_at -> Timestamptz,
    }
}

diesel::table! {
    monitor_registry_events (casino, ledger_index) {
        casino -> Text,
        ledger_index -> Int8,
        received_at -> Timestamptz,
        signer -> Text,
        event -> Text,
    }
}

diesel::table! {
    monitor_tallies (casino, gaming_day, game) {
        casino -> Text,
        gaming_day -> Date,
        game -> Text,
        rounds -> Int8,
        unjudged_rounds -> Int8,
        void_rounds -> Int8,
        stakes_h -> Int8,
        paid_h -> Int8,
        expected_paid_h -> Int8,
        rtp_stakes_h -> Int8,
        expected_payout_mh -> Int8,
        payout_variance_h2 -> Float8,
        findings -> Int8,
        findings_amount_h -> Int8,
        returned_h -> Int8,
        payout_third_moment_h3 -> Float8,
    }
}

diesel::table! {
    monitor_findings (casino, ledger_index, position) {
        casino -> Text,
        ledger_index -> Int8,
        position -> Int4,
        table_id -> Text,
        seq_no -> Int8,
        kind -> Text,
        amount_h -> Int8,
        message -> Text,
        played_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    monitor_record_runs (casino, table_id, first_seq) {
        casino -> Text,
        table_id -> Text,
        first_seq -> Int8,
        last_seq -> Int8,
        first_index -> Int8,
        last_index -> Int8,
    }
}

diesel::table! {
    monitor_mismatches (casino, ledger_index, field) {
        casino -> Text,
        ledger_index -> Int8,
        field -> Text,
        casino_value -> Jsonb,
        monitor_value -> Jsonb,
        found_at -> Timestamptz,
    }
}

diesel::table! {
    monitor_forks (id) {
        id -> Int8,
        casino -> Text,
        kind -> Text,
        held_note -> Text,
        seen_note -> Text,
        found_at -> Timestamptz,
    }
}

diesel::table! {
    monitor_alerts (id) {
        id -> Int8,
        casino -> Text,
        kind -> Text,
        key -> Text,
        raised_at -> Timestamptz,
        message -> Text,
        evidence -> Jsonb,
    }
}

diesel::table! {
    monitor_outbox (alert_id) {
        alert_id -> Int8,
        attempts -> Int4,
        next_attempt_at -> Timestamptz,
        delivered_at -> Nullable<Timestamptz>,
        last_error -> Nullable<Text>,
    }
}

diesel::joinable!(monitor_outbox -> monitor_alerts (alert_id));

diesel::allow_tables_to_appear_in_same_query!(
    monitor_outbox,
    monitor_casinos,
    monitor_checkpoints,
    monitor_registry_events,
    monitor_tallies,
    monitor_findings,
    monitor_record_runs,
    monitor_mismatches,
    monitor_forks,
    monitor_alerts,
);
