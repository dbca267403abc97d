//! Sending signed records to a server as a careful client does: a 429 or 503 is waited out for
//! as long as its `Retry-After` says and sent again, every other answer is counted by status and
//! code, and what was not accepted is named in one line.

use std::collections::BTreeMap;
use std::time::Duration;

use anyhow::Context as _;
use dozor_log::Envelope;
use serde_json::Value;

/// How often one request is sent again after a 429 or 503 (or a dropped connection) before
/// the answer counts as a refusal.
pub(crate) const MAX_ATTEMPTS: u32 = 60;
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
    /// Counts one record's answer: its HTTP status and, for a refusal, the error's `code`
    /// (none: `no answer`, as for a connection that failed).
    pub fn count(&mut self, status: u16, code: Option<&str>) {
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

/// An HTTP client that sends `token` as its bearer token.
pub fn client_with_key(token: &str) -> anyhow::Result<reqwest::Client> {
    let mut headers = reqwest::header::HeaderMap::new();
    let mut value = reqwest::header::HeaderValue::from_str(&format!("Bearer {token}"))
        .context("the API key is not a valid header value")?;
    value.set_sensitive(true);
    headers.insert(reqwest::header::AUTHORIZATION, value);
    Ok(reqwest::Client::builder()
        .default_headers(headers)
        .build()?)
}

/// Whether a record answered `status` is in the ledger: appended (201) or already there (200).
pub fn accepted(status: u16) -> bool {
    status == 200 || status == 201
}

pub(crate) fn retryable(status: u16) -> bool {
    status == 429 || status == 503
}

/// The wait a refusal asks for: its `Retry-After` seconds, or a second.
pub(crate) fn wait_of(response: &reqwest::Response) -> Duration {
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

    /// Answers two requests on loopback, `first` and then `second` (status line and JSON body),
    /// and returns when each arrived.
    fn two_answers(
        first: &'static str,
        second: &'static str,
    ) -> (String, std::thread::JoinHandle<Vec<std::time::Instant>>) {
        use std::io::{BufRead as _, BufReader, Read as _, Write as _};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let server = std::thread::spawn(move || {
            let mut arrived = Vec::new();
            for answer in [first, second] {
                let (stream, _) = listener.accept().unwrap();
                let mut reader = BufReader::new(stream);
                let mut length = 0;
                loop {
                    let mut line = String::new();
                    reader.read_line(&mut line).unwrap();
                    if let Some(n) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        length = n.trim().parse().unwrap();
                    }
                    if line == "\r\n" {
                        break;
                    }
                }
                reader.read_exact(&mut vec![0; length]).unwrap();
                arrived.push(std::time::Instant::now());
                let (status, body) = answer.split_once('\n').unwrap();
                let response = format!(
                    "HTTP/1.1 {status}\r\nRetry-After: 1\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                reader.get_mut().write_all(response.as_bytes()).unwrap();
            }
            arrived
        });
        (base, server)
    }

    fn send_once(base: String, tally: &mut Tally) -> Answer {
        let submitter = Submitter {
            client: reqwest::Client::new(),
            base,
        };
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(submitter.send("/api/v1/records", &serde_json::json!({"a": 1}), tally))
    }

    #[test]
    fn a_429_is_waited_out_for_its_retry_after_and_sent_again() {
        for refusal in [
            "429 Too Many Requests\n{\"code\":\"rate_limited\"}",
            "503 Service Unavailable\n{\"code\":\"unavailable\"}",
        ] {
            let (base, server) = two_answers(refusal, "201 Created\n{\"index\":0}");
            let mut tally = Tally::default();
            let answer = send_once(base, &mut tally);
            let arrived = server.join().unwrap();
            assert_eq!((answer.status, tally.retries), (201, 1), "{refusal}");
            assert_eq!(answer.body["index"], 0);
            // Sent again no sooner than the one second Retry-After asked for.
            assert!(
                arrived[1] - arrived[0] >= Duration::from_millis(990),
                "{refusal}: {:?}",
                arrived[1] - arrived[0]
            );
        }
    }

    #[test]
    fn any_other_refusal_is_not_sent_again() {
        let (base, server) = two_answers(
            "409 Conflict\n{\"code\":\"seq_no_conflict\"}",
            "201 Created\n{}",
        );
        let mut tally = Tally::default();
        let answer = send_once(base.clone(), &mut tally);
        assert_eq!((answer.status, tally.retries), (409, 0));
        assert_eq!(answer.body["code"], "seq_no_conflict");
        // The server still waits for its second request: give it one so it ends.
        let mut other = Tally::default();
        assert_eq!(send_once(base, &mut other).status, 201);
        assert_eq!(server.join().unwrap().len(), 2);
    }
}
