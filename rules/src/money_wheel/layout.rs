//! A money wheel's segment order: the table's configuration, checked against the plan.

use serde::{Deserialize, Serialize};

use crate::error::RecordError;
use crate::plan::table_games::WheelPlan;

/// The table's wheel: the label of each segment in physical order (index 0, 1, … clockwise).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct WheelLayout(Vec<String>);

impl WheelLayout {
    /// A layout for `wheel`: each box's label exactly as many times as the plan gives it
    /// segments, and no other label.
    pub fn new(wheel: &WheelPlan, segments: Vec<String>) -> Result<WheelLayout, RecordError> {
        for (i, label) in segments.iter().enumerate() {
            if wheel.box_of(label).is_none() {
                return Err(RecordError::invalid(
                    format!("wheel_layout[{i}]"),
                    format!(
                        "`{label}` is not a box of the plan (boxes: {})",
                        wheel
                            .boxes
                            .iter()
                            .map(|b| b.id.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ));
            }
        }
        for b in &wheel.boxes {
            let count = segments.iter().filter(|s| **s == b.id).count();
            if count != b.segments as usize {
                return Err(RecordError::invalid(
                    "wheel_layout",
                    format!(
                        "the plan's wheel has {} segments `{}`, this layout {count}",
                        b.segments, b.id
                    ),
                ));
            }
        }
        Ok(WheelLayout(segments))
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn label(&self, segment: u16) -> Option<&str> {
        self.0.get(usize::from(segment)).map(String::as_str)
    }

    pub fn segments(&self) -> &[String] {
        &self.0
    }
}
