//! Why the resolution form was refused, in the page's language: the ledger's reasons (English,
//! as the API's JSON gives them) read in Czech by a catalogue of their templates.

use dozor_log::access::FindingState;
use ledger::storage::resolutions::ResolutionError;

use crate::sheet::Language;
use crate::words;

/// The reasons a decision is refused, as `Decision::validate` and `check_against` write them,
/// with their Czech (slots as in `rules::messages`).
pub const REFUSALS: &[(&str, &str)] = &[
    (
        "a resolution needs a comment of 1-{n} characters",
        "Řešení potřebuje komentář o 1 až {n} znacích: co se stalo a proč.",
    ),
    (
        "the comment may not hold control characters other than line breaks and tabs",
        "Komentář nesmí obsahovat řídicí znaky kromě konců řádků a tabulátorů.",
    ),
    (
        "a resolution confirms, dismisses or escalates a finding",
        "Řešení nález potvrzuje, zamítá, nebo postupuje dál.",
    ),
    (
        "dismissing a finding needs a reason of 1-{n} characters",
        "Zamítnutí nálezu potřebuje důvod o 1 až {n} znacích.",
    ),
    (
        "an escalation has no reason; say why in the comment",
        "Postoupení nemá důvod; proč, napište do komentáře.",
    ),
    (
        "a reason of 1-{n} characters is needed",
        "Důvod musí mít 1 až {n} znaků.",
    ),
    (
        "the reason may not hold control characters",
        "Důvod nesmí obsahovat řídicí znaky.",
    ),
    (
        "only a confirmed finding has an amount recovered or paid back",
        "Vrácenou nebo doplacenou částku má jen potvrzený nález.",
    ),
    (
        "the amount recovered or paid back must be 0-{n} haléřů",
        "Vrácená nebo doplacená částka musí být 0 až {n} haléřů.",
    ),
    (
        "the settlement of {m} is above the finding's amount of {m2}; a settlement above it needs a `reason` saying why",
        "Vypořádání {m} je vyšší než částka nálezu {m2}; vypořádání nad ní potřebuje důvod, proč.",
    ),
];

/// Why `e` refused the form, as the page says it in `language`.
pub fn refusal(e: &ResolutionError, language: Language) -> String {
    match (e, language) {
        (ResolutionError::Invalid { message, .. }, Language::English) => message.clone(),
        (ResolutionError::Invalid { message, .. }, Language::Czech) => {
            rules::messages::czech_by(message, REFUSALS, &|_: &str, code: &str| code.to_owned())
                .unwrap_or_else(|| message.clone())
        }
        (
            ResolutionError::NotAllowed {
                finding,
                now,
                wanted,
            },
            Language::Czech,
        ) => {
            let state = |s: FindingState| words::finding_state(s, language);
            let next: Vec<&str> = now.next_states().into_iter().map(state).collect();
            let allowed = match next.split_last() {
                None => "nic".to_owned(),
                Some((last, [])) => (*last).to_owned(),
                Some((last, rest)) => format!("{} nebo {last}", rest.join(", ")),
            };
            format!(
                "Nález {finding} je {}; nemůže se stát {} (ze stavu {} může být {allowed}).",
                state(*now),
                state(*wanted),
                state(*now)
            )
        }
        (ResolutionError::KeyMayNotResolve(name), Language::Czech) => format!(
            "Klíč API `{name}` nemůže řešit nálezy (je zrušený, prošlý, nebo to není klíč \
             compliance)."
        ),
        (ResolutionError::UnknownFinding(id), Language::Czech) => format!("Nález {id} neexistuje."),
        (other, _) => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dozor_log::access::Decision;

    fn refused(decision: Decision) -> ResolutionError {
        let (field, message) = decision.validate().unwrap_err();
        ResolutionError::Invalid { field, message }
    }

    fn decision(state: FindingState, reason: Option<&str>, comment: &str) -> Decision {
        Decision {
            state,
            amount_settled_h: None,
            reason: reason.map(str::to_owned),
            comment: comment.to_owned(),
        }
    }

    #[test]
    fn every_refusal_of_a_decision_reads_in_czech() {
        use FindingState::*;
        let cases = [
            decision(Confirmed, None, "  "),
            decision(Confirmed, None, "bell\u{7}"),
            decision(Open, None, "x"),
            decision(Dismissed, None, "x"),
            decision(Escalated, Some("why"), "x"),
            decision(Confirmed, Some(&"r".repeat(501)), "x"),
            decision(Confirmed, Some("bell\u{7}"), "x"),
            Decision {
                amount_settled_h: Some(5),
                ..decision(Dismissed, Some("no"), "x")
            },
            Decision {
                amount_settled_h: Some(-5),
                ..decision(Confirmed, None, "x")
            },
        ];
        for d in cases {
            let e = refused(d);
            let cs = refusal(&e, Language::Czech);
            assert_ne!(cs, refusal(&e, Language::English), "{e}");
            assert!(cs.ends_with('.'), "{cs}");
        }
        // check_against, as the ledger writes it: 50 Kč settled on a 10 Kč finding.
        let (field, message) = Decision {
            amount_settled_h: Some(5_000),
            ..decision(Confirmed, None, "x")
        }
        .check_against(1_000)
        .unwrap_err();
        assert_eq!(
            refusal(
                &ResolutionError::Invalid { field, message },
                Language::Czech
            ),
            "Vypořádání 50,00 Kč je vyšší než částka nálezu 10,00 Kč; vypořádání nad ní \
             potřebuje důvod, proč."
        );
        let e = ResolutionError::NotAllowed {
            finding: "7.0".into(),
            now: Confirmed,
            wanted: Dismissed,
        };
        assert_eq!(
            refusal(&e, Language::Czech),
            "Nález 7.0 je potvrzené; nemůže se stát zamítnuté (ze stavu potvrzené může být \
             postoupené)."
        );
    }
}
