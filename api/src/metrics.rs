//! Prometheus metrics: counters and histograms kept as requests pass, and gauges read from the
//! ledger, the writer and the pool when `/metrics` is scraped. Encoded by the `prometheus`
//! crate's text encoder.

use std::time::Duration;

use chrono::{DateTime, Utc};
use dozor_log::registry_event::DeliveryStep;
use prometheus::core::Collector;
use prometheus::{
    Encoder as _, Gauge, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGauge,
    IntGaugeVec, Opts, Registry, TextEncoder,
};

/// Seconds: from a cached key check (well under a millisecond) to a month's report.
const LATENCY_BUCKETS: &[f64] = &[
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];

#[derive(Debug, thiserror::Error)]
pub enum MetricsError {
    #[error("metrics: {0}")]
    Prometheus(#[from] prometheus::Error),
    #[error("metrics text is not UTF-8")]
    Encoding(#[from] std::string::FromUtf8Error),
}

/// Every series dozor exposes, in its own registry (nothing global).
pub struct Metrics {
    registry: Registry,
    records: IntCounterVec,
    requests: HistogramVec,
    findings: IntGaugeVec,
    ledger_size: IntGauge,
    since_checkpoint: Gauge,
    checkpoints_signed: IntGauge,
    writer_queue: IntGauge,
    writer_alive: IntGauge,
    pool_connections: IntGauge,
    pool_idle: IntGauge,
    pool_max: IntGauge,
    ministry: IntCounterVec,
    witness_requests: IntCounterVec,
    witness_cosigned: IntGaugeVec,
    witness_lag: IntGaugeVec,
}

/// What one attempt at a witness came to, as the `result` label says it.
const WITNESS_RESULTS: [&str; 3] = ["cosigned", "conflict", "failed"];

/// The steps the Ministry's listener counts (the others are read from sealed files, not
/// answered by the listener).
const MINISTRY_STEPS: [DeliveryStep; 2] = [DeliveryStep::Downloaded, DeliveryStep::Notified];

/// The `game` label of a record refused before its table (and so its game) was known.
pub const UNKNOWN_GAME: &str = "unknown";

/// Every `game` label of `records_ingested_total`: each game the rules know
/// ([`rules::GameCode::ALL`]), each operation record type
/// ([`rules::operations::OPERATION_TYPES`]), and [`UNKNOWN_GAME`].
pub fn ingest_games() -> impl Iterator<Item = &'static str> {
    rules::GameCode::ALL
        .into_iter()
        .map(rules::GameCode::as_str)
        .chain(rules::operations::OPERATION_TYPES)
        .chain([UNKNOWN_GAME])
}

/// What a record submission came to, as the `result` label says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IngestResult {
    /// Appended; a round with no finding (or an operation record).
    Clean,
    /// Appended; re-adjudication found a discrepancy.
    Findings,
    /// The same record again: its original receipt.
    Duplicate,
    /// Another record holds its `(table_id, seq_no)`.
    Conflict,
    /// Refused: bad envelope, signature, key, table or record.
    Refused,
    /// Not appended now (queue full, database down); the table retries.
    Unavailable,
}

impl IngestResult {
    /// Every result, in the order of the enum.
    pub const ALL: [IngestResult; 6] = [
        IngestResult::Clean,
        IngestResult::Findings,
        IngestResult::Duplicate,
        IngestResult::Conflict,
        IngestResult::Refused,
        IngestResult::Unavailable,
    ];

    pub fn label(self) -> &'static str {
        match self {
            IngestResult::Clean => "clean",
            IngestResult::Findings => "findings",
            IngestResult::Duplicate => "duplicate",
            IngestResult::Conflict => "conflict",
            IngestResult::Refused => "refused",
            IngestResult::Unavailable => "unavailable",
        }
    }
}

/// Readings taken at scrape time.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    pub ledger: Option<ledger::storage::reads::LedgerFigures>,
    pub writer_queue: usize,
    pub writer_alive: bool,
    pub pool_connections: u32,
    pub pool_idle: u32,
    pub pool_max: u32,
    pub now: Option<DateTime<Utc>>,
}

/// `metric`, registered: what the registry renders.
fn registered<M: Collector + Clone + 'static>(
    registry: &Registry,
    metric: M,
) -> Result<M, MetricsError> {
    registry.register(Box::new(metric.clone()))?;
    Ok(metric)
}

impl Metrics {
    pub fn new() -> Result<Metrics, MetricsError> {
        let registry = Registry::new_custom(Some("dozor".into()), None)?;
        let records = registered(
            &registry,
            IntCounterVec::new(
                Opts::new(
                    "records_ingested_total",
                    "Signed records submitted since start, by game (or operation record type) and result",
                ),
                &["game", "result"],
            )?,
        )?;
        // Every game × result from the start at 0, so a rate is defined from the first scrape
        // (some never move: an operation record has no `findings`, `unknown` is only `refused`).
        for game in ingest_games() {
            for result in IngestResult::ALL {
                records.with_label_values(&[game, result.label()]);
            }
        }
        // Not set up ahead: the routes are bounded, but which method and status class each
        // answers is not known in advance, and a histogram's series are read together
        // (`rate(…_sum) / rate(…_count)`, quantiles over `…_bucket`), absent meaning no traffic.
        let requests = registered(
            &registry,
            HistogramVec::new(
                HistogramOpts::new(
                    "http_request_duration_seconds",
                    "Time to answer an HTTP request, by method, route pattern and status class",
                )
                .buckets(LATENCY_BUCKETS.to_vec()),
                &["method", "route", "status"],
            )?,
        )?;
        let by_label = |name: &str, help: &str, label: &str| -> Result<IntGaugeVec, MetricsError> {
            registered(
                &registry,
                IntGaugeVec::new(Opts::new(name, help), &[label])?,
            )
        };
        let gauge = |name: &str, help: &str| -> Result<IntGauge, MetricsError> {
            registered(&registry, IntGauge::new(name, help)?)
        };
        let findings = by_label("findings", "Findings in the ledger, by kind", "kind")?;
        let ledger_size = gauge("ledger_entries", "Entries in the ledger")?;
        let since_checkpoint = registered(
            &registry,
            Gauge::new(
                "seconds_since_last_checkpoint",
                "Seconds since the latest signed checkpoint (absent before the first)",
            )?,
        )?;
        let checkpoints_signed = gauge(
            "checkpoint_present",
            "1 once the ledger has a signed checkpoint",
        )?;
        let writer_queue = gauge(
            "writer_queue_depth",
            "Submissions waiting for the ledger writer",
        )?;
        let writer_alive = gauge("writer_alive", "1 while the ledger writer runs")?;
        let pool_connections = gauge(
            "db_pool_connections",
            "Open connections in the database pool",
        )?;
        let pool_idle = gauge("db_pool_idle", "Idle connections in the database pool")?;
        let pool_max = gauge("db_pool_max", "Most connections the database pool opens")?;
        let ministry = registered(
            &registry,
            IntCounterVec::new(
                Opts::new(
                    "ministry_requests_total",
                    "Requests of the Ministry's listener since start: package downloads and notifications",
                ),
                &["step"],
            )?,
        )?;
        // Every label value from the start at 0, so a rate is defined from the first scrape.
        for step in MINISTRY_STEPS {
            ministry.with_label_values(&[step.as_str()]);
        }
        let witness_requests = registered(
            &registry,
            IntCounterVec::new(
                Opts::new(
                    "witness_requests_total",
                    "Checkpoints shown to each witness since start: cosigned, answered with its size (409), failed",
                ),
                &["witness", "result"],
            )?,
        )?;
        let witness_cosigned = by_label(
            "witness_cosigned_size",
            "The largest checkpoint size each witness has cosigned, as far as dozor knows",
            "witness",
        )?;
        let witness_lag = by_label(
            "witness_lag_entries",
            "Entries of the latest checkpoint each witness has not cosigned yet",
            "witness",
        )?;
        Ok(Metrics {
            registry,
            records,
            requests,
            findings,
            ledger_size,
            since_checkpoint,
            checkpoints_signed,
            writer_queue,
            writer_alive,
            pool_connections,
            pool_idle,
            pool_max,
            ministry,
            witness_requests,
            witness_cosigned,
            witness_lag,
        })
    }

    /// The configured witnesses' series, from the start at 0.
    pub fn register_witnesses(&self, names: &[String]) {
        for name in names {
            for result in WITNESS_RESULTS {
                self.witness_requests.with_label_values(&[name, result]);
            }
            self.witness_cosigned.with_label_values(&[name]);
            self.witness_lag.with_label_values(&[name]);
        }
    }

    /// One attempt at `witness` came to `result` (one of [`WITNESS_RESULTS`]).
    pub fn witness_request(&self, witness: &str, result: &str) {
        self.witness_requests
            .with_label_values(&[witness, result])
            .inc();
    }

    /// Where the witnesses stand.
    pub fn witness_progress(&self, progress: &[crate::witness_progress::WitnessProgress]) {
        for p in progress {
            let cosigned = p.cosigned_size.unwrap_or(0);
            self.witness_cosigned
                .with_label_values(&[&p.witness])
                .set(i64::try_from(cosigned).unwrap_or(i64::MAX));
            self.witness_lag
                .with_label_values(&[&p.witness])
                .set(i64::try_from(p.lag_entries).unwrap_or(i64::MAX));
        }
    }

    /// The Ministry's listener answered a download or a notification.
    pub fn ministry_request(&self, step: DeliveryStep) {
        self.ministry.with_label_values(&[step.as_str()]).inc();
    }

    /// `count` records of `game` came to `result`.
    pub fn records_ingested(&self, game: &str, result: IngestResult, count: u64) {
        self.records
            .with_label_values(&[game, result.label()])
            .inc_by(count);
    }

    /// `route` is the pattern a request matched (bounded), never the raw path.
    pub fn request_answered(&self, method: &str, route: &str, status: u16, took: Duration) {
        let class = match status {
            100..=199 => "1xx",
            200..=299 => "2xx",
            300..=399 => "3xx",
            400..=499 => "4xx",
            _ => "5xx",
        };
        self.requests
            .with_label_values(&[method, route, class])
            .observe(took.as_secs_f64());
    }

    /// Sets the gauges from `snapshot` and encodes every series in the text format.
    pub fn render(&self, snapshot: &Snapshot) -> Result<String, MetricsError> {
        if let Some(figures) = &snapshot.ledger {
            self.ledger_size
                .set(i64::try_from(figures.size).unwrap_or(i64::MAX));
            // A kind whose findings all vanished cannot happen (append-only), but a reset keeps
            // the series exactly what the ledger holds.
            self.findings.reset();
            // Every kind the rules know is there from 0, so an increase is seen from the first.
            for kind in rules::FindingKind::ALL {
                self.findings.with_label_values(&[kind.as_str()]);
            }
            for (kind, count) in &figures.findings_by_kind {
                self.findings.with_label_values(&[kind]).set(*count);
            }
            match (figures.last_checkpoint_at, snapshot.now) {
                (Some(at), Some(now)) => {
                    self.checkpoints_signed.set(1);
                    let seconds = (now - at).num_milliseconds().max(0) as f64 / 1000.0;
                    self.since_checkpoint.set(seconds);
                }
                _ => self.checkpoints_signed.set(0),
            }
        }
        self.writer_queue
            .set(i64::try_from(snapshot.writer_queue).unwrap_or(i64::MAX));
        self.writer_alive.set(i64::from(snapshot.writer_alive));
        self.pool_connections
            .set(i64::from(snapshot.pool_connections));
        self.pool_idle.set(i64::from(snapshot.pool_idle));
        self.pool_max.set(i64::from(snapshot.pool_max));
        let mut families = self.registry.gather();
        if snapshot
            .ledger
            .as_ref()
            .is_none_or(|f| f.last_checkpoint_at.is_none())
        {
            // No checkpoint yet: the age is not 0, it is absent.
            families.retain(|f| !f.name().ends_with("seconds_since_last_checkpoint"));
        }
        let mut out = Vec::new();
        TextEncoder::new().encode(&families, &mut out)?;
        Ok(String::from_utf8(out)?)
    }
}

/// The tile publisher's series (`[tiles] publish_dir`), registered when it starts.
pub struct TileSeries {
    published: IntGauge,
    failures: IntCounter,
}

impl TileSeries {
    pub fn register(metrics: &Metrics) -> Result<TileSeries, MetricsError> {
        let published = IntGauge::new(
            "tiles_published_size",
            "The size of the checkpoint the tiles folder holds (0 before the first publication)",
        )?;
        let failures = IntCounter::new(
            "tiles_publish_failures_total",
            "Tile publications that failed since start (each is retried)",
        )?;
        Ok(TileSeries {
            published: registered(&metrics.registry, published)?,
            failures: registered(&metrics.registry, failures)?,
        })
    }

    /// A publication ended with the folder at `size` entries, or failed (`None`).
    pub fn published(&self, size: Option<u64>) {
        match size {
            Some(size) => self.published.set(i64::try_from(size).unwrap_or(i64::MAX)),
            None => self.failures.inc(),
        }
    }
}

/// The full walk's series, registered when the server's walker starts.
pub struct FullWalkSeries {
    running: IntGauge,
    next: IntGauge,
    target: IntGauge,
}

impl FullWalkSeries {
    pub fn register(metrics: &Metrics) -> Result<FullWalkSeries, MetricsError> {
        let gauge = |name: &str, help: &str| -> Result<IntGauge, MetricsError> {
            registered(&metrics.registry, IntGauge::new(name, help)?)
        };
        Ok(FullWalkSeries {
            running: gauge(
                "full_walk_running",
                "1 while the full walk of the ledger runs",
            )?,
            next: gauge(
                "full_walk_next_entry",
                "The next entry the full walk checks (its progress)",
            )?,
            target: gauge(
                "full_walk_target_entries",
                "The size of the signed checkpoint the full walk goes to",
            )?,
        })
    }

    /// The walk is at entry `next` of `target`.
    pub fn walking(&self, next: u64, target: u64) {
        self.running.set(1);
        self.next.set(i64::try_from(next).unwrap_or(i64::MAX));
        self.target.set(i64::try_from(target).unwrap_or(i64::MAX));
    }

    /// The walk ended or stopped (the last position stays).
    pub fn stopped(&self) {
        self.running.set(0);
    }
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn snapshot(checkpoint_at: Option<DateTime<Utc>>) -> Snapshot {
        let now: DateTime<Utc> = "2026-11-25T12:00:00Z".parse().unwrap();
        Snapshot {
            ledger: Some(ledger::storage::reads::LedgerFigures {
                size: 42,
                last_checkpoint_at: checkpoint_at,
                findings_by_kind: vec![("overpaid".into(), 3), ("stake_above_max".into(), 1)],
            }),
            writer_queue: 7,
            writer_alive: true,
            pool_connections: 4,
            pool_idle: 3,
            pool_max: 16,
            now: Some(now),
        }
    }

    #[test]
    fn every_series_is_encoded_with_its_labels() {
        let metrics = Metrics::new().unwrap();
        metrics.records_ingested("roulette", IngestResult::Clean, 2);
        metrics.records_ingested("blackjack", IngestResult::Findings, 1);
        metrics.request_answered("POST", "/api/v1/records", 201, Duration::from_millis(3));
        let at: DateTime<Utc> = "2026-11-25T11:59:30Z".parse().unwrap();
        let text = metrics.render(&snapshot(Some(at))).unwrap();
        for line in [
            "dozor_records_ingested_total{game=\"roulette\",result=\"clean\"} 2",
            "dozor_records_ingested_total{game=\"blackjack\",result=\"findings\"} 1",
            "dozor_http_request_duration_seconds_count{method=\"POST\",route=\"/api/v1/records\",status=\"2xx\"} 1",
            // 3 ms falls in the 5 ms bucket and not in the 2.5 ms one.
            "dozor_http_request_duration_seconds_bucket{method=\"POST\",route=\"/api/v1/records\",status=\"2xx\",le=\"0.005\"} 1",
            "dozor_http_request_duration_seconds_bucket{method=\"POST\",route=\"/api/v1/records\",status=\"2xx\",le=\"0.0025\"} 0",
            "dozor_findings{kind=\"overpaid\"} 3",
            "dozor_findings{kind=\"stake_above_max\"} 1",
            "dozor_ledger_entries 42",
            // 12:00:00 − 11:59:30 = 30 s.
            "dozor_seconds_since_last_checkpoint 30",
            "dozor_writer_queue_depth 7",
            "dozor_writer_alive 1",
            "dozor_db_pool_connections 4",
            "dozor_db_pool_idle 3",
            "dozor_db_pool_max 16",
        ] {
            assert!(text.lines().any(|l| l == line), "missing `{line}` in\n{text}");
        }
        assert!(text.contains("# TYPE dozor_http_request_duration_seconds histogram"));
    }

    /// The value of `series` in `text`, if it is there.
    fn value(text: &str, series: &str) -> Option<String> {
        text.lines()
            .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ').map(str::to_owned))
    }

    #[test]
    fn every_known_label_value_is_there_from_zero() {
        let metrics = Metrics::new().unwrap();
        let text = metrics.render(&snapshot(None)).unwrap();
        let games: Vec<&str> = rules::GameCode::ALL
            .iter()
            .map(|g| g.as_str())
            .chain(rules::operations::OPERATION_TYPES)
            .chain(["unknown"])
            .collect();
        let series = |game: &str, result: IngestResult| {
            format!(
                "dozor_records_ingested_total{{game=\"{game}\",result=\"{}\"}}",
                result.label()
            )
        };
        for game in &games {
            for result in IngestResult::ALL {
                let s = series(game, result);
                assert_eq!(value(&text, &s).as_deref(), Some("0"), "{s} in\n{text}");
            }
        }
        let ingest_lines = text
            .lines()
            .filter(|l| l.starts_with("dozor_records_ingested_total{"))
            .count();
        assert_eq!(ingest_lines, games.len() * IngestResult::ALL.len());
        for step in ["downloaded", "notified"] {
            let s = format!("dozor_ministry_requests_total{{step=\"{step}\"}}");
            assert_eq!(value(&text, &s).as_deref(), Some("0"), "{s}");
        }
        // Findings are read from the ledger: every kind the rules know, those with none at 0.
        for kind in rules::FindingKind::ALL {
            let s = format!("dozor_findings{{kind=\"{}\"}}", kind.as_str());
            let expected = if kind == rules::FindingKind::Overpaid {
                "3"
            } else {
                "0"
            };
            assert_eq!(value(&text, &s).as_deref(), Some(expected), "{s}");
        }

        metrics.records_ingested("roulette", IngestResult::Clean, 1);
        let text = metrics.render(&snapshot(None)).unwrap();
        for game in &games {
            for result in IngestResult::ALL {
                let s = series(game, result);
                let expected = if (*game, result) == ("roulette", IngestResult::Clean) {
                    "1"
                } else {
                    "0"
                };
                assert_eq!(value(&text, &s).as_deref(), Some(expected), "{s}");
            }
        }
    }

    #[test]
    fn ingest_games_are_the_rules_codes_the_operation_types_and_unknown() {
        let games: Vec<&str> = ingest_games().collect();
        let distinct: std::collections::BTreeSet<&str> = games.iter().copied().collect();
        assert_eq!(distinct.len(), games.len(), "{games:?}");
        assert_eq!(
            games.len(),
            rules::GameCode::ALL.len() + rules::operations::OPERATION_TYPES.len() + 1
        );
        for game in [
            "roulette",
            "money_wheel_2",
            "table_open",
            "cage_close",
            "unknown",
        ] {
            assert!(games.contains(&game), "{game} not in {games:?}");
        }
        let labels: std::collections::BTreeSet<&str> =
            IngestResult::ALL.iter().map(|r| r.label()).collect();
        assert_eq!(labels.len(), IngestResult::ALL.len());
    }

    #[test]
    fn no_checkpoint_means_no_age_rather_than_zero() {
        let metrics = Metrics::new().unwrap();
        let text = metrics.render(&snapshot(None)).unwrap();
        assert!(
            !text.contains("dozor_seconds_since_last_checkpoint"),
            "{text}"
        );
        assert!(text.lines().any(|l| l == "dozor_checkpoint_present 0"));
    }
}
