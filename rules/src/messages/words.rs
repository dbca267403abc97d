//! Finding kinds' names, and the code words the rules put into messages, in both languages.

use crate::verdict::FindingKind;

/// A name in Czech and English.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Words {
    pub cs: &'static str,
    pub en: &'static str,
}

const fn w(cs: &'static str, en: &'static str) -> Words {
    Words { cs, en }
}

/// A finding kind as a compliance officer names it.
pub fn kind_words(kind: FindingKind) -> Words {
    use FindingKind::*;
    match kind {
        Overpaid => w("přeplaceno", "overpaid"),
        Underpaid => w("nedoplaceno", "underpaid"),
        StakeBelowMinimum => w("sázka pod minimem plánu", "stake below the plan's minimum"),
        StakeAboveMaximum => w("sázka nad maximem plánu", "stake above the plan's maximum"),
        StakeBelowTableMinimum => w("sázka pod minimem stolu", "stake below the table's minimum"),
        StakeAboveTableMaximum => w("sázka nad maximem stolu", "stake above the table's maximum"),
        WinAboveMaximum => w("výhra nad maximem", "win above the maximum"),
        InvalidNumber => w("neplatná čísla sázky", "numbers not on the layout"),
        VoidHandledWrongly => w(
            "neplatná hra vypořádána chybně",
            "void round handled wrongly",
        ),
        IllegalDecision => w("nedovolené rozhodnutí", "decision not allowed"),
        DealerDrawingWrong => w("krupiér bral chybně", "dealer drew wrongly"),
        CardsInconsistent => w("karty nesouhlasí", "cards inconsistent"),
        PayoutWithheld => w("výhra nevyplacena", "win withheld"),
        BetNotAllowed => w("nedovolená sázka", "bet not allowed"),
        ChipsNotConserved => w("žetony nesouhlasí", "chips do not add up"),
        RakeWrong => w("chybný rake", "wrong rake"),
        FantasyLandWrong => w("chybná Fantasy Land", "wrong fantasy land"),
        FeeWrong => w("chybný poplatek turnaje", "wrong tournament fee"),
        SpinInvalid => w("neplatné roztočení", "invalid spin"),
        RecordImpossible => w("nemožný záznam", "impossible record"),
    }
}

/// The code words the rules write into messages (`{w}` slots), with their Czech: poker's
/// streets and actions, hands' categories, blackjack's decisions, why a hand is void, a
/// tournament's entries and formats, what a tournament fee is taken from.
pub const WORDS: &[(&str, &str)] = &[
    // Poker streets (`Street::as_str`).
    ("pre-flop", "pre-flopu"),
    ("flop", "flopu"),
    ("turn", "turnu"),
    ("river", "riveru"),
    // Poker actions (`ActionKind::as_str`).
    ("small_blind", "small blind"),
    ("big_blind", "big blind"),
    ("straddle", "straddle"),
    ("fold", "fold (složení)"),
    ("check", "check"),
    ("call", "call (dorovnání)"),
    ("bet", "bet (sázka)"),
    ("raise", "raise (navýšení)"),
    ("all_in", "all-in"),
    // Hands' categories (`Category::as_str`).
    ("high_card", "nejvyšší karta"),
    ("pair", "pár"),
    ("two_pair", "dva páry"),
    ("trips", "trojice"),
    ("straight", "postupka"),
    ("flush", "barva"),
    ("full_house", "full house"),
    ("quads", "čtveřice"),
    ("straight_flush", "postupka v barvě"),
    ("royal_flush", "královská postupka"),
    // Blackjack decisions (`Decision::as_str`).
    ("hit", "karta (hit)"),
    ("stand", "stát (stand)"),
    ("double", "zdvojení (double)"),
    ("split", "rozdělení (split)"),
    // Why a hand was void (`HandVoidReason::as_str`).
    ("misdeal", "misdeal"),
    ("card_with_another_back", "karta s jiným rubem"),
    ("duplicate_card", "zdvojená karta"),
    ("premature_card", "předčasně odkrytá karta"),
    ("inspector_decision", "rozhodnutí inspektora"),
    // Why a spin was void (roulette's `VoidReason`, the wheels' `WheelVoidReason`).
    (
        "wheel_not_reversed",
        "kolo se netočilo opačně (chybné roztočení)",
    ),
    (
        "ball_spun_with_wheel",
        "kulička vhozena ve směru rotoru (chybné roztočení)",
    ),
    ("too_few_revolutions", "kulička oběhla příliš málokrát"),
    ("too_few_turns", "kolo se otočilo příliš málokrát"),
    ("pointer_between_segments", "ukazatel mezi poli"),
    // A tournament's entries and formats (their `Debug`).
    ("BuyIn", "buy-in"),
    ("ReEntry", "re-entry"),
    ("Rebuy", "rebuy"),
    ("AddOn", "add-on"),
    ("Freezeout", "freezeout"),
    ("OneRebuy", "s jedním rebuy"),
    ("UnlimitedRebuysAddOn", "s neomezenými rebuy a add-onem"),
    // What a tournament fee is taken from (`FeeBase::as_str`).
    ("moneypool", "moneypoolu"),
    ("prize pool", "prize poolu"),
    // A roulette wheel's direction (the table audit).
    ("clockwise", "po směru hodinových ručiček"),
    ("counterclockwise", "proti směru hodinových ručiček"),
];

/// A code word's Czech.
pub fn word(code: &str) -> Option<&'static str> {
    WORDS.iter().find(|(en, _)| *en == code).map(|(_, cs)| *cs)
}
