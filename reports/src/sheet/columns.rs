//! Columns many reports share, named once.

use super::cell::{column, Column};

pub const GAMING_DAY: Column = column("gaming_day", "Herní den", "Gaming day");
pub const TABLE: Column = column("table_id", "Stůl", "Table");
pub const GAME: Column = column("game", "Hra", "Game");
pub const PLAYED_AT: Column = column("played_at", "Odehráno", "Played at");
