//! `dozor report mf rehearse`: the whole delivery of a month's package played through before
//! the Ministry is involved. A throwaway PKI (the Ministry's and the operator's), a rehearsal
//! ledger of its own, the real listener on a local port, the package built from the real
//! ledger (only read) and delivered as `deliver` delivers it; then the Ministry's part: the
//! download over mutual TLS, the seal checked, the envelope opened, the package checked by
//! the Ministry's rules and answered with a sealed confirmation or error report, which is
//! recorded as `confirm` records the real one — in the rehearsal's ledger, never the real one.

mod exchange;
mod pki;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use chrono::Utc;
use dozor_log::checkpoint::NoteSigner;
use dozor_log::registry_event::DeliveryStep;
use ledger::storage::database::{Database, DatabaseChoice};
use reports::mf::{self, PackageRequest};

use super::deliveries;
use super::source::{config_path, confirmation_line, delivered_or_errors, MonthPackage};

#[derive(Debug, clap::Args)]
pub struct RehearseArgs {
    /// The month, `YYYY-MM`, `this` or `last` (its gaming days, Europe/Prague).
    #[arg(long)]
    month: String,
    /// The premises' id, as in the configuration's `[[premises]]`.
    #[arg(long)]
    misto: String,
    /// A new (or empty) folder for the rehearsal: its PKI, its ledger, what the Ministry
    /// downloaded and answered (default: DATA_DIR/rehearsals/{package}-{YYYYMMDD-HHMMSS}).
    #[arg(long)]
    dir: Option<PathBuf>,
    /// Rehearse the Ministry's error report: the Ministry checks the package it received
    /// without its `misto.csv`, finds it wanting and answers with its errors.
    #[arg(long = "break")]
    break_package: bool,
    /// An empty PostgreSQL database for the rehearsal's ledger, instead of a cluster of its
    /// own under the folder (for a machine without PostgreSQL's server programs). Never the
    /// real ledger's: one that holds any table (a ledger's schema, even without entries, or
    /// anything else) is refused before anything is written to it.
    #[arg(long, hide_env_values = true)]
    ledger_url: Option<String>,
    /// The configuration file with `[operator]` and `[[premises]]` (default:
    /// DATA_DIR/dozor.toml); its `[delivery]`, if any, is not used.
    #[arg(long)]
    config: Option<PathBuf>,
    #[command(flatten)]
    clock: crate::commands::clock::ClockArgs,
}

/// One step of the rehearsal, as it is printed: the step's word, then what happened.
fn step(word: &str, text: impl std::fmt::Display) {
    println!("{word:<9} {text}");
}

/// The file the Ministry's rehearsal takes out of the package with `--break`.
const BROKEN_FILE: &str = "misto.csv";

/// What the rehearsal works with.
struct Rehearsal<'a> {
    dir: PathBuf,
    request: PackageRequest<'a>,
    written: pki::Written,
    keys: mf::keys::DeliveryKeys,
    listen: String,
    break_package: bool,
}

pub fn run(global: &DatabaseChoice, args: RehearseArgs) -> anyhow::Result<ExitCode> {
    let source = MonthPackage::load(
        &args.clock,
        &args.month,
        &config_path(global, args.config.clone()),
        &args.misto,
    )?;
    anyhow::ensure!(
        args.ledger_url.is_none() || args.ledger_url != global.database_url,
        "--ledger-url is the real ledger's database: a rehearsal records in a ledger of its own"
    );
    // Refused before anything is made: the same database may be spelled otherwise.
    if let Some(url) = &args.ledger_url {
        require_empty(url)?;
    }
    let now = Utc::now();
    let request = source.request(now);
    let package = build_read_only(global, &request)?;
    let stem = package.name.to_string();
    let stem = stem.get(..stem.len().saturating_sub(3)).unwrap_or(&stem);
    let dir = args.dir.clone().unwrap_or_else(|| {
        global.data_dir.join("rehearsals").join(format!(
            "{stem}-{}",
            now.with_timezone(&chrono_tz::Europe::Prague)
                .format("%Y%m%d-%H%M%S")
        ))
    });
    new_folder(&dir)?;
    step("folder", dir.display());
    step(
        "package",
        format!(
            "{}: built from the ledger (only read): {} table periods, {} cage periods, {} tournaments, {} rounds",
            package.name,
            package.summary.table_periods,
            package.summary.cage_periods,
            package.summary.tournaments,
            package.summary.rounds
        ),
    );
    for warning in &package.summary.warnings {
        step("warning", warning);
    }

    let port = exchange::free_port()?;
    let listen = format!("127.0.0.1:{port}");
    let written = pki::make(&dir, &listen, &format!("https://{listen}/data/"), now)?;
    for line in &written.lines {
        step("pki", line);
    }
    step(
        "pki",
        format!(
            "the [delivery] section naming them: {}",
            dir.join("delivery.toml").display()
        ),
    );
    // Read back as `deliver` and `serve` read the real ones: passwords from their files.
    let keys = mf::keys::DeliveryKeys::load(&written.delivery, &dir, &|_| None)?;

    let ledger_dir = dir.join("ledger");
    let signer = rehearsal_operator_key(&ledger_dir)?;
    let db = open_ledger(&ledger_dir, args.ledger_url.clone())?;
    step(
        "ledger",
        format!(
            "{}: the rehearsal's own ledger ({}, operator key {}); nothing is written to the real one",
            ledger_dir.display(),
            if args.ledger_url.is_some() {
                "the database --ledger-url names"
            } else {
                "its own PostgreSQL"
            },
            signer.verifier()
        ),
    );
    let rehearsal = Rehearsal {
        dir,
        request,
        written,
        keys,
        listen,
        break_package: args.break_package,
    };
    let outcome = rehearsal.deliver_and_play(&db, &signer, package);
    db.close()?;
    let verdict = outcome?;
    let listing = match &args.ledger_url {
        Some(_) => "DATABASE_URL=<the --ledger-url> dozor report mf deliveries".to_owned(),
        None => format!(
            "DATABASE_URL= dozor --data-dir {} report mf deliveries",
            ledger_dir.display()
        ),
    };
    step(
        "kept",
        format!(
            "{}: `{listing}` lists what the rehearsal recorded",
            rehearsal.dir.display()
        ),
    );
    Ok(verdict.print())
}

/// The month's package built from the real ledger, opened only to be read: neither migrated
/// nor written (its schema must be current, as `verify` needs it).
fn build_read_only(
    global: &DatabaseChoice,
    request: &PackageRequest<'_>,
) -> anyhow::Result<mf::Package> {
    let real = Database::open_for_reading(global.database_url.clone(), &global.data_dir)?;
    let built = ledger::storage::connect(&real.url)
        .map_err(anyhow::Error::from)
        .and_then(|mut conn| Ok(mf::build(&mut conn, request)?));
    real.close()?;
    built
}

/// Refuses the database `url` names for the rehearsal's ledger unless it holds no table at
/// all: asked before anything migrates or writes it, so that no other spelling of the real
/// ledger's URL (nor any database with something in it) is ever touched.
fn require_empty(url: &str) -> anyhow::Result<()> {
    let tables = ledger::storage::database::tables(&mut ledger::storage::connect(url)?)?;
    let ledger_table = |name: &str| {
        let bare = name.rsplit('.').next().unwrap_or(name);
        bare == "__diesel_schema_migrations" || bare == "ledger_entries"
    };
    if tables.iter().any(|t| ledger_table(t)) {
        anyhow::bail!(
            "--ledger-url names a database that holds a ledger (dozor's schema, {} tables): a rehearsal's ledger starts in an empty database",
            tables.len()
        );
    }
    if let Some(first) = tables.first() {
        let more = match tables.len() - 1 {
            0 => String::new(),
            n => format!(" and {n} more"),
        };
        anyhow::bail!(
            "--ledger-url names a database that is not empty (it holds {first}{more}): a rehearsal's ledger starts in an empty database"
        );
    }
    Ok(())
}

/// The rehearsal's ledger: a cluster of its own under `ledger_dir`, or the database `url`
/// names, which must be empty (asked again right before it is migrated).
fn open_ledger(ledger_dir: &Path, url: Option<String>) -> anyhow::Result<Database> {
    if let Some(url) = &url {
        require_empty(url)?;
    }
    Ok(Database::open(url, ledger_dir)?)
}

/// `dir` made, or refused when it holds anything: a rehearsal starts afresh.
fn new_folder(dir: &Path) -> anyhow::Result<()> {
    if dir.exists() {
        let mut entries =
            std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))?;
        anyhow::ensure!(
            entries.next().is_none(),
            "{} is not empty: a rehearsal starts in a new folder",
            dir.display()
        );
    }
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))
}

/// A new operator key of the rehearsal's ledger, kept where `--data-dir` finds it: its
/// checkpoint origin says it is a rehearsal's, and the real operator key never signs anything
/// of a rehearsal.
fn rehearsal_operator_key(ledger_dir: &Path) -> anyhow::Result<NoteSigner> {
    std::fs::create_dir_all(ledger_dir)
        .with_context(|| format!("creating {}", ledger_dir.display()))?;
    let key = dozor_log::keys::generate();
    let origin = ledger::operator_key::default_origin(&key.verifying_key())
        .replace("dozor.local/", "rehearsal.dozor.local/");
    let signer = NoteSigner::new(&origin, key).map_err(|e| anyhow::anyhow!("{e}"))?;
    ledger::operator_key::write_private(
        &ledger::operator_key::default_path(ledger_dir),
        &signer.private_key(),
    )?;
    Ok(signer)
}

/// How the rehearsal ended: the step the Ministry's answer was recorded as, and what it said.
struct Verdict {
    step: DeliveryStep,
    detail: String,
}

impl Verdict {
    /// The last lines: `confirmed`, or the Ministry's errors; the exit code.
    fn print(&self) -> ExitCode {
        match self.step {
            DeliveryStep::Confirmed => {
                println!("confirmed");
                ExitCode::SUCCESS
            }
            DeliveryStep::Rejected => {
                println!("rejected: the Ministry's errors:");
                for line in self.detail.lines() {
                    println!("{line}");
                }
                ExitCode::FAILURE
            }
            _ => {
                println!("confirmation_refused: {}", self.detail);
                ExitCode::FAILURE
            }
        }
    }
}

/// What the Ministry answered, as the operator received it.
struct Answer {
    file: String,
    bytes: Vec<u8>,
}

impl Rehearsal<'_> {
    /// The package delivered into the rehearsal's ledger, the listener started, the Ministry
    /// played against it, and its answer recorded.
    fn deliver_and_play(
        &self,
        db: &Database,
        signer: &NoteSigner,
        package: mf::Package,
    ) -> anyhow::Result<Verdict> {
        let mut conn = ledger::storage::connect(&db.url)?;
        let actor = dozor_log::registry_history::cli_actor();
        let delivered = delivered_or_errors(
            mf::deliver::deliver_built(
                &mut conn,
                signer.signing_key(),
                &self.request,
                package,
                &self.keys,
                &actor,
            ),
            ", as `deliver` would not",
        )?;
        let name = delivered.sealed.package.clone();
        step(
            "deliver",
            format!(
                "{name}: encrypted to the Ministry and the operator, sealed with the operator's seal ({} bytes, SHA-256 {}), sealed into the rehearsal ledger at index {}",
                delivered.sealed.sealed_file.len(),
                delivered.sealed.sha256(),
                delivered.sealed.sealed_at
            ),
        );

        let mut settings = api::server::Settings::new(db.server_url().to_owned(), signer.clone());
        settings.pool_size = 2;
        settings.clock = self.request.clock;
        let state = api::server::state(&settings)?;
        let delivery = &self.written.delivery;
        let read = |path: &Option<PathBuf>| -> anyhow::Result<Vec<u8>> {
            let path = path.as_ref().context("the listener's certificate")?;
            Ok(mf::keys::read(&self.dir, path)?)
        };
        let tls = api::publish::tls_config(
            &read(&delivery.server_certificate)?,
            &read(&delivery.server_key)?,
            self.keys.ministry_clients.clone(),
        )?;
        let listener = exchange::Listener::start(
            &self.listen,
            tls,
            state,
            delivery.download_path().to_owned(),
        )?;
        step(
            "listen",
            format!(
                "{}: the Ministry's listener as `serve` runs it (HTTPS, the Ministry's client certificate only)",
                delivery.download_url
            ),
        );
        let played = self.play_ministry(
            &name,
            &delivered.sealed.sealed_file,
            &delivered.issued.package.zip,
        );
        listener.stop()?;
        let answer = played?;

        // The operator receives the answer, as `report mf confirm` receives it.
        let outcome = mf::confirm::receive(
            &mut conn,
            signer.signing_key(),
            &self.keys,
            &answer.file,
            &answer.bytes,
            Utc::now(),
        )?;
        step(
            "confirm",
            confirmation_line(&answer.file, &outcome, "rehearsal ledger"),
        );
        let statuses = mf::status::statuses(&mut conn)?;
        for status in statuses.iter().filter(|s| s.package == name) {
            step("stav", deliveries::line(status));
        }
        Ok(Verdict {
            step: outcome.step,
            detail: outcome.detail,
        })
    }

    /// The Ministry's part: a stranger refused, the download, the seal, the envelope, the
    /// Ministry's rules, the answer sealed, the notification.
    fn play_ministry(
        &self,
        name: &str,
        sealed_file: &[u8],
        issued_zip: &[u8],
    ) -> anyhow::Result<Answer> {
        let ministry = &self.written.ministry;
        let address = self.listen.parse().context("the listener's address")?;
        let path = format!(
            "{}{}",
            self.written.delivery.download_path(),
            ledger::storage::deliveries::file_name(name)
        );
        let stranger = exchange::Client::new(address, &ministry.operator_ca, None)?;
        match stranger.request("GET", &path, b"") {
            Ok(answer) if answer.status == 200 => anyhow::bail!(
                "the listener served {path} to a client without the Ministry's certificate"
            ),
            Ok(answer) => step("refused", format!("a client without the Ministry's certificate: {}", answer.status)),
            Err(e) => step("refused", format!("a client without the Ministry's certificate: refused at the TLS handshake ({})", e.root_cause())),
        }
        let client = exchange::Client::new(
            address,
            &ministry.operator_ca,
            Some((&ministry.client_certificate_pem, &ministry.client_key_pem)),
        )?;
        let downloaded = client.request("GET", &path, b"")?;
        anyhow::ensure!(
            downloaded.status == 200,
            "the Ministry's download of {path} was answered {}: {}",
            downloaded.status,
            String::from_utf8_lossy(&downloaded.body)
        );
        let file = ledger::storage::deliveries::file_name(name);
        pki::write(
            &self.dir,
            &format!("ministerstvo/stazeno/{file}"),
            &downloaded.body,
        )?;
        anyhow::ensure!(
            downloaded.body == sealed_file,
            "the Ministry downloaded other bytes than the delivered file"
        );
        step(
            "download",
            format!(
                "{}{file}: 200, {} bytes with the Ministry's client certificate, the file as delivered (kept in ministerstvo/stazeno/)",
                self.written.delivery.download_url,
                downloaded.body.len()
            ),
        );
        let received = delivery::ministry::receive(
            &downloaded.body,
            std::slice::from_ref(self.keys.seal.certificate()),
            &ministry.encryption,
        )?;
        anyhow::ensure!(
            received.zip == issued_zip,
            "the envelope does not hold the package as issued"
        );
        step(
            "open",
            format!(
                "the seal holds (sealed by {}{}); decrypted with the Ministry's key: {name}.zip, {} bytes, SHA-256 {}, the package as issued",
                received.sealer.subject(),
                received
                    .signing_time
                    .map(|t| format!(" at {}", t.format("%Y-%m-%dT%H:%M:%SZ")))
                    .unwrap_or_default(),
                received.zip.len(),
                delivery::ministry::sha256_hex(&received.zip)
            ),
        );
        let errors = self.ministry_rules(name, &received.zip)?;
        let accepted = errors.is_empty();
        let report = delivery::ministry::report(&errors, Utc::now());
        let answer_file = delivery::ministry::answer_name(name, accepted);
        let answer = delivery::ministry::answer(
            name,
            &report,
            self.keys.encryption.certificate(),
            &ministry.seal,
            Utc::now(),
        )?;
        pki::write(&self.dir, &format!("odpovedi/{answer_file}"), &answer)?;
        step(
            "answer",
            format!(
                "{answer_file}: {}, encrypted to the operator, sealed by the Ministry (kept in odpovedi/)",
                if accepted { "OK" } else { "the errors found" }
            ),
        );
        let notify = if accepted {
            api::publish::NOTIFY_OK_PATH
        } else {
            api::publish::NOTIFY_ERROR_PATH
        };
        let notified = client.request("POST", notify, format!("{name}\n").as_bytes())?;
        step(
            "notify",
            format!(
                "{notify}: {} {}",
                notified.status,
                String::from_utf8_lossy(&notified.body).trim()
            ),
        );
        Ok(Answer {
            file: answer_file,
            bytes: answer,
        })
    }

    /// The package checked by the Ministry's rules (dozor's validator, the Ministry's codes);
    /// with `--break`, without [`BROKEN_FILE`].
    fn ministry_rules(&self, name: &str, zip: &[u8]) -> anyhow::Result<Vec<String>> {
        let mut source = mf::PackageSource::from_zip(name, zip)?;
        if self.break_package {
            source.files.retain(|(file, _)| file != BROKEN_FILE);
            step(
                "break",
                format!("{BROKEN_FILE} taken out of the package the Ministry checks (--break)"),
            );
        }
        let schema = mf::Schema::embedded().map_err(|e| anyhow::anyhow!("{e}"))?;
        let settings = mf::ValidationSettings {
            now: Utc::now(),
            clock: self.request.clock,
        };
        let errors: Vec<String> = mf::validate(schema, &source, &settings)
            .iter()
            .map(ToString::to_string)
            .collect();
        if errors.is_empty() {
            step("validate", "the Ministry's rules: no error");
        } else {
            step(
                "validate",
                format!("the Ministry's rules: {} errors", errors.len()),
            );
            for e in &errors {
                step("", e);
            }
        }
        Ok(errors)
    }
}
