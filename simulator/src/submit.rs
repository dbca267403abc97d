//! Sending signed records to a server as a careful client does: a 429 or 503 is waited out for
//! as long as its `Retry-After` says and sent again, every other answer is counted by status and
//! code, and what was not accepted is named in one line.

use std::collections::BTreeMap;
use std::time::Duration;

use ledger::Envelope;
use serde_json::Value;

/// How often one request is sent again after a 429 or 503 (or a dropped connection) before
/// the answer counts as a refusal.
const MAX_ATTEMPTS: u32 = 60;
/// The longest wait between attempts, whatever `Retry-After` says.
const MAX_WAIT: Duration = Duration::from_secs(30);

/// The answers to the records sent: counts by HTTP status, and the refusals by status and code.
#[derive(Debug, Default, Clone)]
pub struct Tally {
    pub by_status: BTreeMap<u16, usize>,
    refusals: BTreeMap<(u16, String), usize>,
    /// Requests sent again after a 429 or 503.
    pub retries: usize,
}

impl Tally {
    fn count(&mut self, status: u16, code: Option<&str>) {
        *self.by_status.entry(status).or_default() += 1;
        if !accepted(status) {
            let code = code.unwrap_or("no answer").to_owned();
            *self.refusals.entry((status, code)).or_default() += 1;
        }
    }

    pub fn merge(&mut self, other: Tally) {
        for (status, n) in other.by_status {
            *self.by_status.entry(status).or_default() += n;
        }
        for (key, n) in other.refusals {
            *self.refusals.entry(key).or_default() += n;
        }
        self.retries += other.retries;
    }

    /// Every record appended (201) or already in the ledger (200).
    pub fn all_accepted(&self) -> bool {
        self.refusals.is_empty()
    }

    /// The records not accepted, in one line: `3 records not accepted: 409 seq_no_conflict ×2,
    /// 422 invalid_signature ×1`.
    pub fn refusal_line(&self) -> Option<String> {
        if self.refusals.is_empty() {
            return None;
        }
        let total: usize = self.refusals.values().sum();
        let parts: Vec<String> = self
            .refusals
            .iter()
            .map(|((status, code), n)| format!("{status} {code} ×{n}"))
            .collect();
        Some(format!(
            "{total} record(s) not accepted: {}",
            parts.join(", ")
        ))
    }
}

fn accepted(status: u16) -> bool {
    status == 200 || status == 201
}

fn retryable(status: u16) -> bool {
    status == 429 || status == 503
}

/// The wait a refusal asks for: its `Retry-After` seconds, or a second.
fn wait_of(response: &reqwest::Response) -> Duration {
    response
        .headers()
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map_or(Duration::from_secs(1), Duration::from_secs)
        .min(MAX_WAIT)
}

/// A server's records endpoints.
#[derive(Clone)]
pub struct Submitter {
    pub client: reqwest::Client,
    pub base: String,
}

/// What one request ended with: its status and, for a refusal, the error body's code.
struct Answer {
    status: u16,
    body: Value,
}

impl Submitter {
    /// Sends `body` to `path` until it is answered with something else than 429 or 503.
    async fn send(&self, path: &str, body: &Value, tally: &mut Tally) -> Answer {
        let url = format!("{}{path}", self.base);
        let mut attempt = 0;
        loop {
            attempt += 1;
            let (status, wait, answer) = match self.client.post(&url).json(body).send().await {
                Ok(response) => {
                    let status = response.status().as_u16();
                    let wait = wait_of(&response);
                    let body = response.json::<Value>().await.unwrap_or(Value::Null);
                    (status, wait, body)
                }
                // No answer (the server restarting, a dropped connection): sent again, as a
                // table would; a record sent twice is answered 200 the second time.
                Err(_) => (0, Duration::from_secs(1), Value::Null),
            };
            if (retryable(status) || status == 0) && attempt < MAX_ATTEMPTS {
                tally.retries += 1;
                tokio::time::sleep(wait).await;
                continue;
            }
            return Answer {
                status,
                body: answer,
            };
        }
    }

    /// Submits one record.
    pub async fn record(&self, envelope: &Envelope, tally: &mut Tally) {
        let body = serde_json::to_value(envelope).unwrap_or(Value::Null);
        let answer = self.send("/api/v1/records", &body, tally).await;
        tally.count(answer.status, answer.body["code"].as_str());
    }

    /// Submits records in order, `batch` at a time; an item answered 429 or 503 inside a
    /// batch is sent again with the next one, so that the station's records stay in order.
    pub async fn in_order(&self, envelopes: &[Envelope], batch: usize, tally: &mut Tally) {
        let mut start = 0;
        let mut attempts = 0;
        while start < envelopes.len() {
            let end = (start + batch.max(1)).min(envelopes.len());
            let body = serde_json::to_value(&envelopes[start..end]).unwrap_or(Value::Null);
            let answer = self.send("/api/v1/records/batch", &body, tally).await;
            let Some(results) = answer.body["results"].as_array() else {
                // The batch as a whole was refused: each of its records counts so.
                for _ in start..end {
                    tally.count(answer.status, answer.body["code"].as_str());
                }
                start = end;
                continue;
            };
            let mut next = end;
            for (i, result) in results.iter().enumerate() {
                let status = result["status"]
                    .as_u64()
                    .and_then(|s| u16::try_from(s).ok())
                    .unwrap_or(0);
                if retryable(status) && attempts < MAX_ATTEMPTS {
                    // Everything from here on goes again, after the wait.
                    next = start + i;
                    break;
                }
                tally.count(status, result["error"]["code"].as_str());
            }
            if next < end {
                attempts += 1;
                tally.retries += 1;
                tokio::time::sleep(Duration::from_secs(1)).await;
            } else {
                attempts = 0;
            }
            start = next;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_are_named_in_one_line() {
        let mut tally = Tally::default();
        tally.count(201, None);
        tally.count(200, None);
        assert!(tally.all_accepted());
        assert_eq!(tally.refusal_line(), None);
        tally.count(409, Some("seq_no_conflict"));
        tally.count(409, Some("seq_no_conflict"));
        tally.count(422, Some("invalid_signature"));
        let mut other = Tally::default();
        other.count(429, Some("rate_limited"));
        tally.merge(other);
        assert!(!tally.all_accepted());
        assert_eq!(
            tally.refusal_line().as_deref(),
            Some("4 record(s) not accepted: 409 seq_no_conflict ×2, 422 invalid_signature ×1, 429 rate_limited ×1")
        );
    }
}
