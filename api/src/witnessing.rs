//! The server's witness client: each configured witness (C2SP `tlog-witness`) is shown the
//! latest signed checkpoint with a consistency proof from the size it last cosigned, learning
//! that size from a 409 when it does not know it; the cosignatures it answers are checked under
//! the witness's key and kept beside the checkpoint. One thread per witness: a witness that is
//! down or slow delays nothing but its own cosignatures (retried with backoff), and readiness
//! and metrics show how far each lags.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use chrono::Utc;
use dozor_log::cosignature::{self, CosignatureVerifier};
use dozor_log::tlog_witness;
use ledger::storage::{checkpoints, cosignatures, tree, PgPool};

use crate::stopping::sleep_unless_stopped;
use crate::witness_progress::WitnessProgress;

/// A witness the server sends its checkpoints to.
#[derive(Debug, Clone)]
pub struct WitnessEndpoint {
    /// The witness's submission prefix: `add-checkpoint` is appended
    /// (`https://witness.regulator.example/casino-1/`).
    pub url: String,
    /// The witness's cosignature key; its name names the witness.
    pub key: CosignatureVerifier,
    /// Certificates (PEM) to trust for an https URL instead of the public roots.
    pub ca_certificates: Option<Vec<u8>>,
}

impl WitnessEndpoint {
    fn add_checkpoint_url(&self) -> String {
        format!("{}/add-checkpoint", self.url.trim_end_matches('/'))
    }
}

/// The configured witnesses and their progress (shared with the handlers).
#[derive(Debug, Default)]
pub struct Witnesses {
    endpoints: Vec<WitnessEndpoint>,
    progress: Vec<Mutex<WitnessProgress>>,
}

impl Witnesses {
    pub fn new(endpoints: Vec<WitnessEndpoint>) -> Witnesses {
        let progress = endpoints
            .iter()
            .map(|e| {
                Mutex::new(WitnessProgress {
                    witness: e.key.name.clone(),
                    ..WitnessProgress::default()
                })
            })
            .collect();
        Witnesses {
            endpoints,
            progress,
        }
    }

    /// The witnesses' keys: what a served checkpoint's cosignatures are checked with.
    pub fn keys(&self) -> Vec<CosignatureVerifier> {
        self.endpoints.iter().map(|e| e.key.clone()).collect()
    }

    pub fn progress(&self) -> Vec<WitnessProgress> {
        self.progress
            .iter()
            .map(|p| p.lock().map(|p| p.clone()).unwrap_or_default())
            .collect()
    }

    fn update(&self, i: usize, change: impl FnOnce(&mut WitnessProgress)) {
        if let Some(Ok(mut p)) = self.progress.get(i).map(Mutex::lock) {
            change(&mut p);
            p.lag_entries = p
                .checkpoint_size
                .saturating_sub(p.cosigned_size.unwrap_or(0));
        }
    }
}

/// The running clients; [`WitnessClients::stop`] ends them.
pub struct WitnessClients {
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
}

impl WitnessClients {
    pub fn stop(self) {
        self.stop.store(true, Ordering::SeqCst);
        for thread in &self.threads {
            thread.thread().unpark();
        }
        for thread in self.threads {
            if thread.join().is_err() {
                tracing::error!("a witness client panicked");
            }
        }
    }
}

/// How often a client looks for a new checkpoint when it is up to date.
const POLL: Duration = Duration::from_secs(1);
/// The longest wait between attempts at a witness that fails.
const MAX_BACKOFF: Duration = Duration::from_secs(60);
/// How long one request may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// Starts one client thread per configured witness.
pub fn spawn(
    pool: PgPool,
    witnesses: Arc<Witnesses>,
    metrics: Arc<crate::metrics::Metrics>,
) -> std::io::Result<WitnessClients> {
    let stop = Arc::new(AtomicBool::new(false));
    let mut threads = Vec::new();
    for i in 0..witnesses.endpoints.len() {
        let (pool, witnesses, metrics, stop) = (
            pool.clone(),
            witnesses.clone(),
            metrics.clone(),
            stop.clone(),
        );
        threads.push(
            std::thread::Builder::new()
                .name(format!("dozor-witness-{i}"))
                .spawn(move || run(&pool, &witnesses, i, &metrics, &stop))?,
        );
    }
    Ok(WitnessClients { stop, threads })
}

/// Why one attempt did not end in a stored cosignature.
#[derive(Debug, thiserror::Error)]
enum AttemptError {
    #[error("{0}")]
    Ledger(#[from] ledger::LedgerError),
    #[error("the ledger's tree: {0}")]
    Tree(#[from] ledger::storage::tree::TreeError),
    #[error("no database connection: {0}")]
    Pool(#[from] diesel::r2d2::PoolError),
    #[error("the witness is unreachable: {0}")]
    Unreachable(String),
    #[error("the witness refused the checkpoint of size {size}: {status} {message}")]
    Refused {
        size: u64,
        status: u16,
        message: String,
    },
    #[error("{0}")]
    BadAnswer(String),
    /// The witness has cosigned a larger tree than the ledger has: the ledger was rolled back,
    /// or the witness follows another ledger of the same name.
    #[error("the witness has cosigned size {witness}, beyond the ledger's latest checkpoint of size {ledger}: was the ledger rolled back?")]
    Ahead { witness: u64, ledger: u64 },
}

/// What one attempt did.
enum Step {
    /// Nothing new to show.
    UpToDate,
    /// Cosigned up to this size.
    Cosigned(u64),
    /// The witness's size was learnt from a 409: try again at once.
    Learnt(u64),
}

fn run(
    pool: &PgPool,
    witnesses: &Witnesses,
    i: usize,
    metrics: &crate::metrics::Metrics,
    stop: &AtomicBool,
) {
    let Some(endpoint) = witnesses.endpoints.get(i) else {
        return;
    };
    let name = endpoint.key.name.clone();
    let agent = match agent(endpoint) {
        Ok(agent) => agent,
        Err(e) => {
            tracing::error!(witness = %name, error = %e, "witness client not started");
            witnesses.update(i, |p| p.last_error = Some(e));
            return;
        }
    };
    // What it cosigned, as far as the ledger keeps: a start; a 409 corrects it.
    let mut known: Option<u64> = pool
        .get()
        .ok()
        .and_then(|mut c| cosignatures::cosigned_sizes(&mut c).ok())
        .and_then(|sizes| sizes.get(&name).copied());
    witnesses.update(i, |p| p.cosigned_size = known);
    let mut backoff = POLL;
    while !stop.load(Ordering::SeqCst) {
        let wait = match attempt(pool, endpoint, &agent, known, witnesses, i) {
            Ok(Step::UpToDate) => {
                backoff = POLL;
                POLL
            }
            Ok(Step::Cosigned(size)) => {
                metrics.witness_request(&name, "cosigned");
                known = Some(size);
                witnesses.update(i, |p| {
                    p.cosigned_size = Some(size);
                    p.last_cosigned_at = Some(Utc::now());
                    p.last_error = None;
                });
                backoff = POLL;
                Duration::ZERO
            }
            Ok(Step::Learnt(size)) => {
                metrics.witness_request(&name, "conflict");
                known = Some(size);
                witnesses.update(i, |p| p.cosigned_size = Some(size));
                Duration::ZERO
            }
            Err(e) => {
                metrics.witness_request(&name, "failed");
                tracing::warn!(witness = %name, error = %e, retry_in = ?backoff, "witness did not cosign");
                witnesses.update(i, |p| p.last_error = Some(e.to_string()));
                let wait = backoff;
                backoff = (backoff * 2).min(MAX_BACKOFF);
                wait
            }
        };
        metrics.witness_progress(&witnesses.progress());
        if !wait.is_zero() {
            sleep_unless_stopped(wait, stop);
        }
    }
}

fn agent(endpoint: &WitnessEndpoint) -> Result<ureq::Agent, String> {
    let mut config = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(REQUEST_TIMEOUT));
    if let Some(pem) = &endpoint.ca_certificates {
        let certs = ureq::tls::parse_pem(pem)
            .filter_map(|item| match item {
                Ok(ureq::tls::PemItem::Certificate(c)) => Some(Ok(c)),
                Ok(_) => None,
                Err(e) => Some(Err(e)),
            })
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("the witness's CA certificates: {e}"))?;
        config = config.tls_config(
            ureq::tls::TlsConfig::builder()
                .root_certs(ureq::tls::RootCerts::Specific(Arc::new(certs)))
                .build(),
        );
    }
    Ok(config.build().into())
}

fn attempt(
    pool: &PgPool,
    endpoint: &WitnessEndpoint,
    agent: &ureq::Agent,
    known: Option<u64>,
    witnesses: &Witnesses,
    i: usize,
) -> Result<Step, AttemptError> {
    let mut conn = pool.get()?;
    let Some(latest) = checkpoints::latest(&mut conn).map_err(ledger::LedgerError::Database)?
    else {
        return Ok(Step::UpToDate);
    };
    witnesses.update(i, |p| p.checkpoint_size = latest.size as u64);
    // A rotation since what the witness cosigned is shown first: the witness learns from the
    // key that held the log which key holds it now.
    let rotation = match known {
        Some(cosigned) => {
            ledger::storage::rotation::rotation_checkpoint_after(&mut conn, cosigned)?
        }
        None => None,
    };
    let is_latest = rotation.is_none();
    let latest = rotation.unwrap_or(latest);
    let size = latest.size as u64;
    let old = known.unwrap_or(0);
    if old == size && known.is_some() {
        return Ok(Step::UpToDate);
    }
    if old > size {
        return Err(AttemptError::Ahead {
            witness: old,
            ledger: size,
        });
    }
    let proof = if old == 0 {
        Vec::new()
    } else {
        tree::consistency_proof(&mut conn, old, size)?.2
    };
    // The connection is not held while the witness answers.
    drop(conn);
    let body = tlog_witness::body(old, &proof, &latest.note);
    let mut answer = agent
        .post(&endpoint.add_checkpoint_url())
        .content_type("text/plain; charset=utf-8")
        .send(body.as_bytes())
        .map_err(|e| AttemptError::Unreachable(e.to_string()))?;
    let status = answer.status().as_u16();
    let text = answer
        .body_mut()
        .with_config()
        .limit(64 * 1024)
        .read_to_string()
        .map_err(|e| AttemptError::Unreachable(e.to_string()))?;
    match status {
        200 => {
            let note = format!("{}{text}", latest.note);
            let found = cosignature::cosignatures(&note, std::slice::from_ref(&endpoint.key))
                .map_err(|e| AttemptError::BadAnswer(format!("its answer: {e}")))?;
            let Some(cosigned) = found.first() else {
                return Err(AttemptError::BadAnswer(
                    "its answer holds no cosignature by its configured key".into(),
                ));
            };
            cosignatures::record(&mut *pool.get()?, size, cosigned, Utc::now())?;
            Ok(Step::Cosigned(size))
        }
        409 => match tlog_witness::parse_size(text.as_bytes()) {
            Some(learnt) if learnt > size => Err(AttemptError::Ahead {
                witness: learnt,
                ledger: size,
            }),
            // Told the size it already claimed: the witness is inconsistent with itself.
            Some(learnt) if Some(learnt) == known => Err(AttemptError::BadAnswer(format!(
                "409 with the size {learnt} it was sent"
            ))),
            Some(learnt) => Ok(Step::Learnt(learnt)),
            None => Err(AttemptError::BadAnswer(format!(
                "409 whose body is not a size: {:?}",
                text.lines().next().unwrap_or_default()
            ))),
        },
        // A witness not told of the log's rotation yet (its state unknown here): start from
        // the rotations, whose 409 gives its size.
        404 if known.is_none() && is_latest && has_rotations(pool)? => Ok(Step::Learnt(0)),
        status => Err(AttemptError::Refused {
            size,
            status,
            message: text.lines().next().unwrap_or_default().to_owned(),
        }),
    }
}

fn has_rotations(pool: &PgPool) -> Result<bool, AttemptError> {
    Ok(!ledger::storage::rotation::rotations(&mut *pool.get()?)?.is_empty())
}
