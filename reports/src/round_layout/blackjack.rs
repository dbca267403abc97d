//! Blackjack: each box's hands with their totals and the dealer's draw.

use rules::blackjack::points::Total;
use rules::cards::Card;

use super::{card_face, cards, text, Builder, Row};

/// Cards as people write them, space-separated.
fn faces(list: &[Card]) -> String {
    list.iter()
        .map(|c| card_face(&c.to_string()))
        .collect::<Vec<_>>()
        .join(" ")
}

impl Builder<'_> {
    pub(super) fn blackjack(&mut self, plan: Option<&rules::Plan>) {
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
                        self.total(hand.total(), hand.cards.len(), hand.from_split),
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
        rows.push(self.dealer_row(&round, &played, player_cards));
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

    /// A hand's total in words: `Black Jack`, `17 (soft)`, `22 bust`.
    fn total(&self, t: Total, cards: usize, split: bool) -> String {
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
    }

    /// The dealer's row (marked where the dealer drew wrongly, with the plan's hand), after
    /// `player_cards` of the deal went to the boxes; sets the headline to the dealer's hand.
    fn dealer_row(
        &mut self,
        round: &rules::blackjack::BlackjackRound,
        played: &rules::blackjack::play::Replay,
        player_cards: usize,
    ) -> Row {
        // The cards before the dealer's draws: the players' (a split hand keeps one of the
        // pair, so none is counted twice) and the dealer's first.
        let dealer_dealt: Vec<rules::cards::Card> = round
            .deal
            .get(round.boxes.len())
            .copied()
            .into_iter()
            .chain(round.deal.iter().skip(player_cards + 1).copied())
            .collect();
        let dealer_wrong = played.issues.iter().any(|i| i.dealer);
        let row = Row {
            flagged: dealer_wrong,
            cells: vec![
                self.word("krupiér", "dealer").to_owned(),
                String::new(),
                faces(&dealer_dealt),
                self.total(Total::of(&dealer_dealt), dealer_dealt.len(), false),
                String::new(),
                if dealer_wrong {
                    format!(
                        "{} {} ({})",
                        self.word("dle plánu", "by the plan"),
                        faces(&played.dealer),
                        self.total(played.dealer_total(), played.dealer.len(), false)
                    )
                } else {
                    String::new()
                },
            ],
        };
        self.layout.headline = format!(
            "{} {} ({})",
            self.word("Krupiér", "Dealer"),
            faces(&dealer_dealt),
            self.total(Total::of(&dealer_dealt), dealer_dealt.len(), false)
        );
        row
    }
}
