//! What people call a bet kind and where a roulette ball stopped, in Czech and English: the
//! names every page of dozor's (the casino's reports and workbench, the regulator's monitor)
//! gives the codes the rules write (`straight`, `dozen_2`, a wheel's box `25x_black`).

use crate::messages::Words;
use crate::roulette::layout::RED;

/// A name in Czech and in English.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Name {
    pub cs: String,
    pub en: String,
}

impl Name {
    fn both(cs: &str, en: &str) -> Name {
        Name {
            cs: cs.to_owned(),
            en: en.to_owned(),
        }
    }
}

/// A bet kind of `game` as people name it (the reports' `bet_kind` codes: roulette's
/// positions, blackjack's and UTH's bets, a wheel's boxes, the lines of games between players);
/// the code itself in both languages when it is none dozor knows.
pub fn bet_kind_name(game: &str, kind: &str) -> Name {
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
        crate::statistics::UTH_HAND => ("Ante, Blind a Play", "Ante, Blind and Play"),
        "ante" => ("Ante", "Ante"),
        "blind" => ("Blind", "Blind"),
        "play" => ("Play", "Play"),
        "trips" => ("Trips", "Trips"),
        "seat" => ("hráč u stolu", "seat"),
        "time_collection" => ("poplatek za čas (time collection)", "time collection"),
        "ofc_player" => ("hráč", "player"),
        "tournament_player" => ("hráč turnaje", "tournament player"),
        "unknown_box" => ("neznámé pole", "unknown box"),
        box_id if game.starts_with("money_wheel") => return wheel_box_name(box_id),
        other => (other, other),
    };
    Name::both(cs, en)
}

/// [`bet_kind_name`] in Czech: what a finding's message is read with
/// (`rules::messages::czech_or_english(message, &czech_bet_kind)`).
pub fn czech_bet_kind(game: &str, kind: &str) -> String {
    bet_kind_name(game, kind).cs
}

/// A wheel's box (`2x`, `25x_black`): its multiple and, for the two 25x boxes, the colour.
fn wheel_box_name(box_id: &str) -> Name {
    let (multiple, colour) = box_id.split_once('_').unwrap_or((box_id, ""));
    let (cs, en) = match colour {
        "" => ("", ""),
        "black" => (" černé", " black"),
        "pink" => (" růžové", " pink"),
        _ => return Name::both(box_id, box_id),
    };
    Name {
        cs: format!("pole {multiple}{cs}"),
        en: format!("box {multiple}{en}"),
    }
}

/// The colour of a roulette pocket: green for 0, red or black for 1–36; none past 36.
pub fn pocket_colour(number: u8) -> Option<Words> {
    match number {
        0 => Some(Words {
            cs: "zelená",
            en: "green",
        }),
        n if RED.contains(&n) => Some(Words {
            cs: "červená",
            en: "red",
        }),
        1..=36 => Some(Words {
            cs: "černá",
            en: "black",
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bet_kind_has_a_name_in_both_languages() {
        let kinds = [
            ("roulette", "straight"),
            ("roulette", "split"),
            ("roulette", "street"),
            ("roulette", "corner"),
            ("roulette", "six_line"),
            ("roulette", "dozen_1"),
            ("roulette", "dozen_2"),
            ("roulette", "dozen_3"),
            ("roulette", "column_1"),
            ("roulette", "column_2"),
            ("roulette", "column_3"),
            ("roulette", "red"),
            ("roulette", "black"),
            ("roulette", "odd"),
            ("roulette", "even"),
            ("roulette", "low"),
            ("roulette", "high"),
            ("roulette", "neighbours"),
            ("roulette", "zero_spiel"),
            ("roulette", "voisins"),
            ("roulette", "tiers"),
            ("roulette", "orphelins"),
            ("blackjack", "main"),
            ("blackjack", "perfect_pairs"),
            ("blackjack", "insurance"),
            ("ultimate_texas_holdem", "ante_blind_play"),
            ("ultimate_texas_holdem", "trips"),
            ("money_wheel_1", "1x"),
            ("money_wheel_1", "25x_black"),
            ("money_wheel_1", "25x_pink"),
            ("poker_cash", "seat"),
            ("poker_cash", "time_collection"),
            ("open_face_chinese", "ofc_player"),
            ("poker_tournament", "tournament_player"),
        ];
        for pick in [|n: Name| n.cs, |n: Name| n.en] {
            let names: std::collections::BTreeSet<String> = kinds
                .iter()
                .map(|(game, kind)| pick(bet_kind_name(game, kind)))
                .collect();
            // Each kind its own name (roulette's and the wheel's colours apart).
            assert_eq!(names.len(), kinds.len(), "{names:?}");
        }
        for (game, kind) in kinds {
            let cs = czech_bet_kind(game, kind);
            assert!(!cs.contains('_'), "{kind}: {cs}");
        }
        for (game, kind, name) in [
            ("roulette", "dozen_2", "2. tucet"),
            ("roulette", "voisins", "velká série"),
            (
                "ultimate_texas_holdem",
                "ante_blind_play",
                "Ante, Blind a Play",
            ),
            ("money_wheel_1", "25x_pink", "pole 25x růžové"),
            ("roulette", "no_such_kind", "no_such_kind"),
            ("money_wheel_1", "25x_green", "25x_green"),
        ] {
            assert_eq!(czech_bet_kind(game, kind), name);
        }
        assert_eq!(bet_kind_name("money_wheel_2", "15x").en, "box 15x");
        assert_eq!(bet_kind_name("roulette", "no_such_kind").en, "no_such_kind");
    }

    #[test]
    fn a_pocket_has_its_colour() {
        // 0 green; 17 black, 18 red (1, 3, 5, 7, 9, 12, 14, 16, 18 …); nothing past 36.
        assert_eq!(pocket_colour(0).map(|w| w.cs), Some("zelená"));
        assert_eq!(pocket_colour(17).map(|w| w.cs), Some("černá"));
        assert_eq!(pocket_colour(18).map(|w| w.en), Some("red"));
        assert_eq!(pocket_colour(37), None);
        let red = (1..=36)
            .filter(|n| pocket_colour(*n).map(|w| w.en) == Some("red"))
            .count();
        assert_eq!(red, 18);
    }
}
