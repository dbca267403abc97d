//! Roulette and the money wheels: where the ball or the pointer stopped.

use serde_json::Value;

use super::{text, Builder};

impl Builder<'_> {
    pub(super) fn roulette(&mut self) {
        let outcome = &self.record["outcome"];
        match outcome["number"]
            .as_u64()
            .and_then(|n| u8::try_from(n).ok())
        {
            Some(n) => {
                let colour =
                    rules::bet_kinds::pocket_colour(n).map_or("", |w| self.word(w.cs, w.en));
                self.layout.headline = format!("{} {n} ({colour})", self.word("Padlo", "Number"));
                self.fact("Číslo", "Number", format!("{n} ({colour})"));
            }
            None => {
                self.layout.headline = self.word("Neplatné roztočení", "Void spin").to_owned();
            }
        }
        let spin = &self.record["spin"];
        if spin.is_object() {
            // The record's own field names (rules::roulette::SpinEvidence).
            let rotor = self.direction(&spin["rotor"]);
            self.fact("Rotor", "Rotor", rotor);
            let ball = self.direction(&spin["ball"]);
            self.fact("Kulička", "Ball", ball);
            self.fact(
                "Otáčky kuličky",
                "Ball revolutions",
                text(&spin["ball_revolutions"]),
            );
        }
    }

    /// Which way the rotor or the ball turned, in words; as recorded when it is no direction.
    fn direction(&self, value: &Value) -> String {
        // The rules' catalogue of words names them, as the findings' messages do.
        match value.as_str() {
            Some(code @ ("clockwise" | "counterclockwise")) => {
                let czech = rules::messages::word(code).unwrap_or(code);
                self.word(czech, code).to_owned()
            }
            _ => text(value),
        }
    }

    pub(super) fn wheel(&mut self) {
        let label = self
            .verdict
            .map(|v| text(&v["segment_label"]))
            .unwrap_or_default();
        let segment = text(&self.record["outcome"]["segment"]);
        // The label is the box the segment pays (`25x_black`): named as the bets' column names it.
        let label = if label.is_empty() {
            label
        } else {
            let name = rules::bet_kinds::bet_kind_name("money_wheel", &label);
            self.word(&name.cs, &name.en).to_owned()
        };
        self.layout.headline = if label.is_empty() {
            self.word("Neplatné roztočení", "Void spin").to_owned()
        } else {
            format!(
                "{} {label}",
                self.word("Kolo zastavilo:", "The wheel stopped on")
            )
        };
        let stopped = match label.is_empty() {
            true => segment,
            false => format!("{segment} ({label})"),
        };
        self.fact("Segment", "Segment", stopped.trim().to_owned());
        self.fact("Otáčky", "Turns", text(&self.record["outcome"]["turns"]));
    }
}
