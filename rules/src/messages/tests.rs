use super::*;
use crate::verdict::{Finding, FindingKind};

/// The names the tests give bet kinds (the reports keep the real ones).
fn names(game: &str, code: &str) -> String {
    match (game, code) {
        ("", "tiers") => "malá série".into(),
        ("", "main") => "hlavní sázka".into(),
        ("", "trips") => "Trips".into(),
        ("money_wheel", box_id) => format!("pole {box_id}"),
        (_, other) => other.into(),
    }
}

fn cs(message: &str) -> String {
    czech(message, &names).unwrap_or_else(|| panic!("no Czech for `{message}`"))
}

/// English that must not be left in a Czech message.
const ENGLISH: [&str; 12] = [
    " the ", " must ", "paid", " plan ", "requires", " was ", " is ", "bet ", "stake", " of ",
    "seat ", "player ",
];

fn assert_czech(message: &str) {
    let czech = cs(message);
    for word in ENGLISH {
        assert!(
            !czech.contains(word),
            "`{word}` left in the Czech of `{message}`: `{czech}`"
        );
    }
}

#[test]
fn every_kind_has_its_own_name_in_both_languages() {
    let mut cs = std::collections::BTreeSet::new();
    let mut en = std::collections::BTreeSet::new();
    for kind in FindingKind::ALL {
        let w = kind_words(kind);
        assert!(!w.cs.is_empty() && !w.en.is_empty(), "{kind:?}");
        assert_ne!(w.cs, w.en, "{kind:?} is not in Czech");
        cs.insert(w.cs);
        en.insert(w.en);
    }
    assert_eq!(cs.len(), FindingKind::ALL.len());
    assert_eq!(en.len(), FindingKind::ALL.len());
}

#[test]
fn the_rules_own_constructors_read_in_czech() {
    let f = Finding::settlement(
        "b1",
        format_args!("bet b1 (tiers)"),
        45_000,
        90_000,
        false,
        "",
    )
    .unwrap();
    assert_eq!(
        f.message,
        "bet b1 (tiers): underpaid; paid 450,00 Kč, the plan requires 900,00 Kč"
    );
    assert_eq!(
        cs(&f.message),
        "sázka b1 (malá série): nedoplaceno; vyplaceno 450,00 Kč, plán požaduje 900,00 Kč"
    );
    let f = Finding::settlement("b2", format_args!("bet b2 on 2x"), 1_000, 0, true, "").unwrap();
    assert_eq!(
        cs(&f.message),
        "sázka b2 na pole 2x: neplatné roztočení: vklad se musí vrátit přesně; vyplaceno \
         10,00 Kč, plán požaduje 0,00 Kč"
    );
    let f = Finding::win_above_maximum("b3", "a net win of", 1_234_567, "maximum net win", 100_000);
    assert_eq!(
        cs(&f.message),
        "sázka b3: čistá výhra 12 345,67 Kč, více než maximální čistá výhra podle plánu \
         (1 000,00 Kč)"
    );
    let f = Finding::burns(
        2,
        1,
        format_args!(
            "the plan burns {} after a shuffle and {} after a dealer change, {} here",
            1, 0, 1
        ),
    )
    .unwrap();
    assert_eq!(
        cs(&f.message),
        "spálených karet: 2; plán pálí 1 po zamíchání a 0 po výměně krupiéra, zde 1"
    );
    let f = Finding::payout(
        "s1",
        format_args!("spot 1 trips (s1)"),
        0,
        500,
        " (player pair, dealer high_card, not qualifying)",
    )
    .unwrap();
    assert_eq!(
        cs(&f.message),
        "box 1, Trips (s1): nedoplaceno; vyplaceno 0,00 Kč, plán požaduje 5,00 Kč \
         (hráč pár, krupiér nejvyšší karta, bez kvalifikace)"
    );
}

/// A sample of what a slot holds, so that every template can be written out and read back.
fn sample(name: &str) -> String {
    match name.chars().next() {
        Some('m') => "1 234,50 Kč".into(),
        Some('n') => "3".into(),
        Some('i') => "b1".into(),
        Some('v') => "1, 2".into(),
        Some('l') => "1 or 2".into(),
        Some('c') => "Td".into(),
        Some('d') => "2026-10-01 20:00".into(),
        Some('k') => "tiers".into(),
        Some('b') => "2x".into(),
        Some('w') => "flop".into(),
        Some('t') => "overpaid".into(),
        _ => String::new(),
    }
}

#[test]
fn every_template_written_out_reads_back_in_czech() {
    for (en, _) in MESSAGES.iter().chain(PARTS) {
        let written: String = pieces(en)
            .into_iter()
            .map(|p| match p {
                Piece::Text(t) => t.to_owned(),
                Piece::Slot(name) => sample(name),
            })
            .collect();
        if written.trim().is_empty() {
            continue;
        }
        assert!(czech(&written, &names).is_some(), "`{en}` as `{written}`");
        if MESSAGES.iter().any(|(m, _)| m == en) {
            assert_czech(&written);
        }
    }
}

#[test]
fn messages_of_every_game_read_in_czech() {
    // As the rules' tests and simulated error rounds make them, one or more of each template.
    for message in [
        "bet b7 (main): stake 5,00 Kč below the minimum of 10,00 Kč",
        "player P3 on red: stake 20 000,00 Kč above the table's posted maximum of 10 000,00 Kč",
        "player P3 on split 17/20: stake 20 000,00 Kč above the table's posted maximum of 10 000,00 Kč",
        "player P3 staked 50,00 Kč on box 5x, below the minimum of 100,00 Kč per box",
        "bet b1: numbers [1, 5] are not a split of the layout; such a bet cannot be accepted and its stake of 100,00 Kč must be returned",
        "box 2, hand 1: `hit` on a bust hand",
        "box 2, hand 2: `double` on 21",
        "the dealer drew Ks 5d on 18, where the plan says stand",
        "seat 3 (Novák): overpaid; handed 1 200,00 Kč, the pots give 1 000,00 Kč",
        "pot 1: the dealer made 300,00 Kč for seats 1, 2, 3; the chips put in make no such pot",
        "seat 4 acts out of turn on the pre-flop: seat 5 is to act",
        "big_blind of 40,00 Kč, the table's is 20,00 Kč",
        "the hand is played with a big blind of 40,00 Kč, the table posts 20,00 Kč",
        "spot 2: a Play bet of 300,00 Kč before the flop; the plan allows 3 or 4 × the Ante of 100,00 Kč",
        "player-2 (Eva, fouled): underpaid; settled at -12 chips, the rows give 6 chips",
        "Eva: 2 cards set or discarded were not dealt; 1 cards of dealing round 2 discarded, the game allows 1",
        "entries[3] (P7): a Rebuy in a Freezeout tournament",
        "entries[4] (P7): ReEntry after registration closed at 2026-10-01 21:30",
        "P9: overpaid; paid 1 500,00 Kč, the plan requires 1 000,00 Kč (refund of everything paid in)",
        "fee 900,00 Kč: 10 % of the prize pool 9 000,00 Kč is 818,18 Kč",
        "12 000,00 Kč paid out, more than the prize pool of 11 000,00 Kč",
        "board: 7c is dealt twice; one deck holds each card once. The round cannot have happened as recorded; it is kept as evidence and its settlement is not judged",
        "deal: the deal has no card left for box 2's second card. The round cannot have happened as recorded; it is kept as evidence and its settlement is not judged",
        "b5 (perfect_pairs): the hand is void (duplicate_card), so 50,00 Kč must go back; 0,00 Kč was",
        "spin 12 turned the wheel clockwise as spin 11 did: the plan makes a spin whose wheel was not reversed void (chybné roztočení), yet it was settled",
    ] {
        assert_czech(message);
    }
    assert_eq!(
        cs("the dealer drew Ks 5d on 18, where the plan says stand"),
        "krupiér bral K♠ 5♦ na 18, kde plán říká stát"
    );
    assert_eq!(
        cs("board: Td is dealt twice; one deck holds each card once. The round cannot have happened as recorded; it is kept as evidence and its settlement is not judged"),
        "board: 10♦ je rozdána dvakrát; balíček má každou kartu jednou. Kolo nemohlo proběhnout \
         tak, jak je zapsáno; je uchováno jako důkaz a jeho vypořádání se neposuzuje"
    );
    assert_eq!(
        cs("the results list 2 places; with 30 entries the plan pays 4"),
        "výsledky uvádějí míst: 2; při 30 vstupech plán platí 4"
    );
    assert_eq!(
        cs("entries[4] (P7): ReEntry after registration closed at 2026-10-01 21:30"),
        "vstup entries[4] (P7): re-entry po uzavření registrace 1. 10. 2026 21:30 UTC"
    );
}

#[test]
fn a_message_the_catalogue_does_not_know_is_none() {
    assert_eq!(czech("something new happened", &names), None);
    assert_eq!(
        czech_or_english("something new happened", &names),
        "something new happened"
    );
    // A known template with a slot that does not hold what it must is not read as it.
    assert_eq!(
        czech("the board has many cards, the hand needs 5", &names),
        None
    );
}

/// Files whose format strings write findings' messages (or the reasons a record cannot have
/// happened, which a `record_impossible` finding quotes).
const SOURCES: &[&str] = &[
    "adjudication.rs",
    "verdict.rs",
    "void_hand.rs",
    "table_limits.rs",
    "blackjack/mod.rs",
    "blackjack/play.rs",
    "money_wheel/mod.rs",
    "ofc/mod.rs",
    "ofc/fantasy.rs",
    "ofc/record.rs",
    "poker_cash/mod.rs",
    "poker_cash/betting.rs",
    "poker_cash/misdeal.rs",
    "poker_cash/pots.rs",
    "poker_cash/time_audit.rs",
    "poker_cash/time_collection.rs",
    "roulette/mod.rs",
    "roulette/evidence.rs",
    "table_audit/button.rs",
    "table_audit/spins.rs",
    "tournament/entries.rs",
    "tournament/mod.rs",
    "tournament/prizes.rs",
    "tournament/record.rs",
    "uth/mod.rs",
];

/// Strings in those files that are no message text: reasons a record is refused (an API
/// error, never a finding), ids, formats.
const NOT_MESSAGES: &[&str] = &[
    "amounts too large to add up",
    "amounts too large",
    "amount too large",
    "must be positive",
    "a round has at least one box",
    "more cards than a shoe holds",
    "{} splits make {} hands to record, not {}",
    "a box in play has a main bet",
    "a hand is dealt to 2 to {} seats",
    "seats are numbered 1 to {}, in order, each once",
    "at most 4 cards",
    "0, 3, 4 or 5 cards, not {}",
    "at most 1 000 actions",
    "a layout bet carries `stake_h` (and no `chip_h`)",
    "a call bet carries `chip_h`, the value of each chip (and no `stake_h`)",
    "a `{}` bet names no numbers",
    "a `{}` bet must name its numbers",
    "stake overflows",
    "bet without a stake",
    "amounts overflow",
    "a multiple of {} minutes",
    "1 to {} players",
    "a seat number 1 to 10",
    "each seat once",
    "a round has at least one spot",
    "at most {} cards",
    "one `{}` bet per spot",
    "a spot in play has an ante",
    "a Play bet and its street come together (neither on a fold)",
    "%Y-%m-%d %H:%M",
    "not placed",
    "{} chips",
    "seat-{}",
    "{}[{}]",
    "{}.{}",
    "is required",
    "a `{}` table posts no bet limits",
    "is not a limit of a `{}` table",
    "must be more than 0",
    "{} is outside {} ({} to {})",
    "the plan's range",
    "the table minimum and the plan's maximum",
    "the table minimum and the plan's box maximum",
    "the plan's Perfect Pairs range",
    "1 h and the big blind",
    "must be whole chips of {}",
    "{}; got groups of {}",
    "fantasy land deals one group of 14 to 17 cards",
    "outside fantasy land the deal is 5 cards, then 4 × 3",
    "six line",
    "a hand is played by 2 or 3 players",
    "at most {} groups and 52 cards dealt and placed",
    "exceeds the absolute limit of {} h",
    "is required with a stop-loss",
    "names a player not in the hand",
    "two different players",
    "this pair has two point values",
    "every pair of players needs its point value",
    "below 100",
    " or ",
];

/// The string literals of `source` outside its tests, `\`-continued lines joined.
fn literals(source: &str) -> Vec<String> {
    let code = source
        .find("#[cfg(test)]\nmod tests")
        .map_or(source, |end| &source[..end]);
    let mut out = Vec::new();
    let mut chars = code.char_indices().peekable();
    let mut in_comment = false;
    let mut previous = ' ';
    while let Some((_, c)) = chars.next() {
        if in_comment {
            in_comment = c != '\n';
            previous = c;
            continue;
        }
        if c == '/' && previous == '/' {
            in_comment = true;
            continue;
        }
        if c == '\'' {
            // A char literal such as '"' or '\'' (a lifetime has no closing quote nearby).
            let rest: String = chars.clone().take(3).map(|(_, c)| c).collect();
            if rest.starts_with("\"'") || rest.starts_with("\\\"'") || rest.starts_with("\\''") {
                for _ in 0..rest.find('\'').map_or(0, |i| i + 1) {
                    chars.next();
                }
            }
            previous = c;
            continue;
        }
        if c != '"' {
            previous = c;
            continue;
        }
        let mut text = String::new();
        while let Some((_, c)) = chars.next() {
            match c {
                '"' => break,
                '\\' => match chars.next().map(|(_, c)| c) {
                    Some('\n') => {
                        while chars.peek().is_some_and(|(_, c)| c.is_whitespace()) {
                            chars.next();
                        }
                    }
                    Some('n') => text.push('\n'),
                    Some(other) => text.push(other),
                    None => {}
                },
                other => text.push(other),
            }
        }
        out.push(text);
        previous = '"';
    }
    out
}

/// A format string with its arguments written `{}`.
fn format_shape(literal: &str) -> String {
    let mut out = String::new();
    let mut rest = literal;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        match rest[open..].find('}') {
            Some(close) => {
                out.push_str("{}");
                rest = &rest[open + close + 1..];
            }
            None => {
                rest = &rest[open..];
                break;
            }
        }
    }
    out.push_str(rest);
    out
}

#[test]
fn every_message_the_rules_write_is_in_the_catalogue() {
    let known: std::collections::BTreeSet<String> = MESSAGES
        .iter()
        .chain(PARTS)
        .map(|(en, _)| shape(en))
        .chain(WORDS.iter().map(|(en, _)| (*en).to_owned()))
        .chain(NOT_MESSAGES.iter().map(|s| (*s).to_owned()))
        .collect();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut unknown = Vec::new();
    for file in SOURCES {
        let source = std::fs::read_to_string(root.join(file)).unwrap();
        for literal in literals(&source) {
            // Field names, codes, single words and separators are no sentences.
            let letters = format_shape(&literal).replace("{}", "");
            if !literal.contains(' ') || !letters.chars().any(char::is_alphabetic) {
                continue;
            }
            let shaped = format_shape(&literal);
            if !known.contains(&shaped) {
                unknown.push(format!("{file}: {literal:?}"));
            }
        }
    }
    assert!(
        unknown.is_empty(),
        "format strings with no Czech in rules/src/messages/catalogue.rs (or, when they are \
         no message text, in NOT_MESSAGES):\n{}",
        unknown.join("\n")
    );
}
