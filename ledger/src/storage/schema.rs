// @generated automatically by Diesel CLI.

diesel::table! {
    adjudications (ledger_index) {
        ledger_index -> Int8,
        table_id -> Text,
        game -> Text,
        plan_id -> Text,
        rules_version -> Text,
        played_at -> Timestamptz,
        void -> Bool,
        stakes_h -> Int8,
        expected_paid_h -> Int8,
        paid_h -> Int8,
        rtp_stakes_h -> Int8,
        expected_payout_mh -> Int8,
        payout_variance_h2 -> Float8,
        finding_count -> Int4,
        verdict -> Text,
    }
}

diesel::table! {
    checkpoints (size) {
        size -> Int8,
        root -> Bytea,
        note -> Text,
        verifier_key -> Text,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    findings (id) {
        id -> Int8,
        ledger_index -> Int8,
        table_id -> Text,
        game -> Text,
        played_at -> Timestamptz,
        kind -> Text,
        bet_ids -> Jsonb,
        expected_h -> Nullable<Int8>,
        actual_h -> Nullable<Int8>,
        amount_h -> Int8,
        message -> Text,
    }
}

diesel::table! {
    gaming_tables (table_id) {
        table_id -> Text,
        game -> Text,
        location -> Text,
        plan_id -> Text,
        registered_at -> Timestamptz,
        wheel_layout -> Nullable<Array<Text>>,
    }
}

diesel::table! {
    ledger_entries (idx) {
        idx -> Int8,
        received_at -> Timestamptz,
        prev_hash -> Bytea,
        leaf_hash -> Bytea,
        entry -> Bytea,
        record_type -> Text,
        table_id -> Text,
        seq_no -> Nullable<Int8>,
        key_id -> Text,
        record_hash -> Bytea,
    }
}

diesel::table! {
    merkle_nodes (level, idx) {
        level -> Int2,
        idx -> Int8,
        hash -> Bytea,
    }
}

diesel::table! {
    significant_events (id) {
        id -> Int8,
        occurred_at -> Timestamptz,
        kind -> Text,
        table_id -> Text,
        seq_no -> Int8,
        ledger_index -> Nullable<Int8>,
        details -> Jsonb,
    }
}

diesel::table! {
    table_key_revocations (key_id) {
        key_id -> Text,
        revoked_at -> Timestamptz,
        reason -> Text,
        recorded_at -> Timestamptz,
    }
}

diesel::table! {
    table_keys (key_id) {
        key_id -> Text,
        table_id -> Text,
        public_key -> Bytea,
        valid_from -> Timestamptz,
        registered_at -> Timestamptz,
    }
}

diesel::joinable!(findings -> adjudications (ledger_index));
diesel::joinable!(significant_events -> ledger_entries (ledger_index));
diesel::joinable!(table_key_revocations -> table_keys (key_id));
diesel::joinable!(table_keys -> gaming_tables (table_id));

diesel::allow_tables_to_appear_in_same_query!(
    adjudications,
    checkpoints,
    findings,
    gaming_tables,
    ledger_entries,
    merkle_nodes,
    significant_events,
    table_key_revocations,
    table_keys,
);
