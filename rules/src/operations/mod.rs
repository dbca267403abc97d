//! Table operating periods and the cage: the records stations submit besides rounds, and the
//! periods built from them. Not adjudicated round by round; checked as periods.

pub mod chips;
pub mod periods;
pub mod records;
#[cfg(test)]
mod tests;

pub use chips::{chips_value, validate_chips, ChipCount};
pub use periods::{
    assemble, reconcile, CageHoldings, CagePeriod, Movement, PeriodFinding, PeriodFindingKind,
    Periods, TablePeriod,
};
pub use records::{
    is_operation, CageKind, Operation, OperationHeader, Payment, Station, OPERATION_TYPES,
};
