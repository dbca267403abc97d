//! The gaming-day clock's arguments, shared by every command that builds or serves reports,
//! and the months named relative to it.

use anyhow::Context as _;

/// How gaming days are cut and when a round counts as late: shared by every command that
/// builds or serves reports, so they all agree.
#[derive(Debug, Clone, clap::Args)]
pub struct ClockArgs {
    /// Local hour (Europe/Prague) at which a gaming day starts.
    #[arg(long, env = "DOZOR_GAMING_DAY_START_HOUR", default_value_t = 6)]
    pub gaming_day_start_hour: u32,
    /// A round received more than this many hours after it was played is stored, flagged
    /// `late_record`, and shown in its day's report as a change after the day closed.
    #[arg(long, env = "DOZOR_LATE_AFTER_HOURS", default_value_t = rules::gaming_day::DEFAULT_LATE_AFTER_HOURS)]
    pub late_after_hours: u32,
}

impl ClockArgs {
    pub fn clock(&self) -> anyhow::Result<rules::gaming_day::GamingDayClock> {
        rules::gaming_day::GamingDayClock::new(
            chrono_tz::Europe::Prague,
            self.gaming_day_start_hour,
        )
        .context("--gaming-day-start-hour must be 0-23")?
        .with_late_after_hours(self.late_after_hours)
        .context("--late-after-hours must be at least 1")
    }
}

/// The month a `--month` argument names.
pub fn month_arg(
    text: &str,
    clock: &rules::gaming_day::GamingDayClock,
) -> anyhow::Result<rules::gaming_day::Month> {
    let this = rules::gaming_day::Month::of(clock.day_of(chrono::Utc::now()));
    Ok(match text {
        "this" => this,
        "last" => this.previous(),
        other => rules::gaming_day::Month::parse(other)
            .with_context(|| format!("--month `{other}` is not YYYY-MM, this or last"))?,
    })
}
