//! What a finding's two amounts are, in words: a payout due against the one paid, a limit
//! against the stake, a win against what was handed over, a rake or fee against the plan's. The
//! finding's page heads with these figures and the row of the bet (seat, player) the finding
//! names shows the same ones, so the officer settles from one computation.

use rules::money::format_czk;
use rules::FindingKind;
use serde_json::Value;

use crate::sheet::Language;

/// A finding as the layout reads it: the verdict's own, or the workbench's stored copy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FindingFacts {
    /// The kind's code (`overpaid`, `stake_above_maximum`, …).
    pub kind: String,
    /// The bets (seats, players) the finding names; empty for the round as a whole.
    pub bet_ids: Vec<String>,
    pub expected_h: Option<i64>,
    pub actual_h: Option<i64>,
    pub amount_h: i64,
}

impl FindingFacts {
    /// A finding as a verdict (or the findings API) serialises it.
    pub fn from_json(finding: &Value) -> FindingFacts {
        FindingFacts {
            kind: finding["kind"].as_str().unwrap_or_default().to_owned(),
            bet_ids: bet_ids(&finding["bet_ids"]),
            expected_h: finding["expected_h"].as_i64(),
            actual_h: finding["actual_h"].as_i64(),
            amount_h: finding["amount_h"].as_i64().unwrap_or(0),
        }
    }
}

/// The ids of a finding's `bet_ids` (a JSON array of strings, or null).
pub fn bet_ids(value: &Value) -> Vec<String> {
    value
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|b| b.as_str().map(str::to_owned))
        .collect()
}

/// A finding's amounts, each with what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FindingFigures {
    /// The kind in words.
    pub kind: String,
    /// What the plan sets: a payout due, a limit, a win, a rake; with its label.
    pub plan: Option<(String, i64)>,
    /// What the table did: paid, staked, took; with its label.
    pub table: Option<(String, i64)>,
    /// The finding's amount and what it is: the difference (what the table did less what the
    /// plan sets, signed as the bet rows' difference is), or the stake of a bet the plan does
    /// not accept.
    pub amount: (String, i64),
}

/// Which of a finding's figures mean what, by its kind and game.
struct Labels {
    plan: (&'static str, &'static str),
    table: (&'static str, &'static str),
}

const PAYOUT: Labels = Labels {
    plan: ("Vyplatit dle plánu", "Due by the plan"),
    table: ("Vyplaceno", "Paid"),
};

fn labels(kind: Option<FindingKind>, game: &str, bets: usize, round: &Round) -> Labels {
    use FindingKind::*;
    let pair = |plan, table| Labels { plan, table };
    let about_bets = bets > 0;
    // A limit of several bets together (a box's main bets, a player's stakes on one box).
    let staked = if bets > 1 {
        ("Vsazeno spolu", "Staked together")
    } else {
        ("Vsazeno", "Staked")
    };
    match kind {
        Some(Overpaid | Underpaid) if game == "open_face_chinese" => pair(
            ("Výsledek dle řad", "Result by the rows"),
            ("Vypořádáno", "Settled"),
        ),
        Some(Overpaid | Underpaid) => PAYOUT,
        Some(VoidHandledWrongly) if about_bets => {
            pair(("Vrátit dle plánu", "To go back by the plan"), PAYOUT.table)
        }
        Some(VoidHandledWrongly) if round.took_rake => pair(
            ("Rake dle plánu", "Rake by the plan"),
            ("Rake vybrán", "Rake taken"),
        ),
        Some(VoidHandledWrongly) => pair(
            (
                "Smí se vrátit jako neplatná hra",
                "May go back as a void round",
            ),
            ("Vráceno hráčům", "Handed back"),
        ),
        Some(StakeBelowMinimum | StakeAboveMaximum) if game == "poker_tournament" => pair(
            ("Cena vstupu dle plánu", "Entry price"),
            ("Zaplaceno", "Paid in"),
        ),
        Some(StakeBelowMinimum) => pair(("Minimum dle plánu", "The plan's minimum"), staked),
        Some(StakeAboveMaximum) => pair(("Maximum dle plánu", "The plan's maximum"), staked),
        Some(StakeBelowTableMinimum | StakeAboveTableMaximum) if !about_bets => pair(
            ("Vypsáno stolem", "Posted by the table"),
            ("Hráno", "Played"),
        ),
        Some(StakeBelowTableMinimum) => pair(("Minimum stolu", "The table's minimum"), staked),
        Some(StakeAboveTableMaximum) => pair(("Maximum stolu", "The table's maximum"), staked),
        Some(WinAboveMaximum) if game.starts_with("money_wheel") => pair(
            (
                "Nejvyšší čistá výhra dle plánu",
                "The plan's maximum net win",
            ),
            ("Čistá výhra", "Net win"),
        ),
        Some(WinAboveMaximum) => pair(
            ("Nejvyšší výhra dle plánu", "The plan's maximum win"),
            PAYOUT.table,
        ),
        Some(PayoutWithheld) => pair(("Vyhráno (zadrženo)", "Won (withheld)"), PAYOUT.table),
        Some(BetNotAllowed | InvalidNumber) => pair(
            ("Vrátit dle plánu (vklad)", "To go back (the stake)"),
            PAYOUT.table,
        ),
        Some(RakeWrong) => pair(
            ("Rake dle plánu", "Rake by the plan"),
            ("Rake vybrán", "Rake taken"),
        ),
        Some(FeeWrong) => pair(
            ("Poplatek dle plánu", "Fee by the plan"),
            ("Poplatek vybrán", "Fee taken"),
        ),
        Some(ChipsNotConserved) => pair(
            ("Dle žetonů ve hře", "By the chips in play"),
            ("Zaznamenáno", "Recorded"),
        ),
        _ => pair(("Dle plánu", "By the plan"), ("Skutečně", "Actually")),
    }
}

/// What of the round a finding's figures are checked against.
struct Round {
    /// A void poker hand took a rake: a finding of that amount is about the rake.
    took_rake: bool,
}

/// The figures of `finding` in a round of `game` (`record` is the signed round).
pub fn figures(finding: &FindingFacts, record: &Value, language: Language) -> FindingFigures {
    let game = record["game"].as_str().unwrap_or_default();
    let kind = FindingKind::parse(&finding.kind);
    let round = Round {
        took_rake: game == "poker_cash"
            && finding.actual_h.is_some()
            && record["rake_h"].as_i64() == finding.actual_h
            && finding.expected_h == Some(0),
    };
    let labels = labels(kind, game, finding.bet_ids.len(), &round);
    let word = |(cs, en): (&str, &str)| language.pick(cs, en).to_owned();
    let difference = finding
        .actual_h
        .zip(finding.expected_h)
        .and_then(|(a, e)| a.checked_sub(e));
    // A bet the plan does not accept at all is a finding of its whole stake, whatever it was
    // paid; otherwise the amount is how far the table was from the plan.
    let amount = match difference {
        Some(d) if d.checked_abs() == Some(finding.amount_h) => {
            (language.pick("Rozdíl", "Difference").to_owned(), d)
        }
        _ if matches!(
            kind,
            Some(FindingKind::BetNotAllowed | FindingKind::InvalidNumber)
        ) =>
        {
            (
                language
                    .pick("Vklad nepřijatelné sázky", "Stake of a bet not accepted")
                    .to_owned(),
                finding.amount_h,
            )
        }
        _ => (
            language
                .pick("Částka nálezu", "The finding's amount")
                .to_owned(),
            finding.amount_h,
        ),
    };
    FindingFigures {
        kind: crate::words::finding_kind_code(&finding.kind, language),
        plan: finding.expected_h.map(|h| (word(labels.plan), h)),
        table: finding.actual_h.map(|h| (word(labels.table), h)),
        amount,
    }
}

impl FindingFigures {
    /// The figures as label and amount, plan first: what a finding's page heads with.
    pub fn facts(&self) -> Vec<(String, String)> {
        self.plan
            .iter()
            .chain(&self.table)
            .chain(std::iter::once(&self.amount))
            .map(|(label, h)| (label.clone(), format_czk(*h)))
            .collect()
    }

    /// The kind and the figures in one cell: `kind: label amount · label amount · …`.
    pub fn cell(&self) -> String {
        let figures = self
            .facts()
            .iter()
            .map(|(label, value)| format!("{label} {value}"))
            .collect::<Vec<_>>()
            .join(" · ");
        format!("{}: {figures}", self.kind)
    }
}
