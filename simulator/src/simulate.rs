use std::collections::BTreeMap;
use std::process::ExitCode;

use crate::games::table::{table_key, Slot};
use crate::games::table_of;
use anyhow::{anyhow, bail};
use chrono::Utc;
use dozor_log::keys::encode_public_key;
use dozor_log::Envelope;
use futures_util::{stream, StreamExt as _};
use serde_json::{json, Value};

use crate::resume::{
    holds_key, next_seq_no, register, resume_point, MonthBounds, RecordReader, Registered,
};
use crate::submit::{client_with_key, Submitter, Tally};

#[derive(Debug, clap::Args)]
pub struct SimulateArgs {
    /// A running dozor server (default: the address `serve` is configured to listen on,
    /// `[server] listen` of the configuration or DOZOR_BIND, else http://127.0.0.1:8080).
    #[arg(long)]
    pub server: Option<String>,
    /// The configuration file whose `[server] listen` gives the default `--server`.
    #[arg(long, env = "DOZOR_CONFIG")]
    pub config: Option<std::path::PathBuf>,
    /// The game the tables play: roulette, blackjack, ultimate_texas_holdem, money_wheel_1,
    /// money_wheel_2, poker_cash (no-limit Hold'em), poker_omaha (Omaha, on poker_cash tables)
    /// open_face_chinese (Pineapple) or poker_tournament (each record a whole tournament).
    #[arg(long, default_value = "roulette")]
    game: String,
    /// Number of tables: `SIM-R01…` (by game), registered with the keys `--seed` gives; run
    /// again with the same seed, the same tables deal on from their next `seq_no`, and a
    /// number registered with another key is passed over for the next.
    #[arg(long, default_value_t = 3)]
    tables: usize,
    /// Rounds per table.
    #[arg(long, default_value_t = 100)]
    rounds: u64,
    /// Share of rounds (0-1) with a deliberate error: wrong payout, stake out of limits, a dealer's
    /// extra card, a withheld win, ...
    #[arg(long, default_value_t = 0.05)]
    error_share: f64,
    /// Seed of the random generator (and of the simulated tables' keys).
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Submissions in flight at once.
    #[arg(long, default_value_t = 16)]
    concurrency: usize,
    /// Plan the tables play under.
    #[arg(long, default_value = rules::plan::DEFAULT_PLAN)]
    plan: String,
    /// Money wheels: the share of spins the first table's pointer lands on its segment 0
    /// whatever the spin — an uneven wheel for the wheel statistics to find.
    #[arg(long, default_value_t = 0.0)]
    uneven_wheel: f64,
    /// An admin API key to register the tables with. Without one, the simulator creates an
    /// admin key in the local database (as `dozor apikey create` does) and revokes it when done.
    #[arg(long, env = "DOZOR_API_KEY")]
    api_key: Option<String>,
    /// Operator key that signs the simulator's own API key entries (as for `serve`).
    #[arg(long, env = "DOZOR_OPERATOR_KEY")]
    operator_key: Option<std::path::PathBuf>,
    /// Simulate a month of operations, `YYYY-MM`: every gaming day each table opens a period,
    /// plays `--rounds` rounds, takes a fill and a credit, tips, a counted drop and closes; a
    /// cage (`CAGE`) trades chips, cash and tournament entries. `--game` may then list
    /// several games (comma-separated), each with `--tables` tables (`R01…`, `BJ01…`, as a
    /// casino names them). Run again, it submits only what the ledger does not hold yet (a
    /// month run before a later one is found whole and nothing is sent); a month a station
    /// cannot take (one earlier than records it holds, or other records of the month) is
    /// refused before anything is sent.
    #[arg(long)]
    month: Option<String>,
    /// With `--month`: how many of its gaming days, from the first (default: all).
    #[arg(long)]
    days: Option<u32>,
    /// Local hour (Europe/Prague) at which a gaming day starts (for `--month`).
    #[arg(long, default_value_t = 6)]
    gaming_day_start_hour: u32,
}

/// Records of a station sent in one request in a simulated month.
const MONTH_BATCH: usize = 200;

const GAMES: [&str; 9] = [
    "roulette",
    "blackjack",
    "ultimate_texas_holdem",
    "money_wheel_1",
    "money_wheel_2",
    "poker_cash",
    "poker_omaha",
    "open_face_chinese",
    "poker_tournament",
];

/// A simulation whose arguments are checked, with the plan its tables play under.
pub struct Simulation {
    args: SimulateArgs,
    plan: rules::Plan,
}

impl Simulation {
    /// Checks the arguments, before anything is made for the run.
    pub fn prepare(args: SimulateArgs) -> anyhow::Result<Simulation> {
        if !(0.0..=1.0).contains(&args.error_share) {
            bail!("--error-share must be between 0 and 1");
        }
        let several = args.month.is_some();
        for game in args.game.split(',') {
            if !GAMES.contains(&game) || (!several && game != args.game) {
                bail!("unknown game `{}` ({})", args.game, GAMES.join(", "));
            }
        }
        if !(0.0..=1.0).contains(&args.uneven_wheel) {
            bail!("--uneven-wheel must be between 0 and 1");
        }
        let plan = rules::PlanBook::builtin()?
            .get(&args.plan)
            .cloned()
            .ok_or_else(|| anyhow!("unknown plan `{}`", args.plan))?;
        Ok(Simulation { args, plan })
    }

    /// The admin API key given to register the tables with (`--api-key`), if any.
    pub fn api_key(&self) -> Option<&str> {
        self.args.api_key.as_deref()
    }

    /// The operator key that signs a key the simulation makes for itself (`--operator-key`).
    pub fn operator_key(&self) -> Option<&std::path::Path> {
        self.args.operator_key.as_deref()
    }

    /// Sends the simulated tables' records to the server, registering them with `token`.
    pub fn run(self, token: &str) -> anyhow::Result<ExitCode> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()?;
        runtime.block_on(simulate(self.args, self.plan, token))
    }
}

fn table_prefix(game: &str) -> &'static str {
    match game {
        "blackjack" => "SIM-BJ",
        "ultimate_texas_holdem" => "SIM-U",
        "money_wheel_1" => "SIM-W1-",
        "money_wheel_2" => "SIM-W2-",
        "poker_cash" => "SIM-PH",
        "poker_omaha" => "SIM-PO",
        "open_face_chinese" => "SIM-OFC",
        "poker_tournament" => "SIM-ROOM",
        _ => "SIM-R",
    }
}

async fn simulate(args: SimulateArgs, plan: rules::Plan, token: &str) -> anyhow::Result<ExitCode> {
    let client = client_with_key(token)?;
    let base = args
        .server
        .clone()
        .unwrap_or_else(|| "http://127.0.0.1:8080".into())
        .trim_end_matches('/')
        .to_owned();
    if let Some(month) = args.month.clone() {
        return simulate_month(&args, &month, plan, &client, &base).await;
    }
    let mut envelopes = Vec::new();
    let mut injected: BTreeMap<&str, u64> = BTreeMap::new();
    let (tables, passed_over) = own_tables(&args, &plan, &client, &base).await?;
    let table_ids: Vec<String> = tables.iter().map(|t| t.table_id.clone()).collect();
    for mut table in tables {
        let first = table.first_seq_no;
        for seq_no in first..first + args.rounds {
            // Halfway through the night the pit narrows the table's limits.
            if seq_no == first + args.rounds / 2 {
                if let Some(limits) = table.simulator.night_limits() {
                    post_night_limits(&client, &base, &table.table_id, limits).await?;
                }
            }
            let slot = Slot {
                table_id: &table.table_id,
                seq_no,
                played_at: Utc::now(),
            };
            let (record, error) = table.simulator.next_record(slot, args.error_share)?;
            if let Some(e) = error {
                *injected.entry(e).or_default() += 1;
            }
            envelopes.push(Envelope::sign(record, &table.key)?);
        }
    }
    let total = envelopes.len();
    let started = std::time::Instant::now();
    let submitter = Submitter {
        client: client.clone(),
        base: base.clone(),
    };
    let tally = submit(&submitter, envelopes, args.concurrency).await;
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "{}",
        serde_json::to_string_pretty(&json!({
            "game": args.game,
            "tables": table_ids,
            "tables_passed_over": passed_over,
            "rounds_submitted": total,
            "http_status_counts": tally.by_status,
            "retried_after_429_or_503": tally.retries,
            "injected_errors": injected,
            "seconds": (seconds * 100.0).round() / 100.0,
            "findings": format!("{base}/api/v1/findings"),
            "report": format!("{base}/api/v1/reports/daily?day=<gaming day>&format=csv"),
        }))?
    );
    Ok(exit_code(&tally))
}

/// A table a run deals at: registered with the run's key, from its next `seq_no`.
struct OwnTable {
    table_id: String,
    key: ed25519_dalek::SigningKey,
    simulator: Box<dyn crate::games::table::TableSimulator + Send>,
    first_seq_no: u64,
}

/// How many table numbers past `--tables` a run tries before giving up on finding its own.
const MAX_PASSED_OVER: usize = 99;

/// The run's `--tables` tables: `SIM-R01`, `SIM-R02`, … registered with the key `--seed`
/// gives each (by this run, or by an earlier one with the same seed, whose tables it goes on
/// dealing at); a number registered with another key (another seed's, or a real table's) is
/// passed over for the next, and named in the result.
async fn own_tables(
    args: &SimulateArgs,
    plan: &rules::Plan,
    client: &reqwest::Client,
    base: &str,
) -> anyhow::Result<(Vec<OwnTable>, Vec<String>)> {
    let prefix = table_prefix(&args.game);
    let (mut tables, mut passed_over) = (Vec::new(), Vec::new());
    for t in 1..=args.tables + MAX_PASSED_OVER {
        if tables.len() == args.tables {
            break;
        }
        let table_id = format!("{prefix}{t:02}");
        let key = table_key(args.seed, &table_id);
        // Each table deals from its own shoe (or spins its own wheel); the run's first
        // table's wheel is the uneven one.
        let bias = if tables.is_empty() {
            args.uneven_wheel
        } else {
            0.0
        };
        let mut simulator = table_of(
            &args.game,
            args.seed.wrapping_add(t as u64),
            plan.clone(),
            bias,
        )?;
        // Omaha and Hold'em hands are both `poker_cash` tables.
        let table_game = if args.game == "poker_omaha" {
            "poker_cash"
        } else {
            args.game.as_str()
        };
        let public_key = encode_public_key(&key.verifying_key());
        let mut body = json!({"table_id": table_id, "game": table_game, "plan_id": plan.plan_id,
                              "location": format!("Simulated pit, {} {t}", args.game),
                              "public_key": public_key});
        if let Some(layout) = simulator.wheel_layout() {
            body["wheel_layout"] = json!(layout);
        }
        if let Some(limits) = simulator.post_limits() {
            body["limits"] = limits;
        }
        let table = register(client, base, body).await?;
        if !holds_key(&table, &public_key) || table["game"] != table_game {
            passed_over.push(table_id);
            continue;
        }
        tables.push(OwnTable {
            table_id,
            key,
            simulator,
            first_seq_no: next_seq_no(&table),
        });
    }
    if tables.len() < args.tables {
        bail!(
            "{prefix}01…{prefix}{:02} are registered with other keys than --seed {} gives; nothing was submitted: use the seed that made them, or another",
            args.tables + MAX_PASSED_OVER,
            args.seed
        );
    }
    Ok((tables, passed_over))
}

/// Posts a table's night limits, in force from now.
async fn post_night_limits(
    client: &reqwest::Client,
    base: &str,
    table_id: &str,
    limits: Value,
) -> anyhow::Result<()> {
    let answer = client
        .post(format!("{base}/api/v1/tables/{table_id}/limits"))
        .json(&json!({"limits": limits, "reason": "night limits"}))
        .send()
        .await?;
    match answer.status().as_u16() {
        201 => Ok(()),
        status => bail!(
            "posting {table_id}'s night limits: HTTP {status}: {}",
            answer.text().await?
        ),
    }
}

/// Success when every record was accepted (201) or was in the ledger already (200); else the
/// refusals are named on standard error, in one line.
fn exit_code(tally: &Tally) -> ExitCode {
    match tally.refusal_line() {
        None => ExitCode::SUCCESS,
        Some(line) => {
            eprintln!("dozor: {line}");
            ExitCode::from(1)
        }
    }
}

/// Runs `send` over `items`, `concurrency` at once, counting `records` on a progress bar (each
/// `send` moves it on); their tallies merged.
async fn tally_all<T, F, Fut>(items: Vec<T>, records: usize, concurrency: usize, send: F) -> Tally
where
    F: Fn(T, indicatif::ProgressBar) -> Fut,
    Fut: std::future::Future<Output = Tally>,
{
    let bar = crate::progress_bar(records as u64, "records submitted");
    let tallies: Vec<Tally> = stream::iter(items)
        .map(|item| send(item, bar.clone()))
        .buffer_unordered(concurrency.max(1))
        .collect()
        .await;
    bar.finish_and_clear();
    let mut all = Tally::default();
    for t in tallies {
        all.merge(t);
    }
    all
}

/// Submits the envelopes one by one, `concurrency` at once, each waited out and sent again
/// after a 429 or 503.
async fn submit(submitter: &Submitter, envelopes: Vec<Envelope>, concurrency: usize) -> Tally {
    let total = envelopes.len();
    tally_all(envelopes, total, concurrency, |envelope, bar| async move {
        let mut tally = Tally::default();
        submitter.record(&envelope, &mut tally).await;
        bar.inc(1);
        tally
    })
    .await
}

/// A station's id in a simulated month, as a casino names its tables: `R01`, `BJ02`, ….
fn month_station_id(game: &str, t: usize) -> String {
    let prefix = match game {
        "blackjack" => "BJ",
        "ultimate_texas_holdem" => "UTH",
        "money_wheel_1" => "W1-",
        "money_wheel_2" => "W2-",
        "poker_cash" => "PH",
        "poker_omaha" => "PO",
        "open_face_chinese" => "OFC",
        "poker_tournament" => "ROOM",
        _ => "R",
    };
    format!("{prefix}{t:02}")
}

/// A month of operations at every table of every game listed, and a cage.
/// The month `--month` names, as the arguments play it.
fn month_settings(args: &SimulateArgs, month: &str) -> anyhow::Result<crate::month::MonthSettings> {
    let month = rules::gaming_day::Month::parse(month)
        .ok_or_else(|| anyhow!("--month `{month}` is not YYYY-MM"))?;
    let clock = rules::gaming_day::GamingDayClock::new(
        chrono_tz::Europe::Prague,
        args.gaming_day_start_hour,
    )
    .ok_or_else(|| anyhow!("--gaming-day-start-hour must be 0-23"))?;
    let all_days = (month.next_first_day() - month.first_day()).num_days() as u32;
    Ok(crate::month::MonthSettings {
        month,
        days: args.days.unwrap_or(all_days).min(all_days),
        rounds: args.rounds,
        error_share: args.error_share,
        seed: args.seed,
        clock,
    })
}

/// Sends each station's records in order (so that an interrupted run leaves every station a
/// complete beginning to resume from), several stations at once.
async fn submit_stations(
    submitter: &Submitter,
    work: &[(String, Vec<Envelope>)],
    submitted: usize,
    concurrency: usize,
) -> Tally {
    let stations: Vec<&[Envelope]> = work.iter().map(|(_, e)| e.as_slice()).collect();
    tally_all(
        stations,
        submitted,
        concurrency,
        |envelopes, bar| async move {
            let mut tally = Tally::default();
            for chunk in envelopes.chunks(MONTH_BATCH) {
                submitter.in_order(chunk, MONTH_BATCH, &mut tally).await;
                bar.inc(chunk.len() as u64);
            }
            tally
        },
    )
    .await
}

/// A month's run: what every station plays, and where they are sent.
struct MonthRun<'a> {
    args: &'a SimulateArgs,
    plan: rules::Plan,
    settings: crate::month::MonthSettings,
    bounds: MonthBounds,
    client: &'a reqwest::Client,
    base: &'a str,
}

/// A station's id and its game with its seed (none: the cage).
type StationId = (String, Option<(String, u64)>);

impl MonthRun<'_> {
    /// A station as a run starts it: the limits it posts are drawn before its records, so the
    /// same seed gives the same records every time.
    fn fresh(
        &self,
        (table_id, game): &StationId,
    ) -> anyhow::Result<(crate::month::Station, Option<Value>)> {
        use crate::month::Station;
        let mut station = match game {
            Some((game, seed)) => Station::table(table_id.to_owned(), game, *seed, &self.plan)?,
            None => Station::cage(table_id.to_owned()),
        };
        let limits = station.post_limits();
        Ok((station, limits))
    }

    /// Registers a station (or finds it registered) and signs what the ledger lacks of its
    /// month; with how many of its records the month has and how many the ledger holds.
    async fn station(
        &self,
        id: &StationId,
        reader: &mut RecordReader<'_>,
    ) -> anyhow::Result<(Vec<Envelope>, usize, usize)> {
        let table_id = id.0.as_str();
        let key = table_key(self.args.seed, table_id);
        let (station, limits) = self.fresh(id)?;
        let public_key = encode_public_key(&key.verifying_key());
        // The stations play from the month's first gaming day on.
        let plays_from = self.bounds.start - chrono::Duration::hours(1);
        let mut body = json!({"table_id": table_id, "game": station.game,
                              "plan_id": self.plan.plan_id,
                              "location": format!("Simulated casino, {table_id}"),
                              "public_key": public_key,
                              "valid_from": plays_from.to_rfc3339()});
        if let Some(layout) = station.wheel_layout() {
            body["wheel_layout"] = json!(layout);
        }
        if let Some(limits) = limits {
            body["limits"] = limits;
        }
        let registered = Registered::of(register(self.client, self.base, body).await?);
        let numbered_from = |first: u64| {
            let (mut station, _) = self.fresh(id)?;
            crate::month::station_records(&mut station, &self.plan, &self.settings, first)
        };
        let tentative = numbered_from(1)?;
        let (first, skip) = resume_point(
            table_id,
            &registered,
            &tentative,
            &numbered_from,
            &self.bounds,
            reader,
        )
        .await?;
        let records = if first == 1 {
            tentative
        } else {
            numbered_from(first)?
        };
        if skip < records.len() && !holds_key(&registered.table, &public_key) {
            bail!(
                "{table_id} is registered with another key than --seed {} gives; nothing was submitted: use the seed that made it, or another data directory",
                self.args.seed
            );
        }
        let (total, already) = (records.len(), skip.min(records.len()));
        let mut envelopes = Vec::new();
        for record in records.into_iter().skip(skip) {
            envelopes.push(Envelope::sign(record, &key)?);
        }
        Ok((envelopes, total, already))
    }
}

async fn simulate_month(
    args: &SimulateArgs,
    month: &str,
    plan: rules::Plan,
    client: &reqwest::Client,
    base: &str,
) -> anyhow::Result<ExitCode> {
    let settings = month_settings(args, month)?;
    let (month, clock) = (settings.month, settings.clock);
    let mut ids: Vec<StationId> = Vec::new();
    for game in args.game.split(',') {
        for t in 1..=args.tables {
            let seed = args.seed.wrapping_add(t as u64);
            ids.push((month_station_id(game, t), Some((game.to_owned(), seed))));
        }
    }
    ids.push(("CAGE".into(), None));
    let run = MonthRun {
        args,
        plan,
        bounds: MonthBounds {
            name: month.to_string(),
            start: clock.start_of(month.first_day()),
            end: clock.start_of(month.next_first_day()),
        },
        settings,
        client,
        base,
    };
    // Every station is looked at before anything is sent: a refusal sends nothing.
    let mut work: Vec<(String, Vec<Envelope>)> = Vec::new();
    let (mut already, mut total) = (0usize, 0usize);
    let mut reader = RecordReader::new(client, base);
    let mut refused = None;
    for id in &ids {
        match run.station(id, &mut reader).await {
            Ok((envelopes, of_month, held)) => {
                total += of_month;
                already += held;
                work.push((id.0.clone(), envelopes));
            }
            Err(e) => {
                refused = Some(e);
                break;
            }
        }
    }
    reader.close().await?;
    if let Some(e) = refused {
        return Err(e);
    }
    let submitted: usize = work.iter().map(|(_, e)| e.len()).sum();
    let started = std::time::Instant::now();
    let submitter = Submitter {
        client: client.clone(),
        base: base.to_owned(),
    };
    let tally = submit_stations(&submitter, &work, submitted, args.concurrency).await;
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "{}",
        serde_json::to_string_pretty(&json!({
            "month": month.to_string(),
            "days": run.settings.days,
            "stations": ids.iter().map(|(id, _)| id).collect::<Vec<_>>(),
            "records_of_the_month": total,
            "already_in_the_ledger": already,
            "records_submitted": submitted,
            "http_status_counts": tally.by_status,
            "retried_after_429_or_503": tally.retries,
            "seconds": (seconds * 100.0).round() / 100.0,
            "periods": format!("dozor report periods --month {month}"),
            "package": format!("dozor report mf --month {month} --misto <premises>"),
        }))?
    );
    Ok(exit_code(&tally))
}
