//! Daily per-game payout/RTP report: per table and per game, for one gaming day.

use std::collections::BTreeMap;

use chrono::{DateTime, NaiveDate, Utc};
use diesel::PgConnection;
use ledger::storage::read_cut::LedgerCut;
use ledger::storage::report_reads;
use ledger::storage::report_reads::round_sums::{RoundCounts, RtpMoments, TournamentSums};
use serde::Serialize;
use utoipa::ToSchema;

use crate::sheet::columns::{
    ACTUAL_RTP, DEVIATION_SD, FINDINGS, FINDINGS_AMOUNT, GAME, GAMING_DAY, GGR, PAYOUTS,
    RETURNED_STAKES, ROUNDS, STAKES, TABLE, THEORETICAL_RTP,
};
use crate::sheet::{machine_csv, Cell};
use crate::ReportError;

use rules::gaming_day::GamingDayClock;

/// Count and total amount of one kind of finding.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, ToSchema)]
pub struct KindTotal {
    pub count: i64,
    pub amount_h: i64,
}

/// One line of the report: a table, or (table_id = null) all tables of a game.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct PayoutRow {
    pub game: String,
    /// The table, or null for the game's total over all tables.
    pub table_id: Option<String>,
    pub rounds: i64,
    pub void_rounds: i64,
    /// Every stake placed, void rounds included.
    pub stakes_h: i64,
    /// Stakes handed back on void rounds.
    pub returned_stakes_h: i64,
    /// What the tables paid out on played rounds (wins with their stakes).
    pub payouts_h: i64,
    /// What the plan says they should have paid.
    pub expected_payouts_h: i64,
    /// Gross gaming revenue: stakes − returned stakes − payouts.
    pub ggr_h: i64,
    /// What the GGR is: `stakes_minus_payouts` for games against the house; `rake` for poker
    /// cash games and Open Face Chinese, where players play each other (stakes are the pots or
    /// the money lost, payouts what the winners took, so the GGR is the rake the casino took);
    /// `fee_less_overlay` for tournaments (stakes are the moneypools, payouts the prizes).
    pub ggr_basis: String,
    /// Tournaments: the fees taken and what the operator added to reach guarantees.
    pub tournament_fees_h: Option<i64>,
    pub tournament_overlay_h: Option<i64>,
    /// Games between players: the casino's share of the stakes in percent (poker and OFC: the
    /// rake; tournaments: the fee less any overlay, of the moneypool).
    pub rake_share_pct: Option<f64>,
    /// payouts / (stakes − returned stakes), in percent.
    pub actual_rtp_pct: Option<f64>,
    /// Theoretical RTP of the bets actually placed, in percent (roulette: 36/37 = 97.2973 %;
    /// blackjack by basic strategy's house edge, UTH by the exact best-strategy edge).
    /// Null when the plan has no figure for the game's rules.
    pub theoretical_rtp_pct: Option<f64>,
    /// (payouts − theoretical payouts) in standard deviations of the day's payouts.
    pub deviation_sd: Option<f64>,
    pub findings: i64,
    pub findings_amount_h: i64,
    /// The findings by where their resolution stands when the report is built: not yet resolved,
    /// escalated, confirmed, dismissed (they add up to `findings`).
    pub findings_open: i64,
    pub findings_escalated: i64,
    pub findings_confirmed: i64,
    pub findings_dismissed: i64,
    /// What confirmations say was recovered from players or paid back to them.
    pub findings_settled_h: i64,
    pub findings_by_kind: BTreeMap<String, KindTotal>,
    /// Rounds received more than the late-record window after they were played: each changed
    /// this report after its day had closed.
    pub late_rounds: i64,
    /// When the last of them arrived: the report is final only from then on.
    pub last_late_received_at: Option<DateTime<Utc>>,
    /// A table's row: whether it posted limits in force from the day's start (`false`: some or
    /// all of its bets were judged by the plan's limits alone). None for a game's total and
    /// for games that post no limits.
    pub posted_limits: Option<bool>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct DailyReport {
    pub gaming_day: NaiveDate,
    /// The gaming day's bounds in UTC.
    pub starts_at: DateTime<Utc>,
    pub ends_at: DateTime<Utc>,
    /// The late-record window, in hours.
    pub late_after_hours: i64,
    /// Rounds of this day that arrived after the window (all tables).
    pub late_rounds: i64,
    /// When the last of them arrived: the day's figures changed then, after the day had closed.
    pub last_late_received_at: Option<DateTime<Utc>>,
    /// Rounds played in the day, all tables.
    pub rounds: i64,
    /// `no rounds were played on this gaming day` when none were.
    pub note: Option<String>,
    /// Tables (of games that post limits) with no posted limits in force from the day's start:
    /// their bets were judged by the plan's limits alone.
    pub tables_without_posted_limits: Vec<String>,
    pub rows: Vec<PayoutRow>,
    /// The ledger entries the report covers.
    pub covers: crate::coverage::Coverage,
    /// When the day is archived: its figures are those kept and sealed when its rounds left
    /// the database (with any round of the day received since), and where the rounds are.
    pub archived: Option<crate::archived::ArchivedDay>,
}

/// What a report of a day without play says.
pub const NO_ROUNDS: &str = "no rounds were played on this gaming day";

/// Findings by where their resolution stands.
#[derive(Debug, Clone, Copy, Default)]
struct StateCounts {
    escalated: i64,
    confirmed: i64,
    dismissed: i64,
    settled_h: i64,
}

impl StateCounts {
    fn absorb(&mut self, o: &StateCounts) -> Result<(), ReportError> {
        self.escalated = add(self.escalated, o.escalated)?;
        self.confirmed = add(self.confirmed, o.confirmed)?;
        self.dismissed = add(self.dismissed, o.dismissed)?;
        self.settled_h = add(self.settled_h, o.settled_h)?;
        Ok(())
    }
}

/// Running sums for a row; the statistics are kept apart from the money.
#[derive(Debug, Clone, Default)]
struct Sums {
    counts: RoundCounts,
    payouts_h: i64,
    expected_payouts_h: i64,
    moments: RtpMoments,
    tournaments: TournamentSums,
    kinds: BTreeMap<String, KindTotal>,
    states: StateCounts,
    late_rounds: i64,
    last_late_received_at: Option<DateTime<Utc>>,
}

fn add(a: i64, b: i64) -> Result<i64, ReportError> {
    crate::error::checked_sum(a, b, "report totals")
}

impl Sums {
    fn absorb(&mut self, o: &Sums) -> Result<(), ReportError> {
        self.counts.absorb_with(&o.counts, add)?;
        self.payouts_h = add(self.payouts_h, o.payouts_h)?;
        self.expected_payouts_h = add(self.expected_payouts_h, o.expected_payouts_h)?;
        self.moments.absorb_with(&o.moments, add)?;
        self.tournaments.absorb_with(&o.tournaments, add)?;
        for (kind, t) in &o.kinds {
            let mine = self.kinds.entry(kind.clone()).or_default();
            mine.count = add(mine.count, t.count)?;
            mine.amount_h = add(mine.amount_h, t.amount_h)?;
        }
        self.states.absorb(&o.states)?;
        self.late_rounds = add(self.late_rounds, o.late_rounds)?;
        self.last_late_received_at = self.last_late_received_at.max(o.last_late_received_at);
        Ok(())
    }

    fn row(&self, game: &str, table_id: Option<&str>) -> Result<PayoutRow, ReportError> {
        let played_h = self
            .counts
            .stakes_h
            .checked_sub(self.counts.returned_h)
            .ok_or(ReportError::Overflow("played stakes"))?;
        let ggr_h = played_h
            .checked_sub(self.payouts_h)
            .ok_or(ReportError::Overflow("GGR"))?;
        let pct = |x: f64| (x * 1_000_000.0).round() / 10_000.0;
        // Players play each other: the casino's revenue is the rake (cash games) or the fee less
        // any overlay (tournaments: stakes are the moneypool, payouts the prizes).
        let tournament = game == rules::GameCode::PokerTournament.as_str();
        let rake_game = tournament
            || [rules::GameCode::PokerCash, rules::GameCode::OpenFaceChinese]
                .iter()
                .any(|g| g.as_str() == game);
        let actual_rtp_pct =
            (played_h > 0 && !rake_game).then(|| pct(self.payouts_h as f64 / played_h as f64));
        let rake_share_pct =
            (played_h > 0 && rake_game).then(|| pct(ggr_h as f64 / played_h as f64));
        let theoretical_rtp_pct = (self.moments.rtp_stakes_h > 0).then(|| {
            pct(self.moments.expected_payout_mh as f64 / 1000.0 / self.moments.rtp_stakes_h as f64)
        });
        let deviation_sd = (self.moments.variance_h2 > 0.0).then(|| {
            let excess = self.payouts_h as f64 - self.moments.expected_payout_mh as f64 / 1000.0;
            ((excess / self.moments.variance_h2.sqrt()) * 100.0).round() / 100.0
        });
        let mut findings = 0;
        let mut findings_amount_h = 0;
        for t in self.kinds.values() {
            findings = add(findings, t.count)?;
            findings_amount_h = add(findings_amount_h, t.amount_h)?;
        }
        let states = &self.states;
        let resolved = add(add(states.escalated, states.confirmed)?, states.dismissed)?;
        let findings_open = findings
            .checked_sub(resolved)
            .ok_or(ReportError::Overflow("open findings"))?;
        Ok(PayoutRow {
            game: game.to_owned(),
            table_id: table_id.map(str::to_owned),
            rounds: self.counts.rounds,
            void_rounds: self.counts.void_rounds,
            stakes_h: self.counts.stakes_h,
            returned_stakes_h: self.counts.returned_h,
            payouts_h: self.payouts_h,
            expected_payouts_h: self.expected_payouts_h,
            ggr_h,
            ggr_basis: if tournament {
                "fee_less_overlay".into()
            } else if rake_game {
                "rake".into()
            } else {
                "stakes_minus_payouts".into()
            },
            tournament_fees_h: tournament.then_some(self.tournaments.fees_h),
            tournament_overlay_h: tournament.then_some(self.tournaments.overlay_h),
            rake_share_pct,
            actual_rtp_pct,
            theoretical_rtp_pct,
            deviation_sd,
            findings,
            findings_amount_h,
            findings_open,
            findings_escalated: states.escalated,
            findings_confirmed: states.confirmed,
            findings_dismissed: states.dismissed,
            findings_settled_h: states.settled_h,
            findings_by_kind: self.kinds.clone(),
            late_rounds: self.late_rounds,
            last_late_received_at: self.last_late_received_at,
            posted_limits: None,
        })
    }
}

/// Builds the report of one gaming day. Every table registered by the end of the day has a
/// row, so a day without activity is reported as such.
pub fn build(
    conn: &mut PgConnection,
    clock: &GamingDayClock,
    day: NaiveDate,
) -> Result<DailyReport, ReportError> {
    let cut = crate::coverage::primary_now(conn)?;
    build_at(conn, cut, clock, day)
}

/// [`build`] of the entries below `cut` (a replica's checkpoint, say).
pub fn build_at(
    conn: &mut PgConnection,
    cut: LedgerCut,
    clock: &GamingDayClock,
    day: NaiveDate,
) -> Result<DailyReport, ReportError> {
    let (start, end) = clock.bounds(day);
    let aggregates =
        report_reads::with_archived::tables_of_day(conn, cut, start, end, clock.late_after)?;
    let kinds = report_reads::findings::aggregate(conn, cut, &[start, end], None, None)?;
    let tables = report_reads::tables::registered_before(conn, end, None, None)?;

    let mut per_table: BTreeMap<(String, String), Sums> = BTreeMap::new();
    for t in tables {
        per_table.entry((t.game, t.table_id)).or_default();
    }
    for a in aggregates {
        let s = per_table.entry((a.game, a.table_id)).or_default();
        s.counts = a.counts;
        s.payouts_h = a.payouts_h;
        s.expected_payouts_h = a.expected_payouts_h;
        s.moments = a.moments;
        s.tournaments = a.tournaments;
        s.late_rounds = a.late_rounds;
        s.last_late_received_at = a.last_late_received_at;
    }
    for k in kinds {
        let sums = per_table.entry((k.game, k.table_id)).or_default();
        sums.states.absorb(&StateCounts {
            escalated: k.escalated,
            confirmed: k.confirmed,
            dismissed: k.dismissed,
            settled_h: k.settled_h,
        })?;
        sums.kinds.insert(
            k.kind,
            KindTotal {
                count: k.count,
                amount_h: k.amount_h,
            },
        );
    }

    let posted_from = ledger::storage::registry_log::limits_posted_from(conn, end)?;
    let posts_limits = |game: &str, table_id: &str| {
        let posting_game = rules::GameCode::parse(game)
            .is_some_and(|g| !rules::TableLimits::fields_of(g).is_empty());
        posting_game.then(|| posted_from.get(table_id).is_some_and(|from| *from <= start))
    };
    let tables_without_posted_limits = per_table
        .keys()
        .filter(|(game, table_id)| posts_limits(game, table_id) == Some(false))
        .map(|(_, table_id)| table_id.clone())
        .collect();
    let mut rows = Vec::new();
    let mut game_total: Option<(String, Sums)> = None;
    for ((game, table_id), sums) in &per_table {
        if let Some((g, total)) = &game_total {
            if g != game {
                rows.push(total.row(g, None)?);
                game_total = None;
            }
        }
        let (_, total) = game_total.get_or_insert_with(|| (game.clone(), Sums::default()));
        total.absorb(sums)?;
        let mut row = sums.row(game, Some(table_id))?;
        row.posted_limits = posts_limits(game, table_id);
        rows.push(row);
    }
    if let Some((g, total)) = &game_total {
        rows.push(total.row(g, None)?);
    }
    let mut late_rounds = 0;
    let mut last_late_received_at = None;
    for sums in per_table.values() {
        late_rounds = add(late_rounds, sums.late_rounds)?;
        last_late_received_at = last_late_received_at.max(sums.last_late_received_at);
    }
    let rounds = per_table
        .values()
        .try_fold(0i64, |total, sums| add(total, sums.counts.rounds))?;
    let archived = crate::archived::days_within(conn, cut, start, end)?.pop();
    Ok(DailyReport {
        rounds,
        note: archived
            .as_ref()
            .map(crate::archived::ArchivedDay::note)
            .or_else(|| (rounds == 0).then(|| NO_ROUNDS.to_owned())),
        archived,
        gaming_day: day,
        starts_at: start,
        ends_at: end,
        late_after_hours: clock.late_after.num_hours(),
        late_rounds,
        last_late_received_at,
        tables_without_posted_limits,
        rows,
        covers: cut.into(),
    })
}

/// The report as CSV (RFC 4180, UTF-8, CRLF line ends); a game total has an empty table_id.
pub fn to_csv(report: &DailyReport) -> Result<String, ReportError> {
    let lines = report.rows.iter().map(|r| csv_line(report.gaming_day, r));
    machine_csv(csv_heading(), lines)
}

/// The CSV's columns: the figures, the findings, then each kind's findings.
fn csv_heading() -> Vec<String> {
    let mut heading: Vec<String> = [
        "gaming_day",
        "game",
        "table_id",
        "rounds",
        "void_rounds",
        "stakes_h",
        "returned_stakes_h",
        "payouts_h",
        "expected_payouts_h",
        "ggr_h",
        "ggr_basis",
        "tournament_fees_h",
        "tournament_overlay_h",
        "rake_share_pct",
        "actual_rtp_pct",
        "theoretical_rtp_pct",
        "deviation_sd",
        "findings",
        "findings_amount_h",
        "findings_open",
        "findings_escalated",
        "findings_confirmed",
        "findings_dismissed",
        "findings_settled_h",
        "late_rounds",
        "last_late_received_at",
        "posted_limits",
    ]
    .into_iter()
    .map(str::to_owned)
    .collect();
    heading.extend(
        rules::FindingKind::ALL
            .iter()
            .map(|k| format!("findings_{}", k.as_str())),
    );
    heading
}

/// A table's (or a game's) line of the day.
fn csv_line(gaming_day: NaiveDate, r: &PayoutRow) -> Vec<Cell> {
    let mut line = vec![
        Cell::Day(gaming_day),
        Cell::text(&r.game),
        Cell::text_or_empty(r.table_id.as_deref()),
        Cell::Count(r.rounds),
        Cell::Count(r.void_rounds),
        Cell::Money(r.stakes_h),
        Cell::Money(r.returned_stakes_h),
        Cell::Money(r.payouts_h),
        Cell::Money(r.expected_payouts_h),
        Cell::Money(r.ggr_h),
        Cell::text(&r.ggr_basis),
        Cell::money_or_empty(r.tournament_fees_h),
        Cell::money_or_empty(r.tournament_overlay_h),
        Cell::decimal_or_empty(r.rake_share_pct, 4),
        Cell::decimal_or_empty(r.actual_rtp_pct, 4),
        Cell::decimal_or_empty(r.theoretical_rtp_pct, 4),
        Cell::decimal_or_empty(r.deviation_sd, 2),
        Cell::Count(r.findings),
        Cell::Money(r.findings_amount_h),
        Cell::Count(r.findings_open),
        Cell::Count(r.findings_escalated),
        Cell::Count(r.findings_confirmed),
        Cell::Count(r.findings_dismissed),
        Cell::Money(r.findings_settled_h),
        Cell::Count(r.late_rounds),
        Cell::text_or_empty(
            r.last_late_received_at
                .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Micros, true))
                .as_deref(),
        ),
        match r.posted_limits {
            Some(true) => Cell::text("yes"),
            Some(false) => Cell::text("no"),
            None => Cell::Empty,
        },
    ];
    line.extend(
        rules::FindingKind::ALL
            .iter()
            .map(|k| Cell::Count(r.findings_by_kind.get(k.as_str()).map_or(0, |t| t.count))),
    );
    line
}

/// The columns of the daily report for people.
const PEOPLE_COLUMNS: [crate::sheet::Column; 16] = {
    use crate::sheet::column;
    [
        GAMING_DAY,
        GAME,
        TABLE,
        ROUNDS,
        column("void_rounds", "Neplatných kol", "Void rounds"),
        STAKES,
        RETURNED_STAKES,
        PAYOUTS,
        GGR,
        ACTUAL_RTP,
        THEORETICAL_RTP,
        DEVIATION_SD,
        FINDINGS,
        FINDINGS_AMOUNT,
        column("findings_open", "Otevřených nálezů", "Open findings"),
        column("late_rounds", "Pozdě přijatých kol", "Rounds received late"),
    ]
};

/// The daily report as a sheet for people: one line per game and per table, the plan's game
/// names, amounts in koruny; the columns a person reads (the CSV for programs has them all).
pub fn sheet(
    report: &DailyReport,
    plans: &rules::PlanBook,
    language: crate::sheet::Language,
) -> crate::sheet::Sheet {
    let number = |x: Option<f64>| x.map_or(Cell::Empty, Cell::Percent);
    let rows = report
        .rows
        .iter()
        .map(|r| {
            vec![
                Cell::Day(report.gaming_day),
                Cell::game(&r.game, plans),
                r.table_id.clone().map_or_else(
                    || Cell::Text(language.pick("celkem", "all tables").to_owned()),
                    Cell::Text,
                ),
                Cell::Count(r.rounds),
                Cell::Count(r.void_rounds),
                Cell::Money(r.stakes_h),
                Cell::Money(r.returned_stakes_h),
                Cell::Money(r.payouts_h),
                Cell::Money(r.ggr_h),
                number(r.actual_rtp_pct),
                number(r.theoretical_rtp_pct),
                number(r.deviation_sd),
                Cell::Count(r.findings),
                Cell::Money(r.findings_amount_h),
                Cell::Count(r.findings_open),
                Cell::Count(r.late_rounds),
            ]
        })
        .collect();
    crate::sheet::Sheet {
        name: format!("{} {}", language.pick("Den", "Day"), report.gaming_day),
        columns: PEOPLE_COLUMNS.to_vec(),
        rows,
    }
}
