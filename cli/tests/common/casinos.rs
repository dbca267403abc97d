//! Casinos as a regulator meets them: each a `dozor serve` on a data directory and PostgreSQL
//! cluster of its own, signing with its own operator key, publishing its ledger as tiles into
//! a folder, its checkpoints cosigned by the regulator's one `dozor witness`; and the regulator's
//! `dozor monitor` following them, a process of its own with its state in a cluster of its own.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use dozor_log::checkpoint::NoteSigner;
use dozor_monitor::store::alerts::Alert;
use dozor_monitor::store::status::CasinoStatus;
use ledger::storage::cluster::LocalCluster;
use serde_json::Value;

use super::poll::poll_until;
use super::site::{Server, Site};
use super::Succeeds as _;

/// The name the witness cosigns under.
pub const WITNESS_NAME: &str = "witness.regulator.test";

/// The size a signed note states (its second line).
pub fn size_of(note: &str) -> Option<u64> {
    note.lines().nth(1)?.parse().ok()
}

/// The regulator's witness, cosigning the checkpoints of every log given.
pub struct Witness {
    child: Child,
    pub verifier: String,
    pub url: String,
    /// Its store (redb): read by `dozor witness checkpoints|evidence` once it is stopped.
    pub store: PathBuf,
}

impl Witness {
    /// `dozor witness serve` for the logs of `vkeys`, its store under `dir`.
    pub fn start(dir: &Path, vkeys: &[&str]) -> Witness {
        use std::io::BufRead as _;
        let key = dir.join("witness.key");
        let out = super::dozor()
            .args(["witness", "key", "--name", WITNESS_NAME, "--out"])
            .arg(&key)
            .succeeds();
        let printed: Value = serde_json::from_slice(&out.stdout).unwrap();
        let verifier = printed["verifier_key"].as_str().unwrap().to_owned();
        let mut command = super::dozor();
        command.args(["witness", "serve", "--key"]).arg(&key);
        for vkey in vkeys {
            command.args(["--log", vkey]);
        }
        let store = dir.join("witness.redb");
        let mut child = command
            .arg("--store")
            .arg(&store)
            .args(["--bind", "127.0.0.1:0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let listening: Value = serde_json::from_str(&line).unwrap();
        let url = format!("http://{}", listening["listening"].as_str().unwrap());
        Witness {
            child,
            verifier,
            url,
            store,
        }
    }

    /// Stops it (its store is then free to read).
    pub fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// `dozor witness checkpoints --origin ORIGIN`: every checkpoint of that log it cosigned.
    pub fn cosigned(&self, origin: &str) -> Vec<Value> {
        let out = super::dozor()
            .args(["witness", "checkpoints", "--origin", origin, "--store"])
            .arg(&self.store)
            .succeeds();
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

impl Drop for Witness {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One casino: its data directory (cluster, operator key, configuration), its server while it
/// runs, and the folder it publishes its tiles into.
pub struct Casino {
    pub name: &'static str,
    pub site: Site,
    pub server: Option<Server>,
    pub folder: PathBuf,
    /// The operator's verifier key.
    pub vkey: String,
}

impl Casino {
    /// A casino named `name` whose operator key (origin `<name>.test/ledger`) is made; not
    /// configured or started yet (its witness needs its key first).
    pub fn new(name: &'static str) -> Casino {
        let site = Site::new();
        let key = site.path().join("operator.key");
        site.dozor()
            .args([
                "keygen",
                "--operator",
                "--name",
                &format!("{name}.test/ledger"),
            ])
            .arg("--out")
            .arg(&key)
            .succeeds();
        let vkey = NoteSigner::from_private_key(&std::fs::read_to_string(&key).unwrap())
            .unwrap()
            .verifier()
            .to_string();
        let folder = site.path().join("site/tiles");
        Casino {
            name,
            site,
            server: None,
            folder,
            vkey,
        }
    }

    /// Writes `dozor.toml`: tiles published into the folder, checkpoints shown to `witness`.
    pub fn configure(&self, witness: &Witness) {
        std::fs::write(
            self.site.path().join("dozor.toml"),
            format!(
                "[tiles]\npublish_dir = \"site/tiles\"\n\n[[witness]]\nurl = \"{}/\"\nkey = \"{}\"\n",
                witness.url, witness.verifier
            ),
        )
        .unwrap();
    }

    pub fn start(&mut self) {
        assert!(self.server.is_none(), "{} runs already", self.name);
        self.server = Some(self.site.serve());
    }

    /// Stops the server (SIGTERM: it signs and publishes a final checkpoint), and with it the
    /// cluster it started.
    pub fn stop(&mut self) {
        let server = self.server.take().unwrap();
        let log = server.log();
        let status = server.terminate();
        assert!(
            status.success(),
            "{} stopped with {status}:\n{log}",
            self.name
        );
    }

    pub fn server(&self) -> &Server {
        self.server.as_ref().unwrap()
    }

    /// `simulate`: `tables` roulette tables of `rounds` rounds each, one in ten wrongly paid.
    pub fn play(&self, seed: u64, tables: u32, rounds: u32) {
        self.site
            .dozor()
            .args(["simulate", "--server", &self.server().http.base])
            .args(["--seed", &seed.to_string(), "--tables", &tables.to_string()])
            .args(["--rounds", &rounds.to_string(), "--error-share", "0.1"])
            .succeeds();
    }

    /// The casino's database as the cluster's superuser.
    pub fn superuser_url(&self) -> String {
        self.site.url_as("postgres")
    }

    /// Entries in the ledger.
    pub fn ledger_size(&self) -> u64 {
        super::ledger_size(&self.superuser_url())
    }

    /// The folder's checkpoint note, if one is published.
    pub fn published_note(&self) -> Option<String> {
        std::fs::read_to_string(self.folder.join("checkpoint")).ok()
    }

    /// Waits until the folder's checkpoint covers the whole ledger and carries the witness's
    /// cosignature: its size.
    pub fn wait_published(&self) -> u64 {
        self.wait_signed(true)
    }

    /// Waits until the folder's checkpoint covers the whole ledger (and, with `cosigned`,
    /// carries the witness's cosignature): its size.
    pub fn wait_signed(&self, cosigned: bool) -> u64 {
        let size = self.ledger_size();
        poll_until(Duration::from_secs(60), Duration::from_millis(100), || {
            let note = self.published_note().unwrap_or_default();
            let witnessed = note.contains(&format!("\u{2014} {WITNESS_NAME} "));
            match size_of(&note) {
                Some(s) if s == size && (witnessed || !cosigned) => Ok(s),
                other => Err(format!(
                    "{}: published {other:?} of {size}, cosigned {witnessed}:\n{note}",
                    self.name
                )),
            }
        })
    }

    /// `psql` as the cluster's superuser on the casino's database: what it printed (unaligned,
    /// tuples only).
    pub fn psql(&self, sql: &str) -> String {
        let out = Command::new("psql")
            .args(["-X", "-At", "-v", "ON_ERROR_STOP=1", "-U", "postgres"])
            .arg("-h")
            .arg(self.site.socket_dir())
            .args(["-p", "5432", "-d", "dozor", "-c", sql])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{sql}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    /// The casino's own month report (`dozor report rtp --month this --format json`).
    pub fn month_report(&self) -> Value {
        let out = self
            .site
            .dozor()
            .args(["report", "rtp", "--month", "this", "--format", "json"])
            .succeeds();
        serde_json::from_slice(&out.stdout).unwrap()
    }
}

/// The regulator's monitor of several casinos: its configuration, its state's database, and
/// its process while it follows.
pub struct Monitor {
    pub config: PathBuf,
    pub url: String,
    child: Option<Child>,
    log: PathBuf,
    _cluster: LocalCluster,
}

impl Monitor {
    /// A monitor following `casinos`, each at `tiles_url`, with `witness` needed on every
    /// checkpoint; its state in a throwaway cluster; its configuration and log in `dir`, named
    /// after `name`.
    pub fn new(
        dir: &Path,
        name: &str,
        casinos: &[(&Casino, String)],
        witness: &Witness,
    ) -> Monitor {
        let cluster = LocalCluster::temporary().unwrap();
        cluster.create_database("monitor").unwrap();
        let mut text = String::from(
            "[follow]\npoll_seconds = 1\nbackoff_max_seconds = 2\ntimeout_seconds = 5\n\
             commit_entries = 256\n",
        );
        for (casino, tiles_url) in casinos {
            text.push_str(&format!(
                "\n[[casino]]\nname = \"{}\"\ntiles_url = \"{tiles_url}\"\noperator_keys = [\"{}\"]\n\
                 witnesses = [\"{}\"]\nquorum = 1\n",
                casino.name, casino.vkey, witness.verifier
            ));
        }
        let config = dir.join(format!("{name}.toml"));
        std::fs::write(&config, text).unwrap();
        Monitor {
            config,
            url: cluster.url("monitor"),
            child: None,
            log: dir.join(format!("{name}.log")),
            _cluster: cluster,
        }
    }

    pub fn command(&self) -> Command {
        let mut command = super::dozor();
        command
            .env_remove("DATABASE_URL")
            .args(["monitor", "--config"])
            .arg(&self.config)
            .args(["--database-url", &self.url]);
        command
    }

    /// Starts following for ever, logging to a file.
    pub fn start(&mut self) {
        assert!(self.child.is_none(), "the monitor runs already");
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log)
            .unwrap();
        self.child = Some(
            self.command()
                .stdin(Stdio::null())
                .stdout(log.try_clone().unwrap())
                .stderr(log)
                .spawn()
                .unwrap(),
        );
    }

    /// SIGKILL: nothing of it runs on.
    pub fn kill(&mut self) {
        let mut child = self.child.take().unwrap();
        child.kill().unwrap();
        child.wait().unwrap();
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    fn conn(&self) -> diesel::PgConnection {
        dozor_monitor::store::connection::connect(&self.url).unwrap()
    }

    /// What it holds of `casino` (none before its first pass).
    pub fn try_status(&self, casino: &str) -> Option<CasinoStatus> {
        let mut conn = dozor_monitor::store::connection::connect(&self.url).ok()?;
        dozor_monitor::store::status::status(&mut conn)
            .ok()?
            .into_iter()
            .find(|s| s.casino == casino)
    }

    pub fn status(&self, casino: &str) -> CasinoStatus {
        self.try_status(casino).unwrap()
    }

    pub fn alerts(&self, casino: &str) -> Vec<Alert> {
        dozor_monitor::store::alerts::alerts(&mut self.conn(), Some(casino)).unwrap()
    }

    pub fn tallies(&self, casino: &str) -> Vec<dozor_monitor::store::status::TallyRow> {
        let all = dozor_monitor::store::status::tallies(&mut self.conn()).unwrap();
        all.into_iter().filter(|t| t.casino == casino).collect()
    }

    pub fn mismatches(&self, casino: &str) -> Vec<dozor_monitor::store::status::MismatchRow> {
        let all = dozor_monitor::store::status::mismatches(&mut self.conn()).unwrap();
        all.into_iter().filter(|m| m.casino == casino).collect()
    }

    /// Waits until the monitor has followed `casino` to `size` entries.
    pub fn wait_followed(&self, casino: &str, size: u64) -> CasinoStatus {
        poll_until(
            Duration::from_secs(90),
            Duration::from_millis(100),
            || match self.try_status(casino) {
                Some(s) if s.size as u64 == size => Ok(s),
                other => Err(format!(
                    "{casino}: not followed to {size}: {other:?}\n{}",
                    self.log()
                )),
            },
        )
    }
}

impl Drop for Monitor {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
