// @generated automatically by Diesel CLI.

diesel::table! {
    archived_entries (idx) {
        idx -> Int8,
        received_at -> Timestamptz,
        leaf_hash -> Bytea,
        record_hash -> Bytea,
    }
}

diesel::table! {
    archived_registry_entries (idx) {
        idx -> Int8,
        received_at -> Timestamptz,
        prev_hash -> Bytea,
        leaf_hash -> Bytea,
        entry -> Bytea,
        record_type -> Text,
        table_id -> Nullable<Text>,
        seq_no -> Nullable<Int8>,
        key_id -> Text,
        record_hash -> Bytea,
    }
}

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
        payout_third_moment_h3 -> Float8,
        tournament_fee_h -> Int8,
        tournament_overlay_h -> Int8,
        time_collection -> Bool,
        wheel_result -> Nullable<Int4>,
        kind_names -> Array<Text>,
        kind_bets -> Array<Int8>,
        kind_stakes_h -> Array<Int8>,
        kind_paid_h -> Array<Int8>,
        kind_expected_payout_mh -> Array<Int8>,
        kind_variance_h2 -> Array<Float8>,
        kind_third_moment_h3 -> Array<Float8>,
    }
}

diesel::table! {
    api_key_revocations (key_id) {
        key_id -> Text,
        revoked_at -> Timestamptz,
        revoked_by -> Text,
        reason -> Text,
        ledger_index -> Int8,
    }
}

diesel::table! {
    api_keys (key_id) {
        key_id -> Text,
        token_sha256 -> Bytea,
        name -> Text,
        role -> Text,
        created_by -> Text,
        created_at -> Timestamptz,
        expires_at -> Nullable<Timestamptz>,
        ledger_index -> Int8,
    }
}

diesel::table! {
    checkpoint_cosignatures (size, witness) {
        size -> Int8,
        witness -> Text,
        line -> Text,
        cosigned_at -> Timestamptz,
        received_at -> Timestamptz,
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
        position -> Int4,
    }
}

diesel::table! {
    finding_resolutions (ledger_index) {
        ledger_index -> Int8,
        round_index -> Int8,
        finding -> Int4,
        table_id -> Text,
        kind -> Text,
        rules_version -> Text,
        state -> Text,
        amount_settled_h -> Nullable<Int8>,
        reason -> Nullable<Text>,
        comment -> Text,
        key_id -> Text,
        key_name -> Text,
        key_role -> Text,
        resolved_at -> Timestamptz,
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
        table_id -> Nullable<Text>,
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
    mf_confirmations (ledger_index) {
        ledger_index -> Int8,
        file_name -> Text,
        file -> Bytea,
        sealed_content_sha256 -> Nullable<Text>,
    }
}

diesel::table! {
    mf_deliveries (package) {
        package -> Text,
        sealed_file -> Bytea,
        sealed_at -> Int8,
    }
}

diesel::table! {
    mf_packages (name) {
        name -> Text,
        month -> Text,
        premises -> Text,
        version -> Int4,
        content_sha256 -> Bytea,
        zip -> Bytea,
        sealed_at -> Int8,
    }
}

diesel::table! {
    registry_entries (idx) {
        idx -> Int8,
        received_at -> Timestamptz,
        prev_hash -> Bytea,
        leaf_hash -> Bytea,
        entry -> Bytea,
        record_type -> Text,
        table_id -> Nullable<Text>,
        seq_no -> Nullable<Int8>,
        key_id -> Text,
        record_hash -> Bytea,
    }
}

diesel::table! {
    round_ids (table_id, round_id) {
        table_id -> Text,
        round_id -> Text,
        ledger_index -> Int8,
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
    table_records (table_id, seq_no) {
        table_id -> Text,
        seq_no -> Int8,
        ledger_index -> Int8,
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

diesel::joinable!(api_key_revocations -> api_keys (key_id));
diesel::joinable!(checkpoint_cosignatures -> checkpoints (size));
diesel::joinable!(finding_resolutions -> api_keys (key_id));
diesel::joinable!(mf_deliveries -> mf_packages (package));
diesel::joinable!(table_key_revocations -> table_keys (key_id));
diesel::joinable!(table_keys -> gaming_tables (table_id));

diesel::allow_tables_to_appear_in_same_query!(
    adjudications,
    archived_entries,
    archived_registry_entries,
    api_key_revocations,
    api_keys,
    checkpoint_cosignatures,
    checkpoints,
    finding_resolutions,
    findings,
    gaming_tables,
    ledger_entries,
    merkle_nodes,
    mf_confirmations,
    mf_deliveries,
    mf_packages,
    registry_entries,
    round_ids,
    significant_events,
    table_key_revocations,
    table_keys,
    table_records,
);
