//! The verdict's bets of a round: staked, paid, due by the plan, the difference, and the
//! figures of the finding a bet is named by.

use serde_json::Value;

use super::{elements, money, text, Builder, Row};

/// A bet's money as its row shows it.
struct BetMoney {
    staked: Option<i64>,
    paid: Option<i64>,
    due: Option<i64>,
}

impl Builder<'_> {
    /// A bet's money from the verdict. A poker seat's line in the verdict leaves out an
    /// uncalled bet handed back (it is in no pot); the seat's row shows what the seat put in
    /// and what it was handed, that bet included, as the finding about the seat compares
    /// them: what the record says the seat was handed less the verdict's paid is that bet.
    fn bet_money(&self, bet: &Value) -> BetMoney {
        let verdict = BetMoney {
            staked: bet["stake_h"].as_i64(),
            paid: bet["paid_h"].as_i64(),
            due: bet["expected_paid_h"].as_i64(),
        };
        if self.record["game"] != "poker_cash" {
            return verdict;
        }
        let seat = text(&bet["bet_id"]);
        let handed = elements(&self.record["awards"])
            .filter(|a| format!("seat-{}", text(&a["seat"])) == seat)
            .filter_map(|a| a["amount_h"].as_i64())
            .try_fold(0i64, i64::checked_add);
        let gross = || {
            let handed = handed?;
            let uncalled = handed.checked_sub(verdict.paid?)?;
            Some(BetMoney {
                staked: verdict.staked?.checked_add(uncalled),
                paid: Some(handed),
                due: verdict.due?.checked_add(uncalled),
            })
        };
        gross().unwrap_or(verdict)
    }

    pub(super) fn bets(&mut self) {
        let Some(bets) = self.verdict.and_then(|v| v["bets"].as_array()) else {
            return;
        };
        // A bet's own words in the record: its numbers (roulette), box (wheels), or the spot
        // (UTH) or box (blackjack) it lies on.
        let detail = |bet_id: &str| -> String {
            let own = elements(&self.record["bets"])
                .find(|b| b["bet_id"] == bet_id)
                .map(|b| {
                    let numbers = b["numbers"]
                        .as_array()
                        .map(|n| n.iter().map(text).collect::<Vec<_>>().join(", "))
                        .unwrap_or_default();
                    [numbers, text(&b["box"])]
                        .into_iter()
                        .filter(|s| !s.is_empty())
                        .collect::<Vec<_>>()
                        .join(" ")
                });
            let place = [("spots", "spot", "spot"), ("boxes", "box", "box")]
                .into_iter()
                .find_map(|(list, key, en)| {
                    elements(&self.record[list])
                        .find(|p| elements(&p["bets"]).any(|b| b["bet_id"] == bet_id))
                        .map(|p| format!("{} {}", self.word("box", en), text(&p[key])))
                });
            own.or(place).unwrap_or_default()
        };
        let rows = bets
            .iter()
            .map(|b| {
                let id = text(&b["bet_id"]);
                let BetMoney { staked, paid, due } = self.bet_money(b);
                let difference = match (paid, due) {
                    (Some(p), Some(d)) if p != d => money(p.checked_sub(d)),
                    _ => String::new(),
                };
                Row {
                    flagged: self.is_flagged(&id),
                    cells: vec![
                        id.clone(),
                        text(&b["player"]),
                        {
                            let name = rules::bet_kinds::bet_kind_name(
                                &text(&self.record["game"]),
                                &text(&b["kind"]),
                            );
                            self.word(&name.cs, &name.en).to_owned()
                        },
                        detail(&id),
                        money(staked),
                        money(paid),
                        money(due),
                        difference,
                        self.finding_cell(&id),
                    ],
                }
            })
            .collect();
        self.section(
            "Sázky",
            "Bets",
            &[
                ("Sázka", "Bet"),
                ("Hráč", "Player"),
                ("Druh", "Kind"),
                ("Na", "On"),
                ("Vsazeno", "Staked"),
                ("Vyplaceno", "Paid"),
                ("Dle plánu", "Due by the plan"),
                ("Rozdíl", "Difference"),
                ("Nález", "Finding"),
            ],
            rows,
        );
    }
}
