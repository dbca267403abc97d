//! A round laid out as a person reads it: what was dealt or spun, each box's or seat's play, the
//! bets with what was paid against what the plan says is due, and where it went wrong. Built
//! from the signed record and dozor's verdict of it, in Czech or English.

use serde::Serialize;
use serde_json::Value;

use crate::sheet::Language;

/// One table of the layout: a heading, its columns and rows.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Section {
    pub title: String,
    pub columns: Vec<String>,
    pub rows: Vec<Row>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Row {
    pub cells: Vec<String>,
    /// The row is what a finding is about.
    pub flagged: bool,
}

/// A round as laid out.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Layout {
    /// One line: the game and its result.
    pub headline: String,
    /// Facts of the round, label and value.
    pub facts: Vec<(String, String)>,
    pub sections: Vec<Section>,
}

/// A card as people write it: `T♥` for `Th`, the ten as 10.
pub fn card_face(text: &str) -> String {
    let mut chars = text.chars();
    let (Some(rank), Some(suit), None) = (chars.next(), chars.next(), chars.next()) else {
        return text.to_owned();
    };
    let rank = match rank {
        'T' => "10".to_owned(),
        r => r.to_string(),
    };
    let suit = match suit {
        's' => '♠',
        'h' => '♥',
        'd' => '♦',
        'c' => '♣',
        other => other,
    };
    format!("{rank}{suit}")
}

fn cards(value: &Value) -> String {
    value
        .as_array()
        .map(|cards| {
            cards
                .iter()
                .filter_map(Value::as_str)
                .map(card_face)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default()
}

fn money(h: Option<i64>) -> String {
    h.map_or_else(String::new, rules::money::format_czk)
}

fn text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// The roulette numbers on red.
const RED: [u8; 18] = [
    1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36,
];

struct Builder<'a> {
    record: &'a Value,
    verdict: Option<&'a Value>,
    /// The bets the findings are about.
    flagged_bets: Vec<String>,
    language: Language,
    layout: Layout,
}

impl Builder<'_> {
    fn word<'w>(&self, cs: &'w str, en: &'w str) -> &'w str {
        self.language.pick(cs, en)
    }

    fn fact(&mut self, cs: &str, en: &str, value: String) {
        if !value.is_empty() {
            let label = self.word(cs, en).to_owned();
            self.layout.facts.push((label, value));
        }
    }

    fn section(&mut self, cs: &str, en: &str, columns: &[(&str, &str)], rows: Vec<Row>) {
        if rows.is_empty() {
            return;
        }
        let section = Section {
            title: self.word(cs, en).to_owned(),
            columns: columns
                .iter()
                .map(|(c, e)| self.word(c, e).to_owned())
                .collect(),
            rows,
        };
        self.layout.sections.push(section);
    }

    /// The verdict's bets: stake, paid, due by the plan, the difference.
    fn bets(&mut self) {
        let Some(bets) = self.verdict.and_then(|v| v["bets"].as_array()) else {
            return;
        };
        // A bet's own words in the record: its numbers (roulette), box (wheels), spot (UTH).
        let detail = |bet_id: &str| -> String {
            let recorded = self.record["bets"].as_array().into_iter().flatten().chain(
                self.record["spots"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .flat_map(|s| s["bets"].as_array().into_iter().flatten()),
            );
            recorded
                .filter(|b| b["bet_id"] == bet_id)
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
                })
                .next()
                .unwrap_or_default()
        };
        let rows = bets
            .iter()
            .map(|b| {
                let id = text(&b["bet_id"]);
                let paid = b["paid_h"].as_i64();
                let due = b["expected_paid_h"].as_i64();
                let difference = match (paid, due) {
                    (Some(p), Some(d)) if p != d => money(p.checked_sub(d)),
                    _ => String::new(),
                };
                Row {
                    flagged: self.flagged_bets.contains(&id),
                    cells: vec![
                        id.clone(),
                        text(&b["player"]),
                        text(&b["kind"]),
                        detail(&id),
                        money(b["stake_h"].as_i64()),
                        money(paid),
                        money(due),
                        difference,
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
            ],
            rows,
        );
    }

    fn void(&mut self) {
        if self.verdict.is_some_and(|v| v["void"] == true) {
            let reason = self
                .verdict
                .map(|v| text(&v["void_reason"]))
                .unwrap_or_default();
            let value = format!("{} {reason}", self.word("ano", "yes"))
                .trim()
                .to_owned();
            self.fact("Neplatná hra", "Void", value);
        }
    }

    fn roulette(&mut self) {
        let outcome = &self.record["outcome"];
        match outcome["number"]
            .as_u64()
            .and_then(|n| u8::try_from(n).ok())
        {
            Some(n) => {
                let colour = if n == 0 {
                    self.word("zelená", "green")
                } else if RED.contains(&n) {
                    self.word("červená", "red")
                } else {
                    self.word("černá", "black")
                };
                self.layout.headline = format!("{} {n} ({colour})", self.word("Padlo", "Number"));
                self.fact("Číslo", "Number", format!("{n} ({colour})"));
            }
            None => {
                self.layout.headline = self.word("Neplatné roztočení", "Void spin").to_owned();
            }
        }
        let spin = &self.record["spin"];
        if spin.is_object() {
            self.fact("Rotor", "Rotor", text(&spin["rotor_direction"]));
            self.fact("Kulička", "Ball", text(&spin["ball_direction"]));
            self.fact(
                "Otáčky kuličky",
                "Ball revolutions",
                text(&spin["ball_revolutions"]),
            );
        }
    }

    fn wheel(&mut self) {
        let label = self
            .verdict
            .map(|v| text(&v["segment_label"]))
            .unwrap_or_default();
        let segment = text(&self.record["outcome"]["segment"]);
        self.layout.headline = if label.is_empty() {
            self.word("Neplatné roztočení", "Void spin").to_owned()
        } else {
            format!(
                "{} {label}",
                self.word("Kolo zastavilo na", "The wheel stopped on")
            )
        };
        self.fact(
            "Pole",
            "Segment",
            format!("{segment} {label}").trim().to_owned(),
        );
        self.fact("Otáčky", "Turns", text(&self.record["outcome"]["turns"]));
    }

    fn blackjack(&mut self, plan: Option<&rules::Plan>) {
        self.fact("Shoe", "Shoe", text(&self.record["shoe_id"]));
        self.fact("Spálené karty", "Burned", cards(&self.record["burned"]));
        self.fact(
            "Pořadí karet ze shoe",
            "Deal order",
            cards(&self.record["deal"]),
        );
        let round: Option<rules::blackjack::BlackjackRound> =
            serde_json::from_value(self.record.clone()).ok();
        let (Some(round), Some(bp)) = (round, plan.and_then(|p| p.blackjack.as_ref())) else {
            return;
        };
        let Ok(played) = rules::blackjack::play::replay(&round, bp) else {
            self.layout.headline = self
                .word(
                    "Karty nestačí na zaznamenanou hru",
                    "The deal does not cover the play recorded",
                )
                .to_owned();
            return;
        };
        let total = |t: rules::blackjack::points::Total, cards: usize, split: bool| -> String {
            if t.value() == 21 && cards == 2 && !split {
                return "Black Jack".to_owned();
            }
            let bust = if t.is_bust() {
                self.word(" přes", " bust")
            } else {
                ""
            };
            let soft = if t.is_soft() && !t.is_bust() {
                self.word(" (měkká)", " (soft)")
            } else {
                ""
            };
            format!("{}{soft}{bust}", t.value())
        };
        let faces = |list: &[rules::cards::Card]| {
            list.iter()
                .map(|c| card_face(&c.to_string()))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let mut rows = Vec::new();
        let mut player_cards = 0usize;
        for (b, played_box) in round.boxes.iter().zip(&played.boxes) {
            for (h, hand) in played_box.hands.iter().enumerate() {
                player_cards += hand.cards.len();
                // A split ends a recorded hand; the played hands are the ones that did not.
                let decisions = b
                    .hands
                    .iter()
                    .filter(|d| d.last() != Some(&rules::blackjack::Decision::Split))
                    .nth(h)
                    .map(|d| {
                        let split = hand.from_split.then_some("split");
                        split
                            .into_iter()
                            .chain(d.iter().map(|x| x.as_str()))
                            .collect::<Vec<_>>()
                            .join(", ")
                    })
                    .unwrap_or_default();
                let flagged = played.issues.iter().any(|i| {
                    !i.dealer
                        && i.message
                            .starts_with(&format!("box {}, hand {}:", b.box_no, h + 1))
                });
                rows.push(Row {
                    flagged,
                    cells: vec![
                        b.box_no.to_string(),
                        (h + 1).to_string(),
                        faces(&hand.cards),
                        total(hand.total(), hand.cards.len(), hand.from_split),
                        if hand.doubled {
                            self.word("ano", "yes")
                        } else {
                            ""
                        }
                        .to_owned(),
                        decisions,
                    ],
                });
            }
        }
        // The cards before the dealer's draws: the players' (a split hand keeps one of the
        // pair, so none is counted twice) and the dealer's first.
        let used = player_cards;
        let dealer_dealt: Vec<rules::cards::Card> = round
            .deal
            .get(round.boxes.len())
            .copied()
            .into_iter()
            .chain(round.deal.iter().skip(used + 1).copied())
            .collect();
        let dealer_wrong = played.issues.iter().any(|i| i.dealer);
        rows.push(Row {
            flagged: dealer_wrong,
            cells: vec![
                self.word("krupiér", "dealer").to_owned(),
                String::new(),
                faces(&dealer_dealt),
                total(
                    rules::blackjack::points::Total::of(&dealer_dealt),
                    dealer_dealt.len(),
                    false,
                ),
                String::new(),
                if dealer_wrong {
                    format!(
                        "{} {} ({})",
                        self.word("dle plánu", "by the plan"),
                        faces(&played.dealer),
                        total(played.dealer_total(), played.dealer.len(), false)
                    )
                } else {
                    String::new()
                },
            ],
        });
        self.layout.headline = format!(
            "{} {} ({})",
            self.word("Krupiér", "Dealer"),
            faces(&dealer_dealt),
            total(
                rules::blackjack::points::Total::of(&dealer_dealt),
                dealer_dealt.len(),
                false
            )
        );
        self.section(
            "Boxy a krupiér",
            "Boxes and the dealer",
            &[
                ("Box", "Box"),
                ("Ruka", "Hand"),
                ("Karty", "Cards"),
                ("Součet", "Total"),
                ("Zdvojeno", "Doubled"),
                ("Rozhodnutí", "Decisions"),
            ],
            rows,
        );
    }

    fn uth(&mut self) {
        self.fact("Krupiér", "Dealer", cards(&self.record["dealer"]));
        self.fact("Stůl", "Board", cards(&self.record["board"]));
        self.fact("Spálené karty", "Burned", cards(&self.record["burned"]));
        self.layout.headline = format!(
            "{} {} | {}",
            self.word("Krupiér", "Dealer"),
            cards(&self.record["dealer"]),
            cards(&self.record["board"])
        );
        let rows = self.record["spots"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|s| Row {
                flagged: false,
                cells: vec![
                    text(&s["spot"]),
                    text(&s["player"]),
                    cards(&s["cards"]),
                    text(&s["play_street"]),
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

    fn poker(&mut self) {
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
        self.fact("Rake", "Rake", money(self.record["rake_h"].as_i64()));
        self.layout.headline = format!(
            "{} {} | rake {}",
            self.word("Stůl", "Board"),
            cards(&self.record["board"]),
            money(self.record["rake_h"].as_i64())
        );
        let seats = self.record["seats"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|s| Row {
                flagged: false,
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
        let actions = self.record["actions"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|a| Row {
                flagged: false,
                cells: vec![
                    text(&a["street"]),
                    text(&a["seat"]),
                    text(&a["action"]),
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
        let awards = self.record["awards"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|a| Row {
                flagged: false,
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

    fn ofc(&mut self) {
        self.layout.headline = "Open Face Chinese".into();
        let rows = self.record["players"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|p| Row {
                flagged: false,
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

    fn tournament(&mut self) {
        let figures = self.verdict.map(|v| &v["tournament"]);
        self.layout.headline = text(&self.record["tournament_id"]);
        self.fact("Formát", "Format", text(&self.record["format"]));
        self.fact("Buy-in", "Buy-in", money(self.record["buy_in_h"].as_i64()));
        self.fact("Poplatek", "Fee", money(self.record["fee_h"].as_i64()));
        self.fact(
            "Garance",
            "Guarantee",
            money(self.record["guarantee_h"].as_i64()),
        );
        if let Some(f) = figures {
            self.fact("Vstupů", "Entries", text(&f["entries"]));
            self.fact("Moneypool", "Moneypool", money(f["moneypool_h"].as_i64()));
            self.fact(
                "Doplatek provozovatele",
                "Overlay",
                money(f["overlay_h"].as_i64()),
            );
        }
        let results = self.record["results"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|r| Row {
                flagged: false,
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

impl Layout {
    /// The layout as plain text for a terminal: the headline, the facts, each section as a
    /// table with aligned columns (a flagged row marked `!`).
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        if !self.headline.is_empty() {
            out.push_str(&self.headline);
            out.push('\n');
        }
        let label_width = self
            .facts
            .iter()
            .map(|(l, _)| l.chars().count())
            .max()
            .unwrap_or(0);
        for (label, value) in &self.facts {
            let pad = label_width - label.chars().count();
            out.push_str(&format!("  {label}{}  {value}\n", " ".repeat(pad)));
        }
        for section in &self.sections {
            out.push('\n');
            out.push_str(&section.title);
            out.push('\n');
            let mut widths: Vec<usize> =
                section.columns.iter().map(|c| c.chars().count()).collect();
            for row in &section.rows {
                for (i, cell) in row.cells.iter().enumerate() {
                    if let Some(w) = widths.get_mut(i) {
                        *w = (*w).max(cell.chars().count());
                    }
                }
            }
            let line = |marker: &str, cells: &[String]| {
                let mut text = format!("{marker} ");
                for (i, cell) in cells.iter().enumerate() {
                    let width = widths.get(i).copied().unwrap_or(0);
                    text.push_str(cell);
                    text.push_str(&" ".repeat(width.saturating_sub(cell.chars().count()) + 2));
                }
                text.trim_end().to_owned() + "\n"
            };
            out.push_str(&line(" ", &section.columns));
            for row in &section.rows {
                out.push_str(&line(if row.flagged { "!" } else { " " }, &row.cells));
            }
        }
        out
    }
}

/// Lays out `record` (the signed round) with its `verdict`; `flagged_bets` are the bets the
/// findings name.
pub fn lay_out(
    record: &Value,
    verdict: Option<&Value>,
    flagged_bets: Vec<String>,
    plans: &rules::PlanBook,
    language: Language,
) -> Layout {
    let mut b = Builder {
        record,
        verdict,
        flagged_bets,
        language,
        layout: Layout::default(),
    };
    let plan = record["plan_id"].as_str().and_then(|id| plans.get(id));
    match record["game"].as_str().unwrap_or_default() {
        "roulette" => b.roulette(),
        "blackjack" => b.blackjack(plan),
        "ultimate_texas_holdem" => b.uth(),
        "money_wheel_1" | "money_wheel_2" => b.wheel(),
        "poker_cash" => b.poker(),
        "open_face_chinese" => b.ofc(),
        "poker_tournament" => b.tournament(),
        _ => {}
    }
    b.void();
    b.bets();
    b.layout
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use serde_json::json;

    use super::*;

    #[test]
    fn cards_read_as_people_write_them() {
        assert_eq!(card_face("Th"), "10♥");
        assert_eq!(card_face("As"), "A♠");
        assert_eq!(card_face("??"), "??");
    }

    #[test]
    fn a_blackjack_box_shows_each_hand_with_its_total_and_the_dealers_draw() {
        // Deal order: box 1's first card 8♠, the dealer's 6♥, box 1's second 8♦ — a pair of
        // eights, split: hand 1 gets 3♦ (11), doubles and gets K♣ (21); hand 2 gets 10♣ (18)
        // and stands. The dealer then draws 2♥ (8), 9♠ (17) and stands.
        let record = json!({"type": "round", "game": "blackjack", "table_id": "BJ1", "seq_no": 1,
            "plan_id": "69games-ziva-hra", "played_at": "2026-11-21T20:14:03Z", "shoe_id": "S1",
            "deal": ["8s", "6h", "8d", "3d", "Kc", "Tc", "2h", "9s"],
            "boxes": [{"box": 1, "hands": [["split"], ["double"], ["stand"]],
                       "bets": [{"bet_id": "b1", "player": "seat-1", "kind": "main",
                                 "stake_h": 10000, "paid_h": 60000}]}]});
        let plans = rules::PlanBook::builtin().unwrap();
        let layout = lay_out(&record, None, vec![], &plans, Language::English);
        let hands = &layout.sections[0];
        let cells: Vec<Vec<&str>> = hands
            .rows
            .iter()
            .map(|r| r.cells.iter().map(String::as_str).collect())
            .collect();
        assert_eq!(
            cells,
            vec![
                vec!["1", "1", "8♠ 3♦ K♣", "21", "yes", "split, double"],
                vec!["1", "2", "8♦ 10♣", "18", "", "split, stand"],
                vec!["dealer", "", "6♥ 2♥ 9♠", "17", "", ""],
            ]
        );
        assert_eq!(layout.headline, "Dealer 6♥ 2♥ 9♠ (17)");
    }

    #[test]
    fn a_dealer_drawing_past_seventeen_is_flagged_with_the_plans_hand() {
        // Box 1: 10♠ 7♦ (17), stands. The dealer: 9♥, then 8♣ (17) and must stand, but drew
        // 5♦ (22).
        let record = json!({"type": "round", "game": "blackjack", "table_id": "BJ1", "seq_no": 2,
            "plan_id": "69games-ziva-hra", "played_at": "2026-11-21T20:15:03Z", "shoe_id": "S1",
            "deal": ["Ts", "9h", "7d", "8c", "5d"],
            "boxes": [{"box": 1, "hands": [["stand"]],
                       "bets": [{"bet_id": "b1", "player": "seat-1", "kind": "main",
                                 "stake_h": 10000, "paid_h": 20000}]}]});
        let plans = rules::PlanBook::builtin().unwrap();
        let layout = lay_out(&record, None, vec![], &plans, Language::Czech);
        let dealer = layout.sections[0].rows.last().unwrap();
        assert!(dealer.flagged);
        assert_eq!(dealer.cells[2], "9♥ 8♣ 5♦");
        assert_eq!(dealer.cells[3], "22 přes");
        assert_eq!(dealer.cells[5], "dle plánu 9♥ 8♣ (17)");
    }

    #[test]
    fn roulette_shows_the_number_and_each_bet_paid_against_due() {
        let record = json!({"game": "roulette", "outcome": {"result": "number", "number": 17},
            "bets": [{"bet_id": "b1", "player": "seat-3", "kind": "straight", "numbers": [17],
                      "stake_h": 10000, "paid_h": 370000}]});
        // 35 × 100 Kč + the stake = 3 600 Kč due; 3 700 Kč paid: 100 Kč too much.
        let verdict = json!({"void": false, "bets": [{"bet_id": "b1", "player": "seat-3",
            "kind": "straight", "stake_h": 10000, "paid_h": 370000, "expected_paid_h": 360000}]});
        let plans = rules::PlanBook::builtin().unwrap();
        let layout = lay_out(
            &record,
            Some(&verdict),
            vec!["b1".into()],
            &plans,
            Language::Czech,
        );
        assert_eq!(layout.headline, "Padlo 17 (černá)");
        let bet = &layout.sections[0].rows[0];
        assert!(bet.flagged);
        assert_eq!(
            bet.cells,
            vec![
                "b1",
                "seat-3",
                "straight",
                "17",
                "100,00 Kč",
                "3 700,00 Kč",
                "3 600,00 Kč",
                "100,00 Kč"
            ]
        );
    }
}
