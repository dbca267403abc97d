//! A poker tournament: buy-in, fee, the pools and the results.

use super::{elements, money, text, Builder, Row};

impl Builder<'_> {
    pub(super) fn tournament(&mut self) {
        let figures = self.verdict.map(|v| &v["tournament"]);
        self.layout.headline = text(&self.record["tournament_id"]);
        self.fact("Formát", "Format", text(&self.record["format"]));
        self.fact("Buy-in", "Buy-in", money(self.record["buy_in_h"].as_i64()));
        let mut fee = money(self.record["fee_h"].as_i64());
        let fee_percent = text(&self.record["fee_percent"]);
        if !fee_percent.is_empty() {
            fee.push_str(&format!(" ({fee_percent} %)"));
        }
        fee.push_str(&self.by_the_plan("fee_wrong"));
        self.fact("Poplatek", "Fee", fee);
        self.fact(
            "Garance",
            "Guarantee",
            money(self.record["guarantee_h"].as_i64()),
        );
        if let Some(f) = figures {
            self.fact("Vstupů", "Entries", text(&f["entries"]));
            self.fact("Moneypool", "Moneypool", money(f["moneypool_h"].as_i64()));
            self.fact(
                "Výherní fond",
                "Prize pool",
                money(f["prize_pool_h"].as_i64()),
            );
            self.fact(
                "Doplatek provozovatele",
                "Overlay",
                money(f["overlay_h"].as_i64()),
            );
        }
        let results = elements(&self.record["results"])
            .map(|r| Row {
                // The verdict's line of a player is the player.
                flagged: self.is_flagged(&text(&r["player"])),
                cells: vec![
                    text(&r["place"]),
                    text(&r["player"]),
                    money(r["prize_h"].as_i64()),
                ],
            })
            .collect();
        self.section(
            "Výsledky",
            "Results",
            &[("Pořadí", "Place"), ("Hráč", "Player"), ("Výhra", "Prize")],
            results,
        );
    }
}
