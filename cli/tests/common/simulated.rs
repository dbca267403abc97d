//! Months of play the simulator makes, submitted through the server as the tables would.

use serde_json::{json, Value};
use simulator::month::{station_records, MonthSettings, Station};

use super::{call, record_request, register_table, TestApp};

/// The tests' plan, 69games-ziva-hra, as the built-in plan book holds it.
pub fn builtin_plan() -> rules::Plan {
    rules::PlanBook::builtin()
        .unwrap()
        .get("69games-ziva-hra")
        .unwrap()
        .clone()
}

/// The registration of table `table_id` of `game` in Praha, valid from 30 September 2026
/// (October's rounds are its).
pub fn registration_for_october(
    table_id: &str,
    game: &str,
    key: &ed25519_dalek::SigningKey,
) -> Value {
    json!({"table_id": table_id, "game": game, "location": "Praha",
           "public_key": dozor_log::keys::encode_public_key(&key.verifying_key()),
           "valid_from": "2026-09-30T00:00:00Z"})
}

/// Registers each of `stations` (its key from `seed`) and submits its records of `settings`'
/// month, one request each: every one accepted. How many were submitted.
pub async fn submit_simulated_month(
    app: &impl TestApp,
    stations: &mut [Station],
    plan: &rules::Plan,
    settings: &MonthSettings,
    seed: u64,
) -> usize {
    let mut submitted = 0;
    for station in stations {
        let key = simulator::games::table::table_key(seed, &station.table_id);
        register_table(
            app,
            registration_for_october(&station.table_id, &station.game, &key),
        )
        .await;
        for record in station_records(station, plan, settings, 1).unwrap() {
            let (status, body) = call(app, record_request(record, &key)).await;
            assert_eq!(status, 201, "{body}");
            submitted += 1;
        }
    }
    submitted
}
