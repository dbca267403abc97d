use serde_json::{json, Value};

use super::*;

fn op(record: Value) -> Operation {
    Operation::parse_json(&record.to_string()).unwrap()
}

fn table(kind: &str, seq_no: u64, period: &str, at: &str, fields: Value) -> Operation {
    let mut record = json!({"type": kind, "table_id": "R01", "seq_no": seq_no, "plan_id": "p",
                            "period_id": period, "at": at});
    for (k, v) in fields.as_object().unwrap() {
        record[k] = v.clone();
    }
    op(record)
}

/// A table's float counted empty as its period opens or closes.
fn empty_float(kind: &str, seq_no: u64, period: &str, at: &str) -> Operation {
    table(kind, seq_no, period, at, json!({"float": []}))
}

fn chips(pairs: &[(i64, u32)]) -> Value {
    Value::Array(
        pairs
            .iter()
            .map(|(d, c)| json!({"denomination_h": d, "count": c}))
            .collect(),
    )
}

/// One evening at a roulette table.
fn evening() -> Vec<Operation> {
    vec![
        // 200 × 100 Kč + 100 × 500 Kč = 20 000 + 50 000 = 70 000 Kč
        table(
            "table_open",
            0,
            "E1",
            "2026-10-01T16:00:00Z",
            json!({"float": chips(&[(10_000, 200), (50_000, 100)])}),
        ),
        // 50 × 500 Kč = 25 000 Kč
        table(
            "table_fill",
            1,
            "E1",
            "2026-10-01T20:00:00Z",
            json!({"slip_no": "F1", "chips": chips(&[(50_000, 50)]), "by": "A"}),
        ),
        // 100 × 100 Kč = 10 000 Kč
        table(
            "table_credit",
            2,
            "E1",
            "2026-10-01T23:00:00Z",
            json!({"slip_no": "C1", "chips": chips(&[(10_000, 100)]), "by": "B"}),
        ),
        // 3 × 25 Kč = 75 Kč into the tronc
        table(
            "table_tips",
            3,
            "E1",
            "2026-10-01T23:30:00Z",
            json!({"chips": chips(&[(2_500, 3)])}),
        ),
        // cash 48 000 Kč + 2 × 100 Kč chips = 48 200 Kč
        table(
            "table_drop",
            4,
            "E1",
            "2026-10-02T03:55:00Z",
            json!({"cash_h": 4_800_000, "chips": chips(&[(10_000, 2)]), "counted_by": "count"}),
        ),
        // 150 × 100 Kč + 90 × 500 Kč = 15 000 + 45 000 = 60 000 Kč
        table(
            "table_close",
            5,
            "E1",
            "2026-10-02T04:00:00Z",
            json!({"float": chips(&[(10_000, 150), (50_000, 90)])}),
        ),
    ]
}

#[test]
fn a_table_period_sums_its_movements_and_its_win_by_the_count() {
    let periods = assemble(&evening());
    assert!(periods.findings.is_empty(), "{:?}", periods.findings);
    let [p] = periods.tables.as_slice() else {
        panic!("one period: {:?}", periods.tables)
    };
    assert_eq!(p.opening_float_h, 7_000_000);
    assert_eq!(p.fills_h, 2_500_000);
    assert_eq!(p.credits_h, 1_000_000);
    assert_eq!(p.tips_h, 7_500);
    assert_eq!((p.drop_cash_h, p.drop_chips_h), (4_800_000, 20_000));
    assert_eq!(p.closing_float_h, Some(6_000_000));
    // win = closing − opening + credits − fills + drop
    //     = 60 000 − 70 000 + 10 000 − 25 000 + 48 200 = 23 200 Kč
    assert_eq!(p.table_win_h(), Some(2_320_000));
    assert!(p.covers("2026-10-01T21:00:00Z".parse().unwrap()));
    assert!(!p.covers("2026-10-02T04:00:01Z".parse().unwrap()));
    assert!(!p.covers("2026-10-01T15:59:59Z".parse().unwrap()));
}

#[test]
fn a_drop_that_does_not_reconcile_is_a_finding_beyond_the_tolerance() {
    let periods = assemble(&evening());
    let p = &periods.tables[0];
    // Rounds won 23 150 Kč: 50 Kč short of the count, within a 100 Kč tolerance.
    assert_eq!(reconcile(p, 2_315_000, 10_000), None);
    // Rounds won 22 000 Kč: the count is 1 200 Kč more than the rounds explain.
    let finding = reconcile(p, 2_200_000, 10_000).unwrap();
    assert_eq!(finding.kind, PeriodFindingKind::DropNotReconciled);
    assert_eq!(finding.amount_h, Some(120_000));
    assert_eq!(finding.period_id.as_deref(), Some("E1"));
    // And the other way: rounds won 25 000 Kč, the count is 1 800 Kč short.
    assert_eq!(
        reconcile(p, 2_500_000, 10_000).unwrap().amount_h,
        Some(-180_000)
    );
}

#[test]
fn an_open_period_is_not_reconciled_and_covers_what_follows() {
    let mut ops = evening();
    ops.pop();
    let periods = assemble(&ops);
    let p = &periods.tables[0];
    assert_eq!(p.table_win_h(), None);
    assert_eq!(reconcile(p, 0, 0), None);
    assert!(p.covers("2026-10-05T00:00:00Z".parse().unwrap()));
}

#[test]
fn broken_period_sequences_give_their_findings() {
    let ops = vec![
        table(
            "table_fill",
            0,
            "X",
            "2026-10-01T15:00:00Z",
            json!({"slip_no": "F0", "chips": chips(&[(100, 1)]), "by": "A"}),
        ),
        empty_float("table_open", 1, "A", "2026-10-01T16:00:00Z"),
        empty_float("table_open", 2, "B", "2026-10-01T17:00:00Z"),
        table(
            "table_drop",
            3,
            "A",
            "2026-10-01T18:00:00Z",
            json!({"cash_h": 100, "counted_by": "c"}),
        ),
        empty_float("table_close", 4, "B", "2026-10-01T17:30:00Z"),
        empty_float("table_open", 5, "A", "2026-10-01T19:00:00Z"),
        empty_float("table_close", 6, "A", "2026-10-01T20:00:00Z"),
    ];
    let periods = assemble(&ops);
    let kinds: Vec<_> = periods
        .findings
        .iter()
        .map(|f| (f.kind, f.period_id.clone().unwrap()))
        .collect();
    use PeriodFindingKind::*;
    assert_eq!(
        kinds,
        [
            (OutsidePeriod, "X".to_owned()),
            (PeriodNotClosed, "A".to_owned()),
            (OutsidePeriod, "A".to_owned()),
            (TimeGoesBack, "B".to_owned()),
            (PeriodIdReused, "A".to_owned()),
        ]
    );
    assert_eq!(periods.tables.len(), 3);
    // Period A never closed: it covers rounds up to B's opening.
    assert_eq!(
        periods.tables[0].ends_at(),
        Some("2026-10-01T17:00:00Z".parse().unwrap())
    );
    assert!(!periods.tables[0].covers("2026-10-01T17:00:01Z".parse().unwrap()));
    assert_eq!(
        periods.tables[1].drop_cash_h, 0,
        "a drop naming a closed period counts nowhere"
    );
}

#[test]
fn a_cage_period_sums_its_movements_by_kind_and_payment() {
    let cage = |kind: &str, seq_no: u64, at: &str, fields: Value| {
        let mut record = json!({"type": kind, "table_id": "CAGE", "seq_no": seq_no,
                                "plan_id": "p", "period_id": "D1", "at": at});
        for (k, v) in fields.as_object().unwrap() {
            record[k] = v.clone();
        }
        op(record)
    };
    let tx = |seq_no: u64, kind: &str, amount_h: i64, payment: &str| {
        cage(
            "cage_transaction",
            seq_no,
            "2026-10-01T20:00:00Z",
            json!({"kind": kind, "amount_h": amount_h, "payment": payment}),
        )
    };
    let ops = vec![
        cage(
            "cage_open",
            0,
            "2026-10-01T14:00:00Z",
            json!({"cash_h": 100_000_000, "chips": chips(&[(10_000, 1000)]), "tronc_h": 0}),
        ),
        tx(1, "chip_purchase", 500_000, "cash"),
        tx(2, "chip_purchase", 300_000, "non_cash"),
        tx(3, "chip_purchase", 200_000, "cash"),
        tx(4, "chip_redemption", 650_000, "cash"),
        cage(
            "cage_close",
            5,
            "2026-10-02T06:00:00Z",
            json!({"cash_h": 100_050_000, "chips": chips(&[(10_000, 1035)]), "tronc_h": 0}),
        ),
    ];
    let periods = assemble(&ops);
    assert!(periods.findings.is_empty());
    let p = &periods.cages[0];
    // Cash purchases 5 000 + 2 000 = 7 000 Kč in two movements.
    assert_eq!(
        p.movements[&(CageKind::ChipPurchase, Some(Payment::Cash))],
        Movement {
            count: 2,
            amount_h: 700_000
        }
    );
    assert_eq!(
        p.movements[&(CageKind::ChipPurchase, Some(Payment::NonCash))].amount_h,
        300_000
    );
    assert_eq!(
        p.movements[&(CageKind::ChipRedemption, Some(Payment::Cash))].amount_h,
        650_000
    );
    // 1 000 × 100 Kč = 100 000 Kč of chips at the opening, 103 500 Kč at the close.
    assert_eq!(p.opening.chips_h, 10_000_000);
    assert_eq!(p.closing.unwrap().chips_h, 10_350_000);
}
