//! The package's name: `{IČO}-M-{YYYYMM}-Z-{místo}-{NN}`.

use rules::gaming_day::Month;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageName {
    /// The operator's IČO (`IDProvozovatel`).
    pub operator: String,
    pub model: String,
    pub month: Month,
    pub game_type: String,
    /// The premises' id within the operator.
    pub premises: String,
    pub version: u8,
}

/// `[A-Za-z0-9_]{1,max}`, as the Ministry's name pattern has it.
pub fn is_name_token(text: &str, max: usize) -> bool {
    !text.is_empty()
        && text.len() <= max
        && text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

impl PackageName {
    /// A monthly live-game package (model `M`, game type `Z`).
    pub fn live_game(operator: &str, month: Month, premises: &str, version: u8) -> PackageName {
        PackageName {
            operator: operator.to_owned(),
            model: "M".into(),
            month,
            game_type: "Z".into(),
            premises: premises.to_owned(),
            version,
        }
    }

    /// Reads a monthly package's name; `None` if it is not one.
    pub fn parse(name: &str) -> Option<PackageName> {
        let parts: Vec<&str> = name.split('-').collect();
        let [operator, model, period, game_type, premises, version] = parts.as_slice() else {
            return None;
        };
        let month = (period.len() == 6 && period.bytes().all(|b| b.is_ascii_digit()))
            .then(|| Month::new(period[..4].parse().ok()?, period[4..].parse().ok()?))
            .flatten()?;
        let version: u8 = (version.len() == 2 && version.bytes().all(|b| b.is_ascii_digit()))
            .then(|| version.parse().ok())
            .flatten()
            .filter(|v| *v >= 1)?;
        let game_type_ok =
            game_type.len() == 1 && game_type.bytes().all(|b| b.is_ascii_alphabetic());
        (is_name_token(operator, 20)
            && *model == "M"
            && game_type_ok
            && is_name_token(premises, 50))
        .then(|| PackageName {
            operator: (*operator).to_owned(),
            model: (*model).to_owned(),
            month,
            game_type: (*game_type).to_owned(),
            premises: (*premises).to_owned(),
            version,
        })
    }
}

impl std::fmt::Display for PackageName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}-{}-{}-{}-{}-{:02}",
            self.operator,
            self.model,
            self.month.compact(),
            self.game_type,
            self.premises,
            self.version
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_and_write_back() {
        let name = PackageName::parse("18273645-M-201902-Z-kasino_1-01").unwrap();
        assert_eq!(name.operator, "18273645");
        assert_eq!(name.month, Month::parse("2019-02").unwrap());
        assert_eq!((name.premises.as_str(), name.version), ("kasino_1", 1));
        assert_eq!(name.to_string(), "18273645-M-201902-Z-kasino_1-01");
        for bad in [
            "18273645-M-201913-Z-kasino_1-01",
            "18273645-V-201902-Z-kasino_1-01",
            "18273645-M-201902-Z-kasino-1-01",
            "18273645-M-201902-Z-kasino_1-00",
            "18273645-M-201902-Z-kasino_1-1",
            "18273645-M-2019-02-Z-kasino_1-01",
            "1827 3645-M-201902-Z-kasino_1-01",
            "18273645-M-201902-ZZ-kasino_1-01",
        ] {
            assert_eq!(PackageName::parse(bad), None, "{bad}");
        }
    }
}
