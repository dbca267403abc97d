//! A month of a casino's operations: for each gaming day, every table opens a period with its
//! float, plays its rounds, takes a fill and a credit, puts tips in the tronc, has its drop box
//! counted and closes with the float its rounds leave; the cage opens, buys and redeems chips,
//! takes cash in and out, writes off and finds chips, sells tournament entries, pays prizes and
//! closes with what all that leaves. Tournament rooms settle one tournament a day. The closing
//! floats follow from the rounds as re-adjudicated, so every period reconciles exactly.

use chrono::{DateTime, Duration, Utc};
use rand::{Rng as _, SeedableRng as _};
use rand_chacha::ChaCha8Rng;
use rules::gaming_day::{GamingDayClock, Month};
use rules::{GameCode, Plan, Round, TableSetup};
use serde_json::{json, Value};

use crate::games::table::{Slot, TableSimulator};
use crate::games::table_of;

/// Chip denominations, largest first: 5 000, 1 000, 500, 100, 25, 5 and 1 Kč.
const DENOMINATIONS: [i64; 7] = [500_000, 100_000, 50_000, 10_000, 2_500, 500, 100];
/// Each table's float at the opening: 2 000 000 Kč.
const OPENING_FLOAT_H: i64 = 200_000_000;

/// A station of the simulated casino: a table of a game, a tournament room, or the cage.
pub struct Station {
    pub table_id: String,
    /// The registration's `game` (`cage` for the cage).
    pub game: String,
    simulator: Option<Box<dyn TableSimulator + Send>>,
    /// The simulator's game (`poker_omaha` plays on a `poker_cash` table).
    simulated: String,
}

impl Station {
    /// A table (or tournament room) playing `game` (a simulator's game name), seeded.
    pub fn table(table_id: String, game: &str, seed: u64, plan: &Plan) -> anyhow::Result<Station> {
        let registered = if game == "poker_omaha" {
            "poker_cash"
        } else {
            game
        };
        Ok(Station {
            table_id,
            game: registered.to_owned(),
            simulator: Some(table_of(game, seed, plan.clone(), 0.0)?),
            simulated: game.to_owned(),
        })
    }

    pub fn cage(table_id: String) -> Station {
        Station {
            table_id,
            game: dozor_log::registration::CAGE.to_owned(),
            simulator: None,
            simulated: String::new(),
        }
    }

    pub fn wheel_layout(&self) -> Option<&[String]> {
        self.simulator.as_ref().and_then(|s| s.wheel_layout())
    }

    /// The limits the table posts from its registration, if its game's simulator posts any.
    pub fn post_limits(&mut self) -> Option<serde_json::Value> {
        self.simulator.as_mut().and_then(|s| s.post_limits())
    }
}

/// What the month looks like.
pub struct MonthSettings {
    pub month: Month,
    /// How many of the month's gaming days are played, from the first.
    pub days: u32,
    /// Rounds per table per day.
    pub rounds: u64,
    pub error_share: f64,
    pub seed: u64,
    pub clock: GamingDayClock,
}

impl MonthSettings {
    /// A benchmark's month (`YYYY-MM`, every gaming day played): about `rounds` rounds spread
    /// evenly over `tables` and the days, 2 % of them with a dealer error.
    pub fn benchmark(rounds: u64, tables: usize, month: &str, seed: u64) -> anyhow::Result<Self> {
        anyhow::ensure!(
            rounds > 0 && tables > 0,
            "--rounds and --tables must be positive"
        );
        let month = Month::parse(month)
            .ok_or_else(|| anyhow::anyhow!("--month `{month}` is not YYYY-MM"))?;
        let days = u32::try_from((month.next_first_day() - month.first_day()).num_days())?;
        Ok(MonthSettings {
            month,
            days,
            rounds: rounds.div_ceil(tables as u64 * u64::from(days)),
            error_share: 0.02,
            seed,
            clock: GamingDayClock::default(),
        })
    }

    /// Rounds the month holds at `tables` tables.
    pub fn total_rounds(&self, tables: usize) -> u64 {
        self.rounds * tables as u64 * u64::from(self.days)
    }
}

/// Chips worth `value_h` (a multiple of 1 Kč), largest denominations first.
pub fn chips_for(mut value_h: i64) -> Value {
    let mut chips = Vec::new();
    for d in DENOMINATIONS {
        let count = value_h / d;
        if count > 0 {
            chips.push(json!({"denomination_h": d, "count": count}));
            value_h -= count * d;
        }
    }
    Value::Array(chips)
}

/// The records of `station` for the month, in its sequence from `first_seq_no`.
pub fn station_records(
    station: &mut Station,
    plan: &Plan,
    settings: &MonthSettings,
    first_seq_no: u64,
) -> anyhow::Result<Vec<Value>> {
    let mut rng = ChaCha8Rng::seed_from_u64(
        settings
            .seed
            .wrapping_mul(31)
            .wrapping_add(station.table_id.bytes().map(u64::from).sum::<u64>()),
    );
    let mut writer = Writer {
        table_id: station.table_id.clone(),
        plan_id: plan.plan_id.clone(),
        seq_no: first_seq_no,
        records: Vec::new(),
    };
    let first_day = settings.month.first_day();
    let mut cage = CageHoldings::new();
    for d in 0..settings.days {
        let Some(day) = first_day.checked_add_days(chrono::Days::new(u64::from(d))) else {
            break;
        };
        if day >= settings.month.next_first_day() {
            break;
        }
        let start = settings.clock.start_of(day);
        let period = format!("{}-{}", station.table_id, day.format("%Y%m%d"));
        match &mut station.simulator {
            None => cage.day(&mut writer, &mut rng, &period, start),
            Some(simulator) if station.game == GameCode::PokerTournament.as_str() => {
                let slot_at = start + Duration::hours(22);
                let (record, _) = simulator.next_record(writer.slot(slot_at), 0.0)?;
                writer.push_record(record);
            }
            Some(simulator) => {
                table_day(
                    &mut writer,
                    simulator.as_mut(),
                    &station.simulated,
                    plan,
                    settings,
                    &mut rng,
                    &period,
                    start,
                )?;
            }
        }
    }
    Ok(writer.records)
}

struct Writer {
    table_id: String,
    plan_id: String,
    seq_no: u64,
    records: Vec<Value>,
}

impl Writer {
    fn slot(&self, played_at: DateTime<Utc>) -> Slot<'_> {
        Slot {
            table_id: &self.table_id,
            seq_no: self.seq_no,
            played_at,
        }
    }

    fn push_record(&mut self, record: Value) {
        self.records.push(record);
        self.seq_no += 1;
    }

    /// An operation record of the station with its header.
    fn push(&mut self, kind: &str, period: &str, at: DateTime<Utc>, fields: Value) {
        let mut record = json!({"type": kind, "table_id": self.table_id, "seq_no": self.seq_no,
                                "plan_id": self.plan_id, "period_id": period,
                                "at": at.to_rfc3339()});
        if let (Some(record), Value::Object(fields)) = (record.as_object_mut(), fields) {
            record.extend(fields);
        }
        self.push_record(record);
    }
}

/// One evening at a table, 18:00 to 04:00 (from a 06:00 gaming day).
#[allow(clippy::too_many_arguments)]
fn table_day(
    writer: &mut Writer,
    simulator: &mut (dyn TableSimulator + Send),
    simulated: &str,
    plan: &Plan,
    settings: &MonthSettings,
    rng: &mut ChaCha8Rng,
    period: &str,
    start: DateTime<Utc>,
) -> anyhow::Result<()> {
    let opens = start + Duration::hours(12);
    let closes = start + Duration::hours(22);
    writer.push(
        "table_open",
        period,
        opens,
        json!({"float": chips_for(OPENING_FLOAT_H)}),
    );
    let game = GameCode::parse(if simulated == "poker_omaha" {
        "poker_cash"
    } else {
        simulated
    });
    let setup = match game {
        Some(g) => TableSetup::for_table(plan, g, simulator.wheel_layout(), None)?,
        None => TableSetup::NONE,
    };
    let rounds = settings.rounds.max(1);
    let step = (closes - opens - Duration::minutes(20)) / i32::try_from(rounds + 1)?;
    let mut win_h: i64 = 0;
    let fill_h = 10_000 * rng.gen_range(50..=300);
    let credit_h = 10_000 * rng.gen_range(20..=150);
    for i in 0..rounds {
        let at = opens + step * i32::try_from(i + 1)?;
        let (record, _) = simulator.next_record(writer.slot(at), settings.error_share)?;
        let round = Round::parse(&record)?;
        let verdict = rules::adjudicate_at(plan, &setup, &round)?;
        win_h = win_h
            .checked_add(verdict.stakes_h - verdict.paid_h)
            .ok_or_else(|| anyhow::anyhow!("a day's win overflows"))?;
        writer.push_record(record);
        // A fill halfway through the night, a credit at three quarters of it.
        let slips = [
            (rounds / 2, "table_fill", 'F', fill_h, "cage runner 3"),
            (
                rounds * 3 / 4,
                "table_credit",
                'C',
                credit_h,
                "cage runner 5",
            ),
        ];
        for (when, kind, prefix, amount_h, by) in slips {
            if i == when {
                let slip = format!("{prefix}{}", writer.seq_no);
                writer.push(
                    kind,
                    period,
                    at + Duration::seconds(1),
                    json!({"slip_no": slip, "chips": chips_for(amount_h), "by": by}),
                );
            }
        }
    }
    let tips_h = 2_500 * rng.gen_range(0..=40);
    writer.push(
        "table_tips",
        period,
        closes - Duration::minutes(15),
        json!({"chips": chips_for(tips_h)}),
    );
    // win = closing − opening + credits − fills + drop: the drop and the closing float share
    // what the table won; the closing float is kept in whole koruna.
    let mut drop_h = 100 * rng.gen_range(20_000..=80_000);
    let mut closing_h = OPENING_FLOAT_H + win_h - credit_h + fill_h - drop_h;
    drop_h += closing_h.rem_euclid(100);
    closing_h -= closing_h.rem_euclid(100);
    if closing_h < 0 {
        // A day the table lost more than its float: the drop box holds less.
        drop_h += closing_h;
        closing_h = 0;
    }
    writer.push(
        "table_drop",
        period,
        closes - Duration::minutes(5),
        json!({"cash_h": drop_h.max(0), "counted_by": "count room team A"}),
    );
    writer.push(
        "table_close",
        period,
        closes,
        json!({"float": chips_for(closing_h)}),
    );
    Ok(())
}

/// What the cage holds between days.
struct CageHoldings {
    cash_h: i64,
    chips_h: i64,
    tronc_h: i64,
}

impl CageHoldings {
    fn new() -> CageHoldings {
        CageHoldings {
            cash_h: 500_000_000,
            chips_h: 300_000_000,
            tronc_h: 0,
        }
    }

    fn count(&self) -> Value {
        json!({"cash_h": self.cash_h, "chips": chips_for(self.chips_h), "tronc_h": self.tronc_h})
    }

    /// One cage day, 14:00 to 05:00 (from a 06:00 gaming day).
    fn day(
        &mut self,
        writer: &mut Writer,
        rng: &mut ChaCha8Rng,
        period: &str,
        start: DateTime<Utc>,
    ) {
        let opens = start + Duration::hours(8);
        writer.push("cage_open", period, opens, self.count());
        let tournament = format!("T-{}", period);
        let movements = rng.gen_range(20..=40);
        for i in 0..movements {
            let at = opens + Duration::minutes(20 * (i + 1));
            let amount_h = 100 * rng.gen_range(500..=50_000);
            let cash = rng.gen_bool(0.8);
            let (kind, cash_change, chips_change, tronc_change) = match rng.gen_range(0..10) {
                0..=3 => (
                    "chip_purchase",
                    if cash { amount_h } else { 0 },
                    -amount_h,
                    0,
                ),
                4..=6 => (
                    "chip_redemption",
                    if cash { -amount_h } else { 0 },
                    amount_h,
                    0,
                ),
                7 => ("tournament_buy_in", if cash { amount_h } else { 0 }, 0, 0),
                8 => ("tronc_in", 0, 0, amount_h / 10),
                _ => ("chips_lost", 0, 0, 0),
            };
            let amount_h = if kind == "tronc_in" {
                amount_h / 10
            } else if kind == "chips_lost" {
                2_500
            } else {
                amount_h
            };
            let mut fields = json!({"kind": kind, "amount_h": amount_h,
                                    "payment": if cash { "cash" } else { "non_cash" }});
            if kind.starts_with("tournament") {
                fields["tournament_id"] = json!(tournament);
            }
            writer.push("cage_transaction", period, at, fields);
            self.cash_h += cash_change;
            self.chips_h += chips_change;
            self.tronc_h += tronc_change;
        }
        // The day's surplus goes to the bank, keeping 5 000 000 Kč in the cage.
        let at = opens + Duration::minutes(20 * (movements + 1));
        let surplus = self.cash_h - 500_000_000;
        if surplus > 0 {
            writer.push(
                "cage_transaction",
                period,
                at,
                json!({"kind": "cash_out", "amount_h": surplus}),
            );
            self.cash_h -= surplus;
        } else if surplus < 0 {
            writer.push(
                "cage_transaction",
                period,
                at,
                json!({"kind": "cash_in", "amount_h": -surplus}),
            );
            self.cash_h -= surplus;
        }
        self.chips_h = self.chips_h.max(0);
        writer.push(
            "cage_close",
            period,
            start + Duration::hours(23),
            self.count(),
        );
    }
}
