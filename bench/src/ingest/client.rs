//! The ingest benchmark's clients: the addresses tables send from, registering a table, sending
//! a request and reading its answers.

use std::time::{Duration, Instant};

use anyhow::anyhow;

/// Most tables in single-record mode: each from its own address, 127.0.0.2 to 127.0.0.254.
pub const MAX_ADDRESSED_TABLES: usize = 253;

/// The loopback address table `t` sends from in single-record mode.
pub fn table_address(t: usize) -> std::net::IpAddr {
    let last = u8::try_from(t + 2).unwrap_or(u8::MAX);
    std::net::IpAddr::V4(std::net::Ipv4Addr::new(127, 0, 0, last))
}

/// Registers `table_id` with the admin key, waiting out a 429 (the admin key's own limit, or the
/// address limit the benchmark was given) as a careful client does.
pub async fn register_table(
    client: &reqwest::Client,
    base: &str,
    token: &str,
    body: &serde_json::Value,
) -> anyhow::Result<()> {
    let mut attempt = 0;
    loop {
        attempt += 1;
        let r = client
            .post(format!("{base}/api/v1/tables"))
            .bearer_auth(token)
            .json(body)
            .send()
            .await?;
        let status = r.status().as_u16();
        if status == 201 {
            return Ok(());
        }
        if status == 429 && attempt < 120 {
            let wait = r
                .headers()
                .get(reqwest::header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<u64>().ok())
                .unwrap_or(1)
                .clamp(1, 30);
            tokio::time::sleep(Duration::from_secs(wait)).await;
            continue;
        }
        let answer = r.text().await.unwrap_or_default();
        return Err(anyhow!(
            "registering {}: {status} {answer}",
            body["table_id"]
        ));
    }
}

/// One request's answers, a status and (for a refusal) the error code per record, and how long
/// it took.
pub type Answers = (Vec<(u16, Option<String>)>, Duration);

/// Sends one request of `records` records and reads the answer of each.
pub async fn submit(
    client: reqwest::Client,
    url: String,
    body: Vec<u8>,
    records: usize,
    batch: bool,
) -> Answers {
    let t = Instant::now();
    let answers = match client
        .post(url)
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
    {
        Ok(r) => {
            let status = r.status().as_u16();
            let bytes = r.bytes().await.unwrap_or_default();
            let body: serde_json::Value = if batch || !simulator::submit::accepted(status) {
                serde_json::from_slice(&bytes).unwrap_or(serde_json::Value::Null)
            } else {
                serde_json::Value::Null
            };
            match body["results"].as_array() {
                Some(items) if batch => items
                    .iter()
                    .map(|item| {
                        let status = item["status"]
                            .as_u64()
                            .and_then(|s| u16::try_from(s).ok())
                            .unwrap_or(0);
                        (status, item["error"]["code"].as_str().map(str::to_owned))
                    })
                    .collect(),
                // One record, or a batch refused as a whole: each record answered so.
                _ => {
                    let code = body["code"].as_str().map(str::to_owned);
                    vec![(status, code); records]
                }
            }
        }
        Err(_) => vec![(0, None); records],
    };
    (answers, t.elapsed())
}

/// Whether the bodies of `rounds` records fit in the memory available, judged from the
/// `bytes` of the first `made`: a benchmark that would be killed for its memory says so first.
pub fn fits_in_memory(rounds: u64, made: u64, bytes: usize) -> anyhow::Result<()> {
    let needed = bytes as f64 / made.max(1) as f64 * rounds as f64;
    let available = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find_map(|line| line.strip_prefix("MemAvailable:"))
                .and_then(|kb| kb.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        })
        .map(|kb| kb * 1024.0);
    match available {
        // Room is left for the server, PostgreSQL and the answers.
        Some(available) if needed > available * 0.6 => Err(anyhow::anyhow!(
            "{rounds} signed records need about {:.1} GB held before sending; this machine has {:.1} GB available: use fewer --rounds",
            needed / 1e9,
            available / 1e9
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ingest_run_too_large_to_hold_is_refused_before_it_starts() {
        // 10 000 records of 1 300 bytes each: 13 MB for a million, well within any machine.
        assert!(fits_in_memory(1_000_000, 10_000, 13_000_000).is_ok());
        // A hundred thousand million of them: 1 300 × 10¹¹ bytes = 130 000 GB.
        let refused = fits_in_memory(100_000_000_000, 10_000, 13_000_000).unwrap_err();
        assert!(
            refused
                .to_string()
                .contains("need about 130000.0 GB held before sending"),
            "{refused}"
        );
    }

    #[test]
    fn single_record_tables_send_from_their_own_loopback_addresses() {
        assert_eq!(table_address(0).to_string(), "127.0.0.2");
        assert_eq!(
            table_address(MAX_ADDRESSED_TABLES - 1).to_string(),
            "127.0.0.254"
        );
    }
}
