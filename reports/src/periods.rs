//! Period audit: each station's operating periods of a month, assembled from its signed
//! records, each table period reconciled against the rounds played in it, and the rounds played
//! while their table had no open period. Derived from the ledger every time it is asked for.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use diesel::PgConnection;
use ledger::storage::read_cut::LedgerCut;
use ledger::storage::report_reads;
use ledger::storage::report_reads::periods::{PeriodRounds, PeriodSpans};
use rules::operations::{
    assemble, reconcile, CagePeriod, Operation, PeriodFinding, PeriodFindingKind, TablePeriod,
};
use serde::Serialize;

use crate::sheet::columns::{DIFFERENCE, GAME, MONTH, PROVISIONAL, ROUNDS, TABLE};
use crate::ReportError;

use rules::gaming_day::{GamingDayClock, Month};

/// What the audit is told besides the month.
#[derive(Debug, Clone, Copy)]
pub struct AuditSettings {
    pub clock: GamingDayClock,
    /// Largest difference between a table's win by the count and its rounds' result that is
    /// not a finding.
    pub tolerance_h: i64,
}

/// A table period with the rounds played in it.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct TablePeriodLine {
    /// The period's own fields (table, ids, times, floats, fills, credits, drop), flattened.
    #[serde(flatten)]
    #[schema(ignore)]
    pub period: TablePeriod,
    pub game: String,
    pub rounds: i64,
    /// Stakes of every round, void ones included.
    pub stakes_h: i64,
    /// Stakes handed back on void rounds.
    pub returned_stakes_h: i64,
    /// What the table paid on played rounds (wins with their stakes).
    pub payouts_h: i64,
    /// The most one round paid.
    pub max_payout_h: i64,
    /// stakes − returned stakes − payouts: what the rounds say the table won.
    pub rounds_result_h: i64,
    /// closing float − opening float + credits − fills + drop; null while the period is open.
    pub table_win_h: Option<i64>,
    /// table win − rounds' result; null while the period is open.
    pub difference_h: Option<i64>,
}

/// The rounds a table played while it had no open period.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct OutsideRounds {
    pub table_id: String,
    pub rounds: i64,
    /// The first of them (at most five): `[ledger index, when played]`.
    #[schema(value_type = Vec<Vec<Value>>)]
    pub first: Vec<(i64, DateTime<Utc>)>,
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct PeriodAudit {
    pub month: String,
    /// The month's gaming days in UTC: periods that open inside belong to it.
    pub starts_at: DateTime<Utc>,
    pub ends_at: DateTime<Utc>,
    /// Whether the month is not over yet: periods may still open, close and be reconciled.
    pub provisional: bool,
    /// Why it is provisional, in words; none when final.
    pub provisional_note: Option<String>,
    pub tolerance_h: i64,
    pub tables: Vec<TablePeriodLine>,
    /// Each cage's periods (opening and closing counts, fills and credits, the day's balance).
    #[schema(value_type = Vec<Object>)]
    pub cages: Vec<CagePeriod>,
    pub rounds_outside_periods: Vec<OutsideRounds>,
    /// `drop_not_reconciled`, `round_outside_period` and the other period findings.
    #[schema(value_type = Vec<Object>)]
    pub findings: Vec<PeriodFinding>,
}

/// Every station's operation records, in each station's sequence order.
pub fn operations_by_station(
    conn: &mut PgConnection,
    cut: LedgerCut,
) -> Result<BTreeMap<String, Vec<Operation>>, ReportError> {
    let entries = report_reads::periods::operation_entries(conn, cut)?;
    let mut stations: BTreeMap<String, Vec<Operation>> = BTreeMap::new();
    for e in &entries {
        let operation = read_operation(&e.entry)
            .and_then(|op| match op.record_type() == e.record_type {
                true => Ok(op),
                false => Err(format!("a {}", op.record_type())),
            })
            .map_err(|found| ledger::LedgerError::MislabelledEntry {
                index: e.idx as u64,
                stored: "an operation record",
                found,
            })?;
        stations
            .entry(operation.header().table_id.to_owned())
            .or_default()
            .push(operation);
    }
    Ok(stations)
}

fn read_operation(entry: &[u8]) -> Result<Operation, String> {
    #[derive(serde::Deserialize)]
    struct Entry<'a> {
        #[serde(borrow)]
        envelope: Envelope<'a>,
    }
    #[derive(serde::Deserialize)]
    struct Envelope<'a> {
        #[serde(borrow)]
        record: &'a serde_json::value::RawValue,
    }
    let entry: Entry<'_> =
        serde_json::from_slice(entry).map_err(|e| format!("not an entry ({e})"))?;
    Operation::parse_json(entry.envelope.record.get())
        .map_err(|e| format!("a record that does not read ({e})"))
}

/// The audit of `month`.
pub fn build(
    conn: &mut PgConnection,
    settings: &AuditSettings,
    month: Month,
) -> Result<PeriodAudit, ReportError> {
    let cut = crate::coverage::primary_now(conn)?;
    build_at(conn, cut, settings, month)
}

/// [`build`] of the entries below `cut` (a replica's checkpoint, say).
pub fn build_at(
    conn: &mut PgConnection,
    cut: LedgerCut,
    settings: &AuditSettings,
    month: Month,
) -> Result<PeriodAudit, ReportError> {
    let (start, end) = settings.clock.month_bounds(month);
    let in_month = |t: DateTime<Utc>| start <= t && t < end;
    let mut all_tables: Vec<TablePeriod> = Vec::new();
    let mut cages = Vec::new();
    let mut findings = Vec::new();
    for operations in operations_by_station(conn, cut)?.values() {
        let periods = assemble(operations);
        all_tables.extend(periods.tables);
        cages.extend(periods.cages.into_iter().filter(|p| in_month(p.opened_at)));
        findings.extend(periods.findings.into_iter().filter(|f| in_month(f.at)));
    }
    // Periods reaching into the month cover its rounds; those opened in it are reported.
    let covering: Vec<&TablePeriod> = all_tables
        .iter()
        .filter(|p| p.opened_at < end && p.ends_at().is_none_or(|e| e >= start))
        .collect();
    let sums = period_rounds(conn, cut, &covering, start, end)?;
    let games: BTreeMap<String, String> = report_reads::tables::all(conn)?
        .into_iter()
        .map(|s| (s.table_id, s.game))
        .collect();

    let mut inside_by_table: BTreeMap<&str, i64> = BTreeMap::new();
    let mut tables = Vec::new();
    for (i, period) in covering.iter().enumerate() {
        let s = sums.get(&(i as i64 + 1));
        let (rounds, in_window, stakes_h, returned_h, payouts_h, max_payout_h) =
            s.map_or((0, 0, 0, 0, 0, 0), |s| {
                (
                    s.rounds,
                    s.in_window,
                    s.stakes_h,
                    s.returned_h,
                    s.payouts_h,
                    s.max_payout_h,
                )
            });
        *inside_by_table.entry(&period.table_id).or_default() += in_window;
        if !in_month(period.opened_at) {
            continue;
        }
        let rounds_result_h = stakes_h
            .checked_sub(returned_h)
            .and_then(|v| v.checked_sub(payouts_h))
            .ok_or(ReportError::Overflow("a period's rounds"))?;
        let table_win_h = period.table_win_h();
        findings.extend(reconcile(period, rounds_result_h, settings.tolerance_h));
        tables.push(TablePeriodLine {
            period: (*period).clone(),
            game: games.get(&period.table_id).cloned().unwrap_or_default(),
            rounds,
            stakes_h,
            returned_stakes_h: returned_h,
            payouts_h,
            max_payout_h,
            rounds_result_h,
            table_win_h,
            difference_h: table_win_h.and_then(|w| w.checked_sub(rounds_result_h)),
        });
    }

    let rounds_outside_periods =
        rounds_outside(conn, cut, &covering, &inside_by_table, start, end)?;
    for outside in &rounds_outside_periods {
        findings.push(PeriodFinding {
            kind: PeriodFindingKind::RoundOutsidePeriod,
            table_id: outside.table_id.clone(),
            period_id: None,
            at: outside.first.first().map_or(start, |(_, at)| *at),
            amount_h: None,
            message: format!(
                "{} round(s) of table `{}` were played while it had no open period",
                outside.rounds, outside.table_id
            ),
        });
    }
    findings.sort_by(|a, b| (a.at, &a.table_id).cmp(&(b.at, &b.table_id)));
    let provisional_note =
        crate::provisional::month_note(&month.to_string(), end, chrono::Utc::now());
    Ok(PeriodAudit {
        month: month.to_string(),
        starts_at: start,
        ends_at: end,
        provisional: provisional_note.is_some(),
        provisional_note,
        tolerance_h: settings.tolerance_h,
        tables,
        cages,
        rounds_outside_periods,
        findings,
    })
}

/// The arrays a query joins periods from: table, from, to (an open period reaches on).
fn period_arrays(
    periods: &[&TablePeriod],
) -> (Vec<String>, Vec<DateTime<Utc>>, Vec<DateTime<Utc>>) {
    let far = DateTime::<Utc>::MAX_UTC;
    (
        periods.iter().map(|p| p.table_id.clone()).collect(),
        periods.iter().map(|p| p.opened_at).collect(),
        periods.iter().map(|p| p.ends_at().unwrap_or(far)).collect(),
    )
}

/// The rounds of each period (by its position from 1), and how many of them fall in the month.
fn period_rounds(
    conn: &mut PgConnection,
    cut: LedgerCut,
    periods: &[&TablePeriod],
    start: DateTime<Utc>,
    end: DateTime<Utc>,
) -> Result<BTreeMap<i64, PeriodRounds>, ReportError> {
    if periods.is_empty() {
        return Ok(BTreeMap::new());
    }
    let (ids, from, to) = period_arrays(periods);
    let lowest = from.iter().min().copied().unwrap_or(start);
    let rows = report_reads::periods::period_rounds(
        conn,
        cut,
        PeriodSpans {
            table_ids: &ids,
            from: &from,
            to: &to,
        },
        lowest,
        start,
        end,
    )?;
    Ok(rows.into_iter().map(|r| (r.i, r)).collect())
}

/// How many of a table's rounds outside its periods are named.
const FIRST_OUTSIDE: i64 = 5;

/// Tables whose rounds in the month are not all inside their periods. Tournaments are their own
/// periods and are not counted.
fn rounds_outside(
    conn: &mut PgConnection,
    cut: LedgerCut,
    periods: &[&TablePeriod],
    inside_by_table: &BTreeMap<&str, i64>,
    start: DateTime<Utc>,
    end: DateTime<Utc>,
) -> Result<Vec<OutsideRounds>, ReportError> {
    let totals = report_reads::periods::rounds_per_table(conn, cut, start, end)?;
    let mut outside = Vec::new();
    for total in totals {
        let inside = inside_by_table
            .get(total.table_id.as_str())
            .copied()
            .unwrap_or(0);
        let rounds = total.rounds - inside;
        if rounds <= 0 {
            continue;
        }
        let own: Vec<&TablePeriod> = periods
            .iter()
            .copied()
            .filter(|p| p.table_id == total.table_id)
            .collect();
        let (_, from, to) = period_arrays(&own);
        let first = report_reads::periods::first_rounds_outside(
            conn,
            cut,
            &total.table_id,
            (start, end),
            (&from, &to),
            FIRST_OUTSIDE,
        )?;
        outside.push(OutsideRounds {
            table_id: total.table_id,
            rounds,
            first: first
                .into_iter()
                .map(|r| (r.ledger_index, r.played_at))
                .collect(),
        });
    }
    Ok(outside)
}

/// The columns of the period audit's table periods, for programs and for people.
const PERIOD_COLUMNS: [crate::sheet::Column; 19] = {
    use crate::sheet::column;
    [
        MONTH,
        PROVISIONAL,
        TABLE,
        GAME,
        column("period_id", "Období", "Period"),
        column("opened_at", "Otevřeno", "Opened"),
        column("closed_at", "Uzavřeno", "Closed"),
        column(
            "opening_float_h",
            "Počáteční stav (Kč)",
            "Opening float (CZK)",
        ),
        column(
            "closing_float_h",
            "Konečný stav (Kč)",
            "Closing float (CZK)",
        ),
        column("fills_h", "Doplnění (Kč)", "Fills (CZK)"),
        column("credits_h", "Odvody (Kč)", "Credits (CZK)"),
        column("drop_h", "Drop (Kč)", "Drop (CZK)"),
        column(
            "table_win_h",
            "Výsledek stolu dle počítání (Kč)",
            "Table win by the count (CZK)",
        ),
        ROUNDS,
        column("stakes_h", "Vklady (Kč)", "Stakes (CZK)"),
        column(
            "returned_stakes_h",
            "Vrácené vklady (Kč)",
            "Returned stakes (CZK)",
        ),
        column("payouts_h", "Výplaty (Kč)", "Payouts (CZK)"),
        column(
            "rounds_result_h",
            "Výsledek kol (Kč)",
            "Rounds' result (CZK)",
        ),
        DIFFERENCE,
    ]
};

/// One line per table period, the game named by `game_name`.
fn period_sheet(
    audit: &PeriodAudit,
    game_name: impl Fn(&str) -> String,
    language: crate::sheet::Language,
) -> crate::sheet::Sheet {
    use crate::sheet::Cell;
    let money = |h: Option<i64>| h.map_or(Cell::Empty, Cell::Money);
    let rows = audit
        .tables
        .iter()
        .map(|line| {
            let p = &line.period;
            vec![
                Cell::Text(audit.month.clone()),
                Cell::yes_no(audit.provisional, language),
                Cell::Text(p.table_id.clone()),
                Cell::coded(&line.game, game_name(&line.game)),
                Cell::Text(p.period_id.clone()),
                Cell::Time(p.opened_at),
                p.closed_at.map_or(Cell::Empty, Cell::Time),
                Cell::Money(p.opening_float_h),
                money(p.closing_float_h),
                Cell::Money(p.fills_h),
                Cell::Money(p.credits_h),
                money(p.drop_cash_h.checked_add(p.drop_chips_h)),
                money(line.table_win_h),
                Cell::Count(line.rounds),
                Cell::Money(line.stakes_h),
                Cell::Money(line.returned_stakes_h),
                Cell::Money(line.payouts_h),
                Cell::Money(line.rounds_result_h),
                money(line.difference_h),
            ]
        })
        .collect();
    crate::sheet::Sheet {
        name: format!("{} {}", language.pick("Období", "Periods"), audit.month),
        columns: PERIOD_COLUMNS.to_vec(),
        rows,
    }
}

/// The table periods of the audit as a sheet for people: the plan's game names, amounts in
/// koruny (the cages, findings and rounds outside periods are in the JSON).
pub fn sheet(
    audit: &PeriodAudit,
    plans: &rules::PlanBook,
    language: crate::sheet::Language,
) -> crate::sheet::Sheet {
    period_sheet(audit, |code| plans.game_name(code).to_owned(), language)
}

/// The table periods of the audit as CSV for programs (RFC 4180, amounts in haléře).
pub fn to_csv(audit: &PeriodAudit) -> Result<String, ReportError> {
    period_sheet(audit, str::to_owned, crate::sheet::Language::English).to_machine_csv()
}
