//! Games by the names the plan gives them (bet kinds are named in `crate::words`).

/// A game's name as the plan gives it.
pub(super) type GameName<'a> = dyn Fn(&str) -> String + 'a;
