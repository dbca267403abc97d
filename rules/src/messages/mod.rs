//! The findings' words in both languages: each finding kind's name, and every message template
//! the rules write with its Czech.
//!
//! The English message of a finding is evidence: it is part of the verdict signed into the
//! ledger and compared byte for byte when a verdict is re-computed, so it is never rewritten.
//! The Czech is read from it: the [`catalogue`] pairs each English template with its Czech,
//! and [`czech`] recognises a message by its template, puts its parts (amounts, numbers, bet
//! ids, bet kinds, nested phrases) into the Czech one and translates the nested phrases by the
//! same catalogue.
//!
//! A template is text with slots `{name}`; the slot's first letter says what it holds:
//! - `m`: an amount, `1 234,50 Kč` (or Open Face Chinese's `12 chips`), kept as it is (chips
//!   read `žetonů`);
//! - `n`: a whole number; `i`: one word (a bet id, a player, a card, a field), kept as it is;
//! - `v`: any text kept as it is (lists of seats, of cards, of players);
//! - `l`: numbers joined by ` or ` (read `nebo`);
//! - `c`: cards as the rules write them, `Td 5s` (read as people write them: `10♦ 5♠`);
//! - `d`: a time as the rules write it, `2026-10-01 20:00` (read `1. 10. 2026 20:00`);
//! - `k`: a bet kind's code, `b`: a money wheel's box, both named by the caller's names;
//! - `w`: a code word of the rules (a street, a poker action, a hand's category, a reason a
//!   hand is void, …) from [`words`];
//! - `t`: a phrase translated by the catalogue's parts; `o`: the same, possibly empty.

mod catalogue;
#[cfg(test)]
mod tests;
mod words;

pub use catalogue::{MESSAGES, PARTS};
pub use words::{kind_words, word, Words, WORDS};

/// Names of bet kinds in Czech, as the caller keeps them: `(game, code)` → name. The game is
/// `money_wheel` for a wheel's boxes and empty otherwise.
pub type BetKindNames<'a> = dyn Fn(&str, &str) -> String + 'a;

/// A finding's message in Czech, or `None` when it is no template the catalogue knows (a
/// message of another version of the rules).
pub fn czech(message: &str, names: &BetKindNames<'_>) -> Option<String> {
    translate(message, MESSAGES, names).or_else(|| translate(message, PARTS, names))
}

/// A finding's message in Czech when the catalogue knows it, else as it is.
pub fn czech_or_english(message: &str, names: &BetKindNames<'_>) -> String {
    czech(message, names).unwrap_or_else(|| message.to_owned())
}

/// `text` in Czech by a catalogue of the caller's (English and Czech templates with the slots
/// above, tried in order; nested phrases by the findings' [`PARTS`]), or `None` when it is none
/// of them: for other English the rules' crates write that a Czech person reads.
pub fn czech_by(text: &str, entries: &[(&str, &str)], names: &BetKindNames<'_>) -> Option<String> {
    translate(text, entries, names)
}

/// A template's pieces: literal text and slots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Piece<'a> {
    Text(&'a str),
    Slot(&'a str),
}

fn pieces(template: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}').map(|c| open + c) else {
            break;
        };
        if open > 0 {
            out.push(Piece::Text(&rest[..open]));
        }
        out.push(Piece::Slot(&rest[open + 1..close]));
        rest = &rest[close + 1..];
    }
    if !rest.is_empty() {
        out.push(Piece::Text(rest));
    }
    out
}

/// A template with its slots written `{}`, as the rules' format strings are compared with it.
pub fn shape(template: &str) -> String {
    pieces(template)
        .into_iter()
        .map(|p| match p {
            Piece::Text(t) => t,
            Piece::Slot(_) => "{}",
        })
        .collect()
}

/// `text` by the first of `entries` it matches, in Czech.
fn translate(text: &str, entries: &[(&str, &str)], names: &BetKindNames<'_>) -> Option<String> {
    entries.iter().find_map(|(en, cs)| {
        let slots = matches(&pieces(en), text, names)?;
        Some(fill(cs, &slots))
    })
}

/// The slots' Czech when `text` is `pieces` (the first way it is, shortest slots first).
fn matches(
    pieces: &[Piece<'_>],
    text: &str,
    names: &BetKindNames<'_>,
) -> Option<Vec<(String, String)>> {
    match pieces.split_first() {
        None => text.is_empty().then(Vec::new),
        Some((Piece::Text(t), rest)) => matches(rest, text.strip_prefix(t)?, names),
        Some((Piece::Slot(name), rest)) => {
            let ends: Vec<usize> = match rest.first() {
                None => vec![text.len()],
                Some(Piece::Text(next)) => text.match_indices(next).map(|(i, _)| i).collect(),
                Some(Piece::Slot(_)) => text
                    .char_indices()
                    .map(|(i, _)| i)
                    .chain([text.len()])
                    .collect(),
            };
            ends.into_iter().find_map(|end| {
                let value = slot(name, &text[..end], names)?;
                let mut filled = matches(rest, &text[end..], names)?;
                filled.push(((*name).to_owned(), value));
                Some(filled)
            })
        }
    }
}

/// A slot's value in Czech, when `value` is what the slot holds.
fn slot(name: &str, value: &str, names: &BetKindNames<'_>) -> Option<String> {
    let word = |v: &str| !v.is_empty() && !v.chars().any(char::is_whitespace);
    let number = |v: &str| {
        let digits = v.strip_prefix('-').unwrap_or(v);
        !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
    };
    match name.chars().next()? {
        'm' => amount(value),
        'n' => number(value).then(|| value.to_owned()),
        'i' => word(value).then(|| value.to_owned()),
        'v' => (!value.is_empty()).then(|| value.to_owned()),
        'l' => value
            .split(" or ")
            .all(number)
            .then(|| value.replace(" or ", " nebo ")),
        'c' => cards(value),
        'd' => time(value),
        'k' => word(value).then(|| names("", value)),
        'b' => word(value).then(|| names("money_wheel", value)),
        'w' => words::word(value).map(str::to_owned),
        't' => (!value.is_empty())
            .then(|| translate(value, PARTS, names))
            .flatten(),
        'o' if value.is_empty() => Some(String::new()),
        'o' => translate(value, PARTS, names),
        _ => None,
    }
}

/// An amount as `format_czk` writes it (kept), or Open Face Chinese's points in chips.
fn amount(value: &str) -> Option<String> {
    if let Some(chips) = value.strip_suffix(" chips") {
        let digits = chips.strip_prefix('-').unwrap_or(chips);
        return (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
            .then(|| format!("{chips} žetonů"));
    }
    let koruny = value.strip_suffix(" Kč")?;
    let (whole, halere) = koruny.rsplit_once(',')?;
    let whole = whole.strip_prefix('-').unwrap_or(whole);
    let ok = halere.len() == 2
        && halere.bytes().all(|b| b.is_ascii_digit())
        && !whole.is_empty()
        && whole.bytes().all(|b| b.is_ascii_digit() || b == b' ');
    ok.then(|| value.to_owned())
}

/// Cards as people write them: `10♦ 5♠` for `Td 5s`; none when `value` is not cards.
fn cards(value: &str) -> Option<String> {
    let faces: Option<Vec<String>> = value
        .split(' ')
        .map(|card| {
            let mut chars = card.chars();
            let (Some(rank), Some(suit), None) = (chars.next(), chars.next(), chars.next()) else {
                return None;
            };
            let rank = match rank {
                'T' => "10".to_owned(),
                '2'..='9' | 'J' | 'Q' | 'K' | 'A' => rank.to_string(),
                _ => return None,
            };
            let suit = match suit {
                's' => '♠',
                'h' => '♥',
                'd' => '♦',
                'c' => '♣',
                _ => return None,
            };
            Some(format!("{rank}{suit}"))
        })
        .collect();
    faces.map(|f| f.join(" "))
}

/// `2026-10-01 20:00` as Czech write it: `1. 10. 2026 20:00`.
fn time(value: &str) -> Option<String> {
    let at = chrono::NaiveDateTime::parse_from_str(value, "%Y-%m-%d %H:%M").ok()?;
    Some(at.format("%-d. %-m. %Y %H:%M").to_string())
}

/// Puts the slots' Czech into the Czech template.
fn fill(template: &str, slots: &[(String, String)]) -> String {
    pieces(template)
        .into_iter()
        .map(|p| match p {
            Piece::Text(t) => t,
            Piece::Slot(name) => slots
                .iter()
                .find(|(n, _)| n == name)
                .map_or("", |(_, v)| v.as_str()),
        })
        .collect()
}
