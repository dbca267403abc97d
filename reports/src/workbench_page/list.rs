//! The findings list page.

use std::fmt::Write as _;

use dozor_log::access::FindingState;
use ledger::storage::report_reads::findings::FindingSort;
use rules::money::format_czk;

use super::frame::{count, day, page, prague, query, select, state_cell, value_of, with};
use crate::findings::{FindingItem, FindingPage};
use crate::html::esc;
use crate::sheet::Language;
use crate::words;

/// What the list page shows.
pub struct ListView<'a> {
    pub page: &'a FindingPage,
    /// The filter as the request gave it (name, value), echoed in the form and the links.
    pub filter: &'a [(String, String)],
    pub plans: &'a rules::PlanBook,
    pub language: Language,
    /// Today's gaming day, which the day shortcuts count from.
    pub today: chrono::NaiveDate,
}

/// The findings list: filters, totals, files, the page of findings and the way to the next.
pub fn render_list(v: &ListView<'_>) -> String {
    let l = v.language;
    let w = |cs: &'static str, en: &'static str| l.pick(cs, en);
    let f = v.filter;
    let mut body = String::new();
    let _ = write!(
        body,
        "<h1>{}</h1><p class=\"meta\">{}</p>",
        w("Nálezy", "Findings"),
        w(
            "Rozdíly mezi tím, co stoly udělaly, a tím, co žádá herní plán. Každý nález otevře své kolo.",
            "Discrepancies between what the tables did and what the plan requires. Each finding opens its round."
        )
    );
    day_shortcuts(&mut body, v);
    filter_form(&mut body, v);
    let shown_to = v.page.offset + v.page.items.len() as i64;
    list_totals(&mut body, v, shown_to);
    let _ = write!(
        body,
        "<table><thead><tr><th>{}</th><th>{}</th><th>{}</th><th>{}</th><th>{}</th><th class=\"n\">{}</th>\
         <th>{}</th><th class=\"n\">{}</th><th>{}</th><th>{}</th></tr></thead><tbody>",
        w("Nález", "Finding"),
        w("Herní den", "Gaming day"),
        w("Odehráno", "Played at"),
        w("Hra", "Game"),
        w("Stůl", "Table"),
        w("Záznam", "Record"),
        w("Druh", "Kind"),
        w("Částka", "Amount"),
        w("Stav", "State"),
        w("Popis", "Description"),
    );
    for item in &v.page.items {
        list_row(&mut body, item, v.plans, l);
    }
    body.push_str("</tbody></table><div class=\"paging\">");
    paging(&mut body, v, shown_to);
    body.push_str("</div>");
    let switch = format!(
        "?{}&",
        query(
            &f.iter()
                .filter(|(k, _)| k != "lang")
                .cloned()
                .collect::<Vec<_>>()
        )
    );
    page(w("Nálezy", "Findings"), l, &switch, &body)
}

/// Links to the days an officer looks at — yesterday's gaming day (where the page opens),
/// today's, each of the five before yesterday, this month, last month, every day — each
/// keeping the other filters; the one shown is marked.
fn day_shortcuts(body: &mut String, v: &ListView<'_>) {
    use chrono::{Datelike, Duration};
    let l = v.language;
    let w = |cs: &'static str, en: &'static str| l.pick(cs, en);
    let kept: Vec<(String, String)> = v
        .filter
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "from" | "to" | "all" | "offset"))
        .cloned()
        .collect();
    let (today, yesterday) = (v.today, v.today - Duration::days(1));
    let month = rules::gaming_day::Month::of(today);
    let last_month = month.previous();
    let weekday = |d: chrono::NaiveDate| {
        let i = d.weekday().num_days_from_monday() as usize;
        match l {
            Language::Czech => ["po", "út", "st", "čt", "pá", "so", "ne"][i],
            Language::English => ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"][i],
        }
    };
    let mut days: Vec<(String, Option<(chrono::NaiveDate, chrono::NaiveDate)>)> = vec![
        (
            w("včera", "yesterday").to_owned(),
            Some((yesterday, yesterday)),
        ),
        (w("dnes", "today").to_owned(), Some((today, today))),
    ];
    for back in 2..=6 {
        let d = today - Duration::days(back);
        days.push((format!("{} {}", weekday(d), day(d, l)), Some((d, d))));
    }
    days.push((
        w("tento měsíc", "this month").to_owned(),
        Some((month.first_day(), today)),
    ));
    days.push((
        w("minulý měsíc", "last month").to_owned(),
        Some((
            last_month.first_day(),
            month.first_day() - Duration::days(1),
        )),
    ));
    days.push((w("všechny dny", "every day").to_owned(), None));
    let shown = (value_of(v.filter, "from"), value_of(v.filter, "to"));
    let _ = write!(
        body,
        "<p class=\"days\">{}: ",
        w("Herní dny", "Gaming days")
    );
    for (i, (label, range)) in days.iter().enumerate() {
        if i > 0 {
            body.push_str(" · ");
        }
        let (pairs, current) = match range {
            Some((from, to)) => {
                let (from, to) = (from.to_string(), to.to_string());
                let current = shown == (from.as_str(), to.as_str());
                let pairs = with(&with(&kept, "from", &from), "to", &to);
                (pairs, current)
            }
            None => (with(&kept, "all", "1"), value_of(v.filter, "all") == "1"),
        };
        if current {
            let _ = write!(body, "<b aria-current=\"page\">{}</b>", esc(label));
        } else {
            let _ = write!(
                body,
                "<a href=\"?{}\">{}</a>",
                esc(&query(&pairs)),
                esc(label)
            );
        }
    }
    body.push_str("</p>");
}

/// The filter form: a GET of this page.
fn filter_form(body: &mut String, v: &ListView<'_>) {
    let l = v.language;
    let w = |cs: &'static str, en: &'static str| l.pick(cs, en);
    let f = v.filter;
    let mut games = vec![(String::new(), w("všechny hry", "every game").to_owned())];
    for game in rules::GameCode::ALL {
        games.push((
            game.as_str().to_owned(),
            v.plans.game_name(game.as_str()).to_owned(),
        ));
    }
    let mut kinds = vec![(String::new(), w("všechny druhy", "every kind").to_owned())];
    for kind in rules::FindingKind::ALL {
        kinds.push((
            kind.as_str().to_owned(),
            words::finding_kind(kind, l).to_owned(),
        ));
    }
    let mut states = vec![(String::new(), w("všechny stavy", "every state").to_owned())];
    for state in FindingState::ALL {
        states.push((
            state.as_str().to_owned(),
            words::finding_state(state, l).to_owned(),
        ));
    }
    let sorts: Vec<(String, String)> = FindingSort::ALL
        .iter()
        .map(|s| {
            let text = match s {
                FindingSort::PlayedAt => w("nejstarší první", "oldest first"),
                FindingSort::PlayedAtDesc => w("nejnovější první", "newest first"),
                FindingSort::AmountDesc => w("největší částka první", "largest amount first"),
                FindingSort::Amount => w("nejmenší částka první", "smallest amount first"),
                FindingSort::Table => w("podle stolu", "by table"),
                FindingSort::Kind => w("podle druhu", "by kind"),
            };
            (s.as_str().to_owned(), text.to_owned())
        })
        .collect();
    let input = |name: &str, label: &str, kind: &str| {
        format!(
            "<label>{}<input type=\"{kind}\" name=\"{name}\" value=\"{}\"></label>",
            esc(label),
            esc(value_of(f, name))
        )
    };
    // A day typed as people write it (`27. 11. 2026`; ISO is taken too), shown the same way
    // whatever the browser's own language.
    let day_input = |name: &str, label: &str| {
        let value = value_of(f, name);
        let shown = chrono::NaiveDate::parse_from_str(value, "%Y-%m-%d")
            .map_or_else(|_| value.to_owned(), |d| day(d, l));
        format!(
            "<label>{}<input type=\"text\" name=\"{name}\" value=\"{}\" placeholder=\"{}\" size=\"11\"></label>",
            esc(label),
            esc(&shown),
            l.pick("d. m. rrrr", "yyyy-mm-dd"),
        )
    };
    let _ = write!(
        body,
        "<form class=\"filters\" method=\"get\">{}{}{}{}{}{}{}{}{}\
         <input type=\"hidden\" name=\"lang\" value=\"{}\"><button type=\"submit\">{}</button></form>",
        day_input("from", w("Od herního dne", "From gaming day")),
        day_input("to", w("Do herního dne", "To gaming day")),
        select("game", w("Hra", "Game"), &games, value_of(f, "game")),
        input("table_id", w("Stůl", "Table"), "text"),
        select("kind", w("Druh", "Kind"), &kinds, value_of(f, "kind")),
        select("state", w("Stav", "State"), &states, value_of(f, "state")),
        input("min_amount", w("Částka od (Kč)", "Amount from (CZK)"), "text"),
        input("max_amount", w("Částka do (Kč)", "Amount to (CZK)"), "text"),
        select("sort", w("Řazení", "Order"), &sorts, value_of(f, "sort")),
        l.code(),
        w("Vybrat", "Filter"),
    );
}

/// How many findings the filter finds, of what amount, which are shown, and the files of all.
fn list_totals(body: &mut String, v: &ListView<'_>, shown_to: i64) {
    let w = |cs: &'static str, en: &'static str| v.language.pick(cs, en);
    let f = v.filter;
    let _ = write!(
        body,
        "<p class=\"meta\">{} <b>{}</b>, {} <b>{}</b>; {} {}–{}. {}: \
         <a href=\"/api/v1/findings?{}\">CSV</a> · <a href=\"/api/v1/findings?{}\">XLSX</a> · \
         <a href=\"/api/v1/findings?{}\">{}</a></p>",
        w("Nálezů", "Findings"),
        count(v.page.total, v.language),
        w("v částce", "amounting to"),
        esc(&format_czk(v.page.total_amount_h)),
        w("zobrazeny", "showing"),
        count(
            if v.page.items.is_empty() {
                0
            } else {
                v.page.offset + 1
            },
            v.language
        ),
        count(shown_to, v.language),
        w("Stáhnout vše", "Download all"),
        esc(&query(&with(&api_filter(f), "format", "csv-cz"))),
        esc(&query(&with(&api_filter(f), "format", "xlsx"))),
        esc(&query(&with(&api_filter(f), "format", "csv"))),
        w("CSV pro programy", "CSV for programs"),
    );
}

/// The way to the previous and the next page.
fn paging(body: &mut String, v: &ListView<'_>, shown_to: i64) {
    let w = |cs: &'static str, en: &'static str| v.language.pick(cs, en);
    let f = v.filter;
    if v.page.offset > 0 {
        let previous = (v.page.offset - v.page.limit).max(0);
        let _ = write!(
            body,
            "<a href=\"?{}\">← {}</a>",
            esc(&query(&with(f, "offset", &previous.to_string()))),
            w("předchozí", "previous")
        );
    }
    if shown_to < v.page.total {
        let _ = write!(
            body,
            "<a href=\"?{}\">{} →</a>",
            esc(&query(&with(f, "offset", &shown_to.to_string()))),
            w("další", "next")
        );
    }
}

/// The list page's filter as the API's findings query (amounts in haléře).
fn api_filter(f: &[(String, String)]) -> Vec<(String, String)> {
    f.iter()
        .filter(|(k, _)| k != "offset" && k != "all")
        .filter_map(|(k, v)| match k.as_str() {
            "min_amount" | "max_amount" => {
                parse_koruny(v).map(|h| (format!("{k}_h"), h.to_string()))
            }
            _ => Some((k.clone(), v.clone())),
        })
        .collect()
}

fn list_row(body: &mut String, item: &FindingItem, plans: &rules::PlanBook, l: Language) {
    let lang = l.code();
    let _ = write!(
        body,
        "<tr><td><a href=\"/workbench/findings/{id}?lang={lang}\">{id}</a></td><td>{}</td><td>{}</td>\
         <td>{}</td><td>{}</td><td class=\"n\">{}</td><td>{}</td><td class=\"n\">{}</td><td>{}</td><td>{}</td></tr>",
        day(item.gaming_day, l),
        prague(item.played_at, l),
        esc(plans.game_name(&item.game)),
        esc(&item.table_id),
        item.seq_no.map_or_else(String::new, |n| n.to_string()),
        esc(&words::finding_kind_code(&item.kind, l)),
        esc(&format_czk(item.amount_h)),
        state_cell(&item.state, l),
        esc(&words::finding_message(&item.message, l)),
        id = esc(&item.id),
    );
}

/// A day as people type it — `27. 11. 2026`, `27.11.2026` — as ISO (`2026-11-27`); none when it
/// is not one (ISO dates and words such as `yesterday` are the API's and pass as they are).
pub fn parse_czech_day(text: &str) -> Option<String> {
    let cleaned: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let mut parts = cleaned.split('.');
    let (d, m, y) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let date = chrono::NaiveDate::from_ymd_opt(y.parse().ok()?, m.parse().ok()?, d.parse().ok()?)?;
    Some(date.to_string())
}

/// Koruny as people type them — `1 234,50`, `1234.5`, `100` — in haléře; none if it is not an
/// amount (or has more than two decimals).
pub fn parse_koruny(text: &str) -> Option<i64> {
    let cleaned: String = text
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '\u{a0}' && *c != '\u{202f}')
        .collect();
    let cleaned = cleaned
        .strip_suffix("Kč")
        .unwrap_or(&cleaned)
        .replace(',', ".");
    if cleaned.is_empty() {
        return None;
    }
    let (koruny, halere) = cleaned.split_once('.').unwrap_or((&cleaned, ""));
    if koruny.is_empty() && halere.is_empty()
        || !koruny.bytes().all(|b| b.is_ascii_digit())
        || !halere.bytes().all(|b| b.is_ascii_digit())
        || halere.len() > 2
    {
        return None;
    }
    let koruny: i64 = if koruny.is_empty() {
        0
    } else {
        koruny.parse().ok()?
    };
    let halere: i64 = match halere.len() {
        0 => 0,
        1 => halere.parse::<i64>().ok()? * 10,
        _ => halere.parse().ok()?,
    };
    koruny.checked_mul(100)?.checked_add(halere)
}
