//! Ultimate Texas Hold'em: the dealer, the board and each spot's play.

use serde_json::Value;

use super::{cards, elements, text, Builder, Row};

impl Builder<'_> {
    pub(super) fn uth(&mut self) {
        self.fact("Krupiér", "Dealer", cards(&self.record["dealer"]));
        self.fact("Stůl", "Board", cards(&self.record["board"]));
        self.fact("Spálené karty", "Burned", cards(&self.record["burned"]));
        self.layout.headline = format!(
            "{} {} | {}",
            self.word("Krupiér", "Dealer"),
            cards(&self.record["dealer"]),
            cards(&self.record["board"])
        );
        let void = !self.record["void"].is_null();
        // When Play was bet, and how many times the Ante; a spot without it folded.
        let play = |s: &Value| -> String {
            let stake = |kind: &str| {
                elements(&s["bets"])
                    .find(|b| b["kind"] == kind)
                    .and_then(|b| b["stake_h"].as_i64())
            };
            let street = match s["play_street"].as_str() {
                None if void => return String::new(),
                None => return self.word("složil (fold)", "folded").to_owned(),
                Some("preflop") => self.word("před flopem", "before the flop"),
                Some("flop") => self.word("po flopu", "after the flop"),
                Some("river") => self.word("po riveru", "after the river"),
                Some(other) => other,
            };
            match (stake("play"), stake("ante")) {
                (Some(p), Some(a)) if a > 0 && p % a == 0 => format!("{street} ({}×)", p / a),
                _ => street.to_owned(),
            }
        };
        let rows = elements(&self.record["spots"])
            .map(|s| Row {
                flagged: elements(&s["bets"]).any(|b| self.is_flagged(&text(&b["bet_id"]))),
                cells: vec![
                    text(&s["spot"]),
                    text(&s["player"]),
                    cards(&s["cards"]),
                    play(s),
                ],
            })
            .collect();
        self.section(
            "Boxy",
            "Spots",
            &[
                ("Box", "Spot"),
                ("Hráč", "Player"),
                ("Karty", "Cards"),
                ("Play vsazeno", "Play bet on"),
            ],
            rows,
        );
    }
}
