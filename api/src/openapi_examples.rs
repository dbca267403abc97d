//! A signed example record of every game of the plan, written into the document as examples of
//! `POST /api/v1/records`. The records are those of docs/RECORDS.md; each is signed with a
//! published example key (never a real table's), so an integrator can register a table with
//! its public key and submit it as it is. A test does exactly that.

use dozor_log::envelope::Envelope;
use ed25519_dalek::SigningKey;
use serde_json::Value;
use sha2::{Digest as _, Sha256};
use utoipa::openapi::example::ExampleBuilder;
use utoipa::openapi::RefOr;
use utoipa::Modify;

/// (game, summary, record)
pub const EXAMPLE_RECORDS: &[(&str, &str, &str)] = &[
    (
        "roulette",
        "Roulette: a straight-up win, a lost red and a lost velká série",
        include_str!("openapi_examples/roulette.json"),
    ),
    (
        "blackjack",
        "Blackjack round",
        include_str!("openapi_examples/blackjack.json"),
    ),
    (
        "ultimate_texas_holdem",
        "Ultimate Texas Hold'em round",
        include_str!("openapi_examples/ultimate_texas_holdem.json"),
    ),
    (
        "money_wheel_1",
        "Šťastné kolo I spin",
        include_str!("openapi_examples/money_wheel_1.json"),
    ),
    (
        "money_wheel_2",
        "Šťastné kolo II spin",
        include_str!("openapi_examples/money_wheel_2.json"),
    ),
    (
        "poker_cash",
        "Poker cash game hand",
        include_str!("openapi_examples/poker_cash.json"),
    ),
    (
        "open_face_chinese",
        "Pineapple Open Face Chinese hand",
        include_str!("openapi_examples/open_face_chinese.json"),
    ),
    (
        "poker_tournament",
        "Poker tournament settlement",
        include_str!("openapi_examples/poker_tournament.json"),
    ),
];

/// The example key of a game's table: derived from a published phrase and the game, so anyone
/// can reproduce it and nobody mistakes it for a secret (a key belongs to one table only).
pub fn example_key(game: &str) -> SigningKey {
    let seed: [u8; 32] = Sha256::new()
        .chain_update(b"dozor example table key (public, never for a real table): ")
        .chain_update(game.as_bytes())
        .finalize()
        .into();
    SigningKey::from_bytes(&seed)
}

/// Each example as the envelope a table sends: `(game, summary, envelope)`.
pub fn example_envelopes() -> Vec<(&'static str, &'static str, Value)> {
    EXAMPLE_RECORDS
        .iter()
        .filter_map(|(game, summary, text)| {
            let record: Value = serde_json::from_str(text).ok()?;
            let envelope = Envelope::sign(record, &example_key(game)).ok()?;
            Some((*game, *summary, serde_json::to_value(envelope).ok()?))
        })
        .collect()
}

/// The registration of each example's table with its example key (`POST /api/v1/tables`
/// bodies), so that the examples can be submitted as they stand: `dozor openapi
/// --example-tables` prints them.
pub fn example_registrations() -> Vec<Value> {
    EXAMPLE_RECORDS
        .iter()
        .filter_map(|(game, _, text)| {
            let record: Value = serde_json::from_str(text).ok()?;
            let public_key = dozor_log::keys::encode_public_key(&example_key(game).verifying_key());
            let mut registration = serde_json::json!({
                "table_id": record["table_id"],
                "game": game,
                "location": "example table",
                "public_key": public_key,
                "valid_from": "2026-11-01T00:00:00Z",
            });
            if let Some(layout) = example_wheel_layout(game) {
                registration["wheel_layout"] = layout;
            }
            Some(registration)
        })
        .collect()
}

/// A segment order with the plan's counts (I: 17 × 1x, 10 × 2x, 5 × 5x, 2 × 10x, 25x black
/// and pink; II: 6 × 1x, 4 × 2x, 3 × 3x, 2 × 5x, 10x, 15x), with the segments the examples stop
/// on where they need them: wheel I's segment 15 is the black 25x its winning bet names, wheel
/// II's segment 0 a 1x.
fn example_wheel_layout(game: &str) -> Option<Value> {
    let counts: &[(&str, usize)] = match game {
        "money_wheel_1" => &[
            ("1x", 17),
            ("2x", 10),
            ("5x", 5),
            ("10x", 2),
            ("25x_black", 1),
            ("25x_pink", 1),
        ],
        "money_wheel_2" => &[
            ("1x", 6),
            ("2x", 4),
            ("3x", 3),
            ("5x", 2),
            ("10x", 1),
            ("15x", 1),
        ],
        _ => return None,
    };
    let mut layout: Vec<&str> = counts
        .iter()
        .flat_map(|(label, n)| std::iter::repeat_n(*label, *n))
        .collect();
    if let Some(black) = layout.iter().position(|l| *l == "25x_black") {
        layout.swap(black, 15);
    }
    Some(serde_json::json!(layout))
}

pub struct RecordExamples;

impl Modify for RecordExamples {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let envelopes = example_envelopes();
        let Some(item) = openapi.paths.paths.get_mut("/api/v1/records") else {
            return;
        };
        let Some(body) = item.post.as_mut().and_then(|o| o.request_body.as_mut()) else {
            return;
        };
        if let Some(content) = body.content.get_mut("application/json") {
            for (game, summary, envelope) in &envelopes {
                let public_key =
                    dozor_log::keys::encode_public_key(&example_key(game).verifying_key());
                content.examples.insert(
                    (*game).to_owned(),
                    RefOr::T(
                        ExampleBuilder::new()
                            .summary(*summary)
                            .description(format!(
                                "Signed with the published example key of a {game} table (public \
                                 key `{public_key}`); register a table of this game with that key \
                                 to submit it."
                            ))
                            .value(Some(envelope.clone()))
                            .build(),
                    ),
                );
            }
        }
    }
}
