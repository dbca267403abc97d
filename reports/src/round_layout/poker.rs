//! A poker cash hand: seats, the actions street by street, the pots awarded and the rake.

use super::{cards, elements, money, text, Builder, Row};

impl Builder<'_> {
    pub(super) fn poker(&mut self) {
        self.fact("Varianta", "Variant", text(&self.record["variant"]));
        self.fact(
            "Blindy",
            "Blinds",
            format!(
                "{} / {}",
                money(self.record["small_blind_h"].as_i64()),
                money(self.record["big_blind_h"].as_i64())
            ),
        );
        self.fact("Button", "Button", text(&self.record["button"]));
        self.fact("Stůl", "Board", cards(&self.record["board"]));
        let rake = money(self.record["rake_h"].as_i64()) + &self.by_the_plan("rake_wrong");
        self.fact("Rake", "Rake", rake);
        self.layout.headline = format!(
            "{} {} | rake {}",
            self.word("Stůl", "Board"),
            cards(&self.record["board"]),
            money(self.record["rake_h"].as_i64())
        );
        let seats = elements(&self.record["seats"])
            .map(|s| Row {
                flagged: self.is_flagged(&format!("seat-{}", text(&s["seat"]))),
                cells: vec![
                    text(&s["seat"]),
                    text(&s["player"]),
                    money(s["stack_h"].as_i64()),
                    cards(&s["shown"]),
                ],
            })
            .collect();
        self.section(
            "Hráči",
            "Seats",
            &[
                ("Místo", "Seat"),
                ("Hráč", "Player"),
                ("Žetony", "Stack"),
                ("Ukázané karty", "Shown"),
            ],
            seats,
        );
        let actions = elements(&self.record["actions"])
            .map(|a| Row {
                flagged: false,
                cells: vec![
                    text(&a["street"]),
                    text(&a["seat"]),
                    text(&a["action"]).replace('_', " "),
                    money(a["to_h"].as_i64().or(a["amount_h"].as_i64())),
                ],
            })
            .collect();
        self.section(
            "Průběh",
            "Actions",
            &[
                ("Kolo sázek", "Street"),
                ("Místo", "Seat"),
                ("Akce", "Action"),
                ("Na", "To"),
            ],
            actions,
        );
        let awards = elements(&self.record["awards"])
            .map(|a| Row {
                flagged: self.is_flagged(&format!("seat-{}", text(&a["seat"]))),
                cells: vec![text(&a["seat"]), money(a["amount_h"].as_i64())],
            })
            .collect();
        self.section(
            "Výhry z potů",
            "Pots awarded",
            &[("Místo", "Seat"), ("Částka", "Amount")],
            awards,
        );
    }
}
