//! Who may do what: API keys with roles, and how a finding's resolution may follow another.
//!
//! An API key's token is 32 random bytes, shown once as `dzr_<base64url>`; only its SHA-256 is
//! stored. Its public id is the first 8 bytes of that hash in hex, which the ledger names.

use base64::Engine as _;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// What an API key's holder may do (the routes each role may call are in the API's role table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Tables, table keys, API keys, configuration.
    Admin,
    /// Reads everything, resolves findings, runs reports.
    Compliance,
    /// Reads the ledger, proofs, checkpoints, findings, reports and inspection exports.
    Regulator,
    /// Runs and reads reports (the nightly job's key).
    Reporter,
}

impl Role {
    pub const ALL: [Role; 4] = [
        Role::Admin,
        Role::Compliance,
        Role::Regulator,
        Role::Reporter,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Admin => "admin",
            Role::Compliance => "compliance",
            Role::Regulator => "regulator",
            Role::Reporter => "reporter",
        }
    }

    pub fn parse(text: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.as_str() == text)
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The roles that may resolve findings; the verifier holds every resolution in the ledger to it.
pub const RESOLVING_ROLES: &[Role] = &[Role::Compliance];

/// The roles that register tables and add or revoke their keys; the verifier holds every such
/// registry event to it (the API's role table gives these routes the same roles).
pub const TABLE_KEEPING_ROLES: &[Role] = &[Role::Admin];

/// The roles that create and revoke API keys.
pub const KEY_KEEPING_ROLES: &[Role] = &[Role::Admin];

/// The roles whose requests may seal a report into the ledger (an inspection export, the
/// Ministry's package): those who may read them.
pub const PUBLISHING_ROLES: &[Role] = &[Role::Compliance, Role::Regulator, Role::Reporter];

/// What every token starts with, so that a leaked one is recognisable (e.g. by secret scanners).
pub const TOKEN_PREFIX: &str = "dzr_";

/// The secret of an API key. It is given to its holder once, as [`ApiKeySecret::token`].
pub struct ApiKeySecret([u8; 32]);

impl ApiKeySecret {
    /// A new secret from the operating system's random source.
    pub fn generate() -> ApiKeySecret {
        use rand::RngCore as _;
        let mut bytes = [0u8; 32];
        rand::rngs::OsRng.fill_bytes(&mut bytes);
        ApiKeySecret(bytes)
    }

    pub fn from_bytes(bytes: [u8; 32]) -> ApiKeySecret {
        ApiKeySecret(bytes)
    }

    /// The bearer token: `dzr_` and the secret in unpadded base64url.
    pub fn token(&self) -> String {
        format!(
            "{TOKEN_PREFIX}{}",
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(self.0)
        )
    }

    /// The hash stored for the token.
    pub fn token_hash(&self) -> [u8; 32] {
        token_hash(&self.token())
    }
}

impl std::fmt::Debug for ApiKeySecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApiKeySecret(…)")
    }
}

/// SHA-256 of a presented token, the only form in which tokens are kept or compared.
pub fn token_hash(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// A key's public id: the first 8 bytes of its token's hash, hex.
pub fn api_key_id(token_hash: &[u8; 32]) -> String {
    hex::encode(&token_hash[..8])
}

/// Whether `token` has the shape of a dozor token (checked before hashing anything).
pub fn looks_like_token(token: &str) -> bool {
    token.len() == TOKEN_PREFIX.len() + 43
        && token.starts_with(TOKEN_PREFIX)
        && token[TOKEN_PREFIX.len()..]
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// An API key's name: 1-64 of letters, digits and `_ - . @`; unique among all keys ever made,
/// since resolutions and the ledger name keys by it.
pub fn validate_key_name(name: &str) -> Result<(), String> {
    let ok = (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'@'));
    if ok {
        Ok(())
    } else {
        Err("a key name is 1-64 of letters, digits and `_ - . @`".into())
    }
}

/// Where a finding stands: open until a compliance officer resolves it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingState {
    Open,
    /// The discrepancy is real (with what was recovered or paid back, if anything).
    Confirmed,
    /// Not a discrepancy after all (with the reason).
    Dismissed,
    /// Handed on for a decision above the compliance officer.
    Escalated,
}

impl FindingState {
    pub const ALL: [FindingState; 4] = [
        FindingState::Open,
        FindingState::Confirmed,
        FindingState::Dismissed,
        FindingState::Escalated,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            FindingState::Open => "open",
            FindingState::Confirmed => "confirmed",
            FindingState::Dismissed => "dismissed",
            FindingState::Escalated => "escalated",
        }
    }

    pub fn parse(text: &str) -> Option<FindingState> {
        FindingState::ALL.into_iter().find(|s| s.as_str() == text)
    }

    /// Confirmed or dismissed: decided.
    pub fn is_resolved(self) -> bool {
        matches!(self, FindingState::Confirmed | FindingState::Dismissed)
    }

    /// Whether a resolution may move a finding from `self` to `to`. A decided finding is
    /// reopened only by escalating it; an escalated one is decided, not escalated again.
    pub fn may_become(self, to: FindingState) -> bool {
        match (self, to) {
            (_, FindingState::Open) => false,
            (FindingState::Open, _) => true,
            (FindingState::Escalated, to) => to.is_resolved(),
            (FindingState::Confirmed | FindingState::Dismissed, to) => {
                to == FindingState::Escalated
            }
        }
    }

    /// The states a resolution may move a finding in `self` to.
    pub fn next_states(self) -> Vec<FindingState> {
        FindingState::ALL
            .into_iter()
            .filter(|to| self.may_become(*to))
            .collect()
    }
}

impl std::fmt::Display for FindingState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Largest amount a resolution may name as recovered or paid back: 10^13 haléře (100 000
/// million Kč), far above any win and well inside JSON's exact integers.
pub const MAX_SETTLED_H: i64 = 10_000_000_000_000;
pub const MAX_COMMENT_CHARS: usize = 2_000;
pub const MAX_REASON_CHARS: usize = 500;

/// What a compliance officer decides about a finding, before it is recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub state: FindingState,
    /// Confirmed only: what was recovered from the player or paid back to them, in haléře.
    pub amount_settled_h: Option<i64>,
    /// Dismissed only, and required there: why it is not a discrepancy.
    pub reason: Option<String>,
    /// Always: what was done and why.
    pub comment: String,
}

impl Decision {
    /// Checks the decision on its own (not against the finding's history); the field at fault.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        let comment = self.comment.trim();
        if comment.is_empty() || comment.chars().count() > MAX_COMMENT_CHARS {
            return Err((
                "comment",
                format!("a resolution needs a comment of 1-{MAX_COMMENT_CHARS} characters"),
            ));
        }
        if has_control_characters(&self.comment) {
            return Err((
                "comment",
                "the comment may not hold control characters other than line breaks and tabs"
                    .into(),
            ));
        }
        match self.state {
            FindingState::Open => {
                return Err((
                    "state",
                    "a resolution confirms, dismisses or escalates a finding".into(),
                ))
            }
            FindingState::Dismissed => {
                if self.reason.as_deref().map_or("", str::trim).is_empty() {
                    return Err((
                        "reason",
                        format!("dismissing a finding needs a reason of 1-{MAX_REASON_CHARS} characters"),
                    ));
                }
            }
            // A confirmation may say why its settlement differs from the finding's amount
            // (and must when it is above it, see `check_against`).
            FindingState::Confirmed => {}
            FindingState::Escalated => {
                if self.reason.is_some() {
                    return Err((
                        "reason",
                        "an escalation has no reason; say why in the comment".into(),
                    ));
                }
            }
        }
        if let Some(reason) = self.reason.as_deref() {
            if let Some(problem) = reason_problem(reason) {
                return Err(("reason", problem));
            }
        }
        match self.amount_settled_h {
            Some(_) if self.state != FindingState::Confirmed => Err((
                "amount_settled_h",
                "only a confirmed finding has an amount recovered or paid back".into(),
            )),
            Some(a) if !(0..=MAX_SETTLED_H).contains(&a) => Err((
                "amount_settled_h",
                format!("the amount recovered or paid back must be 0-{MAX_SETTLED_H} haléřů"),
            )),
            _ => Ok(()),
        }
    }

    /// Checks the decision against the finding it resolves, whose discrepancy is `amount_h`:
    /// settling more than that (recovering or paying back more than the plan's difference)
    /// needs a reason on record, so that a slip of the keyboard is not a permanent entry.
    pub fn check_against(&self, amount_h: i64) -> Result<(), (&'static str, String)> {
        match self.amount_settled_h {
            Some(settled) if settled > amount_h && self.reason.is_none() => Err((
                "reason",
                format!(
                    "the settlement of {} is above the finding's amount of {}; a settlement above it needs a `reason` saying why",
                    rules::money::format_czk(settled),
                    rules::money::format_czk(amount_h)
                ),
            )),
            _ => Ok(()),
        }
    }
}

/// Why `reason` (a revocation's, a dismissal's) cannot be kept, if it cannot: it must hold
/// 1-[`MAX_REASON_CHARS`] characters after trimming and no control characters but line breaks
/// and tabs (PostgreSQL cannot store NUL, and the rest has no place in an entry people read).
pub fn reason_problem(reason: &str) -> Option<String> {
    let reason = reason.trim();
    if reason.is_empty() || reason.chars().count() > MAX_REASON_CHARS {
        return Some(format!(
            "a reason of 1-{MAX_REASON_CHARS} characters is needed"
        ));
    }
    has_control_characters(reason).then(|| "the reason may not hold control characters".to_owned())
}

/// Whether `text` holds control characters other than line breaks and tabs.
pub fn has_control_characters(text: &str) -> bool {
    text.chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t' && c != '\r')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_is_prefixed_base64url_of_its_secret_and_only_its_hash_is_kept() {
        let secret = ApiKeySecret::from_bytes([7; 32]);
        let token = secret.token();
        assert!(token.starts_with("dzr_"));
        // 32 bytes are 43 base64 characters without padding.
        assert_eq!(token.len(), 4 + 43);
        assert!(looks_like_token(&token));
        assert_eq!(secret.token_hash(), token_hash(&token));
        assert_eq!(api_key_id(&secret.token_hash()).len(), 16);
        assert_ne!(
            ApiKeySecret::generate().token(),
            ApiKeySecret::generate().token()
        );
        assert!(!format!("{secret:?}").contains(&token[4..]));
        for bad in ["", "dzr_", "Bearer x", &token[..46], &format!("{token}A")] {
            assert!(!looks_like_token(bad), "{bad}");
        }
        assert!(!looks_like_token(&format!("dzr_{}", "+".repeat(43))));
    }

    #[test]
    fn roles_and_states_read_back_from_their_names() {
        for role in Role::ALL {
            assert_eq!(Role::parse(role.as_str()), Some(role));
        }
        for state in FindingState::ALL {
            assert_eq!(FindingState::parse(state.as_str()), Some(state));
        }
        assert_eq!(Role::parse("root"), None);
        assert!(validate_key_name("nightly-job@casino.cz").is_ok());
        assert!(validate_key_name("").is_err());
        assert!(validate_key_name("a b").is_err());
        assert!(validate_key_name(&"a".repeat(65)).is_err());
    }

    #[test]
    fn a_decided_finding_reopens_only_by_escalation() {
        use FindingState::*;
        let allowed: Vec<(FindingState, FindingState)> = FindingState::ALL
            .into_iter()
            .flat_map(|from| FindingState::ALL.into_iter().map(move |to| (from, to)))
            .filter(|(from, to)| from.may_become(*to))
            .collect();
        assert_eq!(
            allowed,
            vec![
                (Open, Confirmed),
                (Open, Dismissed),
                (Open, Escalated),
                (Confirmed, Escalated),
                (Dismissed, Escalated),
                (Escalated, Confirmed),
                (Escalated, Dismissed),
            ]
        );
    }

    #[test]
    fn a_decision_names_the_field_at_fault() {
        let ok = Decision {
            state: FindingState::Confirmed,
            amount_settled_h: Some(35_000),
            reason: None,
            comment: "player repaid the overpayment at the cage".into(),
        };
        assert_eq!(ok.validate(), Ok(()));
        let field = |edit: &dyn Fn(&mut Decision)| {
            let mut d = ok.clone();
            edit(&mut d);
            d.validate().unwrap_err().0
        };
        assert_eq!(field(&|d| d.comment = "  ".into()), "comment");
        assert_eq!(field(&|d| d.comment = "a\u{0}b".into()), "comment");
        assert_eq!(
            field(&|d| d.amount_settled_h = Some(-1)),
            "amount_settled_h"
        );
        assert_eq!(
            field(&|d| d.amount_settled_h = Some(MAX_SETTLED_H + 1)),
            "amount_settled_h"
        );
        assert_eq!(field(&|d| d.reason = Some(" ".into())), "reason");
        assert_eq!(field(&|d| d.reason = Some("a\u{7}b".into())), "reason");
        assert_eq!(
            field(&|d| {
                d.state = FindingState::Escalated;
                d.amount_settled_h = None;
                d.reason = Some("x".into());
            }),
            "reason"
        );
        assert_eq!(field(&|d| d.state = FindingState::Open), "state");
        assert_eq!(
            field(&|d| {
                d.state = FindingState::Dismissed;
                d.amount_settled_h = None;
            }),
            "reason"
        );
        assert_eq!(
            field(&|d| d.state = FindingState::Escalated),
            "amount_settled_h"
        );
        let dismissed = Decision {
            state: FindingState::Dismissed,
            amount_settled_h: None,
            reason: Some("camera shows the payout was correct".into()),
            comment: "checked the video".into(),
        };
        assert_eq!(dismissed.validate(), Ok(()));
    }

    #[test]
    fn a_settlement_above_the_findings_amount_needs_a_reason() {
        let confirmed = |settled: i64, reason: Option<&str>| Decision {
            state: FindingState::Confirmed,
            amount_settled_h: Some(settled),
            reason: reason.map(str::to_owned),
            comment: "repaid at the cage".into(),
        };
        // A 10 Kč finding (1 000 h): settling 10 Kč or less is the ordinary case.
        assert_eq!(confirmed(1_000, None).check_against(1_000), Ok(()));
        assert_eq!(confirmed(500, None).check_against(1_000), Ok(()));
        let (field, message) = confirmed(500_000_000, None)
            .check_against(1_000)
            .unwrap_err();
        assert_eq!(field, "reason");
        assert!(message.contains("5 000 000,00 Kč"), "{message}");
        assert!(message.contains("10,00 Kč"), "{message}");
        assert_eq!(
            confirmed(1_001, Some("the player also returned the next spin's win"))
                .check_against(1_000),
            Ok(())
        );
        // Dismissals and escalations settle nothing.
        let escalated = Decision {
            state: FindingState::Escalated,
            amount_settled_h: None,
            reason: None,
            comment: "for the director".into(),
        };
        assert_eq!(escalated.check_against(0), Ok(()));
    }

    #[test]
    fn a_state_names_where_it_may_go() {
        use FindingState::*;
        assert_eq!(Open.next_states(), vec![Confirmed, Dismissed, Escalated]);
        assert_eq!(Confirmed.next_states(), vec![Escalated]);
        assert_eq!(Escalated.next_states(), vec![Confirmed, Dismissed]);
    }
}
