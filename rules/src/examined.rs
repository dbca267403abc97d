//! What a record says that cannot have happened, found once as the record is read.

use crate::error::RecordError;

/// What [`crate::game::Game::check_possible`] found when a record was read, kept with the record: a round is
/// read once and may be judged many times. Boxed, as it is almost always `Ok`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Examined(Option<Result<(), Box<RecordError>>>);

impl Examined {
    pub fn of(found: Result<(), RecordError>) -> Examined {
        Examined(Some(found.map_err(Box::new)))
    }

    /// What was found, or, for a record never examined, what `find` finds now.
    pub fn or_find(
        &self,
        find: impl FnOnce() -> Result<(), RecordError>,
    ) -> Result<(), RecordError> {
        match &self.0 {
            Some(found) => found.clone().map_err(|e| *e),
            None => find(),
        }
    }
}
