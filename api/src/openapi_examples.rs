//! A signed example record of every game of the plan, written into the document as examples of
//! `POST /api/v1/records`. The records are those of docs/RECORDS.md; each is signed with a
//! published example key (never a real table's), so an integrator can register a table with
//! its public key and submit it as it is. A test does exactly that.

use ed25519_dalek::SigningKey;
use ledger::envelope::Envelope;
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
                    ledger::keys::encode_public_key(&example_key(game).verifying_key());
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
