//! `dozor report mf`, `report mf-validate` and `report periods`: the Ministry's monthly
//! package, its check, and the period audit it is built on.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use chrono::Utc;
use ledger::storage::connect;
use ledger::storage::database::Database;
use reports::mf::{self, OperatorConfig, PackageSource, ValidationSettings};

use ledger::storage::database::DatabaseChoice;

use super::database::with_database;
use source::{config_path, confirmation_line, delivered_or_errors, MonthPackage};

mod deliveries;
mod rehearse;
mod source;

#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct MfArgs {
    #[command(subcommand)]
    action: Option<MfAction>,
    /// The month, `YYYY-MM`, `this` or `last` (its gaming days, Europe/Prague).
    #[arg(long, required = true)]
    month: Option<String>,
    /// The premises' id, as in the configuration's `[[premises]]`.
    #[arg(long, required = true)]
    misto: Option<String>,
    /// Write a version issued before (1-99) as it was issued. Without it, the package as the
    /// ledger stands: the version issued last while its content is the same (nothing sealed),
    /// else the next version, sealed.
    #[arg(long)]
    version: Option<u8>,
    /// Where the package's folder and ZIP are written.
    #[arg(long, default_value = ".")]
    out: PathBuf,
    /// The configuration file with `[operator]` and `[[premises]]` (default: DATA_DIR/dozor.toml).
    #[arg(long)]
    config: Option<PathBuf>,
    /// The operator key that seals the package into the ledger (default: the data directory's).
    #[arg(long)]
    operator_key: Option<PathBuf>,
    #[command(flatten)]
    clock: super::clock::ClockArgs,
}

#[derive(Debug, clap::Subcommand)]
enum MfAction {
    /// The month's package delivered: made (or the version issued before while its content
    /// is the same), validated (a package that fails is not delivered), encrypted to the
    /// Ministry and the operator, sealed with the operator's seal, kept and its SHA-256 sealed
    /// into the ledger; the sealed file is what the Ministry downloads.
    Deliver(DeliverArgs),
    /// The Ministry's confirmation of a package (`{package}.Ok.zip.p7e.p7s`): its seal checked
    /// against the Ministry's seal certificates, decrypted with the operator's key, its result
    /// recorded in the ledger (exit 0 confirmed, 1 rejected). It counts only for a package dozor
    /// delivered and the Ministry downloaded, and for one package only; a file that is not
    /// that package's confirmation, or whose seal does not hold, is kept as evidence and
    /// refused (one line, exit 1), never counted as a confirmation.
    Confirm(ConfirmArgs),
    /// Each package issued and where it stands with the Ministry: generated, sealed,
    /// downloaded, confirmed or rejected, with the times.
    Deliveries(DeliveriesArgs),
    /// The registration of the operator's communication parameters (`comParamReg.xsd`): its
    /// URLs, seal, encryption and server CA certificates and its packages, from the
    /// configuration and keys, as XML for the Ministry.
    Registration(RegistrationArgs),
    /// The whole delivery rehearsed before the Ministry is involved: a throwaway PKI (the
    /// Ministry's and the operator's), the month's package delivered into a rehearsal ledger of
    /// its own (the real ledger is only read), the real listener on a local port, and the
    /// Ministry played against it: the download over mutual TLS, the seal and envelope opened,
    /// the Ministry's rules, its sealed answer recorded. Ends `confirmed` (exit 0) or with the
    /// Ministry's errors (exit 1).
    Rehearse(rehearse::RehearseArgs),
}

#[derive(Debug, clap::Args)]
struct RegistrationArgs {
    /// From when the parameters apply, `YYYY-MM-DD` (default: today).
    #[arg(long)]
    valid_from: Option<chrono::NaiveDate>,
    /// Write to this file instead of standard output.
    #[arg(long)]
    out: Option<PathBuf>,
    /// The configuration file with `[delivery]` (default: DATA_DIR/dozor.toml).
    #[arg(long)]
    config: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
struct ConfirmArgs {
    /// The confirmation file as received from the Ministry.
    file: PathBuf,
    /// The configuration file with `[delivery]` (default: DATA_DIR/dozor.toml).
    #[arg(long)]
    config: Option<PathBuf>,
    /// The operator key that signs the ledger entry (default: the data directory's).
    #[arg(long)]
    operator_key: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
struct DeliveriesArgs {
    /// JSON (the API's fields, in English) instead of the table in Czech.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
struct DeliverArgs {
    /// The month, `YYYY-MM`, `this` or `last` (its gaming days, Europe/Prague).
    #[arg(long)]
    month: String,
    /// The premises' id, as in the configuration's `[[premises]]`.
    #[arg(long)]
    misto: String,
    /// Also write the sealed file (`{package}.zip.p7e.p7s`) into this folder.
    #[arg(long)]
    out: Option<PathBuf>,
    /// The configuration file with `[operator]`, `[[premises]]` and `[delivery]` (default:
    /// DATA_DIR/dozor.toml).
    #[arg(long)]
    config: Option<PathBuf>,
    /// The operator key that seals into the ledger (default: the data directory's).
    #[arg(long)]
    operator_key: Option<PathBuf>,
    #[command(flatten)]
    clock: super::clock::ClockArgs,
}

/// The keys `[delivery]` names, read relative to the configuration file's folder.
pub fn delivery_keys(
    config: &OperatorConfig,
    config_file: &std::path::Path,
) -> anyhow::Result<mf::keys::DeliveryKeys> {
    let delivery = config.delivery.as_ref().context(
        "the configuration has no [delivery] section: the Ministry's certificates and the operator's seal (docs/MF.md; `dozor report mf rehearse` rehearses the delivery without one)",
    )?;
    let base = config_file
        .parent()
        .map(std::path::Path::to_path_buf)
        .unwrap_or_default();
    Ok(mf::keys::DeliveryKeys::load(delivery, &base, &|name| {
        std::env::var(name).ok()
    })?)
}

fn deliver(global: &DatabaseChoice, args: DeliverArgs) -> anyhow::Result<ExitCode> {
    let config_file = config_path(global, args.config);
    let source = MonthPackage::load(&args.clock, &args.month, &config_file, &args.misto)?;
    let config = &source.config;
    // Keys first: a wrong password is found before anything is made.
    let keys = delivery_keys(config, &config_file)?;
    let operator = super::serve::existing_operator_key(global, args.operator_key)?;
    let delivered = with_database(global, |conn| {
        mf::deliver::deliver(
            conn,
            operator.signing_key(),
            &source.request(Utc::now()),
            &keys,
            &dozor_log::registry_history::cli_actor(),
        )
    })?;
    let delivered = delivered_or_errors(delivered, "")?;
    let name = &delivered.sealed.package;
    let file_name = ledger::storage::deliveries::file_name(name);
    if let Some(out) = &args.out {
        let path = out.join(&file_name);
        std::fs::write(&path, &delivered.sealed.sealed_file)
            .with_context(|| format!("writing {}", path.display()))?;
        println!("file {}", path.display());
    }
    let sha256 = delivered.sealed.sha256();
    println!(
        "{name}: {} ({} bytes, sha256 {sha256}, sealed at ledger index {})",
        if delivered.new {
            "encrypted and sealed now"
        } else {
            "delivered before, unchanged"
        },
        delivered.sealed.sealed_file.len(),
        delivered.sealed.sealed_at
    );
    if let Some(delivery) = &config.delivery {
        println!("download {}{file_name}", delivery.download_url);
    }
    Ok(ExitCode::SUCCESS)
}

fn confirm(global: &DatabaseChoice, args: ConfirmArgs) -> anyhow::Result<ExitCode> {
    let config_file = config_path(global, args.config);
    let config = OperatorConfig::load(&config_file)?;
    let keys = delivery_keys(&config, &config_file)?;
    let file_name = args
        .file
        .file_name()
        .and_then(|n| n.to_str())
        .context("the confirmation file has no name")?
        .to_owned();
    let bytes =
        std::fs::read(&args.file).with_context(|| format!("reading {}", args.file.display()))?;
    let operator = super::serve::existing_operator_key(global, args.operator_key)?;
    let outcome = with_database(global, |conn| {
        mf::confirm::receive(
            conn,
            operator.signing_key(),
            &keys,
            &file_name,
            &bytes,
            Utc::now(),
        )
    })??;
    if outcome.step == dozor_log::registry_event::DeliveryStep::ConfirmationRefused {
        // A refusal is one line, as every refusal of the command line is; the file is kept.
        eprintln!(
            "{}: confirmation_refused: not counted as the confirmation of {}: {} (the file is kept as evidence, ledger index {})",
            file_name,
            outcome.package,
            outcome.detail.split_whitespace().collect::<Vec<_>>().join(" "),
            outcome.ledger_index
        );
        return Ok(ExitCode::FAILURE);
    }
    println!(
        "{}",
        confirmation_line(&outcome.package, &outcome, "ledger")
    );
    println!("{}", outcome.detail);
    Ok(match outcome.step {
        dozor_log::registry_event::DeliveryStep::Confirmed => ExitCode::SUCCESS,
        _ => ExitCode::FAILURE,
    })
}

fn registration(global: &DatabaseChoice, args: RegistrationArgs) -> anyhow::Result<ExitCode> {
    let config_file = config_path(global, args.config);
    let config = OperatorConfig::load(&config_file)?;
    let keys = delivery_keys(&config, &config_file)?;
    let base = config_file
        .parent()
        .map(std::path::Path::to_path_buf)
        .unwrap_or_default();
    let server_chain = match config
        .delivery
        .as_ref()
        .and_then(|d| d.server_certificate.clone())
    {
        Some(path) => mf::keys::certificates(&base, &[path])?,
        None => Vec::new(),
    };
    let now = Utc::now();
    let valid_from = args.valid_from.unwrap_or_else(|| now.date_naive());
    let xml = mf::registration::form(&config, &keys, &server_chain, valid_from, now)?;
    match &args.out {
        Some(path) => {
            std::fs::write(path, xml).with_context(|| format!("writing {}", path.display()))?
        }
        None => print!("{xml}"),
    }
    Ok(ExitCode::SUCCESS)
}

fn deliveries(global: &DatabaseChoice, args: DeliveriesArgs) -> anyhow::Result<ExitCode> {
    let statuses = with_database(global, mf::status::statuses)??;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&statuses)?);
        return Ok(ExitCode::SUCCESS);
    }
    print!("{}", deliveries::table(&statuses));
    Ok(ExitCode::SUCCESS)
}

pub fn package(global: &DatabaseChoice, args: MfArgs) -> anyhow::Result<ExitCode> {
    match args.action {
        Some(MfAction::Deliver(a)) => return deliver(global, a),
        Some(MfAction::Confirm(a)) => return confirm(global, a),
        Some(MfAction::Deliveries(a)) => return deliveries(global, a),
        Some(MfAction::Registration(a)) => return registration(global, a),
        Some(MfAction::Rehearse(a)) => return rehearse::run(global, a),
        None => {}
    }
    anyhow::ensure!(
        args.version.is_none_or(|v| (1..=99).contains(&v)),
        "--version must be 1-99"
    );
    let source = MonthPackage::load(
        &args.clock,
        args.month.as_deref().unwrap_or_default(),
        &config_path(global, args.config),
        args.misto.as_deref().unwrap_or_default(),
    )?;
    let operator = super::serve::existing_operator_key(global, args.operator_key)?;
    let db = Database::open(global.database_url.clone(), &global.data_dir)?;
    let mut conn = connect(&db.url)?;
    let request = source.request(Utc::now());
    let (issued, summary, new) = match args.version {
        Some(v) => (
            mf::deliver::issued_version(&mut conn, &request, v)?,
            None,
            false,
        ),
        None => {
            let issued = mf::deliver::issue(
                &mut conn,
                operator.signing_key(),
                &request,
                &dozor_log::registry_history::cli_actor(),
            )?;
            (issued.package, Some(issued.summary), issued.new)
        }
    };
    drop(conn);
    db.close()?;
    let (folder, zip_path) = mf::deliver::write_issued(&args.out, &issued)
        .with_context(|| format!("writing into {}", args.out.display()))?;
    if let Some(summary) = &summary {
        println!(
            "{}: {} table periods, {} cage periods, {} tournaments, {} rounds; {} period findings",
            issued.name,
            summary.table_periods,
            summary.cage_periods,
            summary.tournaments,
            summary.rounds,
            summary.period_findings
        );
        for line in &summary.period_finding_lines {
            println!("period finding: {line}");
        }
        for warning in &summary.warnings {
            println!("warning: {warning}");
        }
    }
    println!("folder {}", folder.display());
    let sha256 = mf::deliver::zip_sha256(&issued);
    let issued_when = if new {
        "issued now"
    } else {
        "issued before, unchanged"
    };
    println!(
        "zip {} sha256 {sha256} sealed at ledger index {} ({issued_when})",
        zip_path.display(),
        issued.sealed_at,
    );
    Ok(ExitCode::SUCCESS)
}

#[derive(Debug, clap::Args)]
pub struct MfValidateArgs {
    /// The package's folder, or its ZIP.
    package: PathBuf,
    #[command(flatten)]
    clock: super::clock::ClockArgs,
}

pub fn validate(args: MfValidateArgs) -> anyhow::Result<ExitCode> {
    let clock = args.clock.clock()?;
    let schema = mf::Schema::embedded().map_err(|e| anyhow::anyhow!("{e}"))?;
    let source = PackageSource::read(&args.package)?;
    let now = Utc::now();
    let errors = mf::validate(schema, &source, &ValidationSettings { now, clock });
    if errors.is_empty() {
        println!("{}", mf::validate::ok_line(now));
        return Ok(ExitCode::SUCCESS);
    }
    for e in &errors {
        println!("{e}");
    }
    eprintln!("{}: {} errors", source.name, errors.len());
    Ok(ExitCode::FAILURE)
}

#[derive(Debug, clap::Args)]
pub struct PeriodsArgs {
    /// The month, `YYYY-MM`, `this` or `last` (its gaming days, Europe/Prague).
    #[arg(long)]
    month: String,
    /// The configuration file (its `[reconciliation] tolerance_h`; default: DATA_DIR/dozor.toml,
    /// a tolerance of 0 without one).
    #[arg(long)]
    config: Option<PathBuf>,
    /// JSON is the whole audit; the CSVs and the workbook hold its table periods.
    #[command(flatten)]
    output: super::output::Output,
    #[command(flatten)]
    clock: super::clock::ClockArgs,
}

pub fn periods(global: &DatabaseChoice, args: PeriodsArgs) -> anyhow::Result<ExitCode> {
    let (clock, month, format, plans) =
        args.output.month(&args.clock, &args.month, "json", false)?;
    let path = config_path(global, args.config.clone());
    let tolerance_h = if args.config.is_some() || path.exists() {
        OperatorConfig::load(&path)?.reconciliation.tolerance_h
    } else {
        0
    };
    let audit = with_database(global, |conn| {
        let settings = reports::periods::AuditSettings { clock, tolerance_h };
        reports::periods::build(conn, &settings, month)
    })?;
    let writers = super::output::Writers {
        csv: reports::periods::to_csv,
        sheet: reports::periods::sheet,
        plans: &plans,
    };
    args.output.write(format, &audit?, writers)?;
    Ok(ExitCode::SUCCESS)
}
