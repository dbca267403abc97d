//! The monthly live-game package of one gaming premises, built from the ledger: the operator
//! and premises from the configuration, the game register, every operating period of its cages
//! (P), tables (S) and tournaments (T) with their holdings, movements, games and possible wins.
//! Each file's header comes from the schema; a row names its fields, so a field the schema does
//! not have is an error, not a silent column.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Utc};
use diesel::PgConnection;
use ledger::storage::report_reads;
use ledger::storage::report_reads::mf::{DayClock, GameDay, TournamentRow};
use rules::operations::{CageKind, CagePeriod, Payment};
use rules::{GameCode, PlanBook, Round};

use super::config::{gps_value, OperatorConfig, Premises};
use super::name::PackageName;
use super::schema::Schema;
use super::validate::FORMAT_VERSION;
use super::values::{date, date_time, identifier, money};
use crate::periods::{self, AuditSettings, PeriodAudit, TablePeriodLine};
use crate::ReportError;
use rules::gaming_day::{GamingDayClock, Month};

/// The currency of every amount: dozor keeps haléře of Czech koruna.
const CURRENCY: &str = "CZK";
/// The longest id the schema allows (`MaxLength` of its identifiers).
const ID_MAX: usize = 50;

/// What the package is built for.
pub struct PackageRequest<'a> {
    pub config: &'a OperatorConfig,
    pub premises: &'a str,
    pub month: Month,
    pub version: u8,
    pub clock: GamingDayClock,
    pub plans: &'a PlanBook,
    /// The files' creation time (their metadata line).
    pub now: DateTime<Utc>,
}

/// A built package: its name, its files (name, bytes) and what went into it.
#[derive(Debug, Clone)]
pub struct Package {
    pub name: PackageName,
    pub files: Vec<(String, Vec<u8>)>,
    pub summary: PackageSummary,
}

impl Package {
    /// SHA-256 of what the package says: each file's name and its bytes after the first line
    /// (which holds the package's name, with its version, and when it was made).
    pub fn content_sha256(&self) -> [u8; 32] {
        use sha2::{Digest as _, Sha256};
        let mut hasher = Sha256::new();
        for (file, bytes) in &self.files {
            let body = bytes
                .windows(2)
                .position(|w| w == b"\r\n")
                .map_or(&bytes[..], |end| &bytes[end + 2..]);
            hasher.update(file.as_bytes());
            hasher.update([0]);
            hasher.update((body.len() as u64).to_be_bytes());
            hasher.update(body);
        }
        hasher.finalize().into()
    }

    /// The same package under another version: its name, and each file's first line.
    pub fn with_version(&self, version: u8) -> Package {
        let mut name = self.name.clone();
        name.version = version;
        let (old, new) = (format!("#{};", self.name), format!("#{name};"));
        let files = self
            .files
            .iter()
            .map(|(file, bytes)| {
                let renamed = match bytes.strip_prefix(old.as_bytes()) {
                    Some(rest) => [new.as_bytes(), rest].concat(),
                    None => bytes.clone(),
                };
                (file.clone(), renamed)
            })
            .collect();
        Package {
            summary: PackageSummary {
                package: name.to_string(),
                ..self.summary.clone()
            },
            name,
            files,
        }
    }
}

#[derive(Debug, Clone, Default, serde::Serialize, utoipa::ToSchema)]
pub struct PackageSummary {
    pub package: String,
    pub month: String,
    pub premises: String,
    pub table_periods: usize,
    pub cage_periods: usize,
    pub tournaments: usize,
    pub rounds: i64,
    /// Findings of the month's period audit (reconciliation, rounds outside periods, …).
    pub period_findings: usize,
    /// Each of them in a line: station, period, time, kind, amount, what is wrong.
    pub period_finding_lines: Vec<String>,
    /// What is not in the package, and why (a period still open, a station not registered).
    pub warnings: Vec<String>,
    /// Whether the month is not over yet: the package will still change, and is not delivered.
    pub provisional: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum PackageError {
    #[error("premises `{0}` is not in the configuration")]
    UnknownPremises(String),
    #[error("version must be 01-99")]
    BadVersion,
    #[error("the schema: {0}")]
    Schema(String),
    #[error("the package's file {file} has no field {field} in the schema")]
    UnknownField { file: String, field: String },
    #[error(transparent)]
    Report(#[from] ReportError),
    #[error("writing CSV: {0}")]
    Csv(String),
    #[error("{} with activity in the month belong to no premises of the configuration: {}; list each in the `stations` of its premises (a package without them would leave them out)", if .0.len() == 1 { "a station" } else { "stations" }, .0.join(", "))]
    StationsWithoutPremises(Vec<String>),
    #[error("the month {month} is not over (its last gaming day ends at {ends_at}): a package delivered now would leave out the rest of it")]
    MonthNotOver {
        month: String,
        ends_at: chrono::DateTime<chrono::Utc>,
    },
    #[error("version {0:02} of this package has not been issued")]
    NotIssued(u8),
    /// The package fails the Ministry's rules: it is not delivered.
    #[error("{name} fails validation with {} errors and is not delivered; the first: {}", .errors.len(), .errors.first().map(ToString::to_string).unwrap_or_default())]
    Invalid {
        name: String,
        errors: Vec<super::validate::MfError>,
    },
    #[error("delivering: {0}")]
    Delivery(String),
}

impl From<ledger::LedgerError> for PackageError {
    fn from(e: ledger::LedgerError) -> Self {
        PackageError::Report(ReportError::Ledger(e))
    }
}

/// One line of a file: values by field name.
type Row = Vec<(&'static str, String)>;

/// Builds the package (nothing is written or sealed here).
pub fn build(
    conn: &mut PgConnection,
    request: &PackageRequest<'_>,
) -> Result<Package, PackageError> {
    let config = request.config;
    let premises = config
        .premises(request.premises)
        .ok_or_else(|| PackageError::UnknownPremises(request.premises.to_owned()))?;
    if !(1..=99).contains(&request.version) {
        return Err(PackageError::BadVersion);
    }
    let schema = Schema::embedded().map_err(|e| PackageError::Schema(e.to_string()))?;
    let name = PackageName::live_game(
        &config.operator.ico,
        request.month,
        &premises.id,
        request.version,
    );
    let audit = periods::build(
        conn,
        &AuditSettings {
            clock: request.clock,
            tolerance_h: config.reconciliation.tolerance_h,
        },
        request.month,
    )?;
    let (start, end) = request.clock.month_bounds(request.month);
    let unlisted = stations_without_premises(conn, config, &audit, start, end)?;
    if !unlisted.is_empty() {
        return Err(PackageError::StationsWithoutPremises(unlisted));
    }
    let stations = report_reads::tables::stations(conn, &premises.stations)?;
    let mut builder = Builder {
        ico: &config.operator.ico,
        premises,
        plans: request.plans,
        stations: stations
            .iter()
            .map(|s| (s.table_id.as_str(), (s.game.as_str(), s.plan_id.as_str())))
            .collect(),
        summary: PackageSummary {
            package: name.to_string(),
            month: request.month.to_string(),
            premises: premises.id.clone(),
            ..PackageSummary::default()
        },
        rows: BTreeMap::new(),
    };
    if let Some(note) = crate::provisional::month_note(&request.month.to_string(), end, request.now)
    {
        builder.summary.provisional = true;
        builder
            .summary
            .warnings
            .push(format!("{note}; it is not delivered before then"));
    }
    for station in &premises.stations {
        if !builder.stations.contains_key(station.as_str()) {
            builder.summary.warnings.push(format!(
                "station `{station}` of the premises is not registered"
            ));
        }
    }
    builder.operator_and_premises(config);
    builder.game_register();
    builder.periods(&audit);
    builder.tournaments(report_reads::mf::tournaments(
        conn,
        &premises.stations,
        start,
        end,
    )?)?;
    let days = report_reads::mf::game_days(
        conn,
        &premises.stations,
        start,
        end,
        DayClock {
            zone: request.clock.zone.name(),
            start_hour: request.clock.start_hour,
        },
    )?;
    builder.possible_wins_per_game(&days);

    let created = date_time(request.now);
    let mut files: Vec<String> = schema
        .files_for("M", "Z")
        .into_iter()
        .map(str::to_owned)
        .collect();
    // The Ministry's validator asks for the exchange rates in the quarter's last month: every
    // amount is in koruna, so the file has its header and no rates.
    if request.month.month().is_multiple_of(3) {
        files.push("mena_kurs.csv".into());
    }
    let mut written = Vec::new();
    for file in files {
        let rows = builder.rows.remove(file.as_str()).unwrap_or_default();
        let bytes = render(schema, &name, &file, &created, &rows)?;
        written.push((file, bytes));
    }
    Ok(Package {
        name,
        files: written,
        summary: builder.summary,
    })
}

/// A period finding in one line: `R01, period R01-20261005, 05.10.2026 21:00: drop_not_reconciled
/// (150,00 Kč): …`.
fn period_finding_line(f: &rules::operations::PeriodFinding) -> String {
    let kind = serde_json::to_value(f.kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    let period = f
        .period_id
        .as_deref()
        .map_or_else(String::new, |p| format!(", period {p}"));
    let amount = f.amount_h.map_or_else(String::new, |h| {
        format!(" ({})", rules::money::format_czk(h))
    });
    format!(
        "{}{period}, {}: {kind}{amount}: {}",
        f.table_id,
        f.at.with_timezone(&chrono_tz::Europe::Prague)
            .format("%d.%m.%Y %H:%M"),
        f.message
    )
}

/// The stations with activity in the month (a round played, a period or a cage day) that no
/// premises of the configuration lists.
fn stations_without_premises(
    conn: &mut PgConnection,
    config: &OperatorConfig,
    audit: &PeriodAudit,
    start: DateTime<Utc>,
    end: DateTime<Utc>,
) -> Result<Vec<String>, PackageError> {
    let played = report_reads::mf::tables_that_played(conn, start, end)?;
    let listed: BTreeSet<&str> = config
        .premises
        .iter()
        .flat_map(|p| p.stations.iter().map(String::as_str))
        .collect();
    let active: BTreeSet<String> = played
        .into_iter()
        .chain(audit.tables.iter().map(|t| t.period.table_id.clone()))
        .chain(audit.cages.iter().map(|c| c.cage_id.clone()))
        .chain(
            audit
                .rounds_outside_periods
                .iter()
                .map(|r| r.table_id.clone()),
        )
        .collect();
    Ok(active
        .into_iter()
        .filter(|s| !listed.contains(s.as_str()))
        .collect())
}

/// A file's bytes: the metadata line, the schema's header, the rows; `;`, CRLF.
pub(crate) fn render(
    schema: &Schema,
    name: &PackageName,
    file: &str,
    created: &str,
    rows: &[Row],
) -> Result<Vec<u8>, PackageError> {
    let fields = schema.file_fields("M", file);
    let mut out = format!("#{name};{file};{created};{FORMAT_VERSION}\r\n").into_bytes();
    let mut writer = csv::WriterBuilder::new()
        .delimiter(b';')
        .terminator(csv::Terminator::CRLF)
        .quote_style(csv::QuoteStyle::Necessary)
        .from_writer(Vec::new());
    let csv_error = |e: csv::Error| PackageError::Csv(e.to_string());
    writer
        .write_record(fields.iter().map(|f| f.name.as_str()))
        .map_err(csv_error)?;
    for row in rows {
        if let Some((unknown, _)) = row
            .iter()
            .find(|(k, _)| !fields.iter().any(|f| f.name == *k))
        {
            return Err(PackageError::UnknownField {
                file: file.to_owned(),
                field: (*unknown).to_owned(),
            });
        }
        let line = fields.iter().map(|f| {
            row.iter()
                .find(|(k, _)| *k == f.name)
                .map_or("", |(_, v)| v.as_str())
        });
        writer.write_record(line).map_err(csv_error)?;
    }
    let body = writer
        .into_inner()
        .map_err(|e| PackageError::Csv(e.to_string()))?;
    out.extend_from_slice(&body);
    Ok(out)
}

/// A period's row id and its station's id: the first two columns of its rows in most files.
struct PeriodKey {
    record: String,
    station: String,
}

impl PeriodKey {
    fn row(&self, fields: impl IntoIterator<Item = (&'static str, String)>) -> Row {
        let mut row = vec![
            ("IDZaznamPSTB", self.record.clone()),
            ("IDPSTB", self.station.clone()),
        ];
        row.extend(fields);
        row
    }
}

struct Builder<'a> {
    ico: &'a str,
    premises: &'a Premises,
    plans: &'a PlanBook,
    /// The premises' registered stations: game (or `cage`) and plan.
    stations: BTreeMap<&'a str, (&'a str, &'a str)>,
    summary: PackageSummary,
    rows: BTreeMap<&'static str, Vec<Row>>,
}

/// The Ministry's code and payment (`1` cash, `0` not) of a cage movement; chips found reduce
/// the lost chips' total.
fn transaction_code(kind: CageKind) -> (&'static str, i64) {
    match kind {
        CageKind::ChipPurchase => ("J1", 1),
        CageKind::ChipRedemption => ("K1", 1),
        CageKind::CashIn => ("3", 1),
        CageKind::CashOut => ("7", 1),
        CageKind::ChipsLost => ("L1", 1),
        CageKind::ChipsFound => ("L1", -1),
        CageKind::TournamentBuyIn => ("1", 1),
        CageKind::TournamentFee => ("H1", 1),
        CageKind::TournamentPrize => ("5", 1),
        CageKind::TournamentRefund => ("G1", 1),
        CageKind::TipOutsideTronc => ("8", 1),
        CageKind::TroncIn => ("12", 1),
        CageKind::TroncOut => ("13", 1),
    }
}

fn payment_code(payment: Option<Payment>) -> String {
    match payment {
        Some(Payment::Cash) => "1".into(),
        Some(Payment::NonCash) => "0".into(),
        None => String::new(),
    }
}

impl<'a> Builder<'a> {
    fn id(&self, parts: &[&str]) -> String {
        identifier(self.ico, parts, ID_MAX)
    }

    fn premises_id(&self) -> String {
        self.id(&[&self.premises.id])
    }

    fn game_id(&self, game: &str) -> String {
        self.id(&[game])
    }

    fn push(&mut self, file: &'static str, row: Row) {
        self.rows.entry(file).or_default().push(row);
    }

    fn operator_and_premises(&mut self, config: &OperatorConfig) {
        self.push(
            "provozovatel.csv",
            vec![
                ("IDProvozovatel", config.operator.ico.clone()),
                ("ProvozovatelNazev", config.operator.name.clone()),
            ],
        );
        let p = self.premises;
        let text = |v: &Option<String>| v.clone().unwrap_or_default();
        let number = |v: Option<u32>| v.map(|n| n.to_string()).unwrap_or_default();
        let gps = |v: &Option<String>| v.as_deref().and_then(gps_value).unwrap_or_default();
        let row = vec![
            ("IDMisto", self.premises_id()),
            ("MistoNazev", p.name.clone()),
            ("IDProvozovatel", config.operator.ico.clone()),
            ("GPSX", gps(&p.gps_x)),
            ("GPSY", gps(&p.gps_y)),
            ("Ulice", text(&p.street)),
            ("CP", number(p.house_number)),
            ("CO", text(&p.orientation_number)),
            ("CastObce", text(&p.district)),
            ("PSC", p.postcode.to_string()),
            ("Obec", p.municipality.clone()),
            ("Obvod", number(p.municipal_district)),
            ("Kraj", p.region.clone()),
            ("SidloKodRuian", number(p.ruian)),
        ];
        self.push("misto.csv", row);
    }

    fn games(&self) -> BTreeSet<GameCode> {
        self.stations
            .values()
            .filter_map(|(game, _)| GameCode::parse(game))
            .collect()
    }

    fn game_register(&mut self) {
        for game in self.games() {
            let row = vec![
                ("IDHra", self.game_id(game.as_str())),
                ("IDProvozovatel", self.ico.to_owned()),
                ("HraNazev", game.plan_name().to_owned()),
                ("HraDruh", "Z".to_owned()),
            ];
            self.push("evidence_her.csv", row);
        }
    }

    fn max_win(&self, table_id: &str) -> Option<i64> {
        let (game, plan) = self.stations.get(table_id)?;
        self.plans.get(plan)?.max_win_h(GameCode::parse(game)?)
    }

    fn periods(&mut self, audit: &PeriodAudit) {
        let ours: Vec<&rules::operations::PeriodFinding> = audit
            .findings
            .iter()
            .filter(|f| self.stations.contains_key(f.table_id.as_str()))
            .collect();
        self.summary.period_findings = ours.len();
        self.summary.period_finding_lines = ours.iter().map(|f| period_finding_line(f)).collect();
        for line in &audit.tables {
            if self.stations.contains_key(line.period.table_id.as_str()) {
                self.table_period(line);
            }
        }
        for cage in &audit.cages {
            if self.stations.contains_key(cage.cage_id.as_str()) {
                self.cage_period(cage);
            }
        }
    }

    /// A period's row id (`{IČO}-{kind}-{station}-{seq_no of its opening}`) and its station's id.
    fn period_key(&self, kind: &str, station: &str, seq_no: u64, station_id: String) -> PeriodKey {
        PeriodKey {
            record: self.id(&[kind, station, &seq_no.to_string()]),
            station: station_id,
        }
    }

    /// A period's row in `pokladna_stul_turnaj_bingo.csv`: its kind, game and times.
    fn push_period(
        &mut self,
        key: &PeriodKey,
        kind: &str,
        game: Option<GameCode>,
        result_h: Option<i64>,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
    ) {
        let mut fields = vec![
            ("PokladnaStulTurnajBingo", kind.to_owned()),
            ("IDMisto", self.premises_id()),
            ("ProvozOd", date_time(from)),
            ("ProvozDo", date_time(to)),
        ];
        if let Some(game) = game {
            fields.push(("IDHra", self.game_id(game.as_str())));
            fields.push(("MenaKod", CURRENCY.to_owned()));
        }
        if let Some(result) = result_h {
            fields.push(("CistyHerniVysledek", money(result)));
        }
        self.push("pokladna_stul_turnaj_bingo.csv", key.row(fields));
    }

    /// A period's holdings (`0` cash, `1` chips, `2` tronc) at its start and end.
    fn push_holdings(&mut self, key: &PeriodKey, holdings: [(&str, i64, i64); 3]) {
        for (code, start, end) in holdings {
            let row = key.row([
                ("IDZaznamProstredek", format!("{}-{code}", key.record)),
                ("Prostredek", code.to_owned()),
                ("MenaKod", CURRENCY.to_owned()),
                ("StavVysePocatek", money(start)),
                ("StavVyseKonec", money(end)),
            ]);
            self.push("prostredek.csv", row);
        }
    }

    /// A period's total of one movement code (and payment: `1` cash, `0` not, empty).
    fn push_transaction(&mut self, key: &PeriodKey, code: &str, payment: &str, amount_h: i64) {
        let suffix = if payment.is_empty() {
            String::new()
        } else {
            format!("-{payment}")
        };
        let row = key.row([
            ("IDTransakce", format!("{}-{code}{suffix}", key.record)),
            ("TransakceTyp", code.to_owned()),
            ("TransakceVyse", money(amount_h)),
            ("MenaKod", CURRENCY.to_owned()),
            ("TransakceZpusob", payment.to_owned()),
        ]);
        self.push("pstb_transakce.csv", row);
    }

    /// A period's possible win at its start and end.
    fn push_possible_win(&mut self, key: &PeriodKey, name: String, start: i64, end: i64) {
        let row = key.row([
            ("IDMoznaVyhra", format!("{}-MV", key.record)),
            ("MoznaVyhraNazev", name),
            ("MoznaVyhraVysePocatek", money(start)),
            ("MoznaVyhraVyseKonec", money(end)),
            ("MenaKod", CURRENCY.to_owned()),
        ]);
        self.push("mozna_vyhra_stul_bingo.csv", row);
    }

    fn table_period(&mut self, line: &TablePeriodLine) {
        let p = &line.period;
        let (Some(ends_at), Some(win), Some(closing)) =
            (p.ends_at(), line.table_win_h, p.closing_float_h)
        else {
            self.summary.warnings.push(format!(
                "period `{}` of table `{}` (opened {}) is not closed: not in the package",
                p.period_id, p.table_id, p.opened_at
            ));
            return;
        };
        let Some(game) = GameCode::parse(&line.game) else {
            return;
        };
        self.summary.table_periods += 1;
        self.summary.rounds += line.rounds;
        let key = self.period_key("S", &p.table_id, p.opened_seq_no, self.id(&[&p.table_id]));
        self.push_period(&key, "S", Some(game), Some(win), p.opened_at, ends_at);
        self.push_holdings(
            &key,
            [
                ("0", 0, p.drop_cash_h),
                ("1", p.opening_float_h, closing),
                ("2", 0, p.tips_h),
            ],
        );
        // The drop box's cash bought chips at the table (J2, cash); tips went into the tronc (12).
        for (code, payment, amount) in [("J2", "1", p.drop_cash_h), ("12", "", p.tips_h)] {
            if amount != 0 {
                self.push_transaction(&key, code, payment, amount);
            }
        }
        // Between players (poker, OFC) the casino's part is the rake: an accompanying payment,
        // not a stake.
        let between_players = matches!(game, GameCode::PokerCash | GameCode::OpenFaceChinese);
        let (stakes, fees) = if between_players {
            (
                line.stakes_h.saturating_sub(line.rounds_result_h),
                Some(line.rounds_result_h),
            )
        } else {
            (line.stakes_h, None)
        };
        let row = key.row([
            (
                "IDJednaHraCastTurnaje",
                format!("{}-{}", key.record, game.as_str()),
            ),
            ("ZahajeniCas", date_time(p.opened_at)),
            ("UkonceniCas", date_time(ends_at)),
            ("UhrnSazkyVyse", money(stakes)),
            (
                "UhrnDoprovodnaPlneniVyse",
                fees.map(money).unwrap_or_default(),
            ),
            ("UhrnVyhryVyse", money(line.payouts_h)),
            ("UhrnVraceneSazkyVyse", money(line.returned_stakes_h)),
            ("MenaKod", CURRENCY.to_owned()),
        ]);
        self.push("hra_turnaj_bingo.csv", row);
        let possible = self.max_win(&p.table_id).unwrap_or(line.max_payout_h);
        let name = format!("{} – nejvyšší možná výhra", game.plan_name());
        self.push_possible_win(&key, name, possible, possible);
    }

    fn cage_period(&mut self, cage: &CagePeriod) {
        let (Some(ends_at), Some(closing)) = (cage.closed_at, cage.closing) else {
            self.summary.warnings.push(format!(
                "period `{}` of cage `{}` (opened {}) is not closed: not in the package",
                cage.period_id, cage.cage_id, cage.opened_at
            ));
            return;
        };
        self.summary.cage_periods += 1;
        let station = self.id(&[&cage.cage_id]);
        let key = self.period_key("P", &cage.cage_id, cage.opened_seq_no, station);
        self.push_period(&key, "P", None, None, cage.opened_at, ends_at);
        let opening = cage.opening;
        self.push_holdings(
            &key,
            [
                ("0", opening.cash_h, closing.cash_h),
                ("1", opening.chips_h, closing.chips_h),
                ("2", opening.tronc_h, closing.tronc_h),
            ],
        );
        let mut totals: BTreeMap<(&str, String), i64> = BTreeMap::new();
        for (&(kind, payment), movement) in &cage.movements {
            let (code, sign) = transaction_code(kind);
            let total = totals.entry((code, payment_code(payment))).or_default();
            *total = total.saturating_add(sign * movement.amount_h);
        }
        for ((code, payment), amount) in totals {
            self.push_transaction(&key, code, &payment, amount);
        }
    }

    fn tournaments(&mut self, tournaments: Vec<TournamentRow>) -> Result<(), PackageError> {
        for t in tournaments {
            let record = read_tournament(&t.entry)?;
            self.summary.tournaments += 1;
            let station = self.id(&["T", &record.tournament_id]);
            let key = self.period_key("T", &record.table_id, t.seq_no as u64, station);
            let game = GameCode::PokerTournament;
            self.push_period(
                &key,
                "T",
                Some(game),
                None,
                record.starts_at,
                record.played_at,
            );
            let players: BTreeSet<&str> =
                record.entries.iter().map(|e| e.player.as_str()).collect();
            let before_start: i64 = record
                .entries
                .iter()
                .filter(|e| e.at < record.starts_at)
                .fold(0i64, |sum, e| sum.saturating_add(e.amount_h));
            let (stakes, wins, returned) = if t.void {
                (t.stakes_h, 0, t.paid_h)
            } else {
                (t.stakes_h, t.paid_h, 0)
            };
            let row = key.row([
                ("IDJednaHraCastTurnaje", format!("{}-turnaj", key.record)),
                ("OznaceniTurnaj", record.tournament_id.clone()),
                ("ZahajeniCas", date_time(record.starts_at)),
                ("UkonceniCas", date_time(record.played_at)),
                ("UhrnSazkyVyse", money(stakes)),
                ("UhrnDoprovodnaPlneniVyse", money(record.fee_h)),
                ("UhrnVyhryVyse", money(wins)),
                ("UhrnVraceneSazkyVyse", money(returned)),
                (
                    "PovinnyVkladVyse",
                    format!("buy-in {}", money(record.buy_in_h)),
                ),
                ("MenaKod", CURRENCY.to_owned()),
                ("TurnajPocetHracu", players.len().to_string()),
                ("TurnajVkladyPredZahajenimVyse", money(before_start)),
            ]);
            self.push("hra_turnaj_bingo.csv", row);
            let first_prize = record.results.iter().map(|r| r.prize_h).max().unwrap_or(0);
            let name = format!("{} – první cena", record.tournament_id);
            self.push_possible_win(&key, name, record.guarantee_h.unwrap_or(0), first_prize);
        }
        Ok(())
    }

    /// Per game and gaming day played: the plan's largest win (the largest payout for games
    /// between players, which have none).
    fn possible_wins_per_game(&mut self, days: &[GameDay]) {
        for d in days {
            let Some(game) = GameCode::parse(&d.game) else {
                continue;
            };
            let plan_max = self
                .stations
                .values()
                .filter(|(g, _)| *g == d.game)
                .filter_map(|(_, plan)| self.plans.get(plan)?.max_win_h(game))
                .max();
            let possible = plan_max.unwrap_or(d.max_payout_h);
            let day = date(d.day);
            let row = vec![
                ("IDMoznaVyhraProHru", self.id(&[game.as_str(), &day])),
                ("IDHra", self.game_id(game.as_str())),
                ("IDMisto", self.premises_id()),
                ("MoznaVyhraProHruVysePocatek", money(possible)),
                ("MoznaVyhruProHruVyseKonec", money(possible)),
                ("MenaKod", CURRENCY.to_owned()),
                ("Datum", day),
            ];
            self.push("mozna_vyhra_pro_hru.csv", row);
        }
    }
}

fn read_tournament(entry: &[u8]) -> Result<rules::tournament::TournamentRecord, PackageError> {
    let bad = |reason: String| {
        PackageError::Report(ReportError::Ledger(ledger::LedgerError::MislabelledEntry {
            index: 0,
            stored: "a tournament's round",
            found: reason,
        }))
    };
    let value: serde_json::Value =
        serde_json::from_slice(entry).map_err(|e| bad(format!("not an entry ({e})")))?;
    match Round::parse(&value["envelope"]["record"]) {
        Ok(Round::Tournament(t)) => Ok(t),
        Ok(other) => Err(bad(format!("a {} round", other.game()))),
        Err(e) => Err(bad(e.to_string())),
    }
}
