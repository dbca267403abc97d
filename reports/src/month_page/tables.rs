//! The page's tables: the month by game and by bet kind.

use std::fmt::Write as _;

use super::format::{deviation_cell, money, pct_cell, thousands};
use super::names::GameName;
use crate::deviation::Deviation;
use crate::html::esc;
use crate::monthly::{KindRow, RtpRow};
use crate::sheet::Language;

pub(super) fn summary_table(
    html: &mut String,
    games: &[&RtpRow],
    name: &GameName<'_>,
    l: Language,
) {
    html.push_str(l.pick(
        "<section><h2>Měsíc podle her</h2><table><tr><th class=\"l\">hra</th><th>kol</th>\
         <th>vsazeno (Kč)</th><th>vyplaceno (Kč)</th><th>GGR (Kč)</th><th>skutečné RTP</th><th>teoretické</th>\
         <th>z (σ)</th><th>nálezy (otevřené)</th></tr>",
        "<section><h2>Month by game</h2><table><tr><th class=\"l\">game</th><th>rounds</th>\
         <th>stakes (Kč)</th><th>payouts (Kč)</th><th>GGR (Kč)</th><th>actual RTP</th><th>theoretical</th>\
         <th>z (σ)</th><th>findings (open)</th></tr>",
    ));
    for r in games {
        let _ = write!(
            html,
            "<tr{}><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>{}<td>{} ({})</td></tr>",
            flag_class(r.deviation),
            esc(&name(&r.game)),
            thousands(r.rounds),
            money(r.stakes_h),
            money(r.payouts_h),
            money(r.ggr_h),
            pct_cell(r.actual_rtp_pct, l),
            pct_cell(r.theoretical_rtp_pct, l),
            deviation_cell(&r.deviation, r.rounds, l),
            thousands(r.findings.count),
            thousands(r.findings.open),
        );
    }
    html.push_str("</table></section>");
}

/// The class of a row whose deviation is flagged; none otherwise.
fn flag_class(deviation: Option<Deviation>) -> &'static str {
    match deviation.is_some_and(|d| d.flagged) {
        true => " class=\"flag\"",
        false => "",
    }
}

pub(super) fn kinds_table(html: &mut String, kinds: &[KindRow], name: &GameName<'_>, l: Language) {
    html.push_str(l.pick(
        "<section><h2>Podle druhu sázky (všechny stoly)</h2><table><tr><th class=\"l\">hra</th>\
         <th class=\"l\">druh sázky</th><th>kol</th><th>sázek</th><th>vsazeno (Kč)</th><th>vyplaceno (Kč)</th>\
         <th>skutečné RTP</th><th>teoretické</th><th>z (σ)</th></tr>",
        "<section><h2>By bet kind (all tables)</h2><table><tr><th class=\"l\">game</th>\
         <th class=\"l\">bet kind</th><th>rounds</th><th>bets</th><th>stakes (Kč)</th><th>payouts (Kč)</th>\
         <th>actual RTP</th><th>theoretical</th><th>z (σ)</th></tr>",
    ));
    for k in kinds.iter().filter(|k| k.table_id.is_none()) {
        let kind = rules::bet_kinds::bet_kind_name(&k.game, &k.bet_kind);
        let _ = write!(
            html,
            "<tr{}><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>{}</tr>",
            flag_class(k.deviation),
            esc(&name(&k.game)),
            esc(l.pick(&kind.cs, &kind.en)),
            thousands(k.rounds),
            thousands(k.bets),
            money(k.stakes_h),
            money(k.payouts_h),
            pct_cell(k.actual_rtp_pct, l),
            pct_cell(k.theoretical_rtp_pct, l),
            deviation_cell(&k.deviation, k.rounds, l),
        );
    }
    html.push_str("</table></section>");
}
