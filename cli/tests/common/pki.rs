//! A throwaway PKI made by Debian's `openssl`: a Ministry and an operator, each with a CA and
//! RSA certificates under it (encryption, seal, TLS client and server), PKCS#12 files.

use std::path::{Path, PathBuf};
use std::process::Command;

pub struct Pki {
    pub dir: tempfile::TempDir,
}

/// Runs `openssl` in `dir`; its failure fails the test with openssl's words.
pub fn openssl(dir: &Path, args: &[&str]) -> std::process::Output {
    let out = Command::new("openssl")
        .current_dir(dir)
        .args(args)
        .output()
        .expect("Debian's openssl");
    assert!(
        out.status.success(),
        "openssl {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// What an `openssl cms` run does, with the files it needs besides its input and output.
pub enum Cms<'a> {
    /// Seals as CAdES (SHA-256, content enveloped, DER) with the seal's certificate and key.
    Seal(&'a str, &'a str),
    /// Verifies a CAdES seal (DER) under this CA certificate (`-cades`: its
    /// signing-certificate-v2 must name the sealer's certificate); the output is the content.
    Verify(&'a str),
    /// Encrypts (AES-256, DER) to the operator's encryption certificate.
    Encrypt,
    /// Decrypts (DER) with a recipient's certificate and key.
    Decrypt(&'a str, &'a str),
}

/// `openssl cms` arguments doing `what` to the file `input`, writing `out`.
pub fn cms_args<'a>(what: Cms<'a>, input: &'a str, out: &'a str) -> Vec<&'a str> {
    let mut args = vec!["cms"];
    match what {
        Cms::Seal(certificate, key) => args.extend([
            "-sign",
            "-binary",
            "-nodetach",
            "-cades",
            "-md",
            "sha256",
            "-signer",
            certificate,
            "-inkey",
            key,
            "-outform",
            "DER",
        ]),
        Cms::Verify(ca_file) => args.extend([
            "-verify", "-cades", "-binary", "-inform", "DER", "-CAfile", ca_file,
        ]),
        Cms::Encrypt => args.extend([
            "-encrypt",
            "-binary",
            "-aes256",
            "-outform",
            "DER",
            "-recip",
            "operator-encryption.pem",
        ]),
        Cms::Decrypt(certificate, key) => args.extend([
            "-decrypt",
            "-binary",
            "-inform",
            "DER",
            "-recip",
            certificate,
            "-inkey",
            key,
        ]),
    }
    args.extend(["-in", input, "-out", out]);
    args
}

impl Pki {
    /// CAs `ministry-ca` and `operator-ca`; certificates `ministry-encryption`,
    /// `ministry-seal`, `ministry-client` (TLS client), `operator-seal`,
    /// `operator-encryption`, `operator-server` (TLS server for `localhost`/127.0.0.1),
    /// `stranger-client` (TLS client under the operator's CA, not the Ministry's) and
    /// `stranger-seal` (a seal under the operator's CA, not the Ministry's).
    pub fn new() -> Pki {
        let pki = Pki {
            dir: tempfile::tempdir().unwrap(),
        };
        for ca in ["ministry-ca", "operator-ca"] {
            pki.run(&[
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-keyout",
                &format!("{ca}.key"),
                "-out",
                &format!("{ca}.pem"),
                "-days",
                "3650",
                "-subj",
                &format!("/CN={ca}/O=test"),
            ]);
        }
        for (name, ca) in [
            ("ministry-encryption", "ministry-ca"),
            ("ministry-seal", "ministry-ca"),
            ("ministry-client", "ministry-ca"),
            ("operator-seal", "operator-ca"),
            ("operator-encryption", "operator-ca"),
            ("operator-server", "operator-ca"),
            ("stranger-client", "operator-ca"),
            ("stranger-seal", "operator-ca"),
        ] {
            pki.issue(name, ca, &[]);
        }
        pki
    }

    pub fn run(&self, args: &[&str]) -> std::process::Output {
        openssl(self.dir.path(), args)
    }

    /// A certificate `name` under `ca`; `extra` are more `openssl x509 -req` arguments.
    pub fn issue(&self, name: &str, ca: &str, extra: &[&str]) {
        self.run(&[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            &format!("{name}.key"),
            "-out",
            &format!("{name}.csr"),
            "-subj",
            &format!("/CN={name}/O=test"),
        ]);
        let ext = self.path(&format!("{name}.ext"));
        std::fs::write(
            &ext,
            "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n",
        )
        .unwrap();
        let mut args = vec![
            "x509".to_owned(),
            "-req".into(),
            "-in".into(),
            format!("{name}.csr"),
            "-CA".into(),
            format!("{ca}.pem"),
            "-CAkey".into(),
            format!("{ca}.key"),
            "-CAcreateserial".into(),
            "-out".into(),
            format!("{name}.pem"),
            "-days".into(),
            "365".into(),
            "-extfile".into(),
            format!("{name}.ext"),
        ];
        args.extend(extra.iter().map(|s| (*s).to_owned()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        self.run(&args);
    }

    pub fn path(&self, file: &str) -> PathBuf {
        self.dir.path().join(file)
    }

    /// `name`'s key and certificate with its CA as a PKCS#12 file `{name}.p12`.
    pub fn pkcs12(&self, name: &str, ca: &str, password: &str) -> PathBuf {
        self.pkcs12_with(name, ca, password, &[])
    }

    /// [`Pki::pkcs12`] with more `openssl pkcs12` arguments (`extra` chooses the algorithms;
    /// none: OpenSSL 3's PBES2 with AES-256).
    pub fn pkcs12_with(&self, name: &str, ca: &str, password: &str, extra: &[&str]) -> PathBuf {
        let file = format!("{name}.p12");
        let mut args = vec![
            "pkcs12".to_owned(),
            "-export".into(),
            "-inkey".into(),
            format!("{name}.key"),
            "-in".into(),
            format!("{name}.pem"),
            "-certfile".into(),
            format!("{ca}.pem"),
            "-out".into(),
            file.clone(),
            "-passout".into(),
            format!("pass:{password}"),
        ];
        args.extend(extra.iter().map(|s| (*s).to_owned()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        self.run(&args);
        self.path(&file)
    }

    /// [`Pki::delivery_section`] with the Ministry's listener on `port` (the operator's server
    /// certificate), its download URL the listener's.
    pub fn listener_section(&self, port: u16) -> String {
        format!(
            "{}listen = \"127.0.0.1:{port}\"\nserver_certificate = \"{}\"\nserver_key = \"{}\"\n",
            self.delivery_section(&format!("https://127.0.0.1:{port}/data/")),
            self.path("operator-server.pem").display(),
            self.path("operator-server.key").display(),
        )
    }

    /// A `[delivery]` section naming this PKI's files (passwords in files beside them).
    pub fn delivery_section(&self, download_url: &str) -> String {
        let seal = self.pkcs12("operator-seal", "operator-ca", "pečeť");
        let encryption = self.pkcs12("operator-encryption", "operator-ca", "šifra");
        std::fs::write(self.path("seal.password"), "pečeť\n").unwrap();
        std::fs::write(self.path("encryption.password"), "šifra").unwrap();
        format!(
            "\n[delivery]\ndownload_url = \"{download_url}\"\n\
             ministry_encryption_certificates = [\"{}\"]\n\
             ministry_seal_certificates = [\"{}\"]\n\
             ministry_client_certificates = [\"{}\"]\n\
             seal_pkcs12 = \"{}\"\nseal_password_file = \"{}\"\n\
             encryption_pkcs12 = \"{}\"\nencryption_password_file = \"{}\"\nplayground = true\n",
            self.path("ministry-encryption.pem").display(),
            self.path("ministry-seal.pem").display(),
            self.path("ministry-client.pem").display(),
            seal.display(),
            self.path("seal.password").display(),
            encryption.display(),
            self.path("encryption.password").display(),
        )
    }
}
