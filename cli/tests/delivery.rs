#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The month's package delivered to the Ministry from the command line: validated, encrypted,
//! sealed once; what it writes is checked by an independent implementation, Debian's `openssl`.

mod common;

use common::pki::Pki;
use common::*;

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

#[test]
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
}

#[test]
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
