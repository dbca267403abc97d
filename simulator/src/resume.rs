//! Where a simulated station stands in the ledger: registered (or found registered), with a key
//! in force that the run signs with, and how much of a month the ledger holds already. A table
//! numbers its records in the order they are played, so a month goes into a station's sequence
//! once, where it falls in time: run again, the simulator finds it there (by reading the
//! station's records with a read-only key it makes for the purpose and revokes) and sends only
//! what follows the station's last record.

use anyhow::{anyhow, bail, Context as _};
use chrono::{DateTime, Utc};
use serde_json::{json, Value};

/// A registered table as the server describes it.
pub(crate) async fn read_table(
    client: &reqwest::Client,
    base: &str,
    table_id: &str,
) -> anyhow::Result<Value> {
    Ok(client
        .get(format!("{base}/api/v1/tables/{table_id}"))
        .send()
        .await?
        .json()
        .await?)
}

/// Registers a table (201, or 409 when it exists) and returns it as the server describes it.
pub(crate) async fn register(
    client: &reqwest::Client,
    base: &str,
    body: Value,
) -> anyhow::Result<Value> {
    let table_id = body["table_id"].as_str().unwrap_or_default().to_owned();
    let registration = client
        .post(format!("{base}/api/v1/tables"))
        .json(&body)
        .send()
        .await
        .with_context(|| format!("cannot reach {base}; is `dozor serve` running?"))?;
    match registration.status().as_u16() {
        201 | 409 => {}
        status => bail!(
            "registering {table_id}: HTTP {status}: {}",
            registration.text().await?
        ),
    }
    read_table(client, base, &table_id).await
}

/// Whether `table` (as the server describes it) holds `public_key` as a key not revoked: the
/// table takes records signed by it.
pub(crate) fn holds_key(table: &Value, public_key: &str) -> bool {
    table["keys"].as_array().is_some_and(|keys| {
        keys.iter()
            .any(|k| k["public_key"] == public_key && k["revoked_at"].is_null())
    })
}

/// The next sequence number of a table as the server describes it.
pub(crate) fn next_seq_no(table: &Value) -> u64 {
    table["last_seq_no"].as_u64().map_or(1, |s| s + 1)
}

/// A station of the month as its registration found it in the ledger.
pub(crate) struct Registered {
    pub table: Value,
    pub last_seq_no: Option<u64>,
    pub last_record_hash: Option<String>,
    pub last_at: Option<DateTime<Utc>>,
}

impl Registered {
    pub(crate) fn of(table: Value) -> Registered {
        Registered {
            last_seq_no: table["last_seq_no"].as_u64(),
            last_record_hash: table["last_record"]["record_hash"]
                .as_str()
                .map(str::to_owned),
            last_at: table["last_record"]["at"].as_str().and_then(parse_time),
            table,
        }
    }
}

fn parse_time(text: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// When a record was played (a round's `played_at`) or happened (an operation's `at`).
fn record_time(record: &Value) -> Option<DateTime<Utc>> {
    ["played_at", "at"]
        .iter()
        .find_map(|field| record[field].as_str())
        .and_then(parse_time)
}

pub(crate) fn canonical_hash(record: &Value) -> anyhow::Result<String> {
    let bytes = dozor_log::canonical::canonicalize(record)?;
    Ok(hex::encode(dozor_log::entry::record_hash(&bytes)))
}

/// `record` as it would be numbered `seq_no`: the number and the ids made from it.
fn renumbered(record: &Value, seq_no: u64) -> Value {
    let mut record = record.clone();
    let table_id = record["table_id"].as_str().unwrap_or_default().to_owned();
    record["seq_no"] = json!(seq_no);
    for id in ["round_id", "tournament_id"] {
        if record.get(id).is_some() {
            record[id] = json!(format!("{table_id}-{seq_no}"));
        }
    }
    record
}

/// Reads stations' records by `seq_no` (`GET /api/v1/tables/{id}/records/{seq_no}`, which an
/// admin key may not call): with a regulator's key made through the admin key when first
/// needed, revoked by [`RecordReader::close`].
pub(crate) struct RecordReader<'a> {
    admin: &'a reqwest::Client,
    base: &'a str,
    reader: Option<(reqwest::Client, String)>,
}

impl<'a> RecordReader<'a> {
    pub(crate) fn new(admin: &'a reqwest::Client, base: &'a str) -> RecordReader<'a> {
        RecordReader {
            admin,
            base,
            reader: None,
        }
    }

    async fn client(&mut self) -> anyhow::Result<&reqwest::Client> {
        if self.reader.is_none() {
            let now = Utc::now();
            let answer = self
                .admin
                .post(format!("{}/api/v1/apikeys", self.base))
                .json(&json!({
                    "name": format!("simulator-reader-{}", now.format("%Y%m%dT%H%M%S%.6f")),
                    "role": "regulator",
                    "expires_at": (now + chrono::Duration::hours(1)).to_rfc3339(),
                }))
                .send()
                .await?;
            let status = answer.status().as_u16();
            let body: Value = answer.json().await.unwrap_or(Value::Null);
            let (Some(token), Some(key_id)) = (body["token"].as_str(), body["key_id"].as_str())
            else {
                bail!(
                    "making a key to read the stations' records: HTTP {status}: {} {}",
                    body["code"],
                    body["message"]
                );
            };
            self.reader = Some((crate::submit::client_with_key(token)?, key_id.to_owned()));
        }
        self.reader
            .as_ref()
            .map(|(client, _)| client)
            .ok_or_else(|| anyhow!("no reader key"))
    }

    /// The signed record `seq_no` of `table_id`; a 429 or 503 waited out for as long as its
    /// `Retry-After` says, as the records are sent.
    async fn record(&mut self, table_id: &str, seq_no: u64) -> anyhow::Result<Value> {
        use crate::submit::{retryable, wait_of, MAX_ATTEMPTS};
        let url = format!("{}/api/v1/tables/{table_id}/records/{seq_no}", self.base);
        let client = self.client().await?;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let answer = client.get(&url).send().await?;
            let status = answer.status().as_u16();
            if retryable(status) && attempt < MAX_ATTEMPTS {
                tokio::time::sleep(wait_of(&answer)).await;
                continue;
            }
            let mut body: Value = answer.json().await.unwrap_or(Value::Null);
            if status != 200 {
                bail!(
                    "reading {table_id}'s record {seq_no}: HTTP {status}: {} {}",
                    body["code"],
                    body["message"]
                );
            }
            return Ok(body["record"].take());
        }
    }

    /// When `table_id`'s record `seq_no` was played.
    async fn time(&mut self, table_id: &str, seq_no: u64) -> anyhow::Result<DateTime<Utc>> {
        record_time(&self.record(table_id, seq_no).await?)
            .ok_or_else(|| anyhow!("{table_id}'s record {seq_no} has no time"))
    }

    /// Revokes the key made for reading, if one was.
    pub(crate) async fn close(self) -> anyhow::Result<()> {
        let Some((_, key_id)) = self.reader else {
            return Ok(());
        };
        let answer = self
            .admin
            .post(format!("{}/api/v1/apikeys/{key_id}/revoke", self.base))
            .json(&json!({"reason": "simulation finished"}))
            .send()
            .await?;
        match answer.status().as_u16() {
            200 | 201 => Ok(()),
            status => bail!(
                "revoking the simulation's reader key {key_id}: HTTP {status}: {}",
                answer.text().await?
            ),
        }
    }
}

/// The month a run simulates: its name and the bounds of its gaming days.
pub(crate) struct MonthBounds {
    pub name: String,
    pub start: DateTime<Utc>,
    pub end: DateTime<Utc>,
}

/// The month's records of a station, as they would be numbered from a first `seq_no`.
pub(crate) type Numbering<'f> = &'f dyn Fn(u64) -> anyhow::Result<Vec<Value>>;

/// Where a station's month starts in its sequence, and how many of its records the ledger
/// holds already: `records` are the month's records numbered from 1, `numbered_from` makes
/// them from any first `seq_no`. The station's last record, if it is one of them, says how far
/// an earlier run got; a station whose records all come before the month continues after them;
/// a station holding records of the month or later is read from where the month starts in it:
/// the month found there whole sends nothing, anything else is refused, naming what it holds.
pub(crate) async fn resume_point(
    table_id: &str,
    registered: &Registered,
    records: &[Value],
    numbered_from: Numbering<'_>,
    month: &MonthBounds,
    reader: &mut RecordReader<'_>,
) -> anyhow::Result<(u64, usize)> {
    let (Some(last), Some(hash)) = (registered.last_seq_no, &registered.last_record_hash) else {
        return Ok((1, 0));
    };
    for (j, record) in records.iter().enumerate().rev() {
        let Some(first) = last.checked_sub(j as u64).filter(|f| *f >= 1) else {
            continue;
        };
        if &canonical_hash(&renumbered(record, last))? == hash {
            return Ok((first, j + 1));
        }
    }
    if registered.last_at.is_some_and(|at| at < month.start) {
        return Ok((last + 1, 0));
    }
    // The first record played in the month or later: the station's records are in the order
    // they were played.
    let (mut low, mut high) = (1, last);
    while low < high {
        let middle = low + (high - low) / 2;
        if reader.time(table_id, middle).await? >= month.start {
            high = middle;
        } else {
            low = middle + 1;
        }
    }
    let first = low;
    let at = reader.time(table_id, first).await?;
    let ours = numbered_from(first)?;
    let (Some(head), Some(tail)) = (ours.first(), ours.last()) else {
        return Ok((first, 0));
    };
    if at >= month.end {
        bail!(
            "{table_id} holds records played after {month} (from seq_no {first}, at {}) and none of {month}: a table numbers its records in the order they are played, so {month} cannot follow them; nothing was submitted: simulate months in order, or this one in another data directory",
            at.to_rfc3339(),
            month = month.name
        );
    }
    let end = first + ours.len() as u64 - 1;
    if end <= last
        && canonical_hash(&reader.record(table_id, first).await?)? == canonical_hash(head)?
        && canonical_hash(&reader.record(table_id, end).await?)? == canonical_hash(tail)?
    {
        return Ok((first, ours.len()));
    }
    bail!(
        "{table_id} already holds records of this month or later that are not this simulation's {month} (seq_no {first} to {last}, from {}): a table numbers its records in the order they are played, so {month} cannot go before them; nothing was submitted: simulate another month, or use another --seed or data directory",
        at.to_rfc3339(),
        month = month.name
    )
}
