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

    /// Whether a finding names `id`: a bet id, a poker seat's `seat-2`, an OFC `player-1`, a
    /// tournament's player.
    fn is_flagged(&self, id: &str) -> bool {
        self.flagged_bets.iter().any(|b| b == id)
    }

    /// What the plan allows where a finding of `kind` says the table did otherwise (the
    /// finding's expected amount), as ` (by the plan …)`; empty when no such finding.
    fn by_the_plan(&self, kind: &str) -> String {
        self.verdict
            .and_then(|v| v["findings"].as_array())
            .into_iter()
            .flatten()
            .find(|f| f["kind"] == kind)
            .and_then(|f| f["expected_h"].as_i64())
            .map(|h| {
                format!(
                    " ({} {})",
                    self.word("dle plánu", "by the plan"),
                    money(Some(h))
                )
            })
            .unwrap_or_default()
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
        // A bet's own words in the record: its numbers (roulette), box (wheels), or the spot
        // (UTH) or box (blackjack) it lies on.
        let detail = |bet_id: &str| -> String {
            let own = self.record["bets"]
                .as_array()
                .into_iter()
                .flatten()
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
                    self.record[list]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .find(|p| {
                            p["bets"]
                                .as_array()
                                .into_iter()
                                .flatten()
                                .any(|b| b["bet_id"] == bet_id)
                        })
                        .map(|p| format!("{} {}", self.word("box", en), text(&p[key])))
                });
            own.or(place).unwrap_or_default()
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
                    flagged: self.is_flagged(&id),
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
        let void = !self.record["void"].is_null();
        // When Play was bet, and how many times the Ante; a spot without it folded.
        let play = |s: &Value| -> String {
            let stake = |kind: &str| {
                s["bets"]
                    .as_array()
                    .into_iter()
                    .flatten()
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
        let rows = self.record["spots"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|s| Row {
                flagged: s["bets"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .any(|b| self.is_flagged(&text(&b["bet_id"]))),
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
        let rake = money(self.record["rake_h"].as_i64()) + &self.by_the_plan("rake_wrong");
        self.fact("Rake", "Rake", rake);
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
        let actions = self.record["actions"]
            .as_array()
            .into_iter()
            .flatten()
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
        let awards = self.record["awards"]
            .as_array()
            .into_iter()
            .flatten()
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

    fn ofc(&mut self) {
        self.layout.headline = "Open Face Chinese".into();
        // Fantasy land the verdict says the next hand owes, with its cards.
        let fantasy = self
            .verdict
            .and_then(|v| v["fantasy_next"].as_array())
            .into_iter()
            .flatten()
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
        let rows = self.record["players"]
            .as_array()
            .into_iter()
            .flatten()
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

    fn tournament(&mut self) {
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
        let results = self.record["results"]
            .as_array()
            .into_iter()
            .flatten()
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

    /// `record` judged under the bundled plan on a table set up as `setup`: the verdict as
    /// stored (JSON), the kinds of its findings, and the bets they name (what a finding's page
    /// and an inspection flag).
    fn judged(
        record: &Value,
        setup: &rules::TableSetup,
    ) -> (Value, Vec<&'static str>, Vec<String>) {
        let plans = rules::PlanBook::builtin().unwrap();
        let plan = plans.get("69games-ziva-hra").unwrap();
        let round = rules::Round::parse(record).unwrap();
        let verdict = rules::adjudicate_at(plan, setup, &round).unwrap();
        let kinds = verdict.findings.iter().map(|f| f.kind.as_str()).collect();
        let flagged = verdict
            .findings
            .iter()
            .flat_map(|f| f.bet_ids.clone().unwrap_or_default())
            .collect();
        (serde_json::to_value(&verdict).unwrap(), kinds, flagged)
    }

    /// `record` judged and laid out in `language`, with the kinds of the verdict's findings.
    fn judged_layout(
        record: &Value,
        setup: &rules::TableSetup,
        language: Language,
    ) -> (Layout, Vec<&'static str>) {
        let (verdict, kinds, flagged) = judged(record, setup);
        let plans = rules::PlanBook::builtin().unwrap();
        (
            lay_out(record, Some(&verdict), flagged, &plans, language),
            kinds,
        )
    }

    fn section<'l>(layout: &'l Layout, title: &str) -> &'l Section {
        layout
            .sections
            .iter()
            .find(|s| s.title == title)
            .unwrap_or_else(|| panic!("no section {title}: {layout:?}"))
    }

    /// A section's cells, row by row.
    fn cells<'l>(layout: &'l Layout, title: &str) -> Vec<Vec<&'l str>> {
        section(layout, title)
            .rows
            .iter()
            .map(|r| r.cells.iter().map(String::as_str).collect())
            .collect()
    }

    /// The flags of a section's rows.
    fn flags(layout: &Layout, title: &str) -> Vec<bool> {
        section(layout, title)
            .rows
            .iter()
            .map(|r| r.flagged)
            .collect()
    }

    fn facts(layout: &Layout) -> Vec<(&str, &str)> {
        layout
            .facts
            .iter()
            .map(|(l, v)| (l.as_str(), v.as_str()))
            .collect()
    }

    fn hand(text: &str) -> Vec<&str> {
        text.split_whitespace().collect()
    }

    /// A UTH round: dealer Q♠ J♦, board 2♥ 7♥ 9♥ K♣ 4♦, 2♠ 3♠ burned.
    fn uth_round(spots: Vec<Value>) -> Value {
        json!({"type": "round", "game": "ultimate_texas_holdem", "table_id": "U1", "seq_no": 1,
            "plan_id": "69games-ziva-hra", "played_at": "2026-11-21T21:00:00Z",
            "burned": ["2s", "3s"], "dealer": ["Qs", "Jd"], "board": hand("2h 7h 9h Kc 4d"),
            "spots": spots})
    }

    /// Spot `n` of player `p<n>`: 100 Kč Ante and Blind, `play` (street, stake) or a fold,
    /// `trips` (0: none); paid in Ante, Blind, Play, Trips order.
    fn uth_spot(n: u8, hole: &str, play: Option<(&str, i64)>, trips: i64, paid: [i64; 4]) -> Value {
        let bet = |kind: &str, stake: i64, paid: i64| json!({"bet_id": format!("s{n}-{kind}"), "kind": kind, "stake_h": stake, "paid_h": paid});
        let mut bets = vec![bet("ante", 10_000, paid[0]), bet("blind", 10_000, paid[1])];
        if let Some((_, stake)) = play {
            bets.push(bet("play", stake, paid[2]));
        }
        if trips > 0 {
            bets.push(bet("trips", trips, paid[3]));
        }
        let mut spot =
            json!({"spot": n, "player": format!("p{n}"), "cards": hand(hole), "bets": bets});
        if let Some((street, _)) = play {
            spot["play_street"] = json!(street);
        }
        spot
    }

    #[test]
    fn an_uth_round_shows_the_dealer_the_board_each_spots_play_and_its_bets() {
        // The dealer's Q♠ J♦ with the board make K-Q-J-9-7, no pair: the dealer does not
        // qualify, every Ante still in pushes (100 Kč back).
        // Spot 1, A♥ 3♥: a flush. Play 4× before the flop = 400 Kč wins 1:1: 800 Kč; Blind
        // 3:2: 150 + 100 = 250 Kč; Trips 7:1: 700 + 100 = 800 Kč.
        // Spot 2, 10♣ 10♦: a pair of tens beats the dealer's king high. Play 2× after the flop
        // = 200 Kč wins 1:1: 400 Kč; the Blind pushes below a straight: 100 Kč.
        // Spot 3, 5♣ 6♣, folds: Ante and Blind lost.
        let record = uth_round(vec![
            uth_spot(
                1,
                "Ah 3h",
                Some(("preflop", 40_000)),
                10_000,
                [10_000, 25_000, 80_000, 80_000],
            ),
            uth_spot(
                2,
                "Tc Td",
                Some(("flop", 20_000)),
                0,
                [10_000, 10_000, 40_000, 0],
            ),
            uth_spot(3, "5c 6c", None, 0, [0, 0, 0, 0]),
        ]);
        let (layout, findings) =
            judged_layout(&record, &rules::TableSetup::NONE, Language::English);
        assert_eq!(findings, Vec::<&str>::new());
        assert_eq!(layout.headline, "Dealer Q♠ J♦ | 2♥ 7♥ 9♥ K♣ 4♦");
        assert_eq!(
            facts(&layout),
            [
                ("Dealer", "Q♠ J♦"),
                ("Board", "2♥ 7♥ 9♥ K♣ 4♦"),
                ("Burned", "2♠ 3♠")
            ]
        );
        assert_eq!(
            cells(&layout, "Spots"),
            [
                ["1", "p1", "A♥ 3♥", "before the flop (4×)"],
                ["2", "p2", "10♣ 10♦", "after the flop (2×)"],
                ["3", "p3", "5♣ 6♣", "folded"],
            ]
        );
        assert_eq!(flags(&layout, "Spots"), [false, false, false]);
        // A bet paid as the plan says: paid and due the same, no difference.
        fn due<'a>(bet: [&'a str; 4], staked: &'a str, paid: &'a str) -> Vec<&'a str> {
            let [id, player, kind, spot] = bet;
            vec![id, player, kind, spot, staked, paid, paid, ""]
        }
        let (s1, s2, s3) = ("spot 1", "spot 2", "spot 3");
        assert_eq!(
            cells(&layout, "Bets"),
            [
                due(["s1-ante", "p1", "ante", s1], "100,00 Kč", "100,00 Kč"),
                due(["s1-blind", "p1", "blind", s1], "100,00 Kč", "250,00 Kč"),
                due(["s1-play", "p1", "play", s1], "400,00 Kč", "800,00 Kč"),
                due(["s1-trips", "p1", "trips", s1], "100,00 Kč", "800,00 Kč"),
                due(["s2-ante", "p2", "ante", s2], "100,00 Kč", "100,00 Kč"),
                due(["s2-blind", "p2", "blind", s2], "100,00 Kč", "100,00 Kč"),
                due(["s2-play", "p2", "play", s2], "200,00 Kč", "400,00 Kč"),
                due(["s3-ante", "p3", "ante", s3], "100,00 Kč", "0,00 Kč"),
                due(["s3-blind", "p3", "blind", s3], "100,00 Kč", "0,00 Kč"),
            ]
        );
        assert!(section(&layout, "Bets").rows.iter().all(|r| !r.flagged));
    }

    #[test]
    fn an_uth_blind_paid_short_marks_the_bet_and_its_spot() {
        // Spot 1's flush as above: the Blind is due 3:2, 150 + 100 = 250 Kč; the dealer paid
        // 200 Kč, 50 Kč short.
        let record = uth_round(vec![uth_spot(
            1,
            "Ah 3h",
            Some(("preflop", 40_000)),
            10_000,
            [10_000, 20_000, 80_000, 80_000],
        )]);
        let (layout, findings) = judged_layout(&record, &rules::TableSetup::NONE, Language::Czech);
        assert_eq!(findings, ["underpaid"]);
        assert_eq!(
            cells(&layout, "Boxy"),
            [["1", "p1", "A♥ 3♥", "před flopem (4×)"]]
        );
        assert_eq!(flags(&layout, "Boxy"), [true]);
        assert_eq!(flags(&layout, "Sázky"), [false, true, false, false]);
        assert_eq!(
            cells(&layout, "Sázky")[1],
            [
                "s1-blind",
                "p1",
                "blind",
                "box 1",
                "100,00 Kč",
                "200,00 Kč",
                "250,00 Kč",
                "-50,00 Kč"
            ]
        );
    }

    #[test]
    fn a_money_wheel_shows_the_segment_its_label_and_marks_a_losing_box_paid() {
        // Wheel I laid out as the plan counts its boxes: 0–16 `1x`, 17–26 `2x`, 27–31 `5x`,
        // 32–33 `10x`, 34 `25x_black`, 35 `25x_pink`.
        let plans = rules::PlanBook::builtin().unwrap();
        let plan = plans.get("69games-ziva-hra").unwrap();
        let labels: Vec<String> = plan
            .money_wheel_1
            .as_ref()
            .unwrap()
            .boxes
            .iter()
            .flat_map(|b| std::iter::repeat_n(b.id.clone(), b.segments as usize))
            .collect();
        let setup =
            rules::TableSetup::for_table(plan, rules::GameCode::MoneyWheel1, Some(&labels), None)
                .unwrap();
        // The pointer stops on segment 35, the pink 25x, after 5 turns. 100 Kč on 25x pink:
        // 25 × 100 + 100 = 2 600 Kč. 100 Kč on 25x black loses but was paid 2 600 Kč; 50 Kč on
        // 1x loses.
        let record = json!({"type": "round", "game": "money_wheel_1", "table_id": "W1",
        "seq_no": 1, "plan_id": "69games-ziva-hra", "played_at": "2026-11-21T20:00:00Z",
        "outcome": {"result": "segment", "segment": 35, "turns": 5},
        "bets": [
            {"bet_id": "pink", "player": "p1", "box": "25x_pink", "stake_h": 10_000, "paid_h": 260_000},
            {"bet_id": "black", "player": "p2", "box": "25x_black", "stake_h": 10_000, "paid_h": 260_000},
            {"bet_id": "b3", "player": "p2", "box": "1x", "stake_h": 5_000, "paid_h": 0}
        ]});
        let (layout, findings) = judged_layout(&record, &setup, Language::Czech);
        assert_eq!(findings, ["overpaid"]);
        assert_eq!(layout.headline, "Kolo zastavilo na 25x_pink");
        assert_eq!(facts(&layout), [("Pole", "35 25x_pink"), ("Otáčky", "5")]);
        assert_eq!(
            cells(&layout, "Sázky"),
            [
                [
                    "pink",
                    "p1",
                    "25x_pink",
                    "25x_pink",
                    "100,00 Kč",
                    "2 600,00 Kč",
                    "2 600,00 Kč",
                    ""
                ],
                [
                    "black",
                    "p2",
                    "25x_black",
                    "25x_black",
                    "100,00 Kč",
                    "2 600,00 Kč",
                    "0,00 Kč",
                    "2 600,00 Kč"
                ],
                ["b3", "p2", "1x", "1x", "50,00 Kč", "0,00 Kč", "0,00 Kč", ""],
            ]
        );
        assert_eq!(flags(&layout, "Sázky"), [false, true, false]);
    }

    /// Heads-up Hold'em, button 2, blinds 25/50 Kč: A♠ A♦ (seat 1) against K♥ K♦ (seat 2),
    /// 150 Kč each before the flop, 200 Kč on the flop, 500 Kč on the turn, checked on the
    /// river; the table took `rake_h` and handed seat 1 `award_h`.
    fn poker_hand(rake_h: i64, award_h: i64) -> Value {
        let act = |seat: u8, street: &str, action: &str, to_h: Option<i64>| {
            let mut a = json!({"seat": seat, "street": street, "action": action});
            if let Some(to) = to_h {
                a["to_h"] = json!(to);
            }
            a
        };
        json!({"type": "round", "game": "poker_cash", "table_id": "P1", "seq_no": 1,
            "plan_id": "69games-ziva-hra", "played_at": "2026-11-21T23:00:00Z",
            "variant": "holdem", "button": 2, "small_blind_h": 2_500, "big_blind_h": 5_000,
            "seats": [
                {"seat": 1, "player": "p1", "stack_h": 200_000, "shown": ["As", "Ad"]},
                {"seat": 2, "player": "p2", "stack_h": 200_000, "shown": ["Kh", "Kd"]}
            ],
            "actions": [
                act(2, "preflop", "small_blind", Some(2_500)),
                act(1, "preflop", "big_blind", Some(5_000)),
                act(2, "preflop", "raise", Some(15_000)),
                act(1, "preflop", "call", None),
                act(1, "flop", "bet", Some(20_000)),
                act(2, "flop", "call", None),
                act(1, "turn", "check", None),
                act(2, "turn", "bet", Some(50_000)),
                act(1, "turn", "call", None),
                act(1, "river", "check", None),
                act(2, "river", "check", None)
            ],
            "board": hand("2c 7d 9s Jh 3c"),
            "awards": [{"seat": 1, "amount_h": award_h}],
            "rake_h": rake_h})
    }

    #[test]
    fn a_poker_hand_shows_seats_actions_by_street_the_pot_awarded_and_the_rake() {
        // Each seat puts in 150 + 200 + 500 = 850 Kč: a 1 700 Kč pot. Rake 5 % of 1 700 Kč
        // = 85 Kč, under the 200 Kč cap for 2–4 players. Aces beat kings on
        // 2♣ 7♦ 9♠ J♥ 3♣: seat 1 is handed 1 700 − 85 = 1 615 Kč.
        let (layout, findings) = judged_layout(
            &poker_hand(8_500, 161_500),
            &rules::TableSetup::NONE,
            Language::English,
        );
        assert_eq!(findings, Vec::<&str>::new());
        assert_eq!(layout.headline, "Board 2♣ 7♦ 9♠ J♥ 3♣ | rake 85,00 Kč");
        assert_eq!(
            facts(&layout),
            [
                ("Variant", "holdem"),
                ("Blinds", "25,00 Kč / 50,00 Kč"),
                ("Button", "2"),
                ("Board", "2♣ 7♦ 9♠ J♥ 3♣"),
                ("Rake", "85,00 Kč")
            ]
        );
        assert_eq!(
            cells(&layout, "Seats"),
            [
                ["1", "p1", "2 000,00 Kč", "A♠ A♦"],
                ["2", "p2", "2 000,00 Kč", "K♥ K♦"]
            ]
        );
        assert_eq!(
            cells(&layout, "Actions"),
            [
                ["preflop", "2", "small blind", "25,00 Kč"],
                ["preflop", "1", "big blind", "50,00 Kč"],
                ["preflop", "2", "raise", "150,00 Kč"],
                ["preflop", "1", "call", ""],
                ["flop", "1", "bet", "200,00 Kč"],
                ["flop", "2", "call", ""],
                ["turn", "1", "check", ""],
                ["turn", "2", "bet", "500,00 Kč"],
                ["turn", "1", "call", ""],
                ["river", "1", "check", ""],
                ["river", "2", "check", ""],
            ]
        );
        assert_eq!(cells(&layout, "Pots awarded"), [["1", "1 615,00 Kč"]]);
        assert_eq!(
            cells(&layout, "Bets"),
            [
                [
                    "seat-1",
                    "p1",
                    "seat",
                    "",
                    "850,00 Kč",
                    "1 615,00 Kč",
                    "1 615,00 Kč",
                    ""
                ],
                [
                    "seat-2",
                    "p2",
                    "seat",
                    "",
                    "850,00 Kč",
                    "0,00 Kč",
                    "0,00 Kč",
                    ""
                ],
            ]
        );
        assert!(layout
            .sections
            .iter()
            .all(|s| s.rows.iter().all(|r| !r.flagged)));
    }

    #[test]
    fn a_poker_rake_above_the_plans_shows_what_the_plan_allows_and_marks_the_winner() {
        // The same 1 700 Kč pot: the table took 150 Kč instead of 85 Kč (5 %) and handed seat 1
        // 1 550 Kč: 65 Kč short of the 1 615 Kč due.
        let (layout, findings) = judged_layout(
            &poker_hand(15_000, 155_000),
            &rules::TableSetup::NONE,
            Language::Czech,
        );
        assert_eq!(findings, ["rake_wrong", "underpaid"]);
        assert!(
            facts(&layout).contains(&("Rake", "150,00 Kč (dle plánu 85,00 Kč)")),
            "{:?}",
            layout.facts
        );
        assert_eq!(layout.headline, "Stůl 2♣ 7♦ 9♠ J♥ 3♣ | rake 150,00 Kč");
        assert_eq!(flags(&layout, "Hráči"), [true, false]);
        assert_eq!(cells(&layout, "Výhry z potů"), [["1", "1 550,00 Kč"]]);
        assert_eq!(flags(&layout, "Výhry z potů"), [true]);
        assert_eq!(flags(&layout, "Sázky"), [true, false]);
        assert_eq!(
            cells(&layout, "Sázky")[0],
            [
                "seat-1",
                "p1",
                "seat",
                "",
                "850,00 Kč",
                "1 550,00 Kč",
                "1 615,00 Kč",
                "-65,00 Kč"
            ]
        );
    }

    /// Three players of Pineapple OFC (the rules' worked hand): A scoops B, C fouls. Each pays
    /// `rakes_h`.
    ///
    /// A: Q♥ Q♦ 2♣ (queens: 7) | 9♠ 9♥ 9♣ 4♦ 5♥ (trips: 2) | A♠ K♠ 8♠ 6♠ 3♠ (flush: 4): 13.
    /// B: J♣ J♥ 3♦ (jacks: 6) | 10♦ 10♣ 7♥ 7♠ 2♦ (two pair: 0) | 5♣–9♦ (straight: 2): 8.
    /// C: back Q-high under a middle pair of aces: fouled.
    /// A vs B at 100 Kč a point: 3 rows + 3 scoop + 13 − 8 = 11 points = +1 100 Kč.
    /// A vs C at 50 Kč: 6 + 13 = 19 points = +950 Kč. B vs C at 20 Kč: 6 + 8 = 14 = +280 Kč.
    /// Nets: A +2 050 Kč, B −1 100 + 280 = −820 Kč, C −950 − 280 = −1 230 Kč.
    fn ofc_hand(rakes_h: [i64; 3]) -> Value {
        let player = |name: &str, deal: &str, rows: &str, discards: &str, net_h: i64, rake_h| {
            let rows: Vec<&str> = rows.split('|').collect();
            json!({"player": name, "deal": deal.split('|').map(hand).collect::<Vec<_>>(),
                "front": hand(rows[0]), "middle": hand(rows[1]), "back": hand(rows[2]),
                "discards": hand(discards), "net_h": net_h, "rake_h": rake_h})
        };
        json!({"type": "round", "game": "open_face_chinese", "table_id": "OFC1", "seq_no": 7,
        "plan_id": "69games-ziva-hra", "played_at": "2026-11-21T22:00:00Z",
        "players": [
            player("A", "Qh 9s 9h As Ks | 9c 8s 2s | 6s 3s 3h | Qd 4d 4s | 2c 5h 5s",
                "Qh Qd 2c | 9s 9h 9c 4d 5h | As Ks 8s 6s 3s", "2s 3h 4s 5s", 205_000,
                rakes_h[0]),
            player("B", "Jc Td 5c 6d 7c | Jh 8h 5d | Tc 9d 6h | 7h 7s 7d | 3d 2d 8d",
                "Jc Jh 3d | Td Tc 7h 7s 2d | 5c 6d 7c 8h 9d", "5d 6h 7d 8d", -82_000,
                rakes_h[1]),
            player("C", "Kc Ac 2h 3c Ts | Kh Ad Th | 4c 4h Js | 6c 8c Qs | Jd Qc Kd",
                "Kc Kh 4c | Ac Ad 4h 6c 8c | 2h 3c Ts Jd Qc", "Th Js Qs Kd", -123_000,
                rakes_h[2])
        ],
        "point_values": [
            {"players": ["A", "B"], "point_h": 10_000},
            {"players": ["A", "C"], "point_h": 5_000},
            {"players": ["C", "B"], "point_h": 2_000}
        ]})
    }

    #[test]
    fn an_ofc_hand_shows_each_players_rows_result_and_rake() {
        // Rake 25 Kč a player. A's queens in front (not fouled) earn fantasy land: 14 cards.
        let (layout, findings) = judged_layout(
            &ofc_hand([2_500; 3]),
            &rules::TableSetup::NONE,
            Language::English,
        );
        assert_eq!(findings, Vec::<&str>::new());
        assert_eq!(layout.headline, "Open Face Chinese");
        assert_eq!(facts(&layout), [("Fantasy land next hand", "A (14 cards)")]);
        assert_eq!(
            cells(&layout, "Players"),
            [
                [
                    "A",
                    "Q♥ Q♦ 2♣",
                    "9♠ 9♥ 9♣ 4♦ 5♥",
                    "A♠ K♠ 8♠ 6♠ 3♠",
                    "2♠ 3♥ 4♠ 5♠",
                    "2 050,00 Kč",
                    "25,00 Kč"
                ],
                [
                    "B",
                    "J♣ J♥ 3♦",
                    "10♦ 10♣ 7♥ 7♠ 2♦",
                    "5♣ 6♦ 7♣ 8♥ 9♦",
                    "5♦ 6♥ 7♦ 8♦",
                    "-820,00 Kč",
                    "25,00 Kč"
                ],
                [
                    "C",
                    "K♣ K♥ 4♣",
                    "A♣ A♦ 4♥ 6♣ 8♣",
                    "2♥ 3♣ 10♠ J♦ Q♣",
                    "10♥ J♠ Q♠ K♦",
                    "-1 230,00 Kč",
                    "25,00 Kč"
                ],
            ]
        );
        assert_eq!(flags(&layout, "Players"), [false, false, false]);
        // Staked: what a player lost plus the rake (A 0 + 25, B 820 + 25, C 1 230 + 25 Kč);
        // paid: what a player won.
        assert_eq!(
            cells(&layout, "Bets"),
            [
                [
                    "player-1",
                    "A",
                    "ofc_player",
                    "",
                    "25,00 Kč",
                    "2 050,00 Kč",
                    "2 050,00 Kč",
                    ""
                ],
                [
                    "player-2",
                    "B",
                    "ofc_player",
                    "",
                    "845,00 Kč",
                    "0,00 Kč",
                    "0,00 Kč",
                    ""
                ],
                [
                    "player-3",
                    "C",
                    "ofc_player",
                    "",
                    "1 255,00 Kč",
                    "0,00 Kč",
                    "0,00 Kč",
                    ""
                ],
            ]
        );
    }

    #[test]
    fn an_ofc_rake_other_than_the_plans_marks_the_player() {
        // C paid 50 Kč rake; the plan takes 25 Kč a player and hand.
        let (layout, findings) = judged_layout(
            &ofc_hand([2_500, 2_500, 5_000]),
            &rules::TableSetup::NONE,
            Language::Czech,
        );
        assert_eq!(findings, ["rake_wrong"]);
        assert_eq!(flags(&layout, "Hráči"), [false, false, true]);
        assert_eq!(cells(&layout, "Hráči")[2][0], "C");
        assert_eq!(cells(&layout, "Hráči")[2][6], "50,00 Kč");
        assert_eq!(flags(&layout, "Sázky"), [false, false, true]);
        // C staked 1 230 Kč lost + 50 Kč rake = 1 280 Kč.
        assert_eq!(cells(&layout, "Sázky")[2][4], "1 280,00 Kč");
        assert_eq!(
            facts(&layout),
            [("Fantasy Land v další hře", "A (14 karet)")]
        );
    }

    /// A freezeout of eight players p01–p08 at 1 000 Kč, announced 11 days ahead with a 10 %
    /// fee; p01 wins `first_h`, p02 `second_h`.
    fn tournament(first_h: i64, second_h: i64) -> Value {
        let entries: Vec<Value> = (1..=8)
            .map(|n| {
                json!({"player": format!("p{n:02}"), "kind": "buy_in",
                    "at": format!("2026-11-21T18:{n:02}:00Z"), "amount_h": 100_000})
            })
            .collect();
        json!({"type": "round", "game": "poker_tournament", "table_id": "POKER-ROOM",
        "seq_no": 3, "plan_id": "69games-ziva-hra", "tournament_id": "friday-freezeout",
        "played_at": "2026-11-22T02:00:00Z", "variant": "holdem", "format": "freezeout",
        "announced_at": "2026-11-10T12:00:00Z", "starts_at": "2026-11-21T18:00:00Z",
        "registration_closes_at": "2026-11-21T20:00:00Z",
        "buy_in_h": 100_000, "starting_stack": 20_000, "fee_percent": 10, "fee_h": 80_000,
        "entries": entries,
        "results": [
            {"place": 1, "player": "p01", "prize_h": first_h},
            {"place": 2, "player": "p02", "prize_h": second_h,
             "out_at": "2026-11-22T01:50:00Z"}
        ]})
    }

    #[test]
    fn a_tournament_shows_buy_in_fee_entries_pools_and_results() {
        // 8 entries × 1 000 Kč = 8 000 Kč moneypool; fee 10 % = 800 Kč; prize pool 7 200 Kč.
        // 8 entries: the plan's 6–9 column pays 70 / 30 %: 5 040 and 2 160 Kč. No guarantee,
        // no overlay.
        let (layout, findings) = judged_layout(
            &tournament(504_000, 216_000),
            &rules::TableSetup::NONE,
            Language::Czech,
        );
        assert_eq!(findings, Vec::<&str>::new());
        assert_eq!(layout.headline, "friday-freezeout");
        assert_eq!(
            facts(&layout),
            [
                ("Formát", "freezeout"),
                ("Buy-in", "1 000,00 Kč"),
                ("Poplatek", "800,00 Kč (10 %)"),
                ("Vstupů", "8"),
                ("Moneypool", "8 000,00 Kč"),
                ("Výherní fond", "7 200,00 Kč"),
                ("Doplatek provozovatele", "0,00 Kč"),
            ]
        );
        assert_eq!(
            cells(&layout, "Výsledky"),
            [["1", "p01", "5 040,00 Kč"], ["2", "p02", "2 160,00 Kč"]]
        );
        assert_eq!(flags(&layout, "Výsledky"), [false, false]);
        let bets = cells(&layout, "Sázky");
        assert_eq!(bets.len(), 8);
        assert_eq!(
            bets[0],
            [
                "p01",
                "p01",
                "tournament_player",
                "",
                "1 000,00 Kč",
                "5 040,00 Kč",
                "5 040,00 Kč",
                ""
            ]
        );
        assert_eq!(
            bets[7],
            [
                "p08",
                "p08",
                "tournament_player",
                "",
                "1 000,00 Kč",
                "0,00 Kč",
                "0,00 Kč",
                ""
            ]
        );
    }

    #[test]
    fn a_tournament_prize_paid_short_marks_the_place() {
        // Second place is due 30 % of 7 200 Kč = 2 160 Kč; the floor paid 2 000 Kč.
        let (layout, findings) = judged_layout(
            &tournament(504_000, 200_000),
            &rules::TableSetup::NONE,
            Language::English,
        );
        assert_eq!(findings, ["underpaid"]);
        assert_eq!(flags(&layout, "Results"), [false, true]);
        assert_eq!(cells(&layout, "Results")[1], ["2", "p02", "2 000,00 Kč"]);
        let bets = section(&layout, "Bets");
        assert!(bets.rows[1].flagged && !bets.rows[0].flagged);
        assert_eq!(bets.rows[1].cells[7], "-160,00 Kč");
        assert!(facts(&layout).contains(&("Fee", "800,00 Kč (10 %)")));
    }

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
