//! The words people read for dozor's codes, in Czech and English.

use dozor_log::access::FindingState;
use rules::FindingKind;

use crate::sheet::Language;

/// A finding kind as a compliance officer names it.
pub fn finding_kind(kind: FindingKind, language: Language) -> &'static str {
    use FindingKind::*;
    let (cs, en) = match kind {
        Overpaid => ("přeplaceno", "overpaid"),
        Underpaid => ("nedoplaceno", "underpaid"),
        StakeBelowMinimum => ("sázka pod minimem plánu", "stake below the plan's minimum"),
        StakeAboveMaximum => ("sázka nad maximem plánu", "stake above the plan's maximum"),
        StakeBelowTableMinimum => ("sázka pod minimem stolu", "stake below the table's minimum"),
        StakeAboveTableMaximum => ("sázka nad maximem stolu", "stake above the table's maximum"),
        WinAboveMaximum => ("výhra nad maximem", "win above the maximum"),
        InvalidNumber => ("neplatná čísla sázky", "numbers not on the layout"),
        VoidHandledWrongly => (
            "neplatná hra vypořádána chybně",
            "void round handled wrongly",
        ),
        IllegalDecision => ("nedovolené rozhodnutí", "decision not allowed"),
        DealerDrawingWrong => ("krupiér bral chybně", "dealer drew wrongly"),
        CardsInconsistent => ("karty nesouhlasí", "cards inconsistent"),
        PayoutWithheld => ("výhra nevyplacena", "win withheld"),
        BetNotAllowed => ("nedovolená sázka", "bet not allowed"),
        ChipsNotConserved => ("žetony nesouhlasí", "chips do not add up"),
        RakeWrong => ("chybný rake", "wrong rake"),
        FantasyLandWrong => ("chybná Fantasy Land", "wrong fantasy land"),
        FeeWrong => ("chybný poplatek turnaje", "wrong tournament fee"),
        SpinInvalid => ("neplatné roztočení", "invalid spin"),
        RecordImpossible => ("nemožný záznam", "impossible record"),
    };
    language.pick(cs, en)
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
}
