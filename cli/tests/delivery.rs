#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The month's package delivered to the Ministry from the command line: validated, encrypted,
//! sealed once; what it writes is checked by an independent implementation, Debian's `openssl`.

mod common;

use actix_web::{test, App};
use api::server;
use common::pki::Pki;
use common::Succeeds as _;
use common::*;

macro_rules! app {
    ($state:expr) => {
        test::init_service(App::new().configure(server::configure($state.clone()))).await
    };
}

const NAME: &str = "12345679-M-202610-Z-kasino_1-01";

struct Setup {
    pki: Pki,
    url: String,
    dir: tempfile::TempDir,
}

impl Setup {
    fn new() -> Setup {
        let pki = Pki::new();
        let url = ledger::storage::testing::fresh_database().unwrap();
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

    fn dozor(&self, args: &[&str]) -> std::process::Output {
        dozor()
            .args(args)
            .arg("--config")
            .arg(self.dir.path().join("dozor.toml"))
            .arg("--operator-key")
            .arg(self.dir.path().join("operator.key"))
            .arg("--out")
            .arg(self.dir.path().join("out"))
            .env("DATABASE_URL", &self.url)
            .env_remove("DOZOR_MF_SEAL_PASSWORD")
            .env_remove("DOZOR_MF_ENCRYPTION_PASSWORD")
            .output()
            .unwrap()
    }

    fn deliver(&self, month: &str) -> std::process::Output {
        self.dozor(&[
            "report", "mf", "deliver", "--month", month, "--misto", "kasino_1",
        ])
    }

    fn confirm(&self, file: &std::path::Path) -> std::process::Output {
        dozor()
            .args(["report", "mf", "confirm"])
            .arg(file)
            .arg("--config")
            .arg(self.dir.path().join("dozor.toml"))
            .arg("--operator-key")
            .arg(self.dir.path().join("operator.key"))
            .env("DATABASE_URL", &self.url)
            .env_remove("DOZOR_MF_SEAL_PASSWORD")
            .env_remove("DOZOR_MF_ENCRYPTION_PASSWORD")
            .output()
            .unwrap()
    }

    fn ledger_size(&self) -> u64 {
        let mut conn = ledger::storage::connect(&self.url).unwrap();
        ledger::storage::reads::size(&mut conn).unwrap()
    }
}

fn text(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
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
    setup.pki.run(&[
        "cms",
        "-verify",
        "-cades",
        "-binary",
        "-inform",
        "DER",
        "-in",
        "package.p7s",
        "-CAfile",
        "operator-ca.pem",
        "-out",
        "package.p7e",
    ]);
    // The Ministry decrypts it with its key: the package's ZIP, which the validator passes,
    // and which is the very ZIP `report mf` writes for the month.
    setup.pki.run(&[
        "cms",
        "-decrypt",
        "-binary",
        "-inform",
        "DER",
        "-in",
        "package.p7e",
        "-recip",
        "ministry-encryption.pem",
        "-inkey",
        "ministry-encryption.key",
        "-out",
        &format!("{NAME}.zip"),
    ]);
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
    setup.pki.run(&[
        "cms",
        "-decrypt",
        "-binary",
        "-inform",
        "DER",
        "-in",
        "package.p7e",
        "-recip",
        "operator-encryption.pem",
        "-inkey",
        "operator-encryption.key",
        "-out",
        "own.zip",
    ]);
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
    let verified = dozor()
        .args([
            "verify",
            "--operator-key",
            &operator().verifier().to_string(),
        ])
        .env("DATABASE_URL", &setup.url)
        .output()
        .unwrap();
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
            reports::nightly::night_prefix("2026-10-05".parse().unwrap())
        )))
        .unwrap(),
    )
    .unwrap();
    assert_eq!(
        summary["ministry_packages_unconfirmed"],
        serde_json::json!([{"package": NAME, "state": "sealed"}])
    );

    // The Ministry's confirmation, made as the Ministry makes it (openssl: a ZIP of the report,
    // encrypted to the operator, sealed by the Ministry): recorded as confirmed.
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
        assert!(
            String::from_utf8_lossy(&refused.stdout).contains("confirmation_refused"),
            "{}",
            text(&refused)
        );
    }
    // The listing says where the package stands: confirmed, two files refused.
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
    assert_eq!(status["refused_confirmations"], 2);
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
    let verified = dozor()
        .arg("--data-dir")
        .arg(setup.dir.path())
        .args([
            "verify",
            "--operator-key",
            &operator().verifier().to_string(),
        ])
        .env("DATABASE_URL", &setup.url)
        .output()
        .unwrap();
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
        let broken = dozor()
            .args([
                "verify",
                "--operator-key",
                &operator().verifier().to_string(),
            ])
            .env("DATABASE_URL", &setup.url)
            .output()
            .unwrap();
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
    let stem = format!("{sealer}/{NAME}.{kind}");
    std::fs::create_dir_all(pki.path(sealer)).unwrap();
    let zipped = std::process::Command::new("python3")
        .args([
            "-c",
            "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w') as z: z.writestr('potvrzeni.txt', sys.argv[2])",
        ])
        .arg(pki.path(&format!("{stem}.zip")))
        .arg(report)
        .status()
        .unwrap();
    assert!(zipped.success());
    pki.run(&[
        "cms",
        "-encrypt",
        "-binary",
        "-aes256",
        "-in",
        &format!("{stem}.zip"),
        "-outform",
        "DER",
        "-out",
        &format!("{stem}.zip.p7e"),
        "-recip",
        "operator-encryption.pem",
    ]);
    pki.run(&[
        "cms",
        "-sign",
        "-binary",
        "-nodetach",
        "-cades",
        "-md",
        "sha256",
        "-in",
        &format!("{stem}.zip.p7e"),
        "-signer",
        &format!("{sealer}.pem"),
        "-inkey",
        &format!("{sealer}.key"),
        "-outform",
        "DER",
        "-out",
        &format!("{stem}.zip.p7e.p7s"),
    ]);
    pki.path(&format!("{stem}.zip.p7e.p7s"))
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
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let config = format!(
        "{OPERATOR_CONFIG}{}listen = \"127.0.0.1:{port}\"\nserver_certificate = \"{}\"\nserver_key = \"{}\"\n",
        pki.delivery_section(&format!("https://127.0.0.1:{port}/data/")),
        pki.path("operator-server.pem").display(),
        pki.path("operator-server.key").display(),
    )
    .replace(
        &format!("ministry_client_certificates = [\"{}\"]", pki.path("ministry-client.pem").display()),
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
    let (_, status, _) = curl(
        &pki,
        port,
        "/api/v1/ledger/head",
        Some("ministry-client"),
        &[],
    );
    assert_eq!(status, "404");
    let (_, status, _) = curl(
        &pki,
        port,
        "/data/other.zip.p7e.p7s",
        Some("ministry-client"),
        &[],
    );
    assert_eq!(status, "404");
    // A notification is taken and answered.
    let (_, status, body) = curl(
        &pki,
        port,
        "/notify/ok",
        Some("ministry-client"),
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
            ledger::registry_event::RegistryEvent::PackageDelivery {
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
    let (state, _url) = api_state_delivering(&pki);
    let app = app!(state);
    let deliver = || {
        test::TestRequest::post()
            .uri("/api/v1/reports/mf/deliveries?month=2026-10&misto=kasino_1")
            .insert_header(bearer(ledger::access::Role::Compliance))
            .to_request()
    };
    let (status, receipt) = call(&app, deliver()).await;
    assert_eq!(status, 201, "{receipt}");
    assert_eq!(receipt["package"], NAME);
    assert_eq!(
        receipt["download_url"],
        format!("https://mf.kasino.test/data/{NAME}.zip.p7e.p7s")
    );
    let (status, again) = call(&app, deliver()).await;
    assert_eq!((status, &again["new"]), (200, &serde_json::json!(false)));
    assert_eq!(again["sealed_file_sha256"], receipt["sealed_file_sha256"]);
    let (_, listed) = get(&app, "/api/v1/reports/mf/deliveries").await;
    assert_eq!(listed[0]["state"], "sealed", "{listed}");
    // The month's page says the Ministry has not confirmed it yet.
    let (status, page) = get_text(&app, "/reports/month/2026-11").await;
    assert_eq!(status, 200, "{page}");
    assert!(
        page.contains(&format!(
            "Ministerstvo dosud nepotvrdilo balíčky: {NAME} (sealed)"
        )),
        "{page}"
    );

    // The Ministry's confirmation, posted as received.
    let ok = ministry_confirmation(&pki, "OK: 20261103-101500\r\n", "ministry-seal", "Ok");
    let request = test::TestRequest::post()
        .uri(&format!(
            "/api/v1/reports/mf/confirmations?file={NAME}.Ok.zip.p7e.p7s"
        ))
        .insert_header(bearer(ledger::access::Role::Compliance))
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
            .insert_header(bearer(ledger::access::Role::Compliance))
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
    let config = state.operator_config.clone().unwrap();
    let keys = state.delivery_keys.clone().unwrap();
    let mut conn = ledger::storage::connect(&url).unwrap();
    let request = reports::mf::PackageRequest {
        config: &config,
        premises: "kasino_1",
        month: reports::gaming_day::Month::parse("2026-10").unwrap(),
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

    let app = app!(state);
    let (status, receipt) = call(
        &app,
        test::TestRequest::post()
            .uri("/api/v1/reports/mf/deliveries?month=2026-10&misto=kasino_1")
            .insert_header(bearer(ledger::access::Role::Compliance))
            .to_request(),
    )
    .await;
    assert_eq!(
        (status, receipt["package"].as_str()),
        (201, Some(NAME)),
        "{receipt}"
    );
    // This month is not over: its package is not delivered, and takes no version either.
    let (status, refused) = call(
        &app,
        test::TestRequest::post()
            .uri("/api/v1/reports/mf/deliveries?month=this&misto=kasino_1")
            .insert_header(bearer(ledger::access::Role::Compliance))
            .to_request(),
    )
    .await;
    assert_eq!(
        (status, &refused["code"]),
        (409, &serde_json::json!("month_not_over")),
        "{refused}"
    );
    let (_, listed) = get(&app, "/api/v1/reports/mf/deliveries").await;
    assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");

    // Sealed by the operator, not the Ministry: kept as evidence, counted as refused, and the
    // package still waits for its confirmation.
    let forged = ministry_confirmation(&pki, "OK: 20261103-101500\r\n", "operator-seal", "Ok");
    let (status, outcome) = call(
        &app,
        test::TestRequest::post()
            .uri(&format!(
                "/api/v1/reports/mf/confirmations?file={NAME}.Ok.zip.p7e.p7s"
            ))
            .insert_header(bearer(ledger::access::Role::Compliance))
            .insert_header(("content-type", "application/octet-stream"))
            .set_payload(std::fs::read(&forged).unwrap())
            .to_request(),
    )
    .await;
    assert_eq!(
        outcome["step"], "confirmation_refused",
        "{status} {outcome}"
    );
    let (_, listed) = get(&app, "/api/v1/reports/mf/deliveries").await;
    assert_eq!(listed[0]["state"], "sealed", "{listed}");
    assert_eq!(listed[0]["refused_confirmations"], 1, "{listed}");
    assert!(listed[0]["confirmation"].is_null(), "{listed}");
    let (_, report) = get(&app, "/api/v1/reports/rtp?month=2026-10").await;
    assert_eq!(
        report["ministry_packages_unconfirmed"][0]["package"], NAME,
        "{report}"
    );
}
