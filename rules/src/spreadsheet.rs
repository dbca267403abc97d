//! Text a spreadsheet reads safely: a cell whose text a spreadsheet would run as a formula
//! (CSV injection) is written with a single quote before it, as every CSV file of dozor's is
//! (the casino's reports, the regulator's monitor).

use std::borrow::Cow;

/// The first characters a spreadsheet may read as the start of a formula: `=`, `+`, `-`, `@`,
/// a tab or a line end, and the full-width forms of the first four.
pub const FORMULA_STARTS: [char; 11] = [
    '=', '+', '-', '@', '\t', '\r', '\n', '\u{FF1D}', '\u{FF0B}', '\u{FF0D}', '\u{FF20}',
];

/// Whether a spreadsheet could read `text`, written as a cell, as a formula.
pub fn reads_as_formula(text: &str) -> bool {
    text.starts_with(FORMULA_STARTS)
}

/// `text` as a text cell: with a single quote before it when a spreadsheet could read it as a
/// formula (the writer then quotes the field too).
pub fn neutralise(text: &str) -> Cow<'_, str> {
    if reads_as_formula(text) {
        Cow::Owned(format!("'{text}"))
    } else {
        Cow::Borrowed(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_formula_s_first_character_is_neutralised() {
        for text in ["=1+2", "+1", "-A1", "@SUM(A1)", "\tx", "\u{FF1D}1"] {
            assert!(reads_as_formula(text), "{text:?}");
            assert_eq!(neutralise(text), format!("'{text}"));
        }
        for text in ["R01-777", "a=b", " =1+1", "'=1", ""] {
            assert!(!reads_as_formula(text), "{text:?}");
            assert_eq!(neutralise(text), text);
        }
    }
}
