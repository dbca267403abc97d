use super::*;
use crate::access::{FindingState, Role};
use crate::entry::format_time;
use crate::keys::encode_public_key;
use crate::keys::key_id;
use crate::registry_event::RegistryEvent;
use chrono::{DateTime, Utc};
use ed25519_dalek::SigningKey;

mod log_keeping;
mod verification_marks;

/// The steps a test takes on a history: each event received at [`at0`], signed by the operator.
trait Steps {
    /// Applies the event at `index`.
    fn applied(&mut self, index: u64, event: &RegistryEvent);
    /// Why the history refuses the event at `index`.
    fn refused(&mut self, index: u64, event: &RegistryEvent) -> String;
}

impl Steps for RegistryHistory {
    fn applied(&mut self, index: u64, event: &RegistryEvent) {
        self.apply(index, at0(), TEST_OPERATOR, event).unwrap();
    }

    fn refused(&mut self, index: u64, event: &RegistryEvent) -> String {
        self.apply(index, at0(), TEST_OPERATOR, event).unwrap_err()
    }
}

fn t(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text)
        .unwrap()
        .with_timezone(&Utc)
}

fn at0() -> DateTime<Utc> {
    t("2026-11-21T12:00:00Z")
}

fn public(n: u8) -> (String, String) {
    let key = SigningKey::from_bytes(&[n; 32]).verifying_key();
    (key_id(&key), encode_public_key(&key))
}

fn registered(previous: Option<u64>) -> RegistryEvent {
    registration("R1", previous, "cli:root", 1, "2026-11-20T10:00:00Z")
}

/// Roulette table `table_id` registered by `actor` in Praha with key `key`, valid from `valid_from`.
fn registration(
    table_id: &str,
    previous: Option<u64>,
    actor: &str,
    key: u8,
    valid_from: &str,
) -> RegistryEvent {
    let (key_id, public_key) = public(key);
    RegistryEvent::TableRegistered {
        actor: Some(actor.into()),
        table_id: table_id.into(),
        previous,
        game: "roulette".into(),
        location: "Praha".into(),
        plan_id: "69games-ziva-hra".into(),
        wheel_layout: None,
        limits: None,
        key_id,
        public_key,
        valid_from: format_time(t(valid_from)),
    }
}

#[test]
fn keys_count_from_their_event_and_revocations_from_theirs() {
    let mut history = RegistryHistory::default();
    history.applied(3, &registered(None));
    let (first, _) = public(1);
    let (second, second_public) = public(2);
    history.applied(
        10,
        &key_added(3, second.clone(), second_public, "2026-11-21T00:00:00Z"),
    );
    history.applied(
        20,
        &RegistryEvent::TableKeyRevoked {
            actor: Some("cli:root".into()),
            table_id: "R1".into(),
            previous: Some(10),
            key_id: first.clone(),
            revoked_at: format_time(t("2026-11-21T06:00:00Z")),
            reason: "rotated".into(),
        },
    );
    // Not yet added at its own event's index, known just after.
    assert!(history.table_key_at(&first, 3).is_none());
    assert!(history.table_key_at(&second, 10).is_none());
    assert_eq!(history.table_key_at(&second, 11).unwrap().table_id, "R1");
    // Before the revocation event the key is unrevoked, from the next entry on it is revoked.
    assert_eq!(history.table_key_at(&first, 20).unwrap().revoked_at, None);
    assert_eq!(
        history.table_key_at(&first, 21).unwrap().revoked_at,
        Some(t("2026-11-21T06:00:00Z"))
    );
    assert_eq!(history.keys().len(), 2);
    assert_eq!(history.last_event(), Some(20));
}

#[test]
fn published_reports_are_kept_by_name_and_must_name_a_report() {
    let mut history = RegistryHistory::default();
    let published = |previous, name: &str, sha256: String| RegistryEvent::ReportPublished {
        actor: Some("cli:root".into()),
        previous,
        name: name.into(),
        sha256,
        size_bytes: 10,
    };
    let (a, b) = ("a".repeat(64), "b".repeat(64));
    let name = "reports/daily-2026-11-10.csv";
    history.applied(0, &published(None, name, a.clone()));
    history.applied(1, &published(Some(0), name, b.clone()));
    assert_eq!(history.published_report(name), [(0, a.clone()), (1, b)]);
    assert!(history.published_report("reports/other.csv").is_empty());
    assert_eq!(
        history.published_under("reports/"),
        [
            (name, 0, a.as_str()),
            (name, 1, history.published_report(name)[1].1.as_str())
        ]
    );
    assert!(history.published_under("reports/mf/").is_empty());
    let err = history.refused(2, &published(Some(1), "../etc/passwd", a.clone()));
    assert!(err.contains("not under reports/"), "{err}");
    let err = history.refused(2, &published(Some(1), name, "A".repeat(64)));
    assert!(err.contains("not lower-case hex"), "{err}");
}

#[test]
fn a_missing_or_inconsistent_event_is_named() {
    let mut history = RegistryHistory::default();
    let err = history.refused(5, &registered(Some(2)));
    assert!(err.contains("none came before it"), "{err}");
    history.applied(5, &registered(None));
    let err = history.refused(9, &registered(Some(5)));
    assert!(err.contains("registered twice"), "{err}");
    let revoke_other = RegistryEvent::TableKeyRevoked {
        actor: Some("cli:root".into()),
        table_id: "R2".into(),
        previous: Some(5),
        key_id: public(1).0,
        revoked_at: format_time(t("2026-11-21T06:00:00Z")),
        reason: "x".into(),
    };
    let err = history.refused(9, &revoke_other);
    assert!(err.contains("not a key of table `R2`"), "{err}");
    let skipped = key_added(7, public(3).0, public(3).1, "2026-11-21T06:00:00Z");
    let err = history.refused(9, &skipped);
    assert!(err.contains("is missing or was inserted"), "{err}");
    let wrong_id = key_added(5, public(4).0, public(3).1, "2026-11-21T06:00:00Z");
    let err = history.refused(9, &wrong_id);
    assert!(err.contains("does not match"), "{err}");
}

/// A key added to table R1 from the command line, valid from `valid_from` (RFC 3339).
fn key_added(previous: u64, key_id: String, public_key: String, valid_from: &str) -> RegistryEvent {
    RegistryEvent::TableKeyAdded {
        actor: Some("cli:root".into()),
        table_id: "R1".into(),
        previous: Some(previous),
        key_id,
        public_key,
        valid_from: format_time(t(valid_from)),
    }
}

fn api_key(previous: Option<u64>, id: &str, name: &str, role: Role) -> RegistryEvent {
    RegistryEvent::ApiKeyCreated {
        previous,
        key_id: id.into(),
        token_sha256: Some(format!("{id}{}", "0".repeat(48))),
        name: name.into(),
        role,
        created_by: "cli:root".into(),
        expires_at: Some(format_time(t("2026-12-31T00:00:00Z"))),
    }
}

fn resolution(previous: u64, state: FindingState, key: (&str, &str, Role)) -> RegistryEvent {
    RegistryEvent::FindingResolved {
        previous: Some(previous),
        table_id: "R1".into(),
        round_index: 4,
        finding: 1,
        kind: "overpaid".into(),
        rules_version: "2026.11.1".into(),
        state,
        amount_settled_h: None,
        reason: (state == FindingState::Dismissed).then(|| "camera".into()),
        comment: "looked at it".into(),
        key_id: key.0.into(),
        key_name: key.1.into(),
        key_role: key.2,
    }
}

#[test]
fn resolutions_are_made_by_a_compliance_key_that_could_act_and_follow_the_states() {
    const OFFICER: (&str, &str, Role) = ("00000000000000aa", "officer", Role::Compliance);
    const NIGHTLY: (&str, &str, Role) = ("00000000000000bb", "nightly", Role::Reporter);
    let mut history = RegistryHistory::default();
    history.applied(0, &registered(None));
    history.applied(1, &api_key(Some(0), OFFICER.0, OFFICER.1, OFFICER.2));
    history.applied(2, &api_key(Some(1), NIGHTLY.0, NIGHTLY.1, NIGHTLY.2));
    // Names and ids are unique.
    let err = history.refused(
        3,
        &api_key(Some(2), "00000000000000cc", "officer", Role::Admin),
    );
    assert!(err.contains("used twice"), "{err}");
    // A reporter key may not resolve; a compliance key may, once per allowed step.
    let err = history.refused(5, &resolution(2, FindingState::Confirmed, NIGHTLY));
    assert!(err.contains("may not resolve findings"), "{err}");
    history.applied(5, &resolution(2, FindingState::Escalated, OFFICER));
    let err = history.refused(6, &resolution(5, FindingState::Escalated, OFFICER));
    assert!(
        err.contains("is escalated; it cannot become escalated"),
        "{err}"
    );
    history.applied(6, &resolution(5, FindingState::Dismissed, OFFICER));
    assert_eq!(
        history.resolutions().state_of((4, 1)),
        FindingState::Dismissed
    );
    assert_eq!(history.resolutions().state_of((4, 0)), FindingState::Open);
    // The name and role must be the key's; after its expiry or revocation it cannot act.
    let err = history.refused(
        7,
        &resolution(
            6,
            FindingState::Escalated,
            ("00000000000000aa", "officer", Role::Admin),
        ),
    );
    assert!(err.contains("but it is `officer` (compliance)"), "{err}");
    let err = history
        .apply(
            7,
            t("2027-01-01T00:00:00Z"),
            TEST_OPERATOR,
            &resolution(6, FindingState::Escalated, OFFICER),
        )
        .unwrap_err();
    assert!(err.contains("had expired"), "{err}");
    let revoked = RegistryEvent::ApiKeyRevoked {
        previous: Some(6),
        key_id: OFFICER.0.into(),
        name: OFFICER.1.into(),
        revoked_by: "cli:root".into(),
        reason: "left the company".into(),
    };
    history.applied(7, &revoked);
    let err = history.refused(8, &resolution(7, FindingState::Escalated, OFFICER));
    assert!(err.contains("was revoked at entry 7"), "{err}");
    assert_eq!(history.resolutions().all().len(), 2);
    assert_eq!(history.api_keys().all().len(), 2);
    assert_eq!(history.resolutions().resolved_findings().count(), 1);
}

#[test]
fn a_resolution_must_name_the_finding_as_before_and_come_after_its_round() {
    const OFFICER: (&str, &str, Role) = ("00000000000000aa", "officer", Role::Compliance);
    let mut history = RegistryHistory::default();
    history.applied(0, &registered(None));
    history.applied(1, &api_key(Some(0), OFFICER.0, OFFICER.1, OFFICER.2));
    let err = history.refused(3, &resolution(1, FindingState::Confirmed, OFFICER));
    assert!(err.contains("does not come before it"), "{err}");
    history.applied(5, &resolution(1, FindingState::Escalated, OFFICER));
    let mut other_kind = resolution(5, FindingState::Confirmed, OFFICER);
    if let RegistryEvent::FindingResolved { kind, .. } = &mut other_kind {
        *kind = "underpaid".into();
    }
    let err = history.refused(6, &other_kind);
    assert!(
        err.contains("entry 5 resolved it as a `overpaid` finding"),
        "{err}"
    );
    let mut unknown_table = resolution(5, FindingState::Confirmed, OFFICER);
    if let RegistryEvent::FindingResolved { table_id, .. } = &mut unknown_table {
        *table_id = "R9".into();
    }
    let err = history.refused(6, &unknown_table);
    assert!(err.contains("`R9`, which is not registered"), "{err}");
}

#[test]
fn api_keys_are_managed_from_the_command_line_or_by_an_admin_key_that_could_act() {
    let by = |previous: u64, id: &str, name: &str, role: Role, by: &str| {
        let mut event = api_key(Some(previous), id, name, role);
        if let RegistryEvent::ApiKeyCreated { created_by, .. } = &mut event {
            *created_by = by.into();
        }
        event
    };
    let revoke = |previous: u64, id: &str, name: &str, by: &str| RegistryEvent::ApiKeyRevoked {
        previous: Some(previous),
        key_id: id.into(),
        name: name.into(),
        revoked_by: by.into(),
        reason: "rotated".into(),
    };
    let mut history = RegistryHistory::default();
    // The first admin key comes from the command line; it creates the others.
    history.applied(0, &api_key(None, "00000000000000a1", "alice", Role::Admin));
    history.applied(
        1,
        &by(0, "00000000000000a2", "officer", Role::Compliance, "alice"),
    );
    history.applied(
        2,
        &by(1, "00000000000000a3", "nightly", Role::Reporter, "alice"),
    );
    // Not by a compliance key, an unknown name, or `cli:` naming no one.
    for (actor, expected) in [
        (
            "officer",
            "`officer`, whose role compliance may not: this needs the role admin",
        ),
        ("bob", "which is neither `cli:<user>` nor an API key"),
        ("cli:", "which names no user"),
    ] {
        let err = history.refused(
            3,
            &by(2, "00000000000000b1", "second", Role::Reporter, actor),
        );
        assert!(err.contains(expected), "{actor}: {err}");
    }
    // The admin revokes itself; from then on it can neither create nor revoke.
    history.applied(3, &revoke(2, "00000000000000a1", "alice", "alice"));
    let err = history.refused(
        4,
        &by(3, "00000000000000b2", "third", Role::Reporter, "alice"),
    );
    assert!(
        err.contains("was revoked at entry 3 before entry 4"),
        "{err}"
    );
    let err = history.refused(4, &revoke(3, "00000000000000a2", "officer", "alice"));
    assert!(err.contains("revoked by `alice`"), "{err}");
    // Another admin (expiring 2026-12-31, as every key here) cannot act after its expiry.
    history.applied(
        4,
        &by(3, "00000000000000a4", "carol", Role::Admin, "cli:root"),
    );
    let err = history
        .apply(
            5,
            t("2027-01-02T00:00:00Z"),
            TEST_OPERATOR,
            &by(4, "00000000000000b3", "fourth", Role::Reporter, "carol"),
        )
        .unwrap_err();
    assert!(err.contains("had expired"), "{err}");
    history.applied(
        5,
        &by(4, "00000000000000b3", "fourth", Role::Reporter, "carol"),
    );
    assert_eq!(history.api_keys().all().len(), 5);
}

#[test]
fn tables_and_publications_name_an_actor_whose_role_allowed_it_then() {
    let api = |previous: Option<u64>, id: &str, name: &str, role: Role| {
        let mut event = api_key(previous, id, name, role);
        if let RegistryEvent::ApiKeyCreated { expires_at, .. } = &mut event {
            *expires_at = None;
        }
        event
    };
    let register = |previous: u64, table: &str, actor: &str| {
        // Each table its own key: R1 key 31, R2 key 32, ...
        let key = 30 + table[1..].parse::<u8>().unwrap();
        registration(table, Some(previous), actor, key, "2026-11-21T06:00:00Z")
    };
    let publish = |previous: u64, actor: &str| RegistryEvent::ReportPublished {
        actor: Some(actor.into()),
        previous: Some(previous),
        name: "reports/daily-2026-11-20.csv".into(),
        sha256: "ab".repeat(32),
        size_bytes: 10,
    };
    let mut history = RegistryHistory::default();
    // Entries 0-2: an admin, a compliance officer and a reporter, from the command line.
    for (i, (id, name, role)) in [
        ("00000000000000a1", "admin-1", Role::Admin),
        ("00000000000000a2", "officer-1", Role::Compliance),
        ("00000000000000a3", "nightly", Role::Reporter),
    ]
    .into_iter()
    .enumerate()
    {
        let previous = i.checked_sub(1).map(|p| p as u64);
        history
            .apply(
                i as u64,
                at0(),
                TEST_OPERATOR,
                &api(previous, id, name, role),
            )
            .unwrap();
    }
    // A table is registered by an admin key or the command line, by no one else.
    history.applied(3, &register(2, "R1", "admin-1"));
    history.applied(4, &register(3, "R2", "cli:root"));
    for (actor, expected) in [
        (
            "officer-1",
            "`officer-1`, whose role compliance may not: this needs the role admin",
        ),
        ("server:nightly", "records only the reports it publishes"),
        ("mallory", "neither `cli:<user>` nor an API key"),
    ] {
        let err = history.refused(5, &register(4, "R3", actor));
        assert!(
            err.contains("`table_registered` event recorded for"),
            "{err}"
        );
        assert!(err.contains(expected), "{actor}: {err}");
    }
    // A report is sealed at the request of a key that may read it, the command line or
    // the nightly job; not an admin's.
    history.applied(5, &publish(4, "officer-1"));
    history.applied(6, &publish(5, "nightly"));
    history.applied(7, &publish(6, "server:nightly"));
    let err = history.refused(8, &publish(7, "admin-1"));
    assert!(
        err.contains(
            "whose role admin may not: this needs the role compliance or regulator or reporter"
        ),
        "{err}"
    );
    // Once revoked, the admin registers nothing more.
    let revoked = RegistryEvent::ApiKeyRevoked {
        previous: Some(7),
        key_id: "00000000000000a1".into(),
        name: "admin-1".into(),
        revoked_by: "cli:root".into(),
        reason: "left".into(),
    };
    history.applied(8, &revoked);
    let err = history.refused(9, &register(8, "R4", "admin-1"));
    assert!(
        err.contains("was revoked at entry 8 before entry 9"),
        "{err}"
    );
}
