//! Operating periods assembled from a station's operation records, and the checks of a period:
//! one open and one close, every movement inside its period, and the drop-and-win
//! reconciliation of a table. Pure: the records and the rounds' result come in, periods and
//! findings come out.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::chips::chips_value;
use super::records::{CageCount, CageKind, Operation, Payment};

/// A table's operating period and the money that moved through it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TablePeriod {
    pub table_id: String,
    pub period_id: String,
    /// The sequence number of its opening record: with the table, names the period for good.
    pub opened_seq_no: u64,
    pub opened_at: DateTime<Utc>,
    /// `None` while the period is open.
    pub closed_at: Option<DateTime<Utc>>,
    /// When the next period opened while this one had not closed (a finding): the period
    /// covers the table's rounds up to then.
    pub cut_at: Option<DateTime<Utc>>,
    pub opening_float_h: i64,
    pub closing_float_h: Option<i64>,
    pub fills_h: i64,
    pub credits_h: i64,
    pub drop_cash_h: i64,
    pub drop_chips_h: i64,
    pub tips_h: i64,
    pub fills: u32,
    pub credits: u32,
    pub drops: u32,
}

impl TablePeriod {
    /// The table's win by the count: closing float − opening float + credits − fills + drop;
    /// `None` until the period is closed.
    pub fn table_win_h(&self) -> Option<i64> {
        let closing = self.closing_float_h?;
        closing
            .checked_sub(self.opening_float_h)?
            .checked_add(self.credits_h)?
            .checked_sub(self.fills_h)?
            .checked_add(self.drop_cash_h)?
            .checked_add(self.drop_chips_h)
    }

    /// Whether a round played at `at` falls inside the period (an open period reaches on).
    pub fn covers(&self, at: DateTime<Utc>) -> bool {
        at >= self.opened_at && self.ends_at().is_none_or(|end| at <= end)
    }

    /// The close, or the next period's open if this one never closed; `None` while open.
    pub fn ends_at(&self) -> Option<DateTime<Utc>> {
        self.closed_at.or(self.cut_at)
    }
}

/// What a cage holds at a count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CageHoldings {
    pub cash_h: i64,
    pub chips_h: i64,
    pub tronc_h: i64,
}

impl CageHoldings {
    fn of(count: &CageCount) -> CageHoldings {
        CageHoldings {
            cash_h: count.cash_h,
            chips_h: chips_value(&count.chips),
            tronc_h: count.tronc_h,
        }
    }
}

/// A cage's operating period and its movements, summed by kind and payment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CagePeriod {
    pub cage_id: String,
    pub period_id: String,
    pub opened_seq_no: u64,
    pub opened_at: DateTime<Utc>,
    pub closed_at: Option<DateTime<Utc>>,
    pub opening: CageHoldings,
    pub closing: Option<CageHoldings>,
    /// Sum and count of the movements of each kind and payment.
    #[serde(serialize_with = "serialize_movements")]
    pub movements: BTreeMap<(CageKind, Option<Payment>), Movement>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Movement {
    pub count: u32,
    pub amount_h: i64,
}

fn serialize_movements<S: serde::Serializer>(
    movements: &BTreeMap<(CageKind, Option<Payment>), Movement>,
    s: S,
) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct Row {
        kind: CageKind,
        payment: Option<Payment>,
        count: u32,
        amount_h: i64,
    }
    s.collect_seq(movements.iter().map(|(&(kind, payment), m)| Row {
        kind,
        payment,
        count: m.count,
        amount_h: m.amount_h,
    }))
}

/// Something wrong with a station's periods.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PeriodFindingKind {
    /// A period opened while the previous one was still open: the previous was never closed.
    PeriodNotClosed,
    /// A period id used by an earlier period of the same station.
    PeriodIdReused,
    /// A fill, credit, drop, tips, transaction or close that names no open period.
    OutsidePeriod,
    /// A record dated before the station's previous record.
    TimeGoesBack,
    /// Rounds played while their table had no open period.
    RoundOutsidePeriod,
    /// The table's win by the count differs from its rounds' result by more than allowed.
    DropNotReconciled,
    /// A period's money does not fit in the arithmetic (absurd amounts).
    Overflow,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PeriodFinding {
    pub kind: PeriodFindingKind,
    pub table_id: String,
    pub period_id: Option<String>,
    pub at: DateTime<Utc>,
    /// The amount concerned, e.g. the reconciliation difference.
    pub amount_h: Option<i64>,
    pub message: String,
}

/// The periods of stations and what is wrong with them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Periods {
    pub tables: Vec<TablePeriod>,
    pub cages: Vec<CagePeriod>,
    pub findings: Vec<PeriodFinding>,
}

/// Assembles one station's periods from its operation records in sequence order.
pub fn assemble<'a>(operations: impl IntoIterator<Item = &'a Operation>) -> Periods {
    let mut assembler = Assembler::default();
    for op in operations {
        assembler.take(op);
    }
    assembler.periods
}

#[derive(Default)]
struct Assembler {
    periods: Periods,
    /// Index of the open period in `tables` or `cages`.
    open_table: Option<usize>,
    open_cage: Option<usize>,
    last_at: Option<DateTime<Utc>>,
}

impl Assembler {
    fn finding(
        &mut self,
        kind: PeriodFindingKind,
        op: &Operation,
        period_id: Option<&str>,
        amount_h: Option<i64>,
        message: String,
    ) {
        let h = op.header();
        self.periods.findings.push(PeriodFinding {
            kind,
            table_id: h.table_id.to_owned(),
            period_id: period_id.map(str::to_owned),
            at: h.at,
            amount_h,
            message,
        });
    }

    fn take(&mut self, op: &Operation) {
        let h = op.header();
        if let Some(last) = self.last_at.filter(|last| h.at < *last) {
            self.finding(
                PeriodFindingKind::TimeGoesBack,
                op,
                Some(h.period_id),
                None,
                format!(
                    "{} #{} at {} is dated before the station's previous record ({last})",
                    op.record_type(),
                    h.seq_no,
                    h.at
                ),
            );
        }
        self.last_at = Some(self.last_at.map_or(h.at, |last| last.max(h.at)));
        match op {
            Operation::TableOpen(open) => {
                self.check_new_period(
                    op,
                    self.open_table
                        .map(|i| self.periods.tables[i].period_id.clone()),
                );
                if let Some(i) = self.open_table {
                    self.periods.tables[i].cut_at = Some(open.at);
                }
                self.open_table = Some(self.periods.tables.len());
                self.periods.tables.push(TablePeriod {
                    table_id: open.table_id.clone(),
                    period_id: open.period_id.clone(),
                    opened_seq_no: open.seq_no,
                    opened_at: open.at,
                    closed_at: None,
                    cut_at: None,
                    opening_float_h: chips_value(&open.float),
                    closing_float_h: None,
                    fills_h: 0,
                    credits_h: 0,
                    drop_cash_h: 0,
                    drop_chips_h: 0,
                    tips_h: 0,
                    fills: 0,
                    credits: 0,
                    drops: 0,
                });
            }
            Operation::CageOpen(open) => {
                self.check_new_period(
                    op,
                    self.open_cage
                        .map(|i| self.periods.cages[i].period_id.clone()),
                );
                self.open_cage = Some(self.periods.cages.len());
                self.periods.cages.push(CagePeriod {
                    cage_id: open.table_id.clone(),
                    period_id: open.period_id.clone(),
                    opened_seq_no: open.seq_no,
                    opened_at: open.at,
                    closed_at: None,
                    opening: CageHoldings::of(open),
                    closing: None,
                    movements: BTreeMap::new(),
                });
            }
            Operation::CageTransaction(_) | Operation::CageClose(_) => self.cage_movement(op),
            _ => self.table_movement(op),
        }
    }

    /// A new period's id must be new, and the previous period closed.
    fn check_new_period(&mut self, op: &Operation, still_open: Option<String>) {
        let h = op.header();
        if let Some(previous) = still_open {
            self.finding(
                PeriodFindingKind::PeriodNotClosed,
                op,
                Some(&previous),
                None,
                format!(
                    "period `{previous}` was never closed: period `{}` opened at {}",
                    h.period_id, h.at
                ),
            );
        }
        let reused = self
            .periods
            .tables
            .iter()
            .map(|p| &p.period_id)
            .chain(self.periods.cages.iter().map(|p| &p.period_id))
            .any(|id| id == h.period_id);
        if reused {
            self.finding(
                PeriodFindingKind::PeriodIdReused,
                op,
                Some(h.period_id),
                None,
                format!("period id `{}` was used by an earlier period", h.period_id),
            );
        }
    }

    /// The open period `period_id` names, or a finding.
    fn open_period(
        &mut self,
        op: &Operation,
        open: Option<usize>,
        open_id: Option<&str>,
    ) -> Option<usize> {
        let h = op.header();
        if open_id == Some(h.period_id) {
            return open;
        }
        let message = match open_id {
            Some(id) => format!(
                "{} #{} names period `{}`, but the open period is `{id}`",
                op.record_type(),
                h.seq_no,
                h.period_id
            ),
            None => format!(
                "{} #{} names period `{}`, but no period is open",
                op.record_type(),
                h.seq_no,
                h.period_id
            ),
        };
        self.finding(
            PeriodFindingKind::OutsidePeriod,
            op,
            Some(h.period_id),
            None,
            message,
        );
        None
    }

    fn table_movement(&mut self, op: &Operation) {
        let open_id = self
            .open_table
            .map(|i| self.periods.tables[i].period_id.clone());
        let Some(i) = self.open_period(op, self.open_table, open_id.as_deref()) else {
            return;
        };
        let mut overflow = false;
        let mut add = |total: &mut i64, amount: i64| match total.checked_add(amount) {
            Some(sum) => *total = sum,
            None => overflow = true,
        };
        let period = &mut self.periods.tables[i];
        match op {
            Operation::TableFill(fill) => {
                add(&mut period.fills_h, chips_value(&fill.chips));
                period.fills += 1;
            }
            Operation::TableCredit(credit) => {
                add(&mut period.credits_h, chips_value(&credit.chips));
                period.credits += 1;
            }
            Operation::TableDrop(drop) => {
                add(&mut period.drop_cash_h, drop.cash_h);
                add(&mut period.drop_chips_h, chips_value(&drop.chips));
                period.drops += 1;
            }
            Operation::TableTips(tips) => add(&mut period.tips_h, chips_value(&tips.chips)),
            Operation::TableClose(close) => {
                period.closed_at = Some(close.at);
                period.closing_float_h = Some(chips_value(&close.float));
                self.open_table = None;
            }
            _ => {}
        }
        if overflow {
            self.overflow(op);
        }
    }

    fn cage_movement(&mut self, op: &Operation) {
        let open_id = self
            .open_cage
            .map(|i| self.periods.cages[i].period_id.clone());
        let Some(i) = self.open_period(op, self.open_cage, open_id.as_deref()) else {
            return;
        };
        let period = &mut self.periods.cages[i];
        match op {
            Operation::CageTransaction(t) => {
                let movement = period.movements.entry((t.kind, t.payment)).or_default();
                movement.count = movement.count.saturating_add(1);
                match movement.amount_h.checked_add(t.amount_h) {
                    Some(sum) => movement.amount_h = sum,
                    None => self.overflow(op),
                }
            }
            Operation::CageClose(close) => {
                period.closed_at = Some(close.at);
                period.closing = Some(CageHoldings::of(close));
                self.open_cage = None;
            }
            _ => {}
        }
    }

    fn overflow(&mut self, op: &Operation) {
        let h = op.header();
        self.finding(
            PeriodFindingKind::Overflow,
            op,
            Some(h.period_id),
            None,
            format!(
                "{} #{} overflows its period's totals",
                op.record_type(),
                h.seq_no
            ),
        );
    }
}

/// Compares a closed table period's win by the count with its rounds' result (stakes −
/// returned stakes − payouts); a difference beyond `tolerance_h` either way is a finding.
pub fn reconcile(
    period: &TablePeriod,
    rounds_result_h: i64,
    tolerance_h: i64,
) -> Option<PeriodFinding> {
    let closed_at = period.closed_at?;
    let finding = |amount_h: Option<i64>, message: String| PeriodFinding {
        kind: match amount_h {
            Some(_) => PeriodFindingKind::DropNotReconciled,
            None => PeriodFindingKind::Overflow,
        },
        table_id: period.table_id.clone(),
        period_id: Some(period.period_id.clone()),
        at: closed_at,
        amount_h,
        message,
    };
    let Some(win) = period.table_win_h() else {
        return Some(finding(None, "the period's count overflows".into()));
    };
    let Some(difference) = win.checked_sub(rounds_result_h) else {
        return Some(finding(None, "the reconciliation overflows".into()));
    };
    (difference.unsigned_abs() > tolerance_h.unsigned_abs()).then(|| {
        finding(
            Some(difference),
            format!(
                "table win by the count {} differs from the rounds' result {} by {} (tolerance {})",
                crate::money::format_czk(win),
                crate::money::format_czk(rounds_result_h),
                crate::money::format_czk(difference),
                crate::money::format_czk(tolerance_h)
            ),
        )
    })
}
