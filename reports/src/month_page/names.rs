//! Games and bet kinds by the names people read.

use crate::sheet::Language;

/// A game's name as the plan gives it.
pub(super) type GameName<'a> = dyn Fn(&str) -> String + 'a;

/// A bet kind of `game` as people in `l` name it (the report's `bet_kind` codes: roulette's
/// positions, blackjack's and UTH's bets, a wheel's boxes, the lines of games between players);
/// the code itself when it is none dozor knows.
pub fn bet_kind_name(game: &str, kind: &str, l: Language) -> String {
    let (cs, en) = match kind {
        "straight" => ("číslo (plein)", "straight up"),
        "split" => ("dvojčíslí (cheval)", "split"),
        "street" => ("trojčíslí (transversale)", "street"),
        "corner" => ("čtyřčíslí (carré)", "corner"),
        "six_line" => ("šestičíslí (sixain)", "six line"),
        "dozen_1" => ("1. tucet", "1st dozen"),
        "dozen_2" => ("2. tucet", "2nd dozen"),
        "dozen_3" => ("3. tucet", "3rd dozen"),
        "column_1" => ("1. sloupec", "1st column"),
        "column_2" => ("2. sloupec", "2nd column"),
        "column_3" => ("3. sloupec", "3rd column"),
        "red" => ("červená", "red"),
        "black" => ("černá", "black"),
        "odd" => ("lichá", "odd"),
        "even" => ("sudá", "even"),
        "low" => ("malá čísla (1–18)", "low (1–18)"),
        "high" => ("velká čísla (19–36)", "high (19–36)"),
        "neighbours" => ("sousedé", "neighbours"),
        "zero_spiel" => ("zero spiel", "zero spiel"),
        "voisins" => ("velká série", "voisins du zéro"),
        "tiers" => ("malá série", "tiers du cylindre"),
        "orphelins" => ("orphelins", "orphelins"),
        "main" => ("hlavní sázka", "main bet"),
        "perfect_pairs" => ("Perfect Pairs", "Perfect Pairs"),
        "insurance" => ("pojištění", "insurance"),
        rules::statistics::UTH_HAND => ("Ante, Blind a Play", "Ante, Blind and Play"),
        "ante" => ("Ante", "Ante"),
        "blind" => ("Blind", "Blind"),
        "play" => ("Play", "Play"),
        "trips" => ("Trips", "Trips"),
        "seat" => ("hráč u stolu", "seat"),
        "time_collection" => ("poplatek za čas (time collection)", "time collection"),
        "ofc_player" => ("hráč", "player"),
        "tournament_player" => ("hráč turnaje", "tournament player"),
        "unknown_box" => ("neznámé pole", "unknown box"),
        box_id if game.starts_with("money_wheel") => return wheel_box_name(box_id, l),
        other => return other.to_owned(),
    };
    l.pick(cs, en).to_owned()
}

/// A wheel's box (`2x`, `25x_black`): its multiple and, for the two 25x boxes, the colour.
fn wheel_box_name(box_id: &str, l: Language) -> String {
    let (multiple, colour) = box_id.split_once('_').unwrap_or((box_id, ""));
    let colour = match colour {
        "" => return format!("{} {multiple}", l.pick("pole", "box")),
        "black" => l.pick("černé", "black"),
        "pink" => l.pick("růžové", "pink"),
        _ => return box_id.to_owned(),
    };
    format!("{} {multiple} {colour}", l.pick("pole", "box"))
}
