//! Open Face Chinese: each player's rows, result and rake, and fantasy land owed.

use super::{cards, elements, money, text, Builder, Row};

impl Builder<'_> {
    pub(super) fn ofc(&mut self) {
        self.layout.headline = "Open Face Chinese".into();
        // Fantasy land the verdict says the next hand owes, with its cards.
        let fantasy = self
            .verdict
            .into_iter()
            .flat_map(|v| elements(&v["fantasy_next"]))
            .map(|f| {
                format!(
                    "{} ({} {})",
                    text(&f["player"]),
                    text(&f["cards"]),
                    self.word("karet", "cards")
                )
            })
            .collect::<Vec<_>>()
            .join(", ");
        self.fact(
            "Fantasy Land v další hře",
            "Fantasy land next hand",
            fantasy,
        );
        // The verdict names the players `player-1` … in the record's order.
        let rows = elements(&self.record["players"])
            .enumerate()
            .map(|(i, p)| Row {
                flagged: self.is_flagged(&format!("player-{}", i + 1)),
                cells: vec![
                    text(&p["player"]),
                    cards(&p["front"]),
                    cards(&p["middle"]),
                    cards(&p["back"]),
                    cards(&p["discards"]),
                    money(p["net_h"].as_i64()),
                    money(p["rake_h"].as_i64()),
                ],
            })
            .collect();
        self.section(
            "Hráči",
            "Players",
            &[
                ("Hráč", "Player"),
                ("Horní řada", "Front"),
                ("Střední řada", "Middle"),
                ("Spodní řada", "Back"),
                ("Odhozené", "Discards"),
                ("Výsledek", "Net"),
                ("Rake", "Rake"),
            ],
            rows,
        );
    }
}
