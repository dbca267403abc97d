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

/// October 2026 simulated for `days` gaming days of `rounds` rounds a table a day, `error_share`
/// of them wrongly paid, from `seed`.
pub fn october(days: u32, rounds: u64, error_share: f64, seed: u64) -> MonthSettings {
    MonthSettings {
        month: rules::gaming_day::Month::parse("2026-10").unwrap(),
        days,
        rounds,
        error_share,
        seed,
        clock: rules::gaming_day::GamingDayClock::default(),
    }
}

/// A station for each of `tables` (id and game) playing under `plan`, numbered from 1 in order.
pub fn table_stations(plan: &rules::Plan, tables: &[(&str, &str)]) -> Vec<Station> {
    let numbered = (1..).zip(tables);
    numbered
        .map(|(n, (id, game))| Station::table((*id).into(), game, n, plan).unwrap())
        .collect()
}

/// Submits `settings`' month of `tables` (id and game, see [`table_stations`]) and of the cage
/// `cage`, if any, playing the built-in plan: how many records were submitted.
pub async fn submit_simulated_tables(
    app: &impl TestApp,
    settings: MonthSettings,
    tables: &[(&str, &str)],
    cage: Option<&str>,
) -> usize {
    let plan = builtin_plan();
    let mut stations = table_stations(&plan, tables);
    stations.extend(cage.map(|id| Station::cage(id.into())));
    submit_simulated_month(app, &mut stations, &plan, &settings, settings.seed).await
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
