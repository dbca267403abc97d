#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The delivery rehearsed end to end (`dozor report mf rehearse`): a throwaway PKI, the real
//! listener, the Ministry's download over mutual TLS, its sealed answer recorded in a ledger of
//! the rehearsal's own — confirmed, or rejected with the Ministry's errors — while the real
//! ledger is only read. What the Ministry downloaded and answered is checked by Debian's
//! `openssl`, and the certificates' purposes too.

mod common;

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use std::time::Duration;

use common::pki::{cms_args, openssl, Cms};
use common::*;

const NAME: &str = "12345679-M-202610-Z-kasino_1-01";

/// A casino's data directory (configuration, operator key) on a fresh database of its own.
struct Casino {
    dir: tempfile::TempDir,
    url: String,
}

impl Casino {
    fn new() -> Casino {
        Casino::on(ledger::storage::testing::fresh_database().unwrap())
    }

    /// The casino whose real ledger is the database at `url`.
    fn on(url: String) -> Casino {
        let dir = tempfile::tempdir().unwrap();
        // The rehearsal's PostgreSQL runs as `postgres` and walks into this folder.
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        ledger::operator_key::write_private(
            &dir.path().join("operator.key"),
            &operator().private_key(),
        )
        .unwrap();
        std::fs::write(dir.path().join("dozor.toml"), OPERATOR_CONFIG).unwrap();
        Casino { dir, url }
    }

    fn rehearsal(&self) -> PathBuf {
        self.dir.path().join("rehearsal")
    }

    /// `dozor report mf rehearse` of October into [`Casino::rehearsal`], with `extra`.
    fn rehearse(&self, extra: &[&str]) -> std::process::Output {
        dozor()
            .arg("--data-dir")
            .arg(self.dir.path())
            .args([
                "report", "mf", "rehearse", "--month", "2026-10", "--misto", "kasino_1", "--dir",
            ])
            .arg(self.rehearsal())
            .args(extra)
            .env("DATABASE_URL", &self.url)
            .output()
            .unwrap()
    }

    /// The real ledger's size.
    fn ledger_size(&self) -> u64 {
        ledger_size(&self.url)
    }

    /// `report mf deliveries --json` of the real ledger.
    fn real_deliveries(&self) -> serde_json::Value {
        let out = dozor()
            .args(["report", "mf", "deliveries", "--json"])
            .env("DATABASE_URL", &self.url)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out));
        serde_json::from_slice(&out.stdout).unwrap()
    }

    /// `report mf deliveries` of the rehearsal's ledger, as the command's last line says to
    /// ask for it: JSON, or the Czech table; in the database `ledger_url` names, or the
    /// rehearsal's own cluster.
    fn rehearsed_deliveries(&self, json: bool, ledger_url: Option<&str>) -> std::process::Output {
        let mut command = dozor();
        command
            .arg("--data-dir")
            .arg(self.rehearsal().join("ledger"))
            .args(["report", "mf", "deliveries"])
            .args(json.then_some("--json"));
        match ledger_url {
            Some(url) => command.env("DATABASE_URL", url),
            None => command.env_remove("DATABASE_URL"),
        };
        let out = command.output().unwrap();
        assert!(out.status.success(), "{}", text(&out));
        out
    }
}

/// The line of the command's output that starts with the step `word`.
fn step<'a>(stdout: &'a str, word: &str) -> &'a str {
    stdout
        .lines()
        .find(|l| l.split_whitespace().next() == Some(word))
        .unwrap_or_else(|| panic!("no `{word}` step in\n{stdout}"))
}

/// openssl, in `dir`: the operator's seal on the file the Ministry downloaded holds under the
/// operator's CA (CAdES: its signing-certificate-v2 too), and the Ministry's key opens the
/// envelope to the package's ZIP (written as `{NAME}.zip`), which `mf-validate` passes.
fn openssl_opens_the_download(dir: &Path) -> Vec<u8> {
    let downloaded = format!("ministerstvo/stazeno/{NAME}.zip.p7e.p7s");
    openssl(
        dir,
        &cms_args(Cms::Verify("keys/ca.pem"), &downloaded, "package.p7e"),
    );
    openssl(
        dir,
        &cms_args(
            Cms::Decrypt("mf/mf-sifrovani.pem", "ministerstvo/mf-sifrovani.key"),
            "package.p7e",
            &format!("{NAME}.zip"),
        ),
    );
    let validated = dozor()
        .args(["report", "mf-validate"])
        .arg(dir.join(format!("{NAME}.zip")))
        .output()
        .unwrap();
    assert!(validated.status.success(), "{}", text(&validated));
    std::fs::read(dir.join(format!("{NAME}.zip"))).unwrap()
}

/// openssl: the Ministry's answer is sealed with the Ministry's seal, under its CA.
fn openssl_verifies_the_answer(dir: &Path, answer: &str) {
    let answer = format!("odpovedi/{answer}");
    openssl(
        dir,
        &cms_args(Cms::Verify("mf/mf-ca.pem"), &answer, "answer.p7e"),
    );
}

/// `dozor serve` on the rehearsal's ledger with `dir/dozor.toml` (its `[delivery]` the
/// rehearsal's), and `curl` (OpenSSL's TLS) downloading as the Ministry with the rehearsal's
/// client certificate, trusting the operator's CA: the HTTP status and the body.
fn curl_from_the_served_rehearsal(dir: &Path, listen: &str) -> (String, Vec<u8>) {
    struct Stopped(std::process::Child);
    impl Drop for Stopped {
        fn drop(&mut self) {
            // SIGTERM: the server stops its PostgreSQL as it exits.
            let _ = std::process::Command::new("kill")
                .args(["-TERM", &self.0.id().to_string()])
                .status();
            let _ = self.0.wait();
        }
    }
    let api = format!("127.0.0.1:{}", free_port());
    let log = std::fs::File::create(dir.join("serve.log")).unwrap();
    let mut server = Stopped(
        dozor()
            .arg("--data-dir")
            .arg(dir.join("ledger"))
            .args(["serve", "--nightly-at", "off", "--bind", &api, "--config"])
            .arg(dir.join("dozor.toml"))
            .env_remove("DATABASE_URL")
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap(),
    );
    poll::poll_until(Duration::from_secs(60), Duration::from_millis(100), || {
        if let Some(status) = server.0.try_wait().unwrap() {
            panic!(
                "serve exited ({status}): {}",
                std::fs::read_to_string(dir.join("serve.log")).unwrap()
            );
        }
        std::net::TcpStream::connect(listen).map_err(|e| e.to_string())
    });
    let out = std::process::Command::new("curl")
        .current_dir(dir)
        .args([
            "-s",
            "--max-time",
            "20",
            "-o",
            "curled",
            "-w",
            "%{http_code}",
        ])
        .args(["--cacert", "keys/ca.pem", "--cert", "mf/mf-klient-1.pem"])
        .args(["--key", "ministerstvo/mf-klient-1.key"])
        .arg(format!("https://{listen}/data/{NAME}.zip.p7e.p7s"))
        .output()
        .unwrap();
    let status = String::from_utf8_lossy(&out.stdout).into_owned();
    (
        status,
        std::fs::read(dir.join("curled")).unwrap_or_default(),
    )
}

#[actix_web::test]
async fn a_rehearsal_delivers_to_the_playing_ministry_and_records_its_confirmation_apart() {
    // Two gaming days of October at a roulette and a blackjack table, 5 rounds a table a day,
    // and the cage, submitted as the tables submit them.
    let (state, url) = api_state();
    let app = test_app(&state).await;
    let tables = [("R01", "roulette"), ("BJ1", "blackjack")];
    simulated::submit_simulated_tables(
        &app,
        simulated::october(2, 5, 0.0, 7),
        &tables,
        Some("CAGE"),
    )
    .await;
    let casino = Casino::on(url);
    let before = casino.ledger_size();
    let out = casino.rehearse(&[]);
    assert!(out.status.success(), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    // A period a table a day (2 × 2), one a cage day (2); 2 tables × 2 days × 5 rounds = 20.
    assert!(
        step(&stdout, "package")
            .contains("4 table periods, 2 cage periods, 0 tournaments, 20 rounds"),
        "{stdout}"
    );
    let dir = casino.rehearsal();

    // Every step said, in order, and the verdict last.
    let words: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    let order = [
        "folder",
        "package",
        "pki",
        "ledger",
        "deliver",
        "listen",
        "refused",
        "download",
        "open",
        "validate",
        "answer",
        "notify",
        "confirm",
        "stav",
        "kept",
        "confirmed",
    ];
    assert_eq!(words.last(), Some(&"confirmed"), "{stdout}");
    let mut at = 0;
    for word in order {
        at += words[at..]
            .iter()
            .position(|w| *w == word)
            .unwrap_or_else(|| panic!("`{word}` missing or out of order:\n{stdout}"));
    }
    assert!(
        step(&stdout, "refused").contains("refused at the TLS handshake"),
        "{stdout}"
    );
    assert!(step(&stdout, "download").contains(": 200, "), "{stdout}");
    assert!(
        step(&stdout, "confirm").contains(&format!("{NAME}.Ok.zip.p7e.p7s: confirmed")),
        "{stdout}"
    );
    assert!(step(&stdout, "stav").contains("Stav: potvrzen"), "{stdout}");

    // The download, opened by openssl, is the package the rehearsal says it decrypted.
    let zip = openssl_opens_the_download(&dir);
    let sha256 = {
        use sha2::Digest as _;
        hex::encode(sha2::Sha256::digest(&zip))
    };
    assert!(step(&stdout, "open").contains(&sha256), "{stdout}");
    openssl_verifies_the_answer(&dir, &format!("{NAME}.Ok.zip.p7e.p7s"));

    // The PKI's certificates do what each is for, in openssl's judgement.
    for (ca, purpose, certificate) in [
        ("mf/mf-ca.pem", "sslclient", "mf/mf-klient-1.pem"),
        ("keys/ca.pem", "sslserver", "keys/server-chain.pem"),
        ("mf/mf-ca.pem", "smimeencrypt", "mf/mf-sifrovani.pem"),
        ("mf/mf-ca.pem", "smimesign", "mf/mf-pecet.pem"),
    ] {
        openssl(
            &dir,
            &["verify", "-CAfile", ca, "-purpose", purpose, certificate],
        );
    }
    let refused = std::process::Command::new("openssl")
        .current_dir(&dir)
        .args([
            "verify",
            "-CAfile",
            "mf/mf-ca.pem",
            "-purpose",
            "sslserver",
            "mf/mf-klient-1.pem",
        ])
        .output()
        .unwrap();
    assert!(
        !refused.status.success(),
        "the Ministry's client certificate is no server's"
    );
    openssl(
        &dir,
        &[
            "pkcs12",
            "-in",
            "keys/pecet.p12",
            "-passin",
            "file:keys/pecet.heslo",
            "-noout",
        ],
    );

    // The `[delivery]` section the rehearsal wrote is one the real commands read: beside the
    // operator's configuration it gives the registration form of the rehearsal's PKI.
    let section = std::fs::read_to_string(dir.join("delivery.toml")).unwrap();
    std::fs::write(
        dir.join("dozor.toml"),
        format!("{OPERATOR_CONFIG}\n{section}"),
    )
    .unwrap();
    let registration = dozor()
        .args(["report", "mf", "registration", "--config"])
        .arg(dir.join("dozor.toml"))
        .output()
        .unwrap();
    assert!(registration.status.success(), "{}", text(&registration));
    let form = String::from_utf8_lossy(&registration.stdout);
    let server_ca = std::fs::read_to_string(dir.join("keys/ca.pem")).unwrap();
    let body = |pem: &str| {
        pem.lines()
            .filter(|l| !l.starts_with("-----"))
            .collect::<String>()
    };
    assert!(form.contains(&body(&server_ca)[..64]), "{form}");

    // Recorded in the rehearsal's ledger as the real delivery would be.
    let listed: serde_json::Value =
        serde_json::from_slice(&casino.rehearsed_deliveries(true, None).stdout).unwrap();
    let status = &listed[0];
    assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");
    assert_eq!(status["package"], NAME, "{listed}");
    assert_eq!(status["state"], "confirmed", "{listed}");
    assert_eq!(status["downloads"], 1, "{listed}");
    assert_eq!(status["notifications"], 1, "{listed}");
    assert_eq!(status["refused_confirmations"], 0, "{listed}");
    assert!(
        status["downloaded_by"][0]
            .as_str()
            .unwrap()
            .contains("CN=MF klient (rehearsal only)"),
        "{listed}"
    );
    assert!(
        status["confirmation"]["detail"]
            .as_str()
            .unwrap()
            .starts_with("OK: 20"),
        "{listed}"
    );
    assert!(
        status["confirmation"]["sealed_by"]
            .as_str()
            .unwrap()
            .contains("CN=MF pecet"),
        "{listed}"
    );
    let sealed =
        std::fs::read(dir.join(format!("ministerstvo/stazeno/{NAME}.zip.p7e.p7s"))).unwrap();
    assert_eq!(status["sealed_file_sha256"].as_str().unwrap(), {
        use sha2::Digest as _;
        hex::encode(sha2::Sha256::digest(&sealed))
    });
    // `serve` with the rehearsal's [delivery] section serves the same file to `curl` with the
    // Ministry's certificate: OpenSSL's TLS takes the listener's certificate and the listener
    // the client's, and the download is recorded too.
    let listen = section
        .lines()
        .find_map(|l| l.strip_prefix("listen = "))
        .unwrap()
        .trim_matches('"')
        .to_owned();
    let (status, curled) = curl_from_the_served_rehearsal(&dir, &listen);
    assert_eq!(status, "200");
    assert_eq!(curled, sealed);
    let listed: serde_json::Value =
        serde_json::from_slice(&casino.rehearsed_deliveries(true, None).stdout).unwrap();
    assert_eq!(listed[0]["downloads"], 2, "{listed}");

    // The same in Czech, as the officer reads it.
    let table = String::from_utf8(casino.rehearsed_deliveries(false, None).stdout).unwrap();
    let lines: Vec<&str> = table.lines().collect();
    assert!(
        lines[0].starts_with("Balíček") && lines[0].contains("Odpověď ministerstva"),
        "{table}"
    );
    assert!(
        lines[1].starts_with(NAME) && lines[1].contains("potvrzen") && lines[1].contains("2×"),
        "{table}"
    );

    // The real ledger has not moved and knows of no delivery.
    assert_eq!(casino.ledger_size(), before);
    assert_eq!(casino.real_deliveries(), serde_json::json!([]));
}

#[test]
fn a_broken_package_is_rehearsed_to_the_ministrys_error_report() {
    let casino = Casino::new();
    let before = casino.ledger_size();
    // The rehearsal's ledger in an empty database of its own, as on a machine without
    // PostgreSQL's server programs.
    let ledger_url = empty_database();
    let out = casino.rehearse(&["--break", "--ledger-url", &ledger_url]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(step(&stdout, "break").contains("misto.csv"), "{stdout}");
    assert!(
        step(&stdout, "confirm").contains(&format!("{NAME}.Err.zip.p7e.p7s: rejected")),
        "{stdout}"
    );
    // It ends with the Ministry's errors: the file missing from the package it checked.
    let tail: Vec<&str> = stdout
        .lines()
        .skip_while(|l| *l != "rejected: the Ministry's errors:")
        .collect();
    assert!(
        tail.len() >= 2
            && tail[1].starts_with("ERR_PKG_MISSING_FILE")
            && tail[1].contains("misto.csv"),
        "{stdout}"
    );
    assert!(
        step(&stdout, "notify").contains("/notify/error: 200 Accepted"),
        "{stdout}"
    );
    openssl_verifies_the_answer(&casino.rehearsal(), &format!("{NAME}.Err.zip.p7e.p7s"));

    let listed: serde_json::Value =
        serde_json::from_slice(&casino.rehearsed_deliveries(true, Some(&ledger_url)).stdout)
            .unwrap();
    assert_eq!(listed[0]["state"], "rejected", "{listed}");
    assert!(
        listed[0]["confirmation"]["detail"]
            .as_str()
            .unwrap()
            .contains("ERR_PKG_MISSING_FILE"),
        "{listed}"
    );
    let table =
        String::from_utf8(casino.rehearsed_deliveries(false, Some(&ledger_url)).stdout).unwrap();
    assert!(
        table.contains("odmítnut") && table.contains("odmítnuto"),
        "{table}"
    );
    assert_eq!(casino.ledger_size(), before);
    assert_eq!(casino.real_deliveries(), serde_json::json!([]));

    // A rehearsal starts afresh, in one line each: the folder of an earlier one, a ledger that
    // holds entries, and the real ledger are refused.
    let again = casino.rehearse(&[]);
    assert_eq!(again.status.code(), Some(2), "{}", text(&again));
    assert!(text(&again).contains("is not empty"), "{}", text(&again));
    std::fs::remove_dir_all(casino.rehearsal()).unwrap();
    for (url, why) in [
        (&ledger_url, "holds a ledger"),
        (&casino.url, "is the real ledger's database"),
    ] {
        let refused = casino.rehearse(&["--ledger-url", url]);
        assert_eq!(refused.status.code(), Some(2), "{}", text(&refused));
        assert!(text(&refused).contains(why), "{}", text(&refused));
    }
    assert_eq!(casino.ledger_size(), before);
}

/// A new database with nothing in it (not even dozor's migrations) on the test's cluster.
fn empty_database() -> String {
    use diesel::connection::SimpleConnection as _;
    let fresh = ledger::storage::testing::fresh_database().unwrap();
    let name = fresh.split('/').nth(3).unwrap().split('?').next().unwrap();
    let empty = format!("{name}_empty");
    ledger::storage::connect(&fresh.replacen(&format!("/{name}?"), "/postgres?", 1))
        .unwrap()
        .batch_execute(&format!("CREATE DATABASE {empty}"))
        .unwrap();
    let url = fresh.replacen(&format!("/{name}?"), &format!("/{empty}?"), 1);
    assert_eq!(
        ledger::storage::database::tables(&mut ledger::storage::connect(&url).unwrap()).unwrap(),
        Vec::<String>::new()
    );
    url
}

/// What a database holds, as far as a rehearsal could change it: its tables, the migrations
/// applied, and the rows of the ledger's tables (when it has them).
fn contents(url: &str) -> (Vec<String>, String) {
    #[derive(diesel::QueryableByName)]
    struct Rows {
        #[diesel(sql_type = diesel::sql_types::Text)]
        rows: String,
    }
    let mut conn = ledger::storage::connect(url).unwrap();
    let tables = ledger::storage::database::tables(&mut conn).unwrap();
    let rows = if tables.contains(&"public.ledger_entries".to_owned()) {
        diesel::RunQueryDsl::get_result::<Rows>(
            diesel::sql_query(
                "SELECT concat_ws(' ', \
                   (SELECT string_agg(version, ',' ORDER BY version) FROM __diesel_schema_migrations), \
                   (SELECT count(*) FROM ledger_entries), (SELECT count(*) FROM merkle_nodes), \
                   (SELECT count(*) FROM checkpoints), (SELECT count(*) FROM mf_deliveries)) AS rows",
            ),
            &mut conn,
        )
        .unwrap()
        .rows
    } else {
        String::new()
    };
    (tables, rows)
}

#[test]
fn a_ledger_url_that_is_not_an_empty_database_is_refused_before_anything_touches_it() {
    use diesel::connection::SimpleConnection as _;
    let casino = Casino::new();
    // The real ledger under another spelling of its URL (the same socket, the same database).
    let respelled = format!("{}&application_name=rehearsal", casino.url);
    assert_ne!(respelled, casino.url);
    // A ledger's schema without entries; a database another program uses.
    let schema_only = ledger::storage::testing::fresh_database().unwrap();
    let foreign = empty_database();
    ledger::storage::connect(&foreign)
        .unwrap()
        .batch_execute("CREATE TABLE notes (line text)")
        .unwrap();
    for (url, why) in [
        (&respelled, "holds a ledger (dozor's schema"),
        (&schema_only, "holds a ledger (dozor's schema"),
        (&foreign, "is not empty (it holds public.notes)"),
    ] {
        let before = contents(url);
        assert!(!before.0.is_empty(), "{before:?}");
        let refused = casino.rehearse(&["--ledger-url", url]);
        assert_eq!(refused.status.code(), Some(2), "{}", text(&refused));
        assert!(text(&refused).contains(why), "{}", text(&refused));
        assert_eq!(
            text(&refused).trim().lines().count(),
            1,
            "{}",
            text(&refused)
        );
        // Nothing made, nothing migrated or written: the same tables, migrations and rows.
        assert!(!casino.rehearsal().exists());
        assert_eq!(contents(url), before, "{url}");
    }
    assert_eq!(casino.real_deliveries(), serde_json::json!([]));
}
