//! The words people read for dozor's codes, in Czech and English.

use dozor_log::access::FindingState;
use rules::FindingKind;

use crate::sheet::Language;

/// A finding kind as a compliance officer names it (the names are the rules' catalogue's).
pub fn finding_kind(kind: FindingKind, language: Language) -> &'static str {
    let words = rules::messages::kind_words(kind);
    language.pick(words.cs, words.en)
}

/// A finding's message as `language` reads it: the rules write it in English (the ledger keeps
/// it as evidence); in Czech it is read by the rules' catalogue, bet kinds named by
/// `rules::bet_kinds`. A message of no template the catalogue knows stays as it is.
pub fn finding_message(message: &str, language: Language) -> String {
    match language {
        Language::English => message.to_owned(),
        Language::Czech => {
            rules::messages::czech_or_english(message, &rules::bet_kinds::czech_bet_kind)
        }
    }
}

/// A finding kind's words from its code; the code itself when it is none dozor knows.
pub fn finding_kind_code(code: &str, language: Language) -> String {
    FindingKind::parse(code).map_or_else(|| code.to_owned(), |k| finding_kind(k, language).into())
}

/// Where a finding stands, in words.
pub fn finding_state(state: FindingState, language: Language) -> &'static str {
    let (cs, en) = match state {
        FindingState::Open => ("otevřené", "open"),
        FindingState::Confirmed => ("potvrzené", "confirmed"),
        FindingState::Dismissed => ("zamítnuté", "dismissed"),
        FindingState::Escalated => ("postoupené", "escalated"),
    };
    language.pick(cs, en)
}

/// A state's words from its code.
pub fn finding_state_code(code: &str, language: Language) -> String {
    FindingState::parse(code).map_or_else(|| code.to_owned(), |s| finding_state(s, language).into())
}

/// Where a package for the Ministry stands, in words; the code itself when it is none dozor
/// knows.
pub fn delivery_state(code: &str, language: Language) -> String {
    let (cs, en) = match code {
        "generated" => ("vytvořen", "generated"),
        "sealed" => ("zapečetěn, ke stažení", "sealed, to be downloaded"),
        "downloaded" => ("stažen ministerstvem", "downloaded by the Ministry"),
        "confirmed" => ("potvrzen", "confirmed"),
        "rejected" => ("odmítnut", "rejected"),
        other => return other.to_owned(),
    };
    language.pick(cs, en).to_owned()
}

/// A finding of the table audit (across rounds), in words.
pub fn table_audit_kind(code: &str, language: Language) -> String {
    let (cs, en) = match code {
        "rotor_not_reversed" => (
            "rotor se netočil opačně než minule",
            "rotor not reversed since the previous spin",
        ),
        "rotor_reversed_after_no_spin" => (
            "rotor se po no-spinu netočil stejným směrem",
            "rotor reversed after a no-spin",
        ),
        "button_out_of_turn" => ("button se neposunul o hráče", "button out of turn"),
        "big_blind_out_of_turn" => ("big blind mimo pořadí", "big blind out of turn"),
        "time_not_collected" => ("hra na čas bez vybraného času", "time not collected"),
        other => return other.to_owned(),
    };
    language.pick(cs, en).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_and_state_has_its_own_words_in_both_languages() {
        for language in [Language::Czech, Language::English] {
            let kinds: std::collections::BTreeSet<&str> = FindingKind::ALL
                .into_iter()
                .map(|k| finding_kind(k, language))
                .collect();
            assert_eq!(kinds.len(), FindingKind::ALL.len());
            let states: std::collections::BTreeSet<&str> = FindingState::ALL
                .into_iter()
                .map(|s| finding_state(s, language))
                .collect();
            assert_eq!(states.len(), FindingState::ALL.len());
        }
        assert_eq!(finding_kind_code("overpaid", Language::Czech), "přeplaceno");
        assert_eq!(
            finding_kind_code("no_such_kind", Language::Czech),
            "no_such_kind"
        );
    }

    #[test]
    fn a_finding_reads_in_czech_with_the_month_pages_bet_names() {
        let message = "bet b1 (tiers): underpaid; paid 450,00 Kč, the plan requires 900,00 Kč";
        assert_eq!(
            finding_message(message, Language::Czech),
            "sázka b1 (malá série): nedoplaceno; vyplaceno 450,00 Kč, plán požaduje 900,00 Kč"
        );
        assert_eq!(finding_message(message, Language::English), message);
        assert_eq!(
            finding_message(
                "bet w1 on 25x_black: overpaid; paid 10,00 Kč, the plan requires 0,00 Kč",
                Language::Czech
            ),
            "sázka w1 na pole 25x černé: přeplaceno; vyplaceno 10,00 Kč, plán požaduje 0,00 Kč"
        );
        assert_eq!(
            finding_message(
                "spot 2 trips (u7): underpaid; paid 0,00 Kč, the plan requires 50,00 Kč",
                Language::Czech
            ),
            "box 2, Trips (u7): nedoplaceno; vyplaceno 0,00 Kč, plán požaduje 50,00 Kč"
        );
    }
}
