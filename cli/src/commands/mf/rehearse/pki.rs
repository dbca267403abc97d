//! The rehearsal's throwaway PKI, written where an operator keeps the real one: the Ministry's
//! published parameters in `mf/`, the operator's seal, encryption key and listener certificate
//! in `keys/` (PKCS#12 files with password files, a PEM chain and key), the `[delivery]`
//! section naming them in `delivery.toml`; and what only the Ministry holds (its private keys)
//! apart, in `ministerstvo/`.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use chrono::{DateTime, Utc};
use delivery::pki::{Issued, Purpose};
use reports::mf::config::DeliveryConfig;

/// How long the rehearsal's certificates are valid: long enough to look at them afterwards.
const DAYS: i64 = 30;

/// The Ministry's side of the PKI: what it decrypts, seals and downloads with.
pub struct MinistryKeys {
    /// Its encryption key: packages are encrypted to it.
    pub encryption: delivery::Identity,
    /// Its seal: its answers are sealed with it.
    pub seal: delivery::Identity,
    /// Its TLS client certificate and key (PEM), which the listener admits.
    pub client_certificate_pem: String,
    pub client_key_pem: String,
    /// The operator's CA: the Ministry trusts the listener's certificate under it (the
    /// registration names it).
    pub operator_ca: delivery::Certificate,
}

/// The PKI as written: the `[delivery]` section naming the operator's files (relative to the
/// rehearsal's folder) and the Ministry's keys.
pub struct Written {
    pub delivery: DeliveryConfig,
    pub ministry: MinistryKeys,
    /// What was made, one line each, for the command's output.
    pub lines: Vec<String>,
}

/// `bytes` written to `file` under `dir` (its folders made); the path relative to `dir`.
pub(super) fn write(dir: &Path, file: &str, bytes: impl AsRef<[u8]>) -> anyhow::Result<PathBuf> {
    let path = dir.join(file);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating {}", parent.display()))?;
    }
    std::fs::write(&path, bytes).with_context(|| format!("writing {}", path.display()))?;
    Ok(PathBuf::from(file))
}

/// A secret written readable by its owner only (a key, a password).
fn write_secret(dir: &Path, file: &str, text: &str) -> anyhow::Result<PathBuf> {
    let path = dir.join(file);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating {}", parent.display()))?;
    }
    ledger::operator_key::write_private(&path, text)?;
    Ok(PathBuf::from(file))
}

fn describe(name: &str, file: &Path, issued: &Issued, what: &str) -> String {
    let c = issued.certificate();
    format!(
        "{name:<28} {:<26} {what}; {} (SHA-256 {}…)",
        file.display(),
        c.subject(),
        &c.fingerprint()[..16]
    )
}

/// The PKI's keys and certificates.
struct Made {
    ministry_ca: Issued,
    operator_ca: Issued,
    mf_encryption: Issued,
    mf_seal: Issued,
    mf_client: Issued,
    seal: Issued,
    encryption: Issued,
    server: Issued,
}

impl Made {
    /// Two authorities, the Ministry's and the operator's, and the six certificates under
    /// them, valid from `now`.
    fn new(now: DateTime<Utc>) -> anyhow::Result<Made> {
        let subject =
            |cn: &str, o: &str| format!("CN={cn} (rehearsal only),O={o} (rehearsal only),C=CZ");
        let mf = "Ministerstvo financi";
        let operator = "Operator";
        let ministry_ca = Issued::authority(&subject("MF CA", mf), now, DAYS)?;
        let operator_ca = Issued::authority(&subject("Operator CA", operator), now, DAYS)?;
        let issue = |ca: &Issued, cn: &str, o: &str, purpose: Purpose| {
            ca.issue(&subject(cn, o), &purpose, now, DAYS)
        };
        let mf_encryption = issue(&ministry_ca, "MF sifrovani", mf, Purpose::Encryption)?;
        let mf_seal = issue(&ministry_ca, "MF pecet", mf, Purpose::Seal)?;
        let mf_client = issue(&ministry_ca, "MF klient", mf, Purpose::TlsClient)?;
        let seal = issue(&operator_ca, "Operator pecet", operator, Purpose::Seal)?;
        let encryption = issue(
            &operator_ca,
            "Operator sifrovani",
            operator,
            Purpose::Encryption,
        )?;
        let server = issue(
            &operator_ca,
            "Operator listener",
            operator,
            Purpose::TlsServer {
                dns: vec!["localhost".into()],
                ips: vec![std::net::IpAddr::from([127, 0, 0, 1])],
            },
        )?;
        Ok(Made {
            ministry_ca,
            operator_ca,
            mf_encryption,
            mf_seal,
            mf_client,
            seal,
            encryption,
            server,
        })
    }
}

impl Made {
    /// What only the Ministry holds: its private keys (PEM), apart from what it publishes.
    fn write_ministry_keys(&self, dir: &Path) -> anyhow::Result<()> {
        write_secret(
            dir,
            "ministerstvo/mf-sifrovani.key",
            &self.mf_encryption.key_pem()?,
        )?;
        write_secret(dir, "ministerstvo/mf-pecet.key", &self.mf_seal.key_pem()?)?;
        write_secret(
            dir,
            "ministerstvo/mf-klient-1.key",
            &self.mf_client.key_pem()?,
        )?;
        Ok(())
    }
}

/// Makes the PKI under `dir` for a listener at `listen` (`127.0.0.1:PORT`) whose files the
/// Ministry downloads from `download_url`.
pub fn make(
    dir: &Path,
    listen: &str,
    download_url: &str,
    now: DateTime<Utc>,
) -> anyhow::Result<Written> {
    let m = Made::new(now)?;

    // Each file written, and a line saying what it holds.
    let mut lines = Vec::new();
    let mut put = |label: &str, file: &str, issued: &Issued, what: &str, bytes: Vec<u8>| {
        let path = write(dir, file, bytes)?;
        lines.push(describe(label, &path, issued, what));
        anyhow::Ok(path)
    };
    let pem = |issued: &Issued| anyhow::Ok(issued.certificate().pem()?.into_bytes());
    // What the Ministry publishes (its parameter package) and what it keeps.
    put(
        "the Ministry's CA",
        "mf/mf-ca.pem",
        &m.ministry_ca,
        "keyCertSign",
        pem(&m.ministry_ca)?,
    )?;
    let mf_encryption_file = put(
        "the Ministry's encryption",
        "mf/mf-sifrovani.pem",
        &m.mf_encryption,
        "keyEncipherment",
        pem(&m.mf_encryption)?,
    )?;
    let mf_seal_file = put(
        "the Ministry's seal",
        "mf/mf-pecet.pem",
        &m.mf_seal,
        "nonRepudiation",
        pem(&m.mf_seal)?,
    )?;
    let mf_client_file = put(
        "the Ministry's TLS client",
        "mf/mf-klient-1.pem",
        &m.mf_client,
        "clientAuth",
        m.mf_client.chain_pem()?.into_bytes(),
    )?;
    m.write_ministry_keys(dir)?;

    // What the operator keeps.
    let (seal_password, encryption_password) = (
        delivery::pki::random_password(),
        delivery::pki::random_password(),
    );
    put(
        "the operator's CA",
        "keys/ca.pem",
        &m.operator_ca,
        "keyCertSign",
        pem(&m.operator_ca)?,
    )?;
    let seal_file = put(
        "the operator's seal",
        "keys/pecet.p12",
        &m.seal,
        "nonRepudiation, PKCS#12",
        m.seal.pkcs12(&seal_password)?,
    )?;
    let encryption_file = put(
        "the operator's encryption",
        "keys/sifrovani.p12",
        &m.encryption,
        "keyEncipherment, PKCS#12",
        m.encryption.pkcs12(&encryption_password)?,
    )?;
    let server_file = put(
        "the operator's listener",
        "keys/server-chain.pem",
        &m.server,
        "serverAuth, localhost 127.0.0.1",
        m.server.chain_pem()?.into_bytes(),
    )?;
    let seal_password_file = write_secret(dir, "keys/pecet.heslo", &seal_password)?;
    let encryption_password_file = write_secret(dir, "keys/sifrovani.heslo", &encryption_password)?;
    let server_key_file = write_secret(dir, "keys/server.key", &m.server.key_pem()?)?;

    let delivery = DeliveryConfig {
        download_url: download_url.to_owned(),
        ministry_encryption_certificates: vec![mf_encryption_file],
        ministry_seal_certificates: vec![mf_seal_file],
        ministry_client_certificates: vec![mf_client_file],
        seal_pkcs12: seal_file,
        seal_password_file: Some(seal_password_file),
        encryption_pkcs12: encryption_file,
        encryption_password_file: Some(encryption_password_file),
        playground: true,
        listen: Some(listen.to_owned()),
        server_certificate: Some(server_file),
        server_key: Some(server_key_file),
    };
    write(dir, "delivery.toml", section(&delivery))?;
    Ok(Written {
        delivery,
        ministry: MinistryKeys {
            encryption: m.mf_encryption.identity()?,
            seal: m.mf_seal.identity()?,
            client_certificate_pem: m.mf_client.chain_pem()?,
            client_key_pem: m.mf_client.key_pem()?,
            operator_ca: m.operator_ca.certificate().clone(),
        },
        lines,
    })
}

/// The `[delivery]` section naming these files, as `dozor.toml` would hold it.
fn section(d: &DeliveryConfig) -> String {
    let path = |p: &Path| format!("\"{}\"", p.display());
    let list = |ps: &[PathBuf]| {
        format!(
            "[{}]",
            ps.iter().map(|p| path(p)).collect::<Vec<_>>().join(", ")
        )
    };
    let optional = |p: &Option<PathBuf>| p.as_deref().map(path).unwrap_or_default();
    format!(
        "# The [delivery] section of a rehearsal: its throwaway PKI, relative to this folder.\n\
         # The real one names the Ministry's published certificates and the operator's own keys.\n\
         [delivery]\n\
         download_url = \"{}\"\n\
         ministry_encryption_certificates = {}\n\
         ministry_seal_certificates = {}\n\
         ministry_client_certificates = {}\n\
         seal_pkcs12 = {}\n\
         seal_password_file = {}\n\
         encryption_pkcs12 = {}\n\
         encryption_password_file = {}\n\
         listen = \"{}\"\n\
         server_certificate = {}\n\
         server_key = {}\n\
         playground = true\n",
        d.download_url,
        list(&d.ministry_encryption_certificates),
        list(&d.ministry_seal_certificates),
        list(&d.ministry_client_certificates),
        path(&d.seal_pkcs12),
        optional(&d.seal_password_file),
        path(&d.encryption_pkcs12),
        optional(&d.encryption_password_file),
        d.listen.as_deref().unwrap_or_default(),
        optional(&d.server_certificate),
        optional(&d.server_key),
    )
}
