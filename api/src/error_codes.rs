//! Every `code` an error body can carry, with what it means: the document lists them as the
//! enum of `ErrorBody.code`, and a test finds every code the sources can produce here.

/// `(code, meaning)`, grouped as a client handles them.
pub const ERROR_CODES: &[(&str, &str)] = &[
    // The request's shape.
    (
        "malformed_json",
        "the body is not JSON, or not of the expected shape",
    ),
    (
        "invalid_envelope",
        "not an envelope {record, key_id, signature}",
    ),
    (
        "invalid_query",
        "a query parameter is malformed or out of range",
    ),
    ("invalid_path", "a path parameter is malformed"),
    ("malformed_form", "a page's form body that cannot be read"),
    ("unreadable_body", "the body could not be read"),
    ("batch_too_large", "more than 1 000 records in one batch"),
    (
        "payload_too_large",
        "the body is larger than the server's limit",
    ),
    (
        "entry_too_large",
        "the record's ledger entry would be over 65 535 bytes, what an entry of the published log (C2SP tlog-tiles) may hold; the sizes are in details",
    ),
    (
        "unsupported_media_type",
        "the body is not declared application/json",
    ),
    ("request_timeout", "the body did not arrive in time"),
    (
        "method_not_allowed",
        "the route has no such method (Allow lists those it has)",
    ),
    ("no_such_route", "no route has this path"),
    ("no_such_file", "no such file of the API docs"),
    // Access.
    ("unauthenticated", "no API key"),
    ("invalid_api_key", "an API key that is malformed or unknown"),
    ("api_key_revoked", "the API key was revoked"),
    ("api_key_expired", "the API key has expired"),
    ("forbidden", "the key's role may not call this route"),
    (
        "cross_site_request",
        "a page's form posted from another site, or without the page's token",
    ),
    (
        "rate_limited",
        "too many requests from this key or address (Retry-After)",
    ),
    // Records from the tables.
    (
        "bad_signature",
        "the signature does not verify over the record's canonical bytes",
    ),
    ("unknown_table", "no table of this id is registered"),
    ("unknown_key", "no key of this id is registered"),
    ("key_table_mismatch", "the key belongs to another table"),
    (
        "key_not_valid",
        "the key was not valid when the record was received",
    ),
    (
        "plan_mismatch",
        "the record names another plan than its table's",
    ),
    ("unknown_plan", "no plan of this id"),
    ("wrong_game", "the record's game is not its table's"),
    (
        "wrong_station",
        "a table's record from a cage, or a cage's from a table",
    ),
    (
        "invalid_record",
        "the record breaks the record format (the field is named)",
    ),
    (
        "unsupported_record_type",
        "a record type dozor does not know",
    ),
    ("unsupported_game", "a game dozor does not adjudicate"),
    (
        "played_at_in_future",
        "played more than 5 minutes ahead of the server's clock",
    ),
    (
        "played_before_registration",
        "played before its table's registration",
    ),
    ("played_before_key", "played before its key became valid"),
    (
        "seq_no_conflict",
        "a different record holds this (table_id, seq_no)",
    ),
    (
        "round_id_conflict",
        "another round of the table holds this round_id",
    ),
    // The registry and API keys.
    (
        "already_exists",
        "the table, key or name exists already, or was revoked already",
    ),
    (
        "invalid_table",
        "a registration breaks a rule (the field is named)",
    ),
    (
        "invalid_public_key",
        "not an ed25519 public key (32 bytes, base64)",
    ),
    (
        "invalid_limits",
        "posted limits not of the table's game, outside the plan's, with a bad reason, or taking effect in the past",
    ),
    (
        "invalid_revocation",
        "a revocation's reason is blank, too long or holds control characters",
    ),
    (
        "invalid_api_key_request",
        "a key's name or expiry breaks a rule",
    ),
    ("unknown_api_key", "no API key of this id or name"),
    // Findings and the ledger.
    ("unknown_finding", "no finding of this id"),
    (
        "invalid_resolution",
        "a resolution breaks a rule (the field is named)",
    ),
    (
        "resolution_not_allowed",
        "the finding's state does not allow this resolution",
    ),
    ("unknown_entry", "no ledger entry of this index"),
    (
        "unknown_record",
        "the ledger holds no record of this table by that seq_no or round id",
    ),
    ("no_such_proof", "no such leaf or tree in the ledger (yet)"),
    ("no_checkpoint", "no checkpoint covers it yet"),
    (
        "no_such_tile",
        "the tree of the published checkpoint has no such tile: beyond its size, or of another width",
    ),
    (
        "tile_pruned",
        "the entry bundle holds archived entries (410): below the minimum index",
    ),
    (
        "no_cosigned_checkpoint",
        "no checkpoint carries that many cosignatures of the configured witnesses yet",
    ),
    // Reports.
    (
        "invalid_period",
        "an export covers 1 to 93 gaming days, from <= to",
    ),
    ("no_rate", "no rate of the rate table covers the quarter"),
    ("unknown_premises", "no premises of this id is configured"),
    (
        "stations_without_premises",
        "stations with activity in the month belong to no premises (named in details)",
    ),
    ("package_not_issued", "no such version of the package has been issued"),
    (
        "package_invalid",
        "the package fails the Ministry's rules and is not delivered (errors in details)",
    ),
    (
        "period_archived",
        "the period's entries are archived: they are in the export that archived them",
    ),
    (
        "entry_archived",
        "the entry is archived (410): its range, the range_archived entry, the export that holds it and the leaf hash kept are in details",
    ),
    (
        "month_not_over",
        "the month's last gaming day has not ended: its package is not delivered yet",
    ),
    (
        "confirmation_refused",
        "the file does not count as the package's confirmation (a seal not the Ministry's, another package's, not delivered or downloaded); kept as evidence, its ledger index in details",
    ),
    (
        "delivery_not_configured",
        "no [delivery] section: the Ministry's certificates and the operator's seal (`dozor report mf rehearse` tries a delivery without them)",
    ),
    // The Ministry's listener.
    ("unknown_file", "no delivered package's sealed file of this name"),
    ("unknown_route", "the Ministry's listener serves packages and notifications only"),
    (
        "not_configured",
        "the operator and its premises are not configured",
    ),
    // The server.
    (
        "unavailable",
        "nothing was changed; retry later (the body's incident id is in the log)",
    ),
    (
        "server_busy",
        "the server holds as many request bodies or makes as many files as it may at once; nothing was read or changed (Retry-After)",
    ),
    (
        "internal",
        "an internal error (the body's incident id is in the log)",
    ),
];

/// The catalog as the schema's description: one line per code.
pub fn describe() -> String {
    ERROR_CODES
        .iter()
        .map(|(code, meaning)| format!("- `{code}`: {meaning}"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    /// Every code literal the sources pass to an error: in the API's constructors, the ingest
    /// path's refusals, the access gate's mapping and `ApiError::code`.
    #[test]
    fn every_code_the_sources_produce_is_in_the_catalog() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
        let patterns = [
            r#"bad_request\(\s*"([a-z_]+)""#,
            r#"unprocessable\(\s*"([a-z_]+)""#,
            r#"not_found\(\s*"([a-z_]+)""#,
            r#"code:\s*"([a-z_]+)""#,
            r#"refused\(\s*"([a-z_]+)""#,
            r#"Refusal::\w+(?:\s*\|\s*Refusal::\w+)*\s*=>\s*"([a-z_]+)""#,
            r#"ApiError::\w+(?:\s*\{\s*\.\.\s*\}|\(_\))?\s*=>\s*"([a-z_]+)""#,
            r#"RecordError::\w+\(_\)\s*=>\s*"([a-z_]+)""#,
        ]
        .map(|p| regex::Regex::new(p).unwrap());
        let mut found = std::collections::BTreeSet::new();
        let mut files = Vec::new();
        for dir in ["api/src", "ledger/src"] {
            collect(&std::path::Path::new(root).join(dir), &mut files);
        }
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            let text = text.split("#[cfg(test)]").next().unwrap_or_default();
            for pattern in &patterns {
                for capture in pattern.captures_iter(text) {
                    found.insert(capture[1].to_owned());
                }
            }
        }
        let known: std::collections::BTreeSet<&str> = ERROR_CODES.iter().map(|(c, _)| *c).collect();
        let missing: Vec<&String> = found
            .iter()
            .filter(|c| !known.contains(c.as_str()))
            .collect();
        assert!(
            missing.is_empty(),
            "codes missing from ERROR_CODES: {missing:?}"
        );
        // The scan works: it finds codes from each kind of place.
        for code in [
            "bad_signature",
            "api_key_revoked",
            "payload_too_large",
            "no_such_proof",
        ] {
            assert!(found.contains(code), "{code} not found by the scan");
        }
    }

    fn collect(dir: &std::path::Path, files: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                collect(&path, files);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
}
