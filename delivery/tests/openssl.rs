#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! dozor's encryption and seals against an independent implementation, Debian's `openssl`: what
//! dozor writes, `openssl cms` opens and verifies; what `openssl cms` writes (DER, and BER as
//! streaming writers make it), dozor opens. The PKI is made by `openssl` in the test.

use std::process::Command;

use chrono::{TimeZone as _, Utc};
use delivery::{decrypt, encrypt, open_seal, read_certificates, seal, Certificate, Identity};

// The PKI the command's tests make, shared.
#[allow(dead_code)]
#[path = "../../cli/tests/common/pki.rs"]
mod pki;
use pki::{cms_args, Cms, Pki};

fn certificate(pki: &Pki, name: &str) -> Certificate {
    read_certificates(&std::fs::read(pki.path(&format!("{name}.pem"))).unwrap())
        .unwrap()
        .remove(0)
}

/// The bytes of `name`'s PKCS#12 file; `extra` chooses its algorithms.
fn pkcs12(pki: &Pki, name: &str, ca: &str, password: &str, extra: &[&str]) -> Vec<u8> {
    std::fs::read(pki.pkcs12_with(name, ca, password, extra)).unwrap()
}

fn identity(pki: &Pki, name: &str, ca: &str) -> Identity {
    Identity::from_pkcs12(&pkcs12(pki, name, ca, "heslo", &[]), "heslo").unwrap()
}

/// A stand-in for a package ZIP: bytes of every value, longer than a block.
fn package() -> Vec<u8> {
    (0..70_000u32).map(|i| (i * 7 % 251) as u8).collect()
}

#[test]
fn openssl_verifies_the_seal_and_decrypts_what_dozor_sealed() {
    let pki = Pki::new();
    let zip = package();
    let operator = identity(&pki, "operator-seal", "operator-ca");
    assert_eq!(operator.certificate().subject(), "O=test,CN=operator-seal");
    assert_eq!(operator.chain().len(), 1, "the CA came along");
    let encrypted = encrypt(
        &zip,
        &[
            certificate(&pki, "ministry-encryption"),
            certificate(&pki, "operator-encryption"),
        ],
    )
    .unwrap();
    let at = Utc.with_ymd_and_hms(2026, 11, 3, 9, 30, 0).unwrap();
    let sealed = seal(&encrypted, &operator, at).unwrap();
    std::fs::write(pki.path("package.zip.p7e.p7s"), &sealed).unwrap();

    // The seal verifies with the operator's CA (`-cades`: and its signing-certificate-v2 names
    // the sealer's certificate), and gives back the encrypted file exactly.
    pki.run(&cms_args(
        Cms::Verify("operator-ca.pem"),
        "package.zip.p7e.p7s",
        "package.zip.p7e",
    ));
    assert_eq!(
        std::fs::read(pki.path("package.zip.p7e")).unwrap(),
        encrypted
    );
    // Its signed attributes are those CAdES baseline-B asks for, the chain is carried.
    let printed = pki.run(&[
        "cms",
        "-cmsout",
        "-print",
        "-inform",
        "DER",
        "-in",
        "package.zip.p7e.p7s",
    ]);
    let printed = String::from_utf8_lossy(&printed.stdout).into_owned();
    for attribute in [
        "contentType",
        "signingTime",
        "messageDigest",
        "id-smime-aa-signingCertificateV2",
        "CN=operator-ca",
    ] {
        assert!(printed.contains(attribute), "{attribute} in:\n{printed}");
    }
    assert!(
        printed.contains("UTCTIME:Nov  3 09:30:00 2026 GMT"),
        "{printed}"
    );
    // The certificates it carries, each by its subject: the seal's and its CA's.
    let carried = pki.run(&[
        "pkcs7",
        "-print_certs",
        "-inform",
        "DER",
        "-in",
        "package.zip.p7e.p7s",
    ]);
    let mut subjects: Vec<String> = String::from_utf8_lossy(&carried.stdout)
        .lines()
        .filter_map(|l| l.strip_prefix("subject="))
        .map(|s| s.replace(' ', ""))
        .collect();
    subjects.sort();
    assert_eq!(
        subjects,
        ["CN=operator-ca,O=test", "CN=operator-seal,O=test"]
    );
    // The Ministry decrypts the ZIP with its key, and so does the operator with its own.
    for recipient in ["ministry-encryption", "operator-encryption"] {
        let out = format!("{recipient}.zip");
        let (certificate, key) = (format!("{recipient}.pem"), format!("{recipient}.key"));
        pki.run(&cms_args(
            Cms::Decrypt(&certificate, &key),
            "package.zip.p7e",
            &out,
        ));
        assert_eq!(std::fs::read(pki.path(&out)).unwrap(), zip, "{recipient}");
    }
    // A certificate it was not encrypted to gets nothing.
    let refused = Command::new("openssl")
        .current_dir(pki.dir.path())
        .args(cms_args(
            Cms::Decrypt("ministry-seal.pem", "ministry-seal.key"),
            "package.zip.p7e",
            "nothing.zip",
        ))
        .output()
        .unwrap();
    assert!(!refused.status.success());
    // dozor opens its own seal and envelope the same way.
    let opened = open_seal(&sealed, &[operator.certificate().clone()]).unwrap();
    assert_eq!(opened.content, encrypted);
    assert_eq!(opened.signing_time, Some(at));
    let own = identity(&pki, "operator-encryption", "operator-ca");
    assert_eq!(decrypt(&opened.content, &own).unwrap(), zip);
}

/// The Ministry's side as `openssl cms` writes it: sealed (with signing-certificate-v2) and
/// encrypted to the operator, DER and streamed BER.
#[test]
fn dozor_opens_what_openssl_seals_and_encrypts() {
    let pki = Pki::new();
    let confirmation = b"<potvrzeni>OK</potvrzeni>\n".repeat(300);
    std::fs::write(pki.path("confirmation.xml"), &confirmation).unwrap();
    let ministry_seal = certificate(&pki, "ministry-seal");
    let operator = identity(&pki, "operator-encryption", "operator-ca");
    for stream in [false, true] {
        let mut sign = cms_args(
            Cms::Seal("ministry-seal.pem", "ministry-seal.key"),
            "confirmation.xml",
            "confirmation.p7s",
        );
        let mut encrypt = cms_args(Cms::Encrypt, "confirmation.xml", "confirmation.p7e");
        if stream {
            sign.push("-stream");
            encrypt.push("-stream");
        }
        pki.run(&sign);
        pki.run(&encrypt);
        let sealed = std::fs::read(pki.path("confirmation.p7s")).unwrap();
        let opened = open_seal(&sealed, std::slice::from_ref(&ministry_seal)).unwrap();
        assert_eq!(opened.content, confirmation, "stream: {stream}");
        assert_eq!(opened.sealer, ministry_seal);
        assert!(opened.signing_time.is_some());
        let encrypted = std::fs::read(pki.path("confirmation.p7e")).unwrap();
        assert_eq!(
            decrypt(&encrypted, &operator).unwrap(),
            confirmation,
            "stream: {stream}"
        );
    }
    // RSA-OAEP key transport, as some writers choose.
    let mut oaep = cms_args(Cms::Encrypt, "confirmation.xml", "oaep.p7e");
    oaep.extend(["-keyopt", "rsa_padding_mode:oaep"]);
    pki.run(&oaep);
    let encrypted = std::fs::read(pki.path("oaep.p7e")).unwrap();
    assert_eq!(decrypt(&encrypted, &operator).unwrap(), confirmation);
}

#[test]
fn a_seal_by_anyone_else_or_over_other_bytes_does_not_hold() {
    let pki = Pki::new();
    std::fs::write(pki.path("data.xml"), b"<potvrzeni>OK</potvrzeni>").unwrap();
    pki.run(&cms_args(
        Cms::Seal("stranger-seal.pem", "stranger-seal.key"),
        "data.xml",
        "stranger.p7s",
    ));
    let stranger = std::fs::read(pki.path("stranger.p7s")).unwrap();
    let ministry = [certificate(&pki, "ministry-seal")];
    let e = open_seal(&stranger, &ministry).unwrap_err().to_string();
    assert!(e.contains("sealed by O=test,CN=stranger-seal"), "{e}");
    // Each byte of the content changed in turn: never accepted.
    let allowed = [certificate(&pki, "stranger-seal")];
    assert!(open_seal(&stranger, &allowed).is_ok());
    let content_at = stranger
        .windows(b"<potvrzeni>".len())
        .position(|w| w == b"<potvrzeni>")
        .unwrap();
    let mut changed = stranger.clone();
    changed[content_at + 1] ^= 0x01;
    let e = open_seal(&changed, &allowed).unwrap_err().to_string();
    assert!(e.contains("message digest differs"), "{e}");
    // A changed signature byte: the signature does not verify.
    let mut forged = stranger.clone();
    let last = forged.len() - 1;
    forged[last] ^= 0x01;
    let e = open_seal(&forged, &allowed).unwrap_err().to_string();
    assert!(e.contains("signature does not verify"), "{e}");
    // Not a seal at all.
    assert!(open_seal(b"PK\x03\x04 a zip", &allowed).is_err());
}

#[test]
fn pkcs12_files_open_with_their_password_only() {
    let pki = Pki::new();
    let modern = pkcs12(&pki, "operator-seal", "operator-ca", "správné heslo", &[]);
    assert!(Identity::from_pkcs12(&modern, "správné heslo").is_ok());
    let e = Identity::from_pkcs12(&modern, "špatné heslo")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("the PKCS#12 file does not open"), "{e}");
    assert!(!e.contains('\n'), "one line: {e}");
    // The 3DES scheme older tools write.
    let legacy = pkcs12(
        &pki,
        "operator-seal",
        "operator-ca",
        "heslo",
        &[
            "-keypbe",
            "PBE-SHA1-3DES",
            "-certpbe",
            "PBE-SHA1-3DES",
            "-macalg",
            "sha1",
        ],
    );
    let identity = Identity::from_pkcs12(&legacy, "heslo").unwrap();
    assert_eq!(identity.certificate().subject(), "O=test,CN=operator-seal");
    // The debug form never shows the key.
    assert!(!format!("{identity:?}").contains("key:"));
}
