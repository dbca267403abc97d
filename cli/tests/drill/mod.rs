#![allow(dead_code)]
//! What the drills share: the documentation's `sh drill=…` blocks run as written on a machine
//! whose paths are put under temporary directories.

use std::os::unix::fs::MetadataExt as _;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use crate::common::poll::poll_until;
use diesel::prelude::*;
use serde_json::Value;

pub const DOCS: &str = include_str!("../../../docs/OPERATIONS.md");
/// The moment the documentation's point-in-time restore names.
pub const DOCUMENTED_MOMENT: &str = "2026-11-27 13:05:00+01";

/// The lines of the documentation's block `sh drill=<name>`.
pub fn block(name: &str) -> Vec<String> {
    let opening = format!("```sh drill={name}");
    let mut lines = DOCS.lines().skip_while(|l| l.trim() != opening);
    assert!(
        lines.next().is_some(),
        "no `{opening}` block in OPERATIONS.md"
    );
    // A line ending in `\` goes on in the next, as the shell reads it.
    let mut found: Vec<String> = Vec::new();
    let mut going_on = false;
    for line in lines.take_while(|l| l.trim() != "```") {
        match found.last_mut() {
            Some(last) if going_on => last.push_str(line),
            _ if line.trim().is_empty() => continue,
            _ => found.push(line.to_owned()),
        }
        going_on = line.ends_with('\\');
        if going_on {
            let last = found.last_mut().unwrap();
            last.pop();
        }
    }
    assert!(!found.is_empty(), "the block `{opening}` is empty");
    found
}

/// A machine's paths put under a temporary directory: what is replaced, in order, by what.
pub struct Machine {
    _dir: std::sync::Arc<tempfile::TempDir>,
    pub root: PathBuf,
    pub places: Vec<(String, String)>,
}

impl Machine {
    /// `/usr/local/bin`, `/etc/dozor` and `/mnt` under a new directory, with `dozor` installed;
    /// the data directory `/var/lib/dozor/var` is `data_dir`.
    pub fn new(data_dir: &Path) -> Machine {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path().to_path_buf();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        for sub in ["usr/local/bin", "etc/dozor", "mnt"] {
            std::fs::create_dir_all(dir.join(sub)).unwrap();
        }
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_dozor"), dir.join("usr/local/bin/dozor"))
            .unwrap();
        let under = |p: &str| format!("{}{p}", dir.display());
        let mut places = vec![
            ("/usr/local/bin/".to_owned(), under("/usr/local/bin/")),
            ("/etc/dozor/".to_owned(), under("/etc/dozor/")),
            ("/mnt/dozor-backups".to_owned(), under("/mnt/dozor-backups")),
            (
                "/var/lib/dozor/var".to_owned(),
                data_dir.display().to_string(),
            ),
            (
                "/var/lib/postgresql/15/restored".to_owned(),
                under("/restored"),
            ),
        ];
        if !running_as_root() {
            // PostgreSQL runs as this user then.
            places.push(("-o postgres -g postgres ".to_owned(), String::new()));
            places.push(("runuser -u postgres -- ".to_owned(), String::new()));
        }
        Machine {
            _dir: std::sync::Arc::new(temp),
            root: dir,
            places,
        }
    }

    pub fn with(mut self, from: &str, to: &str) -> Machine {
        self.places.insert(0, (from.to_owned(), to.to_owned()));
        self
    }

    pub fn place(&self, text: &str) -> String {
        self.places
            .iter()
            .fold(text.to_owned(), |t, (from, to)| t.replace(from, to))
    }

    pub fn backups(&self) -> PathBuf {
        self.root.join("mnt/dozor-backups")
    }

    /// A file installed by a documented command, with the machine's paths in it.
    pub fn place_file(&self, path: &str) {
        let path = PathBuf::from(self.place(path));
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, self.place(&text)).unwrap();
    }

    /// Runs each line of the documentation's block as written, with the machine's paths, from
    /// the repository (the commands name `deploy/…`); each line's output.
    pub fn run_block(&self, name: &str, moment: Option<&str>) -> Vec<Output> {
        block(name)
            .iter()
            .map(|line| {
                let mut line = self.place(line);
                if let Some(moment) = moment {
                    line = line.replace(DOCUMENTED_MOMENT, moment);
                }
                self.sh(&line)
            })
            .collect()
    }

    /// Runs the documentation's block `name` as one script (`sh -e`), with the machine's
    /// paths, as `user` (when root runs the tests).
    pub fn run_script_as(&self, name: &str, user: &str) -> Output {
        let script = block(name)
            .iter()
            .map(|l| self.place(l))
            .collect::<Vec<_>>()
            .join("\n");
        as_user(user, "sh")
            .args(["-e", "-c", &script])
            .current_dir("/")
            .output()
            .unwrap()
    }

    /// Runs each line of the block as [`Machine::run_block`] does, with `env` set.
    pub fn run_block_with(&self, name: &str, env: &[(&str, &str)]) -> Vec<Output> {
        block(name)
            .iter()
            .map(|line| self.sh_with(&self.place(line), env))
            .collect()
    }

    pub fn sh(&self, line: &str) -> Output {
        self.sh_with(line, &[])
    }

    pub fn sh_with(&self, line: &str, env: &[(&str, &str)]) -> Output {
        let path = format!(
            "{}:{}",
            self.root.join("usr/local/bin").display(),
            std::env::var("PATH").unwrap_or_default()
        );
        Command::new("sh")
            .args(["-c", line])
            .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
            .env("PATH", path)
            .env_remove("DATABASE_URL")
            .env_remove("DOZOR_DATA_DIR")
            .env_remove("DOZOR_CHECKPOINT_WITNESS")
            .env_remove("DOZOR_OPERATOR_KEY")
            .envs(env.iter().copied())
            .output()
            .unwrap()
    }
}

pub fn running_as_root() -> bool {
    std::fs::metadata("/proc/self").unwrap().uid() == 0
}

/// `program` to run as `user` (by `runuser`) when root runs the tests, else as the tests' user.
pub fn as_user(user: &str, program: impl AsRef<std::ffi::OsStr>) -> Command {
    if running_as_root() {
        let mut c = Command::new("runuser");
        c.args(["-u", user, "--"]).arg(program);
        c
    } else {
        Command::new(program)
    }
}

pub fn succeeded(line: &str, out: &Output) {
    assert!(
        out.status.success(),
        "`{line}` failed ({}):\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

pub fn all_succeeded(name: &str, outs: &[Output]) {
    for (line, out) in block(name).iter().zip(outs) {
        succeeded(line, out);
    }
}

#[derive(QueryableByName)]
pub struct Text {
    #[diesel(sql_type = diesel::sql_types::Text)]
    pub text: String,
}

pub fn text(conn: &mut PgConnection, sql: &str) -> String {
    diesel::sql_query(sql)
        .get_result::<Text>(conn)
        .unwrap()
        .text
}

/// The WAL segment being written finished and archived (into the machine's `wal/`).
pub fn archive_current_segment(url: &str, machine: &Machine) {
    let mut conn = ledger::storage::connect(url).unwrap();
    let segment = text(&mut conn, "SELECT pg_walfile_name(pg_switch_wal()) AS text");
    let archived = machine.backups().join("wal").join(&segment);
    poll_until(Duration::from_secs(30), Duration::from_millis(100), || {
        if archived.is_file() {
            return Ok(());
        }
        Err(format!("{} not archived", archived.display()))
    });
}

/// Nothing but the primary's timeline in the archive: no restored copy wrote its own there.
pub fn only_the_primarys_timeline(machine: &Machine) {
    let names: Vec<String> = std::fs::read_dir(machine.backups().join("wal"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!names.is_empty());
    let foreign: Vec<&String> = names
        .iter()
        .filter(|n| !n.starts_with("00000001") || n.ends_with(".history"))
        .collect();
    assert!(foreign.is_empty(), "a restored copy archived {foreign:?}");
}

/// `dozor verify`'s report (the last line's output), which passed or failed as `passes` says.
pub fn verify_report(outs: &[Output], passes: bool) -> Value {
    let out = outs.last().unwrap();
    assert_eq!(
        out.status.success(),
        passes,
        "verify: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Records before and after a restore point, witnessed: (size at the point, the final size,
/// the point as PostgreSQL's timestamp). A base backup by the unit's command is taken after
/// the first five.
/// Stops a restored copy left running by a failed drill.
pub struct StopOnDrop(pub PathBuf, pub PathBuf);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        if self.0.join("postmaster.pid").exists() {
            let _ = as_user("postgres", self.1.join("pg_ctl"))
                .args(["stop", "-m", "immediate", "-D"])
                .arg(&self.0)
                .output();
        }
    }
}
