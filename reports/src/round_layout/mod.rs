//! A round laid out as a person reads it: what was dealt or spun, each box's or seat's play, the
//! bets with what was paid against what the plan says is due, and where it went wrong. Built
//! from the signed record and dozor's verdict of it, in Czech or English.

use serde::Serialize;
use serde_json::Value;

use crate::sheet::Language;

mod bets;
mod blackjack;
mod finding;
mod ofc;
mod poker;
mod tournament;
mod uth;
mod wheels;

pub use finding::{bet_ids, figures, FindingFacts, FindingFigures};

/// One table of the layout: a heading, its columns and rows.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Section {
    pub title: String,
    pub columns: Vec<String>,
    pub rows: Vec<Row>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Row {
    pub cells: Vec<String>,
    /// The row is what a finding is about.
    pub flagged: bool,
}

/// A round as laid out.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Layout {
    /// One line: the game and its result.
    pub headline: String,
    /// Facts of the round, label and value.
    pub facts: Vec<(String, String)>,
    pub sections: Vec<Section>,
}

/// A card as people write it: `T♥` for `Th`, the ten as 10.
pub fn card_face(text: &str) -> String {
    let mut chars = text.chars();
    let (Some(rank), Some(suit), None) = (chars.next(), chars.next(), chars.next()) else {
        return text.to_owned();
    };
    let rank = match rank {
        'T' => "10".to_owned(),
        r => r.to_string(),
    };
    let suit = match suit {
        's' => '♠',
        'h' => '♥',
        'd' => '♦',
        'c' => '♣',
        other => other,
    };
    format!("{rank}{suit}")
}

/// The elements of a JSON array; none when `value` is not one (absent, null).
fn elements(value: &Value) -> impl Iterator<Item = &Value> {
    value.as_array().into_iter().flatten()
}

fn cards(value: &Value) -> String {
    value
        .as_array()
        .map(|cards| {
            cards
                .iter()
                .filter_map(Value::as_str)
                .map(card_face)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default()
}

fn money(h: Option<i64>) -> String {
    h.map_or_else(String::new, rules::money::format_czk)
}

fn text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

struct Builder<'a> {
    record: &'a Value,
    verdict: Option<&'a Value>,
    /// The bets the findings are about.
    flagged_bets: Vec<String>,
    /// The findings whose figures their bets' rows show.
    explained: Vec<FindingFacts>,
    language: Language,
    layout: Layout,
}

impl Builder<'_> {
    fn word<'w>(&self, cs: &'w str, en: &'w str) -> &'w str {
        self.language.pick(cs, en)
    }

    /// Whether a finding names `id`: a bet id, a poker seat's `seat-2`, an OFC `player-1`, a
    /// tournament's player.
    fn is_flagged(&self, id: &str) -> bool {
        self.flagged_bets.iter().any(|b| b == id)
    }

    /// What the plan allows where a finding of `kind` says the table did otherwise (the
    /// finding's expected amount), as ` (by the plan …)`; empty when no such finding.
    fn by_the_plan(&self, kind: &str) -> String {
        self.verdict
            .into_iter()
            .flat_map(|v| elements(&v["findings"]))
            .find(|f| f["kind"] == kind)
            .and_then(|f| f["expected_h"].as_i64())
            .map(|h| {
                format!(
                    " ({} {})",
                    self.word("dle plánu", "by the plan"),
                    money(Some(h))
                )
            })
            .unwrap_or_default()
    }

    fn fact(&mut self, cs: &str, en: &str, value: String) {
        if !value.is_empty() {
            let label = self.word(cs, en).to_owned();
            self.layout.facts.push((label, value));
        }
    }

    fn section(&mut self, cs: &str, en: &str, columns: &[(&str, &str)], rows: Vec<Row>) {
        if rows.is_empty() {
            return;
        }
        let section = Section {
            title: self.word(cs, en).to_owned(),
            columns: columns
                .iter()
                .map(|(c, e)| self.word(c, e).to_owned())
                .collect(),
            rows,
        };
        self.layout.sections.push(section);
    }

    /// The figures of the findings that name `id`, as its row shows them.
    fn finding_cell(&self, id: &str) -> String {
        self.explained
            .iter()
            .filter(|f| f.bet_ids.iter().any(|b| b == id))
            .map(|f| finding::figures(f, self.record, self.language).cell())
            .collect::<Vec<_>>()
            .join("; ")
    }

    fn void(&mut self) {
        if self.verdict.is_some_and(|v| v["void"] == true) {
            let code = self
                .verdict
                .map(|v| text(&v["void_reason"]))
                .unwrap_or_default();
            // Why, in Czech by the rules' words (the code itself when it has none).
            let reason = match self.language {
                Language::Czech => rules::messages::word(&code).map_or(code, str::to_owned),
                Language::English => code,
            };
            let value = format!("{} {reason}", self.word("ano", "yes"))
                .trim()
                .to_owned();
            self.fact("Neplatná hra", "Void", value);
        }
    }
}

impl Layout {
    /// The layout as plain text for a terminal: the headline, the facts, each section as a
    /// table with aligned columns (a flagged row marked `!`).
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        if !self.headline.is_empty() {
            out.push_str(&self.headline);
            out.push('\n');
        }
        let label_width = self
            .facts
            .iter()
            .map(|(l, _)| l.chars().count())
            .max()
            .unwrap_or(0);
        for (label, value) in &self.facts {
            let pad = label_width - label.chars().count();
            out.push_str(&format!("  {label}{}  {value}\n", " ".repeat(pad)));
        }
        for section in &self.sections {
            out.push('\n');
            out.push_str(&section.title);
            out.push('\n');
            let mut widths: Vec<usize> =
                section.columns.iter().map(|c| c.chars().count()).collect();
            for row in &section.rows {
                for (i, cell) in row.cells.iter().enumerate() {
                    if let Some(w) = widths.get_mut(i) {
                        *w = (*w).max(cell.chars().count());
                    }
                }
            }
            let line = |marker: &str, cells: &[String]| {
                let mut text = format!("{marker} ");
                for (i, cell) in cells.iter().enumerate() {
                    let width = widths.get(i).copied().unwrap_or(0);
                    text.push_str(cell);
                    text.push_str(&" ".repeat(width.saturating_sub(cell.chars().count()) + 2));
                }
                text.trim_end().to_owned() + "\n"
            };
            out.push_str(&line(" ", &section.columns));
            for row in &section.rows {
                out.push_str(&line(if row.flagged { "!" } else { " " }, &row.cells));
            }
        }
        out
    }
}

/// Lays out `record` (the signed round) with its `verdict`; `flagged_bets` are the bets the
/// findings name, and each of their rows shows the figures of the verdict's findings naming it.
pub fn lay_out(
    record: &Value,
    verdict: Option<&Value>,
    flagged_bets: Vec<String>,
    plans: &rules::PlanBook,
    language: Language,
) -> Layout {
    let explained = verdict
        .into_iter()
        .flat_map(|v| elements(&v["findings"]))
        .map(FindingFacts::from_json)
        .filter(|f| f.bet_ids.iter().any(|b| flagged_bets.contains(b)))
        .collect();
    build(record, verdict, flagged_bets, explained, plans, language)
}

/// Lays out the round behind `finding`: the rows of the bets (seats, players) it names are
/// flagged and show its figures as [`figures`] gives them, the figures its page heads with. A
/// finding naming no bet of the verdict shows them among the round's facts.
pub fn lay_out_finding(
    record: &Value,
    verdict: Option<&Value>,
    finding: &FindingFacts,
    plans: &rules::PlanBook,
    language: Language,
) -> Layout {
    let mut layout = build(
        record,
        verdict,
        finding.bet_ids.clone(),
        vec![finding.clone()],
        plans,
        language,
    );
    let in_a_row = verdict
        .into_iter()
        .flat_map(|v| elements(&v["bets"]))
        .any(|b| finding.bet_ids.iter().any(|id| b["bet_id"] == id.as_str()));
    if !in_a_row {
        let figures = figures(finding, record, language);
        let label = language.pick("Nález", "Finding").to_owned();
        layout.facts.push((label, figures.cell()));
    }
    layout
}

fn build(
    record: &Value,
    verdict: Option<&Value>,
    flagged_bets: Vec<String>,
    explained: Vec<FindingFacts>,
    plans: &rules::PlanBook,
    language: Language,
) -> Layout {
    let mut b = Builder {
        record,
        verdict,
        flagged_bets,
        explained,
        language,
        layout: Layout::default(),
    };
    let plan = record["plan_id"].as_str().and_then(|id| plans.get(id));
    match record["game"].as_str().unwrap_or_default() {
        "roulette" => b.roulette(),
        "blackjack" => b.blackjack(plan),
        "ultimate_texas_holdem" => b.uth(),
        "money_wheel_1" | "money_wheel_2" => b.wheel(),
        "poker_cash" => b.poker(),
        "open_face_chinese" => b.ofc(),
        "poker_tournament" => b.tournament(),
        _ => {}
    }
    b.void();
    b.bets();
    b.layout
}

#[cfg(test)]
mod tests;
