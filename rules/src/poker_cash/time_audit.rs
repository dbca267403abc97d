//! Time collection audit: a hand played for time instead of rake takes nothing from the pot, so
//! it must fall inside a period its table collected time for — the plan's 30 minutes (or a
//! multiple), collected before the period's first deal. A verdict sees one hand only; this
//! follows a table's hands and collections together.

use chrono::{DateTime, Duration, Utc};

use super::time_collection::TimeCollection;

/// A hand played for time (`"collection": "time"`), as the audit needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimedHand<'a> {
    pub table_id: &'a str,
    pub seq_no: u64,
    pub played_at: DateTime<Utc>,
}

/// A collection of time, as the audit needs it: which table paid, from when, for how long.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CollectedPeriod {
    pub table_id: String,
    pub played_at: DateTime<Utc>,
    pub period_minutes: u32,
}

impl CollectedPeriod {
    pub fn of(collection: &TimeCollection) -> CollectedPeriod {
        CollectedPeriod {
            table_id: collection.table_id.clone(),
            played_at: collection.played_at,
            period_minutes: collection.period_minutes,
        }
    }

    /// When the time it paid for ends.
    pub fn paid_until(&self) -> DateTime<Utc> {
        self.played_at + Duration::minutes(i64::from(self.period_minutes))
    }
}

/// A time-collected hand no collection of its table covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Uncollected<'a> {
    pub table_id: &'a str,
    pub seq_no: u64,
    pub played_at: DateTime<Utc>,
    /// The table's last collection before the hand and when the time it paid for ran out, if
    /// there was one.
    pub last_paid_until: Option<DateTime<Utc>>,
}

impl Uncollected<'_> {
    /// What the audit says of the hand, in the report and in the offline verifier alike.
    pub fn message(&self) -> String {
        match self.last_paid_until {
            Some(until) => format!(
                "hand {} was played for time at {}, after the time the table collected ran out at {until}",
                self.seq_no, self.played_at
            ),
            None => format!(
                "hand {} was played for time at {}, and the table collected no time before it",
                self.seq_no, self.played_at
            ),
        }
    }
}

/// Each hand of `hands` that no collection of its own table covers: a collection made at `c`
/// for `m` minutes covers hands played from `c` (inclusive) to `c + m` (exclusive).
pub fn audit<'a>(hands: &[TimedHand<'a>], collections: &[CollectedPeriod]) -> Vec<Uncollected<'a>> {
    let mut by_table: std::collections::HashMap<&str, Vec<&CollectedPeriod>> =
        std::collections::HashMap::new();
    for c in collections {
        by_table.entry(c.table_id.as_str()).or_default().push(c);
    }
    hands
        .iter()
        .filter_map(|hand| {
            let earlier = by_table
                .get(hand.table_id)
                .into_iter()
                .flatten()
                .filter(|c| c.played_at <= hand.played_at);
            let covering = earlier.clone().any(|c| hand.played_at < c.paid_until());
            (!covering).then(|| Uncollected {
                table_id: hand.table_id,
                seq_no: hand.seq_no,
                played_at: hand.played_at,
                last_paid_until: earlier.map(|c| c.paid_until()).max(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Round;
    use serde_json::json;

    fn t(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text)
            .unwrap()
            .with_timezone(&Utc)
    }

    fn collection(table: &str, at: &str, minutes: u32) -> CollectedPeriod {
        let record = json!({"type": "time_collection", "game": "poker_cash", "table_id": table,
            "seq_no": 1, "plan_id": "69games-ziva-hra", "played_at": at,
            "period_minutes": minutes, "per_player_h": 20_000,
            "players": [{"seat": 1, "player": "p1", "paid_h": 20_000 * i64::from(minutes / 30)}]});
        match Round::parse(&record).unwrap() {
            Round::TimeCollection(c) => CollectedPeriod::of(&c),
            _ => panic!("not a time collection"),
        }
    }

    #[test]
    fn a_time_collected_hand_must_fall_in_a_period_its_table_paid_for() {
        // P1 collected at 20:00 for 30 minutes (20:00–20:30) and at 21:00 for 60 (21:00–22:00);
        // P2 at 20:10 for 30.
        let collections = [
            collection("P1", "2026-11-21T20:00:00Z", 30),
            collection("P1", "2026-11-21T21:00:00Z", 60),
            collection("P2", "2026-11-21T20:10:00Z", 30),
        ];
        let hand = |table, seq_no, at| TimedHand {
            table_id: table,
            seq_no,
            played_at: t(at),
        };
        let hands = [
            hand("P1", 1, "2026-11-21T20:00:00Z"), // the first deal of the period: covered
            hand("P1", 2, "2026-11-21T20:29:59Z"), // covered
            hand("P1", 3, "2026-11-21T20:30:00Z"), // the 30 minutes ran out at 20:30: not
            hand("P1", 4, "2026-11-21T21:59:00Z"), // inside the hour from 21:00
            hand("P1", 5, "2026-11-21T19:59:00Z"), // before any collection
            hand("P2", 1, "2026-11-21T20:05:00Z"), // P1's collection does not cover P2
        ];
        let found: Vec<(&str, u64, Option<DateTime<Utc>>)> = audit(&hands, &collections)
            .into_iter()
            .map(|u| (u.table_id, u.seq_no, u.last_paid_until))
            .collect();
        assert_eq!(
            found,
            [
                ("P1", 3, Some(t("2026-11-21T20:30:00Z"))),
                ("P1", 5, None),
                ("P2", 1, None),
            ]
        );
    }
}
