//! The independent tlog-tiles reader (`tests/fixtures/tlog_tiles_reader.py`, Python written
//! from the C2SP specifications, Ed25519 by the `cryptography` package): what it makes of a
//! log, read from a folder or an HTTP prefix.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

/// The reader's script.
pub fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tlog_tiles_reader.py")
}

/// `PYTHONPATH` for the reader: empty when the machine's Python has `cryptography`, else the
/// folder it is installed into from PyPI.
fn python_path() -> Option<PathBuf> {
    let has = Command::new("python3")
        .args([
            "-c",
            "import cryptography.hazmat.primitives.asymmetric.ed25519",
        ])
        .status()
        .is_ok_and(|s| s.success());
    (!has).then(|| super::pypi("cryptography", "cryptography"))
}

/// How a reading went: the summary, or the one line of the refusal.
#[derive(Debug)]
pub enum Reading {
    Read(Value),
    Refused(String),
}

impl Reading {
    /// The summary of a log that reads as valid; fails with the reason otherwise.
    pub fn summary(self) -> Value {
        match self {
            Reading::Read(summary) => summary,
            Reading::Refused(why) => panic!("the independent reader refused the log: {why}"),
        }
    }

    /// The reason of a refusal; fails when the log read as valid.
    pub fn refusal(self) -> String {
        match self {
            Reading::Refused(why) => why,
            Reading::Read(summary) => panic!("the independent reader accepted the log: {summary}"),
        }
    }
}

/// Reads the log at `prefix` (a folder or an http URL) whose checkpoints `vkey` signs, with
/// `args` (`--root-only`, `--minimum-index N`) and a bearer token if given.
pub fn read_log(prefix: &str, vkey: &str, args: &[&str], bearer: Option<&str>) -> Reading {
    let mut command = Command::new("python3");
    command
        .arg(script())
        .arg(prefix)
        .args(["--vkey", vkey])
        .args(args);
    if let Some(path) = python_path() {
        command.env("PYTHONPATH", path);
    }
    match bearer {
        Some(token) => command.env("TLOG_TILES_BEARER", token),
        None => command.env_remove("TLOG_TILES_BEARER"),
    };
    let out = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    match out.status.code() {
        Some(0) => Reading::Read(
            serde_json::from_slice(&out.stdout)
                .unwrap_or_else(|e| panic!("the reader's summary is not JSON ({e}): {stderr}")),
        ),
        Some(1) => {
            let lines: Vec<&str> = stderr.lines().collect();
            assert_eq!(lines.len(), 1, "a refusal is one line: {stderr}");
            Reading::Refused(lines[0].to_owned())
        }
        other => panic!("the reader failed ({other:?}): {stderr}"),
    }
}
