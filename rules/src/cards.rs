//! Playing cards as records write them (`"As"`, `"Td"`, `"7c"`), sets of cards, and decks.
//!
//! A card is one byte, `suit × 16 + rank` (rank 0 = deuce … 12 = ace), so a set of cards is a
//! 64-bit mask with one 13-bit group per suit — the form the hand evaluator reads.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Clubs, diamonds, hearts, spades.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Suit {
    Clubs,
    Diamonds,
    Hearts,
    Spades,
}

impl Suit {
    pub const ALL: [Suit; 4] = [Suit::Clubs, Suit::Diamonds, Suit::Hearts, Suit::Spades];

    pub fn letter(self) -> char {
        match self {
            Suit::Clubs => 'c',
            Suit::Diamonds => 'd',
            Suit::Hearts => 'h',
            Suit::Spades => 's',
        }
    }

    /// Diamonds and hearts are red.
    pub fn is_red(self) -> bool {
        matches!(self, Suit::Diamonds | Suit::Hearts)
    }
}

/// 2 … 10, J, Q, K, A, as 0 … 12.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Rank(u8);

impl Rank {
    pub const TWO: Rank = Rank(0);
    pub const TEN: Rank = Rank(8);
    pub const JACK: Rank = Rank(9);
    pub const QUEEN: Rank = Rank(10);
    pub const KING: Rank = Rank(11);
    pub const ACE: Rank = Rank(12);
    const LETTERS: &'static [u8; 13] = b"23456789TJQKA";

    /// Rank from its index, 0 (deuce) … 12 (ace).
    pub fn new(index: u8) -> Option<Rank> {
        (index < 13).then_some(Rank(index))
    }

    pub fn index(self) -> u8 {
        self.0
    }

    pub fn letter(self) -> char {
        char::from(Rank::LETTERS[usize::from(self.0)])
    }

    fn from_letter(letter: u8) -> Option<Rank> {
        Rank::LETTERS
            .iter()
            .position(|&l| l == letter)
            .and_then(|i| u8::try_from(i).ok())
            .map(Rank)
    }

    /// Every rank, deuce first.
    pub fn all() -> impl Iterator<Item = Rank> {
        (0..13).map(Rank)
    }
}

/// One card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Card(u8);

impl Card {
    pub fn new(rank: Rank, suit: Suit) -> Card {
        Card(suit as u8 * 16 + rank.0)
    }

    pub fn rank(self) -> Rank {
        Rank(self.0 & 15)
    }

    pub fn suit(self) -> Suit {
        Suit::ALL[usize::from(self.0 >> 4)]
    }

    /// The card's bit in a [`CardSet`].
    pub fn bit(self) -> u64 {
        1 << self.0
    }

    /// Position 0 … 51 (rank-major within suit), for tables indexed by card.
    pub fn ordinal(self) -> usize {
        usize::from(self.0 >> 4) * 13 + usize::from(self.0 & 15)
    }

    /// Parses `"As"`, `"Td"`, `"7c"` (rank `2-9 T J Q K A`, suit `c d h s`).
    pub fn parse(text: &str) -> Option<Card> {
        let &[rank, suit] = text.as_bytes() else {
            return None;
        };
        let suit = match suit {
            b'c' => Suit::Clubs,
            b'd' => Suit::Diamonds,
            b'h' => Suit::Hearts,
            b's' => Suit::Spades,
            _ => return None,
        };
        Some(Card::new(Rank::from_letter(rank)?, suit))
    }

    /// The 52 cards of a deck.
    pub fn deck() -> impl Iterator<Item = Card> {
        Suit::ALL
            .into_iter()
            .flat_map(|suit| Rank::all().map(move |rank| Card::new(rank, suit)))
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.rank().letter(), self.suit().letter())
    }
}

impl Serialize for Card {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Card {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Card, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        Card::parse(&text).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "`{text}` is not a card (rank 2-9, T, J, Q, K or A, then suit c, d, h or s)"
            ))
        })
    }
}

/// A set of distinct cards: bit `suit × 16 + rank`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct CardSet(pub u64);

impl CardSet {
    /// [`CardSet::of`] over any cards, without collecting them first.
    pub fn of_all<'a>(cards: impl IntoIterator<Item = &'a Card>) -> Result<CardSet, Card> {
        let mut set = 0u64;
        for card in cards {
            if set & card.bit() != 0 {
                return Err(*card);
            }
            set |= card.bit();
        }
        Ok(CardSet(set))
    }

    /// The set, or the first card that appears twice.
    pub fn of(cards: &[Card]) -> Result<CardSet, Card> {
        CardSet::of_all(cards)
    }

    pub fn len(self) -> u32 {
        self.0.count_ones()
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn contains(self, card: Card) -> bool {
        self.0 & card.bit() != 0
    }

    pub fn with(self, card: Card) -> CardSet {
        CardSet(self.0 | card.bit())
    }

    /// The 13-bit rank mask of one suit.
    pub fn suit_ranks(self, suit: Suit) -> u16 {
        ((self.0 >> (suit as u32 * 16)) & 0x1fff) as u16
    }
}

/// The set of the cards (a card listed twice is in it once; [`CardSet::of`] refuses that).
impl FromIterator<Card> for CardSet {
    fn from_iter<I: IntoIterator<Item = Card>>(cards: I) -> CardSet {
        cards.into_iter().fold(CardSet::default(), CardSet::with)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cards_read_and_write_as_two_letters() {
        let ace = Card::parse("As").unwrap();
        assert_eq!((ace.rank(), ace.suit()), (Rank::ACE, Suit::Spades));
        assert_eq!(ace.to_string(), "As");
        assert_eq!(Card::parse("Td").unwrap().rank(), Rank::TEN);
        for bad in ["1X", "10h", "as", "AS", "A", "Asx", "", "Zc", "2x"] {
            assert_eq!(Card::parse(bad), None, "{bad}");
        }
        let deck: Vec<Card> = Card::deck().collect();
        assert_eq!(deck.len(), 52);
        let set = CardSet::of(&deck).unwrap();
        assert_eq!(set.len(), 52);
        assert!(deck.iter().all(|c| Card::parse(&c.to_string()) == Some(*c)));
        let mut ordinals: Vec<usize> = deck.iter().map(|c| c.ordinal()).collect();
        ordinals.sort_unstable();
        assert_eq!(ordinals, (0..52).collect::<Vec<_>>());
    }

    #[test]
    fn a_set_names_the_first_duplicate_card() {
        let cards: Vec<Card> = ["As", "Kd", "As"]
            .iter()
            .map(|c| Card::parse(c).unwrap())
            .collect();
        assert_eq!(CardSet::of(&cards), Err(cards[0]));
    }

    #[test]
    fn cards_are_strings_in_json() {
        let card: Card = serde_json::from_str("\"Qh\"").unwrap();
        assert_eq!(serde_json::to_string(&card).unwrap(), "\"Qh\"");
        let error = serde_json::from_str::<Card>("\"1X\"").unwrap_err();
        assert!(error.to_string().contains("`1X` is not a card"), "{error}");
    }
}
