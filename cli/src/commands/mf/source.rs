//! What `report mf`, `deliver` and `rehearse` share: where the configuration is, the month's
//! package as the command line asks for it, a package refused for its errors, and a recorded
//! confirmation in a line.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use ledger::storage::database::DatabaseChoice;
use reports::mf::confirm::ConfirmationOutcome;
use reports::mf::{self, OperatorConfig, PackageRequest};
use rules::gaming_day::{GamingDayClock, Month};

/// The configuration file unless `--config` names another: `dozor.toml` in the data directory.
pub(super) fn config_path(global: &DatabaseChoice, config: Option<PathBuf>) -> PathBuf {
    config.unwrap_or_else(|| global.data_dir.join("dozor.toml"))
}

/// What a month's package is made from, as `report mf`, `deliver` and `rehearse` take it: the
/// month by the gaming-day clock, the configuration (which must name the premises) and the
/// plans.
pub(super) struct MonthPackage {
    /// The configuration, which names the premises.
    pub(super) config: OperatorConfig,
    misto: String,
    month: Month,
    clock: GamingDayClock,
    plans: rules::PlanBook,
}

impl MonthPackage {
    /// `--month` by `clock`'s gaming days, and the configuration file `config_file`, which must
    /// have the premises `--misto`.
    pub(super) fn load(
        clock: &crate::commands::clock::ClockArgs,
        month: &str,
        config_file: &Path,
        misto: &str,
    ) -> anyhow::Result<MonthPackage> {
        let clock = clock.clock()?;
        let month = crate::commands::clock::month_arg(month, &clock)?;
        let config = OperatorConfig::load(config_file)?;
        anyhow::ensure!(
            config.premises(misto).is_some(),
            "--misto `{misto}` is not a premises of the configuration",
        );
        Ok(MonthPackage {
            config,
            misto: misto.to_owned(),
            month,
            clock,
            plans: rules::PlanBook::builtin()?,
        })
    }

    /// The request for the package, made `now` (its version the delivery's rules decide).
    pub(super) fn request(&self, now: DateTime<Utc>) -> PackageRequest<'_> {
        PackageRequest {
            config: &self.config,
            premises: &self.misto,
            month: self.month,
            version: 1,
            clock: self.clock,
            plans: &self.plans,
            now,
        }
    }
}

/// A delivery's result; a package that fails validation is not delivered: its errors printed,
/// one a line, and an error that counts them (`ending` closes its sentence).
pub(super) fn delivered_or_errors<T>(
    result: Result<T, mf::PackageError>,
    ending: &str,
) -> anyhow::Result<T> {
    match result {
        Err(mf::PackageError::Invalid { name, errors }) => {
            for e in &errors {
                println!("{e}");
            }
            anyhow::bail!(
                "{name} fails validation with {} errors (above) and is not delivered{ending}",
                errors.len()
            );
        }
        other => Ok(other?),
    }
}

/// A recorded confirmation as a line: `{file}: {step} ({ledger} index {n})`, and who sealed it
/// when its seal held.
pub(super) fn confirmation_line(file: &str, outcome: &ConfirmationOutcome, ledger: &str) -> String {
    format!(
        "{file}: {} ({ledger} index {}){}",
        outcome.step.as_str(),
        outcome.ledger_index,
        outcome
            .sealed_by
            .as_deref()
            .map(|s| format!(", sealed by {s}"))
            .unwrap_or_default()
    )
}
