//! Monthly payout/RTP report: per game, table and gaming day, and for the month, with the
//! theoretical RTP of the bets actually placed, the deviation from it in standard deviations,
//! per bet kind, and the findings.

use std::collections::BTreeMap;

use chrono::{DateTime, NaiveDate, Utc};
use diesel::PgConnection;
use ledger::storage::read_cut::LedgerCut;
use ledger::storage::report_reads;
use ledger::storage::report_reads::findings::FindingAggregate;
use ledger::storage::report_reads::monthly::{DayAggregate, KindAggregate};
use ledger::storage::report_reads::round_sums::RoundCounts;
use ledger::storage::report_reads::tables::TableGame;
use serde::Serialize;
use utoipa::ToSchema;

use crate::deviation::{pct, Deviation, Moments, FLAG_SD, SKEWNESS_LIMIT};
use crate::sheet::columns::{
    ACTUAL_RTP, DEVIATION_SD, FINDINGS, FINDINGS_AMOUNT, GAME, GAMING_DAY, GGR, PAYOUTS,
    PROVISIONAL, ROUNDS, STAKES, TABLE, THEORETICAL_RTP,
};
use crate::sheet::{machine_csv, Cell};
use crate::ReportError;
use rules::gaming_day::{GamingDayClock, Month};

/// Which month, how far into it, and which games or table.
#[derive(Debug, Clone)]
pub struct RtpRequest {
    pub month: Month,
    /// The last gaming day included (month to date); the whole month when none.
    pub through: Option<NaiveDate>,
    pub game: Option<String>,
    pub table_id: Option<String>,
}

/// Findings by where their resolution stands, and by kind.
#[derive(Debug, Clone, Default, PartialEq, Serialize, ToSchema)]
pub struct FindingSummary {
    pub count: i64,
    pub amount_h: i64,
    /// Not yet resolved.
    pub open: i64,
    pub escalated: i64,
    pub confirmed: i64,
    pub dismissed: i64,
    /// What confirmations say was recovered from players or paid back to them.
    pub settled_h: i64,
    pub by_kind: BTreeMap<String, KindFindings>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, ToSchema)]
pub struct KindFindings {
    pub count: i64,
    pub amount_h: i64,
    pub open: i64,
}

/// A line of the report: one game (table_id null: all its tables) or one table, over one
/// gaming day or (gaming_day null) the month.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct RtpRow {
    pub gaming_day: Option<NaiveDate>,
    pub game: String,
    pub table_id: Option<String>,
    pub rounds: i64,
    pub void_rounds: i64,
    /// Every stake placed, void rounds included.
    pub stakes_h: i64,
    /// Stakes handed back on void rounds.
    pub returned_stakes_h: i64,
    /// What the tables paid out on played rounds (wins with their stakes).
    pub payouts_h: i64,
    /// stakes − returned stakes − payouts (games between players: the rake or the fee).
    pub ggr_h: i64,
    /// payouts / (stakes − returned stakes), percent; games against the house only.
    pub actual_rtp_pct: Option<f64>,
    /// The theoretical RTP of the bets actually placed (the plan's exact figures), percent.
    pub theoretical_rtp_pct: Option<f64>,
    /// Actual against theoretical payouts; none for games between players.
    pub deviation: Option<Deviation>,
    pub findings: FindingSummary,
}

/// One bet kind of a game (table_id null) or of a table, over the report's days.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct KindRow {
    pub game: String,
    pub table_id: Option<String>,
    /// The bet kind (`straight`, `red`, `main`, `ante_blind_play`, a wheel's box, …).
    pub bet_kind: String,
    /// Rounds in which the kind was bet.
    pub rounds: i64,
    pub bets: i64,
    pub stakes_h: i64,
    pub payouts_h: i64,
    pub actual_rtp_pct: Option<f64>,
    pub theoretical_rtp_pct: Option<f64>,
    pub deviation: Option<Deviation>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RtpReport {
    /// `YYYY-MM`.
    pub month: String,
    pub first_day: NaiveDate,
    /// The last gaming day included.
    pub through_day: NaiveDate,
    /// The report's bounds in UTC.
    pub starts_at: DateTime<Utc>,
    pub ends_at: DateTime<Utc>,
    /// Local hour (Europe/Prague) at which a gaming day starts.
    pub gaming_day_start_hour: u32,
    pub game: Option<String>,
    pub table_id: Option<String>,
    /// |z| above this is flagged.
    pub flag_sd: f64,
    /// A flag is meaningful once the skewness of the summed payouts is at most this.
    pub skewness_limit: f64,
    /// The month (or the day it runs through) has not ended yet: its figures will still
    /// change, so the report is provisional.
    pub provisional: bool,
    /// Why it is provisional, in words; none when final.
    pub provisional_note: Option<String>,
    /// The Ministry's packages (any month) whose latest version it has not confirmed yet.
    pub ministry_packages_unconfirmed: Vec<crate::mf::status::Unconfirmed>,
    /// Month rows first (games, then their tables), then each day's.
    pub rows: Vec<RtpRow>,
    pub kinds: Vec<KindRow>,
    /// The ledger entries the report covers.
    pub covers: crate::coverage::Coverage,
    /// The report's archived gaming days: their figures are those kept and sealed when their
    /// rounds left the database (with any round of theirs received since), the other days'
    /// read from the ledger.
    pub archived_days: Vec<crate::archived::ArchivedDay>,
}

impl RtpReport {
    /// Rounds played in the report.
    pub fn rounds(&self) -> i64 {
        self.rows
            .iter()
            .filter(|r| r.gaming_day.is_none() && r.table_id.is_none())
            .map(|r| r.rounds)
            .sum()
    }
}

fn add(a: i64, b: i64) -> Result<i64, ReportError> {
    crate::error::checked_sum(a, b, "RTP report totals")
}

/// Running sums of a row.
#[derive(Debug, Clone, Default)]
struct Sums {
    /// Rounds, void rounds, every stake and the stakes handed back on void rounds.
    counts: RoundCounts,
    payouts_h: i64,
    moments: Moments,
    findings: FindingSummary,
}

impl FindingSummary {
    fn absorb(&mut self, o: &FindingSummary) -> Result<(), ReportError> {
        self.count = add(self.count, o.count)?;
        self.amount_h = add(self.amount_h, o.amount_h)?;
        self.open = add(self.open, o.open)?;
        self.escalated = add(self.escalated, o.escalated)?;
        self.confirmed = add(self.confirmed, o.confirmed)?;
        self.dismissed = add(self.dismissed, o.dismissed)?;
        self.settled_h = add(self.settled_h, o.settled_h)?;
        for (kind, k) in &o.by_kind {
            let mine = self.by_kind.entry(kind.clone()).or_default();
            mine.count = add(mine.count, k.count)?;
            mine.amount_h = add(mine.amount_h, k.amount_h)?;
            mine.open = add(mine.open, k.open)?;
        }
        Ok(())
    }
}

impl Sums {
    fn absorb(&mut self, o: &Sums) -> Result<(), ReportError> {
        self.counts.absorb_with(&o.counts, add)?;
        self.payouts_h = add(self.payouts_h, o.payouts_h)?;
        self.moments.absorb(&o.moments);
        self.findings.absorb(&o.findings)
    }

    fn row(
        &self,
        gaming_day: Option<NaiveDate>,
        game: &str,
        table_id: Option<&str>,
    ) -> Result<RtpRow, ReportError> {
        let played_h = self
            .counts
            .stakes_h
            .checked_sub(self.counts.returned_h)
            .ok_or(ReportError::Overflow("played stakes"))?;
        let ggr_h = played_h
            .checked_sub(self.payouts_h)
            .ok_or(ReportError::Overflow("GGR"))?;
        let against_house = self.moments.rtp_stakes_h > 0;
        Ok(RtpRow {
            gaming_day,
            game: game.to_owned(),
            table_id: table_id.map(str::to_owned),
            rounds: self.counts.rounds,
            void_rounds: self.counts.void_rounds,
            stakes_h: self.counts.stakes_h,
            returned_stakes_h: self.counts.returned_h,
            payouts_h: self.payouts_h,
            ggr_h,
            actual_rtp_pct: (played_h > 0 && against_house)
                .then(|| pct(self.payouts_h as f64 / played_h as f64)),
            theoretical_rtp_pct: self.moments.theoretical_rtp_pct(),
            deviation: self.moments.deviation(self.payouts_h),
            findings: self.findings.clone(),
        })
    }
}

/// Builds the report. Every table registered before the end has a month row, so a quiet table
/// is reported as such; day rows are the days with rounds or findings.
pub fn build(
    conn: &mut PgConnection,
    clock: &GamingDayClock,
    request: &RtpRequest,
) -> Result<RtpReport, ReportError> {
    let cut = crate::coverage::primary_now(conn)?;
    build_at(conn, cut, clock, request)
}

/// [`build`] of the entries below `cut` (a replica's checkpoint, say).
pub fn build_at(
    conn: &mut PgConnection,
    cut: LedgerCut,
    clock: &GamingDayClock,
    request: &RtpRequest,
) -> Result<RtpReport, ReportError> {
    let (first_day, through_day) = report_days(request)?;
    let days: Vec<NaiveDate> = first_day
        .iter_days()
        .take_while(|d| *d <= through_day)
        .collect();
    // Day starts and the end: width_bucket gives each round its day's index (1-based).
    let mut bounds: Vec<DateTime<Utc>> = days.iter().map(|d| clock.start_of(*d)).collect();
    let end = clock.bounds(through_day).1;
    bounds.push(end);
    let start = bounds[0];

    let figures = report_reads::with_archived::month(
        conn,
        cut,
        &bounds,
        request.game.as_deref(),
        request.table_id.as_deref(),
    )?;
    let rows = PerTable::of(&days, figures.tables, figures.days, figures.findings)?.rows()?;
    let kinds = kind_rows(figures.kinds)?;
    Ok(RtpReport {
        month: request.month.to_string(),
        first_day,
        through_day,
        starts_at: start,
        ends_at: end,
        gaming_day_start_hour: clock.start_hour,
        game: request.game.clone(),
        table_id: request.table_id.clone(),
        flag_sd: FLAG_SD,
        skewness_limit: SKEWNESS_LIMIT,
        provisional: Utc::now() < end,
        provisional_note: (Utc::now() < end).then(|| {
            format!(
                "provisional: gaming day {through_day} ends at {end}; the figures change until then"
            )
        }),
        ministry_packages_unconfirmed: crate::mf::status::unconfirmed(conn)?,
        rows,
        kinds,
        covers: cut.into(),
        archived_days: crate::archived::days_within(conn, cut, start, end)?,
    })
}

/// The report's first and last gaming days. A report is of the month it names: `through` is
/// one of its days, never a day after it (which would label a whole month's figures with a day
/// they do not reach).
fn report_days(request: &RtpRequest) -> Result<(NaiveDate, NaiveDate), ReportError> {
    let first_day = request.month.first_day();
    let last_of_month = request
        .month
        .next_first_day()
        .pred_opt()
        .unwrap_or(first_day);
    let through_day = request.through.unwrap_or(last_of_month);
    if through_day < first_day || through_day > last_of_month {
        return Err(ReportError::InvalidFilter(format!(
            "`through` must be a day of {}: {first_day} to {last_of_month}, not {through_day}",
            request.month
        )));
    }
    Ok((first_day, through_day))
}

/// The sums of each (game, table), day by day.
struct PerTable(BTreeMap<(String, String), BTreeMap<NaiveDate, Sums>>);

impl PerTable {
    /// Every table registered (a quiet one too), with the rounds and findings of its days.
    fn of(
        days: &[NaiveDate],
        tables: Vec<TableGame>,
        rounds: Vec<DayAggregate>,
        findings: Vec<FindingAggregate>,
    ) -> Result<PerTable, ReportError> {
        let day_of = |index: i32| -> Option<NaiveDate> {
            usize::try_from(index)
                .ok()
                .and_then(|i| i.checked_sub(1))
                .and_then(|i| days.get(i).copied())
        };
        let mut per_table = PerTable(BTreeMap::new());
        for t in tables {
            per_table.0.entry((t.game, t.table_id)).or_default();
        }
        for a in rounds {
            if let Some(day) = day_of(a.day_index) {
                per_table.add_rounds(day, a);
            }
        }
        for f in findings {
            if let Some(day) = day_of(f.period) {
                per_table.add_findings(day, f)?;
            }
        }
        Ok(per_table)
    }

    fn day(&mut self, game: String, table_id: String, day: NaiveDate) -> &mut Sums {
        self.0
            .entry((game, table_id))
            .or_default()
            .entry(day)
            .or_default()
    }

    fn add_rounds(&mut self, day: NaiveDate, a: DayAggregate) {
        let sums = self.day(a.game, a.table_id, day);
        sums.counts = a.counts;
        sums.payouts_h = a.payouts_h;
        sums.moments = Moments {
            rounds: a.theory_rounds,
            rtp_stakes_h: a.moments.rtp_stakes_h,
            expected_payout_mh: i128::from(a.moments.expected_payout_mh),
            variance_h2: a.moments.variance_h2,
            third_moment_h3: a.third_moment_h3,
        };
    }

    fn add_findings(&mut self, day: NaiveDate, f: FindingAggregate) -> Result<(), ReportError> {
        let resolved = add(add(f.escalated, f.confirmed)?, f.dismissed)?;
        let open = f
            .count
            .checked_sub(resolved)
            .ok_or(ReportError::Overflow("open findings"))?;
        let summary = FindingSummary {
            count: f.count,
            amount_h: f.amount_h,
            open,
            escalated: f.escalated,
            confirmed: f.confirmed,
            dismissed: f.dismissed,
            settled_h: f.settled_h,
            by_kind: BTreeMap::from([(
                f.kind,
                KindFindings {
                    count: f.count,
                    amount_h: f.amount_h,
                    open,
                },
            )]),
        };
        self.day(f.game, f.table_id, day).findings.absorb(&summary)
    }

    /// The month's rows (each game, then its tables), then each day's in order; within a day,
    /// each game's total before its tables.
    fn rows(&self) -> Result<Vec<RtpRow>, ReportError> {
        let mut month_rows = Vec::new();
        let mut day_rows = Vec::new();
        let mut games: BTreeMap<&str, (Sums, BTreeMap<NaiveDate, Sums>)> = BTreeMap::new();
        for ((game, table_id), by_day) in &self.0 {
            let (game_month, game_days) = games.entry(game.as_str()).or_default();
            let mut table_month = Sums::default();
            for (day, sums) in by_day {
                table_month.absorb(sums)?;
                game_days.entry(*day).or_default().absorb(sums)?;
                day_rows.push(sums.row(Some(*day), game, Some(table_id))?);
            }
            game_month.absorb(&table_month)?;
            month_rows.push(table_month.row(None, game, Some(table_id))?);
        }
        let mut rows = Vec::new();
        for (game, (month, by_day)) in &games {
            rows.push(month.row(None, game, None)?);
            rows.extend(month_rows.iter().filter(|r| r.game == *game).cloned());
            for (day, sums) in by_day {
                day_rows.push(sums.row(Some(*day), game, None)?);
            }
        }
        day_rows.sort_by(|a, b| {
            (a.gaming_day, &a.game, &a.table_id).cmp(&(b.gaming_day, &b.game, &b.table_id))
        });
        rows.extend(day_rows);
        Ok(rows)
    }
}

/// Each kind per table, and per game over its tables.
fn kind_rows(aggregates: Vec<KindAggregate>) -> Result<Vec<KindRow>, ReportError> {
    #[derive(Default)]
    struct KindSums {
        bets: i64,
        paid_h: i64,
        moments: Moments,
    }
    let mut per_game: BTreeMap<(String, String), KindSums> = BTreeMap::new();
    let mut table_rows = Vec::new();
    for a in aggregates {
        let moments = Moments {
            rounds: a.rounds,
            rtp_stakes_h: a.stakes_h,
            expected_payout_mh: i128::from(a.expected_payout_mh),
            variance_h2: a.variance_h2,
            third_moment_h3: a.third_moment_h3,
        };
        let total = per_game
            .entry((a.game.clone(), a.kind.clone()))
            .or_default();
        total.bets = add(total.bets, a.bets)?;
        total.paid_h = add(total.paid_h, a.paid_h)?;
        total.moments.absorb(&moments);
        table_rows.push(kind_row(
            a.game,
            Some(a.table_id),
            a.kind,
            a.bets,
            a.paid_h,
            &moments,
        ));
    }
    let mut rows: Vec<KindRow> = per_game
        .into_iter()
        .map(|((game, kind), s)| kind_row(game, None, kind, s.bets, s.paid_h, &s.moments))
        .collect();
    rows.extend(table_rows);
    // Each game's kinds, then each table's.
    rows.sort_by(|a, b| {
        (&a.game, &a.table_id, &a.bet_kind).cmp(&(&b.game, &b.table_id, &b.bet_kind))
    });
    Ok(rows)
}

fn kind_row(
    game: String,
    table_id: Option<String>,
    bet_kind: String,
    bets: i64,
    paid_h: i64,
    m: &Moments,
) -> KindRow {
    KindRow {
        game,
        table_id,
        bet_kind,
        rounds: m.rounds,
        bets,
        stakes_h: m.rtp_stakes_h,
        payouts_h: paid_h,
        actual_rtp_pct: (m.rtp_stakes_h > 0).then(|| pct(paid_h as f64 / m.rtp_stakes_h as f64)),
        theoretical_rtp_pct: m.theoretical_rtp_pct(),
        deviation: m.deviation(paid_h),
    }
}

/// The report as CSV (RFC 4180, UTF-8, CRLF): one line per row (`line` = `game`) and per bet
/// kind (`line` = `kind`); an empty gaming_day is the whole report, an empty table_id all
/// tables of the game.
pub fn to_csv(report: &RtpReport) -> Result<String, ReportError> {
    let provisional = Cell::text(&report.provisional.to_string());
    let lines = report
        .rows
        .iter()
        .map(|r| game_line(report, r, &provisional))
        .chain(
            report
                .kinds
                .iter()
                .map(|k| kind_line(report, k, &provisional)),
        );
    machine_csv(csv_heading(), lines)
}

/// The CSV's columns: the figures, the findings, each kind's findings, and `provisional`.
fn csv_heading() -> Vec<String> {
    let mut heading: Vec<String> = [
        "line",
        "month",
        "gaming_day",
        "game",
        "table_id",
        "bet_kind",
        "rounds",
        "bets",
        "void_rounds",
        "stakes_h",
        "returned_stakes_h",
        "payouts_h",
        "ggr_h",
        "actual_rtp_pct",
        "theoretical_rtp_pct",
        "band_3sd_pct",
        "deviation_sd",
        "skewness",
        "rounds_needed",
        "flagged",
        "flag_meaningful",
        "findings",
        "findings_amount_h",
        "findings_open",
        "findings_escalated",
        "findings_confirmed",
        "findings_dismissed",
        "findings_settled_h",
    ]
    .into_iter()
    .map(str::to_owned)
    .collect();
    for k in rules::FindingKind::ALL {
        heading.push(format!("findings_{}", k.as_str()));
        heading.push(format!("findings_{}_amount_h", k.as_str()));
    }
    heading.push("provisional".to_owned());
    heading
}

/// The deviation's columns, empty without a theory.
fn deviation_cells(d: &Option<Deviation>) -> Vec<Cell> {
    match d {
        Some(d) => vec![
            Cell::decimal_or_empty(Some(d.band_3sd_pct), 4),
            Cell::decimal_or_empty(Some(d.deviation_sd), 2),
            Cell::decimal_or_empty(Some(d.skewness), 4),
            Cell::Count(d.rounds_needed),
            Cell::text(&d.flagged.to_string()),
            Cell::text(&d.flag_meaningful.to_string()),
        ],
        None => vec![Cell::Empty; 6],
    }
}

/// A row's line (`game`): its figures, deviation and findings.
fn game_line(report: &RtpReport, r: &RtpRow, provisional: &Cell) -> Vec<Cell> {
    let mut line = vec![
        Cell::text("game"),
        Cell::text(&report.month),
        r.gaming_day.map_or(Cell::Empty, Cell::Day),
        Cell::text(&r.game),
        Cell::text_or_empty(r.table_id.as_deref()),
        Cell::Empty,
        Cell::Count(r.rounds),
        Cell::Empty,
        Cell::Count(r.void_rounds),
        Cell::Money(r.stakes_h),
        Cell::Money(r.returned_stakes_h),
        Cell::Money(r.payouts_h),
        Cell::Money(r.ggr_h),
        Cell::decimal_or_empty(r.actual_rtp_pct, 4),
        Cell::decimal_or_empty(r.theoretical_rtp_pct, 4),
    ];
    line.extend(deviation_cells(&r.deviation));
    let f = &r.findings;
    line.extend([
        Cell::Count(f.count),
        Cell::Money(f.amount_h),
        Cell::Count(f.open),
        Cell::Count(f.escalated),
        Cell::Count(f.confirmed),
        Cell::Count(f.dismissed),
        Cell::Money(f.settled_h),
    ]);
    for k in rules::FindingKind::ALL {
        let t = f.by_kind.get(k.as_str()).copied().unwrap_or_default();
        line.push(Cell::Count(t.count));
        line.push(Cell::Money(t.amount_h));
    }
    line.push(provisional.clone());
    line
}

/// A bet kind's line (`kind`): its figures and deviation; no findings.
fn kind_line(report: &RtpReport, k: &KindRow, provisional: &Cell) -> Vec<Cell> {
    let blank_findings = 7 + 2 * rules::FindingKind::ALL.len();
    let mut line = vec![
        Cell::text("kind"),
        Cell::text(&report.month),
        Cell::Empty,
        Cell::text(&k.game),
        Cell::text_or_empty(k.table_id.as_deref()),
        Cell::text(&k.bet_kind),
        Cell::Count(k.rounds),
        Cell::Count(k.bets),
        Cell::Empty,
        Cell::Money(k.stakes_h),
        Cell::Empty,
        Cell::Money(k.payouts_h),
        Cell::Empty,
        Cell::decimal_or_empty(k.actual_rtp_pct, 4),
        Cell::decimal_or_empty(k.theoretical_rtp_pct, 4),
    ];
    line.extend(deviation_cells(&k.deviation));
    line.extend(std::iter::repeat_n(Cell::Empty, blank_findings));
    line.push(provisional.clone());
    line
}

/// The columns of the month's report for people.
const PEOPLE_COLUMNS: [crate::sheet::Column; 14] = {
    use crate::sheet::column;
    [
        GAMING_DAY,
        GAME,
        TABLE,
        ROUNDS,
        STAKES,
        PAYOUTS,
        GGR,
        ACTUAL_RTP,
        THEORETICAL_RTP,
        DEVIATION_SD,
        column("flagged", "Mimo ±3σ", "Beyond ±3σ"),
        FINDINGS,
        FINDINGS_AMOUNT,
        PROVISIONAL,
    ]
};

/// The month's report as a sheet for people: the month's lines (each game, then its tables),
/// then each day's, with the plan's game names and amounts in koruny.
pub fn sheet(
    report: &RtpReport,
    plans: &rules::PlanBook,
    language: crate::sheet::Language,
) -> crate::sheet::Sheet {
    let yes_no = |b: bool| Cell::yes_no(b, language);
    let rows = report
        .rows
        .iter()
        .map(|r| {
            vec![
                r.gaming_day.map_or_else(
                    || Cell::Text(language.pick("celý měsíc", "the month").to_owned()),
                    Cell::Day,
                ),
                Cell::game(&r.game, plans),
                r.table_id.clone().map_or_else(
                    || Cell::Text(language.pick("celkem", "all tables").to_owned()),
                    Cell::Text,
                ),
                Cell::Count(r.rounds),
                Cell::Money(r.stakes_h),
                Cell::Money(r.payouts_h),
                Cell::Money(r.ggr_h),
                r.actual_rtp_pct.map_or(Cell::Empty, Cell::Percent),
                r.theoretical_rtp_pct.map_or(Cell::Empty, Cell::Percent),
                r.deviation
                    .as_ref()
                    .map_or(Cell::Empty, |d| Cell::Percent(d.deviation_sd)),
                r.deviation
                    .as_ref()
                    .map_or(Cell::Empty, |d| yes_no(d.flagged)),
                Cell::Count(r.findings.count),
                Cell::Money(r.findings.amount_h),
                yes_no(report.provisional),
            ]
        })
        .collect();
    crate::sheet::Sheet {
        name: format!("RTP {}", report.month),
        columns: PEOPLE_COLUMNS.to_vec(),
        rows,
    }
}
