#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The month's package delivered to the Ministry from the command line: validated, encrypted,
//! sealed once; what it writes is checked by an independent implementation, Debian's `openssl`.

mod common;

use actix_web::test;
use common::pki::{cms_args, Cms, Pki};
use common::Succeeds as _;
use common::*;

const NAME: &str = "12345679-M-202610-Z-kasino_1-01";

struct Setup {
    pki: Pki,
    url: String,
    dir: tempfile::TempDir,
}

impl Setup {
    fn new() -> Setup {
        Setup::on(
            Pki::new(),
            ledger::storage::testing::fresh_database().unwrap(),
        )
    }

    /// The command line's configuration and operator key for the database at `url`, with
    /// `pki`'s certificates and keys.
    fn on(pki: Pki, url: String) -> Setup {
        let dir = tempfile::tempdir().unwrap();
        ledger::operator_key::write_private(
            &dir.path().join("operator.key"),
            &operator().private_key(),
        )
        .unwrap();
        let config = format!(
            "{OPERATOR_CONFIG}{}",
            pki.delivery_section("https://mf.kasino.test/data/")
        );
        std::fs::write(dir.path().join("dozor.toml"), config).unwrap();
        std::fs::create_dir(dir.path().join("out")).unwrap();
        Setup { pki, url, dir }
    }

    /// `dozor` with `args`, this set-up's configuration, operator key and database.
    fn command<S: AsRef<std::ffi::OsStr>>(
        &self,
        args: impl IntoIterator<Item = S>,
    ) -> std::process::Command {
        let mut command = dozor();
        command
            .args(args)
            .arg("--config")
            .arg(self.dir.path().join("dozor.toml"))
            .arg("--operator-key")
            .arg(self.dir.path().join("operator.key"))
            .env("DATABASE_URL", &self.url)
            .env_remove("DOZOR_MF_SEAL_PASSWORD")
            .env_remove("DOZOR_MF_ENCRYPTION_PASSWORD");
        command
    }

    fn dozor(&self, args: &[&str]) -> std::process::Output {
        self.command(args)
            .arg("--out")
            .arg(self.dir.path().join("out"))
            .output()
            .unwrap()
    }

    fn deliver(&self, month: &str) -> std::process::Output {
        self.dozor(&[
            "report", "mf", "deliver", "--month", month, "--misto", "kasino_1",
        ])
    }

    fn confirm(&self, file: &std::path::Path) -> std::process::Output {
        let args = ["report", "mf", "confirm"].map(std::ffi::OsStr::new);
        self.command(args.into_iter().chain([file.as_os_str()]))
            .output()
            .unwrap()
    }

    /// `dozor verify` of this set-up's database against the tests' operator key; with
    /// `data_dir`, given this set-up's data directory too.
    fn verify(&self, data_dir: bool) -> std::process::Output {
        let mut command = dozor();
        if data_dir {
            command.arg("--data-dir").arg(self.dir.path());
        }
        command
            .args([
                "verify",
                "--operator-key",
                &operator().verifier().to_string(),
            ])
            .env("DATABASE_URL", &self.url)
            .output()
            .unwrap()
    }

    fn ledger_size(&self) -> u64 {
        ledger_size(&self.url)
    }
}

/// What the command said on standard error, without the log's lines (`{time} INFO …`, their
/// colours taken out).
fn said_lines(out: &std::process::Output) -> Vec<String> {
    let mut plain = String::new();
    let mut in_escape = false;
    for c in String::from_utf8_lossy(&out.stderr).chars() {
        match (in_escape, c) {
            (false, '\u{1b}') => in_escape = true,
            (false, c) => plain.push(c),
            (true, 'm') => in_escape = false,
            (true, _) => {}
        }
    }
    plain
        .lines()
        .filter(|line| {
            let mut words = line.split_whitespace();
            let logged = words
                .next()
                .is_some_and(|w| w.starts_with("20") && w.ends_with('Z'))
                && words
                    .next()
                    .is_some_and(|w| ["TRACE", "DEBUG", "INFO", "WARN", "ERROR"].contains(&w));
            !logged
        })
        .map(str::to_owned)
        .collect()
}

/// The command refused a confirmation: exit 1 and one line, `confirmation_refused` and `why`.
fn assert_refused(refused: &std::process::Output, why: &str) {
    assert_eq!(refused.status.code(), Some(1), "{}", text(refused));
    let said = said_lines(refused);
    assert!(
        said.len() == 1 && said[0].contains("confirmation_refused") && said[0].contains(why),
        "{said:?}"
    );
}

// `test` is actix's here; this one is the standard test attribute.
#[::core::prelude::v1::test]
fn a_month_is_delivered_encrypted_and_sealed_once_and_openssl_opens_it() {
    let setup = Setup::new();
    let first = setup.deliver("2026-10");
    assert!(first.status.success(), "{}", text(&first));
    let stdout = String::from_utf8_lossy(&first.stdout);
    assert!(
        stdout.contains(&format!("{NAME}: encrypted and sealed now"))
            && stdout.contains(&format!(
                "download https://mf.kasino.test/data/{NAME}.zip.p7e.p7s"
            )),
        "{stdout}"
    );
    let sealed_path = setup.dir.path().join(format!("out/{NAME}.zip.p7e.p7s"));
    let sealed = std::fs::read(&sealed_path).unwrap();
    std::fs::copy(&sealed_path, setup.pki.path("package.p7s")).unwrap();

    // openssl verifies the seal with the operator's CA (and, -cades, that its
    // signing-certificate-v2 names the sealer), giving the encrypted file.
    setup.pki.run(&cms_args(
        Cms::Verify("operator-ca.pem"),
        "package.p7s",
        "package.p7e",
    ));
    // The Ministry decrypts it with its key: the package's ZIP, which the validator passes,
    // and which is the very ZIP `report mf` writes for the month.
    decrypt(&setup.pki, "ministry", &format!("{NAME}.zip"));
    let zip = std::fs::read(setup.pki.path(&format!("{NAME}.zip"))).unwrap();
    let checked = dozor()
        .args(["report", "mf-validate"])
        .arg(setup.pki.path(&format!("{NAME}.zip")))
        .output()
        .unwrap();
    assert!(checked.status.success(), "{}", text(&checked));
    let package = setup.dozor(&["report", "mf", "--month", "2026-10", "--misto", "kasino_1"]);
    assert!(
        String::from_utf8_lossy(&package.stdout).contains("(issued before, unchanged)"),
        "{}",
        text(&package)
    );
    assert_eq!(
        std::fs::read(setup.dir.path().join(format!("out/{NAME}.zip"))).unwrap(),
        zip
    );
    // The operator can read its own delivery too.
    decrypt(&setup.pki, "operator", "own.zip");
    assert_eq!(std::fs::read(setup.pki.path("own.zip")).unwrap(), zip);

    // Asked again: the same file, byte for byte, nothing sealed.
    let size = setup.ledger_size();
    let again = setup.deliver("2026-10");
    assert!(
        String::from_utf8_lossy(&again.stdout).contains("delivered before, unchanged"),
        "{}",
        text(&again)
    );
    assert_eq!(std::fs::read(&sealed_path).unwrap(), sealed);
    assert_eq!(setup.ledger_size(), size);
    // The database verify checks the kept file against its seal.
    let verified = setup.verify(false);
    assert!(verified.status.success(), "{}", text(&verified));

    // The nightly job names the package the Ministry has not confirmed, in its output and in
    // the night's sealed summary.
    let night = dozor()
        .arg("--data-dir")
        .arg(setup.dir.path())
        .args(["report", "nightly", "--day", "2026-10-05"])
        .env("DATABASE_URL", &setup.url)
        .env_remove("DOZOR_OPERATOR_KEY")
        .succeeds();
    assert!(
        String::from_utf8_lossy(&night.stdout).contains(&format!(
            "2026-10-05: the Ministry has not confirmed: {NAME} (sealed)"
        )),
        "{}",
        text(&night)
    );
    let summary: serde_json::Value = serde_json::from_slice(
        &std::fs::read(setup.dir.path().join(format!(
            "{}night.json",
            reports::night_names::night_prefix("2026-10-05".parse().unwrap())
        )))
        .unwrap(),
    )
    .unwrap();
    assert_eq!(
        summary["ministry_packages_unconfirmed"],
        serde_json::json!([{"package": NAME, "state": "sealed"}])
    );

    // Before the Ministry has downloaded the package, nothing confirms it: refused, kept.
    let early = ministry_confirmation(&setup.pki, "OK: 20261103-101500\r\n", "ministry-seal", "Ok");
    let refused = setup.confirm(&early);
    assert_refused(&refused, &format!("the Ministry has not downloaded {NAME}"));
    // The Ministry's confirmation, made as the Ministry makes it (openssl: a ZIP of the report,
    // encrypted to the operator, sealed by the Ministry) after it downloaded the package:
    // recorded as confirmed.
    ministry_downloads(&setup.url, NAME, chrono::Utc::now());
    let ok = ministry_confirmation(&setup.pki, "OK: 20261103-101500\r\n", "ministry-seal", "Ok");
    let confirmed = setup.confirm(&ok);
    assert_eq!(confirmed.status.code(), Some(0), "{}", text(&confirmed));
    let said = String::from_utf8_lossy(&confirmed.stdout);
    assert!(
        said.contains(&format!("{NAME}: confirmed"))
            && said.contains("sealed by O=test,CN=ministry-seal")
            && said.contains("OK: 20261103-101500"),
        "{said}"
    );
    // One byte of it changed, or sealed by someone else: kept, flagged, not a confirmation.
    let mut changed = std::fs::read(&ok).unwrap();
    let middle = changed.len() / 2;
    changed[middle] ^= 0x01;
    let changed_path = setup.pki.path(&format!("changed/{NAME}.Ok.zip.p7e.p7s"));
    std::fs::create_dir_all(changed_path.parent().unwrap()).unwrap();
    std::fs::write(&changed_path, changed).unwrap();
    let forged =
        ministry_confirmation(&setup.pki, "OK: 20261103-101500\r\n", "operator-seal", "Ok");
    for file in [&changed_path, &forged] {
        let refused = setup.confirm(file);
        assert_eq!(refused.status.code(), Some(1), "{}", text(&refused));
        let said = said_lines(&refused);
        assert!(
            said.len() == 1 && said[0].contains("confirmation_refused"),
            "{}",
            text(&refused)
        );
        assert!(refused.stdout.is_empty(), "{}", text(&refused));
    }
    // The listing says where the package stands: confirmed, three files refused.
    let listed = dozor()
        .args(["report", "mf", "deliveries", "--json"])
        .env("DATABASE_URL", &setup.url)
        .output()
        .unwrap();
    let listed: serde_json::Value = serde_json::from_slice(&listed.stdout).unwrap();
    let status = &listed[0];
    assert_eq!(status["package"], NAME, "{listed}");
    assert_eq!(status["state"], "confirmed", "{listed}");
    assert_eq!(status["confirmation"]["detail"], "OK: 20261103-101500");
    assert_eq!(status["refused_confirmations"], 3);
    // The digest PostgreSQL computes for the listing is the file's.
    assert_eq!(status["sealed_file_sha256"].as_str().unwrap(), {
        use sha2::Digest as _;
        hex::encode(sha2::Sha256::digest(&sealed))
    });
    // The Ministry's errors: rejected.
    let errors = ministry_confirmation(
        &setup.pki,
        "ERR_PKG_EXTRA_FILES: notes.txt\r\n",
        "ministry-seal",
        "Err",
    );
    let rejected = setup.confirm(&errors);
    assert_eq!(rejected.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&rejected.stdout).contains(": rejected"));
    let verified = setup.verify(true);
    assert!(verified.status.success(), "{}", text(&verified));

    // The kept package and the delivered file, each changed past the triggers: verify names
    // what no longer matches its seal.
    for (table, column, what) in [
        ("mf_deliveries", "sealed_file", "the delivered file of"),
        ("mf_packages", "zip", "package"),
    ] {
        use diesel::connection::SimpleConnection as _;
        let mut conn = ledger::storage::connect(&setup.url).unwrap();
        let change = format!(
            "SET session_replication_role = replica; UPDATE {table} SET {column} = {column} || '\\x00'::bytea"
        );
        conn.batch_execute(&change).unwrap();
        let broken = setup.verify(false);
        assert_eq!(broken.status.code(), Some(1), "{}", text(&broken));
        let said = text(&broken);
        assert!(
            said.contains(what) && said.contains(NAME),
            "{table}: {said}"
        );
        let undo = format!(
            "SET session_replication_role = replica; UPDATE {table} SET {column} = substring({column} from 1 for octet_length({column}) - 1)"
        );
        conn.batch_execute(&undo).unwrap();
    }
}

/// A confirmation package as the Ministry sends it: `report` zipped, encrypted to the
/// operator's encryption certificate, sealed by `sealer`; `{NAME}.{kind}.zip.p7e.p7s`.
fn ministry_confirmation(pki: &Pki, report: &str, sealer: &str, kind: &str) -> std::path::PathBuf {
    confirmation_of(pki, NAME, report, sealer, kind, "potvrzeni.txt")
}

/// [`ministry_confirmation`] of `package`, the report in the ZIP as `inner`:
/// `{package}.{kind}.zip.p7e.p7s`, made now (its seal's signing time).
fn confirmation_of(
    pki: &Pki,
    package: &str,
    report: &str,
    sealer: &str,
    kind: &str,
    inner: &str,
) -> std::path::PathBuf {
    let stem = format!("{sealer}/{package}.{kind}");
    let (zip, encrypted, sealed) = (
        format!("{stem}.zip"),
        format!("{stem}.zip.p7e"),
        format!("{stem}.zip.p7e.p7s"),
    );
    std::fs::create_dir_all(pki.path(sealer)).unwrap();
    let zipped = std::process::Command::new("python3")
        .args([
            "-c",
            "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w') as z: z.writestr(sys.argv[3], sys.argv[2])",
        ])
        .arg(pki.path(&zip))
        .arg(report)
        .arg(inner)
        .status()
        .unwrap();
    assert!(zipped.success());
    pki.run(&cms_args(Cms::Encrypt, &zip, &encrypted));
    let (certificate, key) = (format!("{sealer}.pem"), format!("{sealer}.key"));
    pki.run(&cms_args(
        Cms::Seal(&certificate, &key),
        &encrypted,
        &sealed,
    ));
    pki.path(&sealed)
}

/// The Ministry's download of `package`'s sealed file at `at`, recorded as the listener records
/// it (the listener itself is tested over TLS below).
fn ministry_downloads(url: &str, package: &str, at: chrono::DateTime<chrono::Utc>) {
    use ledger::storage::deliveries;
    let mut conn = ledger::storage::connect(url).unwrap();
    let delivered = deliveries::of_package(&mut conn, package).unwrap().unwrap();
    deliveries::record_step(
        &mut conn,
        operator().signing_key(),
        deliveries::Step {
            step: dozor_log::registry_event::DeliveryStep::Downloaded,
            package: package.to_owned(),
            file: deliveries::file_name(package),
            sha256: Some(delivered.sha256()),
            subject: Some("O=test,CN=ministry-client".into()),
            fingerprint: None,
            detail: None,
        },
        None,
        at,
    )
    .unwrap();
}

// `test` is actix's here; this one is the standard test attribute.
#[::core::prelude::v1::test]
fn a_wrong_or_missing_password_is_one_line_and_nothing_is_made() {
    let setup = Setup::new();
    std::fs::write(setup.pki.path("seal.password"), "not the password\n").unwrap();
    let refused = setup.deliver("2026-10");
    assert_eq!(refused.status.code(), Some(2), "{}", text(&refused));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("operator-seal.p12") && stderr.contains("does not open"),
        "{stderr}"
    );
    assert!(!stderr.contains("not the password"), "{stderr}");
    assert_eq!(setup.ledger_size(), 0);
    // Without a password file, the variable is named.
    let config = std::fs::read_to_string(setup.dir.path().join("dozor.toml")).unwrap();
    let without: String = config
        .lines()
        .filter(|l| !l.starts_with("seal_password_file"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(setup.dir.path().join("dozor.toml"), without).unwrap();
    let refused = setup.deliver("2026-10");
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("DOZOR_MF_SEAL_PASSWORD"), "{stderr}");
    assert_eq!(setup.ledger_size(), 0);
}

/// `package.p7e` decrypted with `recipient`'s encryption key and certificate into `out`.
fn decrypt(pki: &Pki, recipient: &str, out: &str) {
    let certificate = format!("{recipient}-encryption.pem");
    let key = format!("{recipient}-encryption.key");
    pki.run(&cms_args(
        Cms::Decrypt(&certificate, &key),
        "package.p7e",
        out,
    ));
}

/// `curl` (an independent TLS client) against the Ministry's listener: `cert` names the client
/// certificate and key of the PKI, none for no certificate. Its exit code, the HTTP status, the
/// body.
fn curl(
    pki: &Pki,
    port: u16,
    path: &str,
    cert: Option<&str>,
    extra: &[&str],
) -> (i32, String, Vec<u8>) {
    let body = pki.path(&format!("body-{}", rand_suffix()));
    let mut command = std::process::Command::new("curl");
    command
        .args(["-s", "-o"])
        .arg(&body)
        .args(["-w", "%{http_code}", "--cacert"])
        .arg(pki.path("operator-ca.pem"))
        .args(extra)
        .arg(format!("https://127.0.0.1:{port}{path}"));
    if let Some(name) = cert {
        command
            .arg("--cert")
            .arg(pki.path(&format!("{name}.pem")))
            .arg("--key")
            .arg(pki.path(&format!("{name}.key")));
    }
    let out = command.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        std::fs::read(&body).unwrap_or_default(),
    )
}

fn rand_suffix() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

// `test` is actix's here; this one is the standard test attribute.
#[::core::prelude::v1::test]
fn the_ministry_downloads_over_tls_with_its_certificate_only_and_each_download_is_recorded() {
    let pki = Pki::new();
    // A Ministry certificate whose validity ended as it was issued, and one of the Ministry's
    // CA that is not configured: certificates are admitted one by one, not by their CA.
    pki.issue("ministry-expired", "ministry-ca", &["-days", "0"]);
    pki.issue("ministry-unlisted", "ministry-ca", &[]);
    let site = common::site::Site::new();
    let port = free_port();
    let config = format!("{OPERATOR_CONFIG}{}", pki.listener_section(port)).replace(
        &format!(
            "ministry_client_certificates = [\"{}\"]",
            pki.path("ministry-client.pem").display()
        ),
        &format!(
            "ministry_client_certificates = [\"{}\", \"{}\"]",
            pki.path("ministry-client.pem").display(),
            pki.path("ministry-expired.pem").display()
        ),
    );
    std::fs::write(site.path().join("dozor.toml"), config).unwrap();
    let server = site.serve();
    let delivered = site
        .dozor()
        .args([
            "report", "mf", "deliver", "--month", "2026-10", "--misto", "kasino_1", "--out",
        ])
        .arg(pki.path(""))
        .succeeds();
    assert!(String::from_utf8_lossy(&delivered.stdout).contains("encrypted and sealed now"));
    let sealed = std::fs::read(pki.path(&format!("{NAME}.zip.p7e.p7s"))).unwrap();
    std::thread::sleep(std::time::Duration::from_secs(1));

    // The Ministry's certificate downloads the sealed file as it was delivered.
    let file = format!("/data/{NAME}.zip.p7e.p7s");
    let (code, status, body) = curl(&pki, port, &file, Some("ministry-client"), &[]);
    assert_eq!((code, status.as_str()), (0, "200"));
    assert_eq!(body, sealed);
    // No certificate, another CA's, an expired one of the Ministry's, one of the Ministry's CA
    // not configured: the handshake refuses.
    for cert in [
        None,
        Some("stranger-client"),
        Some("ministry-expired"),
        Some("ministry-unlisted"),
    ] {
        let (code, status, _) = curl(&pki, port, &file, cert, &[]);
        assert!(
            code != 0 && status != "200",
            "{cert:?}: curl {code}, HTTP {status}"
        );
    }
    // Nothing else is served, and a file never delivered is not found.
    let as_ministry =
        |path: &str, extra: &[&str]| curl(&pki, port, path, Some("ministry-client"), extra);
    let (_, status, _) = as_ministry("/api/v1/ledger/head", &[]);
    assert_eq!(status, "404");
    let (_, status, _) = as_ministry("/data/other.zip.p7e.p7s", &[]);
    assert_eq!(status, "404");
    // A notification is taken and answered.
    let (_, status, body) = as_ministry(
        "/notify/ok",
        &["--data", &format!("balicek={NAME}&vysledek=OK")],
    );
    assert_eq!(
        (status.as_str(), body.as_slice()),
        ("200", &b"Accepted\n"[..])
    );
    // The API's own listener is unaffected, and counts what the Ministry's answered.
    let (status, _) = server.http.get("/healthz", None);
    assert_eq!(status, 200);
    let token = site.apikey("it-metrics", "admin");
    let (status, metrics) = server.http.raw("GET", "/metrics", Some(&token), None);
    assert_eq!(status, 200, "{metrics}");
    for line in [
        "dozor_ministry_requests_total{step=\"downloaded\"} 1",
        "dozor_ministry_requests_total{step=\"notified\"} 1",
    ] {
        assert!(metrics.contains(line), "{line} in:\n{metrics}");
    }

    // The download and the notification are ledger entries naming the certificate.
    let mut conn = ledger::storage::connect(&site.url_as("postgres")).unwrap();
    let steps = ledger::storage::deliveries::steps(&mut conn).unwrap();
    let client =
        delivery::read_certificates(&std::fs::read(pki.path("ministry-client.pem")).unwrap())
            .unwrap()
            .remove(0);
    let seen: Vec<(String, String, Option<String>, Option<String>)> = steps
        .iter()
        .map(|s| match &s.event {
            dozor_log::registry_event::RegistryEvent::PackageDelivery {
                step,
                package,
                subject,
                fingerprint,
                ..
            } => (
                step.as_str().to_owned(),
                package.clone(),
                subject.clone(),
                fingerprint.clone(),
            ),
            other => panic!("{other:?}"),
        })
        .collect();
    let who = (Some(client.subject()), Some(client.fingerprint()));
    assert_eq!(
        seen,
        vec![
            (
                "downloaded".into(),
                NAME.into(),
                who.0.clone(),
                who.1.clone()
            ),
            ("notified".into(), NAME.into(), who.0, who.1),
        ]
    );
    drop(server);
}

#[actix_web::test]
async fn the_api_delivers_lists_and_takes_the_confirmation() {
    let pki = Pki::new();
    let (state, url) = api_state_delivering(&pki);
    let app = test_app(&state).await;
    let (status, receipt) = post_delivery(&app, "2026-10").await;
    assert_eq!(status, 201, "{receipt}");
    assert_eq!(receipt["package"], NAME);
    assert_eq!(
        receipt["download_url"],
        format!("https://mf.kasino.test/data/{NAME}.zip.p7e.p7s")
    );
    let (status, again) = post_delivery(&app, "2026-10").await;
    assert_eq!((status, &again["new"]), (200, &serde_json::json!(false)));
    assert_eq!(again["sealed_file_sha256"], receipt["sealed_file_sha256"]);
    let (_, listed) = get(&app, "/api/v1/reports/mf/deliveries").await;
    assert_eq!(listed[0]["state"], "sealed", "{listed}");
    // The month's page says the Ministry has not confirmed it yet.
    let (status, page) = get_text(&app, "/reports/month/2026-11").await;
    assert_eq!(status, 200, "{page}");
    assert!(
        page.contains(&format!(
            "Ministerstvo dosud nepotvrdilo balíčky: {NAME} (zapečetěn, ke stažení)"
        )),
        "{page}"
    );

    // The Ministry downloads it and answers with its confirmation, posted as received.
    ministry_downloads(&url, NAME, chrono::Utc::now());
    let ok = ministry_confirmation(&pki, "OK: 20261103-101500\r\n", "ministry-seal", "Ok");
    let request = test::TestRequest::post()
        .uri(&format!(
            "/api/v1/reports/mf/confirmations?file={NAME}.Ok.zip.p7e.p7s"
        ))
        .insert_header(bearer(dozor_log::access::Role::Compliance))
        .insert_header(("content-type", "application/octet-stream"))
        .set_payload(std::fs::read(&ok).unwrap())
        .to_request();
    let (status, outcome) = call(&app, request).await;
    assert_eq!(status, 201, "{outcome}");
    assert_eq!(outcome["step"], "confirmed", "{outcome}");
    assert_eq!(outcome["sealed_by"], "O=test,CN=ministry-seal");
    let (_, listed) = get(&app, "/api/v1/reports/mf/deliveries").await;
    assert_eq!(listed[0]["state"], "confirmed", "{listed}");
    assert_eq!(listed[0]["confirmation"]["detail"], "OK: 20261103-101500");
    let (_, page) = get_text(&app, "/reports/month/2026-11").await;
    assert!(!page.contains("nepotvrdilo"), "{page}");
    let (_, report) = get(&app, "/api/v1/reports/rtp?month=2026-11").await;
    assert_eq!(
        report["ministry_packages_unconfirmed"],
        serde_json::json!([])
    );
    // A name that is no confirmation's, an empty body: 400, nothing recorded.
    for (uri, body) in [
        ("/api/v1/reports/mf/confirmations?file=../x", &b"x"[..]),
        (
            "/api/v1/reports/mf/confirmations?file=12345679-M-202610-Z-kasino_1-01.Ok.zip.p7e.p7s",
            &b""[..],
        ),
    ] {
        let request = test::TestRequest::post()
            .uri(uri)
            .insert_header(bearer(dozor_log::access::Role::Compliance))
            .set_payload(body.to_vec())
            .to_request();
        let (status, b) = call(&app, request).await;
        assert_eq!(status, 400, "{uri}: {b}");
    }
}

/// Validates `xml` against `xsd` with the PyPI library `xmlschema` (installed into the tests'
/// scratch directory once): none, or the schema's complaint.
fn xmlschema_errors(xml: &std::path::Path, xsd: &std::path::Path) -> Option<String> {
    let packages = pypi("xmlschema", "xmlschema==3.4.3");
    let out = std::process::Command::new("python3")
        .env("PYTHONPATH", &packages)
        .args([
            "-c",
            "import sys, xmlschema\nxmlschema.XMLSchema(sys.argv[2]).validate(sys.argv[1])",
        ])
        .arg(xml)
        .arg(xsd)
        .output()
        .unwrap();
    (!out.status.success()).then(|| String::from_utf8_lossy(&out.stderr).into_owned())
}

// `test` is actix's here; this one is the standard test attribute.
#[::core::prelude::v1::test]
fn the_registration_form_is_valid_by_the_ministrys_schema() {
    let setup = Setup::new();
    // The listener's chain: the server's certificate, then its CA.
    let chain = format!(
        "{}{}",
        std::fs::read_to_string(setup.pki.path("operator-server.pem")).unwrap(),
        std::fs::read_to_string(setup.pki.path("operator-ca.pem")).unwrap()
    );
    std::fs::write(setup.pki.path("server-chain.pem"), chain).unwrap();
    let config = std::fs::read_to_string(setup.dir.path().join("dozor.toml")).unwrap()
        + &format!(
            "listen = \"127.0.0.1:8443\"\nserver_certificate = \"{}\"\nserver_key = \"{}\"\n",
            setup.pki.path("server-chain.pem").display(),
            setup.pki.path("operator-server.key").display()
        );
    std::fs::write(setup.dir.path().join("dozor.toml"), config).unwrap();
    let form = setup.pki.path("registration.xml");
    let made = dozor()
        .args([
            "report",
            "mf",
            "registration",
            "--valid-from",
            "2026-12-01",
            "--out",
        ])
        .arg(&form)
        .arg("--config")
        .arg(setup.dir.path().join("dozor.toml"))
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", text(&made));
    let xsd = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../reports/mf-schema/comParamReg.xsd");
    assert_eq!(xmlschema_errors(&form, &xsd), None);
    let xml = std::fs::read_to_string(&form).unwrap();
    let seal_pem = std::fs::read_to_string(setup.pki.path("operator-seal.pem")).unwrap();
    let ca_pem = std::fs::read_to_string(setup.pki.path("operator-ca.pem")).unwrap();
    for expected in [
        "IDProvozovatel=\"12345679\"",
        "PlatnostOd=\"2026-12-01\"",
        "Playground=\"true\"",
        "<StazeniBalickuUrl>https://mf.kasino.test/data/</StazeniBalickuUrl>",
        "<NotifikaceUspechuUrl>https://mf.kasino.test/notify/ok</NotifikaceUspechuUrl>",
        "<Balicek Model=\"M\" HraDruh=\"Z\" Kasino=\"kasino_1\"/>",
        seal_pem.trim(),
        ca_pem.trim(),
    ] {
        assert!(xml.contains(expected), "{expected} in:\n{xml}");
    }
    // The form the schema refuses is caught: a package of a model the Ministry has no such.
    let broken = setup.pki.path("broken.xml");
    std::fs::write(&broken, xml.replace("Model=\"M\"", "Model=\"X\"")).unwrap();
    assert!(xmlschema_errors(&broken, &xsd).is_some());
}

/// A package the Ministry's rules refuse is not delivered, takes no version number and seals
/// nothing; the corrected one is then version 01. A refused confirmation alone confirms
/// nothing.
#[actix_web::test]
async fn an_invalid_package_takes_no_version_and_a_refused_confirmation_confirms_nothing() {
    let pki = Pki::new();
    let (state, url) = api_state_delivering(&pki);
    let config = state.configured.current().operator_config.clone().unwrap();
    let keys = state.configured.current().delivery_keys.clone().unwrap();
    let mut conn = ledger::storage::connect(&url).unwrap();
    let request = reports::mf::PackageRequest {
        config: &config,
        premises: "kasino_1",
        month: rules::gaming_day::Month::parse("2026-10").unwrap(),
        version: 1,
        clock: state.clock,
        plans: &state.plans,
        now: chrono::Utc::now(),
    };
    let mut package = reports::mf::build(&mut conn, &request).unwrap();
    // A stray quote inside an unquoted field of the first file's first record (line 3).
    let (file, bytes) = package.files.first_mut().unwrap();
    let file = file.clone();
    let text = String::from_utf8(bytes.clone()).unwrap();
    let mut lines: Vec<String> = text.split("\r\n").map(str::to_owned).collect();
    lines[2] = format!("x\"y{}", lines[2]);
    *bytes = lines.join("\r\n").into_bytes();
    let size_before = ledger::storage::reads::size(&mut conn).unwrap();
    let refused = reports::mf::deliver::deliver_built(
        &mut conn,
        state.operator.signing_key(),
        &request,
        package,
        &keys,
        "test",
    );
    match refused {
        Err(reports::mf::PackageError::Invalid { name, errors }) => {
            assert_eq!(name, NAME);
            assert!(
                errors.iter().any(|e| e.code == "ERR_LINE_INVALID_CSV"
                    && e.file.as_deref().is_some_and(|f| f.ends_with(&file))),
                "{errors:?}"
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        ledger::storage::reads::size(&mut conn).unwrap(),
        size_before
    );
    assert!(ledger::storage::packages::all(&mut conn)
        .unwrap()
        .is_empty());
    drop(conn);

    let app = test_app(&state).await;
    let (status, receipt) = post_delivery(&app, "2026-10").await;
    assert_eq!(
        (status, receipt["package"].as_str()),
        (201, Some(NAME)),
        "{receipt}"
    );
    // This month is not over: its package is not delivered, and takes no version either.
    let (status, refused) = post_delivery(&app, "this").await;
    assert_eq!(
        (status, &refused["code"]),
        (409, &serde_json::json!("month_not_over")),
        "{refused}"
    );
    let (_, listed) = get(&app, "/api/v1/reports/mf/deliveries").await;
    assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");

    // Sealed by the operator, not the Ministry: refused (422), kept as evidence, counted as
    // refused, and the package still waits for its confirmation.
    ministry_downloads(&url, NAME, chrono::Utc::now());
    let forged = ministry_confirmation(&pki, "OK: 20261103-101500\r\n", "operator-seal", "Ok");
    let (status, outcome) = post_confirmation(
        &app,
        &format!("{NAME}.Ok.zip.p7e.p7s"),
        &std::fs::read(&forged).unwrap(),
        dozor_log::access::Role::Compliance,
    )
    .await;
    assert!(
        api_refusal(status, &outcome).contains("not by a certificate configured for it"),
        "{outcome}"
    );
    let (_, listed) = get(&app, "/api/v1/reports/mf/deliveries").await;
    assert_eq!(listed[0]["state"], "downloaded", "{listed}");
    assert_eq!(listed[0]["refused_confirmations"], 1, "{listed}");
    assert!(listed[0]["confirmation"].is_null(), "{listed}");
    let (_, report) = get(&app, "/api/v1/reports/rtp?month=2026-10").await;
    assert_eq!(
        report["ministry_packages_unconfirmed"][0]["package"], NAME,
        "{report}"
    );
}

/// The bytes of the Ministry's OK for `package`, sealed by the Ministry, its report in the ZIP
/// as `inner`.
fn ministry_ok(pki: &Pki, package: &str, inner: &str) -> Vec<u8> {
    let report = "OK: 20261103-101500\r\n";
    std::fs::read(confirmation_of(
        pki,
        package,
        report,
        "ministry-seal",
        "Ok",
        inner,
    ))
    .unwrap()
}

/// A posted confirmation was refused (422, step `confirmation_refused`): the refusal's message.
fn api_refusal(status: u16, outcome: &serde_json::Value) -> &str {
    assert_eq!(
        (status, &outcome["code"], &outcome["details"]["step"]),
        (
            422,
            &serde_json::json!("confirmation_refused"),
            &serde_json::json!("confirmation_refused")
        ),
        "{outcome}"
    );
    message_of(outcome)
}

/// A posted confirmation was taken (201) as the package's step `step`.
fn assert_step(status: u16, outcome: &serde_json::Value, step: &str) {
    assert_eq!(
        (status, &outcome["step"]),
        (201, &serde_json::json!(step)),
        "{outcome}"
    );
}

/// Posts `file`'s bytes as the confirmation named `name`, with the compliance officer's key:
/// taken as the package's step `step`.
async fn answer(app: &impl TestApp, name: &str, file: &[u8], step: &str) {
    let compliance = dozor_log::access::Role::Compliance;
    let (status, outcome) = post_confirmation(app, name, file, compliance).await;
    assert_step(status, &outcome, step);
}

/// Posts `file`'s bytes as the confirmation named `name`, with `role`'s key.
async fn post_confirmation(
    app: &impl TestApp,
    name: &str,
    file: &[u8],
    role: dozor_log::access::Role,
) -> (u16, serde_json::Value) {
    call(
        app,
        test::TestRequest::post()
            .uri(&format!("/api/v1/reports/mf/confirmations?file={name}"))
            .insert_header(bearer(role))
            .insert_header(("content-type", "application/octet-stream"))
            .set_payload(file.to_vec())
            .to_request(),
    )
    .await
}

/// Delivers October's package of kasino_1 as the compliance officer: its name.
async fn deliver_october(app: &impl TestApp) -> String {
    let (status, receipt) = post_delivery(app, "2026-10").await;
    assert_eq!(status, 201, "{receipt}");
    receipt["package"].as_str().unwrap().to_owned()
}

/// Posts the delivery of `month`'s package of kasino_1 as the compliance officer.
async fn post_delivery(app: &impl TestApp, month: &str) -> (u16, serde_json::Value) {
    call(
        app,
        test::TestRequest::post()
            .uri(&format!(
                "/api/v1/reports/mf/deliveries?month={month}&misto=kasino_1"
            ))
            .insert_header(bearer(dozor_log::access::Role::Compliance))
            .to_request(),
    )
    .await
}

/// Registers the roulette table R01, valid from September (October's rounds are its).
async fn register_r01(app: &impl TestApp) {
    let mut registration = registration("R01", &key(1));
    registration["valid_from"] = serde_json::json!("2026-09-30T00:00:00Z");
    register_table(app, registration).await;
}

/// A late round of October at R01: the month's package changes, and the next delivery is the
/// next version.
async fn late_october_round(app: &impl TestApp, seq_no: u64) {
    let mut round = spin(
        "R01",
        seq_no,
        17,
        serde_json::json!([straight("b1", 17, 10_000, 360_000)]),
    );
    round["played_at"] = serde_json::json!(format!("2026-10-{:02}T18:00:00Z", 4 + seq_no));
    let (status, body) = call(app, record_request(round, &key(1))).await;
    assert_eq!(status, 201, "{body}");
}

/// The tester's replay: package 01 confirmed with the Ministry's OK, package 02 rejected by the
/// Ministry; 01's OK posted as 02's confirmation (as sent, and padded so that its bytes
/// differ around the same seal) is refused with 422 and kept as evidence, from the API and
/// from the command line; 02 stays rejected. A reporter may not post a confirmation at all.
#[actix_web::test]
async fn a_confirmation_counts_only_for_the_package_it_confirms() {
    use dozor_log::access::Role;
    let pki = Pki::new();
    let (state, url) = api_state_delivering(&pki);
    create_key(&url, Role::Reporter);
    let app = test_app(&state).await;
    register_r01(&app).await;
    late_october_round(&app, 1).await;

    // 01: delivered, downloaded, confirmed with the Ministry's OK.
    let one = deliver_october(&app).await;
    assert_eq!(one, NAME);
    ministry_downloads(&url, &one, chrono::Utc::now());
    let ok_one = ministry_ok(&pki, &one, "potvrzeni.txt");
    answer(&app, &format!("{one}.Ok.zip.p7e.p7s"), &ok_one, "confirmed").await;

    // 02: a late round changes the month; delivered, downloaded, rejected by the Ministry.
    late_october_round(&app, 2).await;
    let two = deliver_october(&app).await;
    assert_eq!(two, "12345679-M-202610-Z-kasino_1-02");
    ministry_downloads(&url, &two, chrono::Utc::now());
    let errors = std::fs::read(confirmation_of(
        &pki,
        &two,
        "ERR_FILE_BAD_RECORD_COUNT [misto.csv]: 2\r\n",
        "ministry-seal",
        "Err",
        "chyby.txt",
    ))
    .unwrap();
    answer(&app, &format!("{two}.Err.zip.p7e.p7s"), &errors, "rejected").await;

    // A reporter's key may not post a confirmation: 403, nothing recorded.
    let replay_name = format!("{two}.Ok.zip.p7e.p7s");
    let size = ledger_size(&url);
    let (status, refused) = post_confirmation(&app, &replay_name, &ok_one, Role::Reporter).await;
    assert_eq!(
        (status, &refused["code"]),
        (403, &serde_json::json!("forbidden")),
        "{refused}"
    );
    assert_eq!(ledger_size(&url), size);

    // 01's OK as 02's, as sent and padded with a zero byte (another file, the same seal):
    // refused, naming the package it counted for, and kept as evidence.
    let mut padded = ok_one.clone();
    padded.push(0);
    for file in [&ok_one, &padded] {
        let (status, refused) = post_confirmation(&app, &replay_name, file, Role::Compliance).await;
        let message = api_refusal(status, &refused);
        assert!(
            message.contains(&format!("counted for {one} already")),
            "{message}"
        );
        let index = refused["details"]["ledger_index"].as_i64().unwrap();
        assert_eq!(kept_evidence(&url, index), *file);
    }
    let (_, listed) = get(&app, "/api/v1/reports/mf/deliveries").await;
    let of = |package: &str| {
        listed
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["package"] == package)
            .unwrap()
            .clone()
    };
    assert_eq!(of(&two)["state"], "rejected", "{listed}");
    assert_eq!(of(&two)["refused_confirmations"], 2, "{listed}");
    assert_eq!(of(&one)["state"], "confirmed", "{listed}");

    // The command line answers the same: one line, exit 1, kept; 02 still rejected.
    let setup = Setup::on(pki, url.clone());
    let copied = setup.pki.path(&format!("replay/{replay_name}"));
    std::fs::create_dir_all(copied.parent().unwrap()).unwrap();
    std::fs::write(&copied, &ok_one).unwrap();
    let size = ledger_size(&url);
    let refused = setup.confirm(&copied);
    assert_refused(&refused, &format!("counted for {one} already"));
    assert!(refused.stdout.is_empty(), "{}", text(&refused));
    assert_eq!(ledger_size(&url), size + 1);
    let (_, listed) = get(&app, "/api/v1/reports/mf/deliveries").await;
    let two_now = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["package"] == two.as_str())
        .unwrap();
    assert_eq!(
        (&two_now["state"], &two_now["refused_confirmations"]),
        (&serde_json::json!("rejected"), &serde_json::json!(3)),
        "{listed}"
    );
}

/// A confirmation counts only once the Ministry has downloaded the package, only when sealed
/// after that download, and not when a file inside names another package.
#[actix_web::test]
async fn a_confirmation_is_bound_to_the_download_and_to_what_it_names() {
    use dozor_log::access::Role;
    let pki = Pki::new();
    let (state, url) = api_state_delivering(&pki);
    let app = test_app(&state).await;
    register_r01(&app).await;
    let one = deliver_october(&app).await;
    let name = format!("{one}.Ok.zip.p7e.p7s");
    let ok = |inner: &str| ministry_ok(&pki, &one, inner);
    let refusal = |(status, body): (u16, serde_json::Value)| {
        assert_eq!(
            (status, &body["code"]),
            (422, &serde_json::json!("confirmation_refused")),
            "{body}"
        );
        message_of(&body).to_owned()
    };
    // Not downloaded yet.
    let said =
        refusal(post_confirmation(&app, &name, &ok("potvrzeni.txt"), Role::Compliance).await);
    assert!(
        said.contains(&format!("the Ministry has not downloaded {one}")),
        "{said}"
    );
    // Downloaded; the report inside named after another package.
    ministry_downloads(&url, &one, chrono::Utc::now());
    let other = "12345679-M-202610-Z-kasino_1-07";
    let said = refusal(
        post_confirmation(
            &app,
            &name,
            &ok(&format!("{other}.Ok.txt")),
            Role::Compliance,
        )
        .await,
    );
    assert!(
        said.contains(&format!("names {other}, not {one}")),
        "{said}"
    );
    // Named after this package: it counts.
    let (status, outcome) =
        post_confirmation(&app, &name, &ok(&format!("{one}.Ok.txt")), Role::Compliance).await;
    assert_step(status, &outcome, "confirmed");

    // 02, which the Ministry downloads an hour from now: a confirmation sealed now predates
    // that download by more than the clocks' tolerance (10 minutes), so it is not 02's.
    late_october_round(&app, 1).await;
    let two = deliver_october(&app).await;
    ministry_downloads(&url, &two, chrono::Utc::now() + chrono::Duration::hours(1));
    let early = ministry_ok(&pki, &two, "potvrzeni.txt");
    let said = refusal(
        post_confirmation(
            &app,
            &format!("{two}.Ok.zip.p7e.p7s"),
            &early,
            Role::Compliance,
        )
        .await,
    );
    assert!(
        said.contains(&format!("before the Ministry first downloaded {two}")),
        "{said}"
    );
    let (_, listed) = get(&app, "/api/v1/reports/mf/deliveries").await;
    assert_eq!(listed[0]["package"], two.as_str(), "{listed}");
    assert_eq!(
        (&listed[0]["state"], &listed[0]["refused_confirmations"]),
        (&serde_json::json!("downloaded"), &serde_json::json!(1)),
        "{listed}"
    );
}

/// The file kept beside the entry at `index`.
fn kept_evidence(url: &str, index: i64) -> Vec<u8> {
    use diesel::prelude::*;
    #[derive(QueryableByName)]
    struct Kept {
        #[diesel(sql_type = diesel::sql_types::Bytea)]
        file: Vec<u8>,
    }
    let mut conn = ledger::storage::connect(url).unwrap();
    diesel::sql_query("SELECT file FROM mf_confirmations WHERE ledger_index = $1")
        .bind::<diesel::sql_types::BigInt, _>(index)
        .get_result::<Kept>(&mut conn)
        .unwrap()
        .file
}
