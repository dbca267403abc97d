//! Blackjack hand values: aces 1 or 11, court cards 10.

use crate::cards::{Card, Rank};

/// Point value of a card with an ace counted as 1.
pub fn card_points(card: Card) -> u8 {
    let rank = card.rank();
    if rank == Rank::ACE {
        1
    } else if rank >= Rank::TEN {
        10
    } else {
        rank.index() + 2
    }
}

/// The total of a hand: the best total not above 21 (an ace counted 11 when it fits), and
/// whether an ace is counted 11 (a soft total).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Total {
    hard: u16,
    aces: u16,
}

impl Total {
    pub fn of(cards: &[Card]) -> Total {
        cards.iter().fold(Total::default(), |t, c| t.with(*c))
    }

    pub fn with(self, card: Card) -> Total {
        // Saturating: a fabricated record may pile hundreds of cards on one hand.
        Total {
            hard: self.hard.saturating_add(u16::from(card_points(card))),
            aces: self
                .aces
                .saturating_add(u16::from(card.rank() == Rank::ACE)),
        }
    }

    pub fn value(self) -> u16 {
        if self.is_soft() {
            self.hard + 10
        } else {
            self.hard
        }
    }

    /// An ace counts 11.
    pub fn is_soft(self) -> bool {
        self.aces > 0 && self.hard + 10 <= 21
    }

    pub fn is_bust(self) -> bool {
        self.hard > 21
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn total(cards: &str) -> Total {
        Total::of(
            &cards
                .split_whitespace()
                .map(|c| Card::parse(c).unwrap())
                .collect::<Vec<_>>(),
        )
    }

    #[test]
    fn aces_count_eleven_while_that_fits() {
        // A + 6 = soft 17; + 9 → the ace drops to 1: 1 + 6 + 9 = 16 hard.
        assert_eq!(
            (total("Ah 6c").value(), total("Ah 6c").is_soft()),
            (17, true)
        );
        assert_eq!(
            (total("Ah 6c 9d").value(), total("Ah 6c 9d").is_soft()),
            (16, false)
        );
        // A + A = 12 (one ace 11); A + K = 21; K + Q + 5 = 25, bust.
        assert_eq!(total("Ah As").value(), 12);
        assert_eq!(total("Ah Ks").value(), 21);
        assert!(total("Kh Qs 5d").is_bust());
        assert_eq!(card_points(Card::parse("Tc").unwrap()), 10);
        assert_eq!(card_points(Card::parse("2c").unwrap()), 2);
    }
}
