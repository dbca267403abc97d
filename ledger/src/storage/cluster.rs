//! A PostgreSQL cluster dozor runs itself, from the PostgreSQL binaries on the machine.
//!
//! Used when no `DATABASE_URL` is given (under `./var/`) and by tests (throwaway clusters).
//! PostgreSQL refuses to run as root, so when started as root the binaries run as the
//! `postgres` OS user. The cluster listens only on a Unix socket inside its own directory, so
//! clusters never collide on ports. That directory is private (mode 0700, owned by the OS user
//! PostgreSQL runs as; root reaches it anyway), so only that user and dozor's can connect: trust
//! authentication on the socket admits no one else.
//!
//! The process that starts a durable cluster holds `owner.lock` until it has stopped it; the
//! kernel releases the lock when that process dies, even by SIGKILL. A cluster found running with
//! the lock free was left behind by a dead dozor: the next one stops it and starts it again, and
//! so stops it on exit too.

use std::ffi::OsStr;
use std::fs;
use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use diesel::prelude::*;
use diesel::result::DatabaseErrorKind;

use crate::error::LedgerError;

const SOCKET_PORT: u16 = 5432;

/// Settings of the durable cluster given at every start, so a cluster created by an earlier
/// version gets them too. The ledger writes a steady stream of WAL (about 3 kB per record, full-page images included); with
/// PostgreSQL's default 1 GB between checkpoints it checkpointed every ~16 s under load (and
/// logged that checkpoints come too often), each followed by full-page images in the WAL. Room for
/// 4 GB of WAL or 15 minutes between checkpoints; durability is unchanged (fsync and synchronous
/// commit stay on), only crash recovery may replay more WAL.
const DURABLE_SERVER_OPTIONS: &str = "-c max_wal_size=4GB -c checkpoint_timeout=15min";
const SUPERUSER: &str = "postgres";
/// The role `dozor serve` logs in as on its own cluster: a member of `dozor_writer` (made by the
/// migrations) and nothing else, so the server may read and append but never change the ledger.
pub const SERVER_ROLE: &str = "dozor_server";
/// The group role the migrations grant the server's privileges to.
const WRITER_ROLE: &str = "dozor_writer";
/// How long `pg_ctl start` waits for the server to accept connections.
const START_WAIT_SECONDS: u64 = 60;
/// How long a restored copy may take to reach a consistent state (replaying WAL from its base
/// backup's start); `pg_ctl` stops waiting at once when the server exits.
const RECOVERY_WAIT_SECONDS: u64 = 24 * 3600;
/// The directory of setting files the managed cluster includes after its postgresql.conf.
pub const CONF_D: &str = "conf.d";
/// How long to wait for another live dozor process to start the cluster it owns, or let it go.
const OWNER_START_WAIT: Duration = Duration::from_secs(60);

#[derive(QueryableByName)]
struct Found {
    #[diesel(sql_type = diesel::sql_types::Bool)]
    found: bool,
}

#[derive(QueryableByName)]
struct RoleName {
    #[diesel(sql_type = diesel::sql_types::Text)]
    rolname: String,
}

/// The OS account PostgreSQL runs as when dozor itself runs as root.
#[derive(Debug, Clone)]
struct Account {
    name: String,
    uid: u32,
    gid: u32,
}

#[derive(Debug)]
pub struct LocalCluster {
    root: PathBuf,
    bin_dir: PathBuf,
    run_as: Option<Account>,
    started_here: bool,
    /// Held while this process owns (started and will stop) a durable cluster.
    owner_lock: Option<fs::File>,
    /// The loopback TCP port of a cluster that replicates (see `replication`); others
    /// listen on their Unix socket only.
    pub(super) tcp_port: Option<u16>,
    _temp: Option<tempfile::TempDir>,
}

fn cluster_err(message: impl Into<String>) -> LedgerError {
    LedgerError::Cluster(message.into())
}

/// The tools of the PostgreSQL version that made the data directory `data` (its `PG_VERSION`)
/// when Debian has them: a newer version installed beside it (before `pg_upgrade`) cannot
/// start it.
fn bin_dir_for(data: &Path) -> Result<PathBuf, LedgerError> {
    if std::env::var_os("DOZOR_PG_BIN").is_none() {
        if let Ok(version) = fs::read_to_string(data.join("PG_VERSION")) {
            let dir = Path::new("/usr/lib/postgresql")
                .join(version.trim())
                .join("bin");
            if dir.join("pg_ctl").is_file() {
                return Ok(dir);
            }
        }
    }
    find_bin_dir()
}

/// Finds `initdb` and `pg_ctl`: `DOZOR_PG_BIN`, then `PATH`, then Debian's versioned directories.
fn find_bin_dir() -> Result<PathBuf, LedgerError> {
    let has_tools = |dir: &Path| dir.join("initdb").is_file() && dir.join("pg_ctl").is_file();
    if let Some(dir) = std::env::var_os("DOZOR_PG_BIN").map(PathBuf::from) {
        return has_tools(&dir).then_some(dir.clone()).ok_or_else(|| {
            cluster_err(format!(
                "DOZOR_PG_BIN={} has no initdb/pg_ctl",
                dir.display()
            ))
        });
    }
    if let Some(path) = std::env::var_os("PATH") {
        if let Some(dir) = std::env::split_paths(&path).find(|d| has_tools(d)) {
            // Links to a PostgreSQL installation (e.g. /usr/local/bin/pg_ctl): the directory
            // they point into, which has the other tools too (pg_basebackup).
            let installed = fs::canonicalize(dir.join("pg_ctl"))
                .ok()
                .and_then(|real| real.parent().map(Path::to_path_buf))
                .filter(|real| has_tools(real));
            return Ok(installed.unwrap_or(dir));
        }
    }
    let mut versions: Vec<PathBuf> = fs::read_dir("/usr/lib/postgresql")
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path().join("bin")))
                .collect()
        })
        .unwrap_or_default();
    versions.sort();
    versions
        .into_iter()
        .rev()
        .find(|d| has_tools(d))
        .ok_or_else(|| {
            cluster_err(
                "PostgreSQL server binaries (initdb, pg_ctl) not found: install PostgreSQL, \
                 set DOZOR_PG_BIN, or set DATABASE_URL",
            )
        })
}

/// `text` quoted for the shell `pg_ctl` starts the server through.
fn shell_quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// Where PostgreSQL's programs are, found as for dozor's own cluster (`DOZOR_PG_BIN`, `PATH`,
/// Debian's newest versioned directory).
pub fn postgres_bin_dir() -> Result<PathBuf, LedgerError> {
    find_bin_dir()
}

/// Runs `command` with `args`; an error with what it wrote unless it succeeds.
fn run_to_success(mut command: Command, program: &str, args: &[&OsStr]) -> Result<(), LedgerError> {
    let output = command
        .args(args)
        .output()
        .map_err(|e| LedgerError::io(format!("running {program}"), e))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(cluster_err(format!(
            "{program} failed ({}): {}{}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim(),
            String::from_utf8_lossy(&output.stdout).trim()
        )))
    }
}

fn running_as_root() -> bool {
    fs::metadata("/proc/self")
        .map(|m| m.uid() == 0)
        .unwrap_or(false)
}

fn postgres_account() -> Result<Account, LedgerError> {
    let passwd =
        fs::read_to_string("/etc/passwd").map_err(|e| LedgerError::io("reading /etc/passwd", e))?;
    passwd
        .lines()
        .map(|line| line.split(':').collect::<Vec<_>>())
        .find(|fields| fields.first() == Some(&SUPERUSER))
        .and_then(|fields| {
            Some(Account {
                name: SUPERUSER.to_owned(),
                uid: fields.get(2)?.parse().ok()?,
                gid: fields.get(3)?.parse().ok()?,
            })
        })
        .ok_or_else(|| {
            cluster_err("running as root, but there is no `postgres` OS user to run PostgreSQL as")
        })
}

impl LocalCluster {
    /// The cluster under `root` (e.g. `./var/pg`): created on first use, started if it is not
    /// running. Durable settings (fsync on). A cluster another live dozor process started is
    /// used as it is and left running; one left running by a dead process is restarted and
    /// stopped by [`LocalCluster::stop`] like one started here.
    pub fn open(root: &Path) -> Result<LocalCluster, LedgerError> {
        let mut cluster = LocalCluster::prepare(root.to_path_buf(), None)?;
        let deadline = Instant::now() + OWNER_START_WAIT;
        let lock = loop {
            if let Some(lock) = cluster.try_owner_lock()? {
                break lock;
            }
            // Another live process owns it; it may still be starting (or stopping) it.
            if cluster.is_running() {
                return Ok(cluster);
            }
            if Instant::now() >= deadline {
                return Err(cluster_err(format!(
                    "the cluster under {} belongs to another dozor process, which has not started it",
                    cluster.root.display()
                )));
            }
            std::thread::sleep(Duration::from_millis(200));
        };
        if cluster.is_running() {
            tracing::warn!(
                cluster = %cluster.root.display(),
                "PostgreSQL left running by a dozor process that is gone: restarting it"
            );
            cluster.pg_ctl_stop()?;
        }
        cluster.owner_lock = Some(lock);
        if !cluster.data_dir().join("PG_VERSION").is_file() {
            cluster.init(false)?;
        }
        cluster.include_conf_d()?;
        if let Err(e) = cluster.start_managed() {
            // Whatever got started is stopped again: a failed command leaves nothing running.
            if cluster.is_running() {
                if let Err(stop) = cluster.pg_ctl_stop() {
                    tracing::warn!("stopping the managed PostgreSQL after a failed start: {stop}");
                }
            }
            return Err(e);
        }
        Ok(cluster)
    }

    /// `conf.d/` beside postgresql.conf, read after it (`include_dir`), so the settings a file
    /// there gives (deploy/postgres/archive.conf: WAL archiving) apply; added to a cluster made
    /// by an earlier version too.
    fn include_conf_d(&self) -> Result<(), LedgerError> {
        let conf_d = self.data_dir().join(CONF_D);
        if !conf_d.is_dir() {
            fs::create_dir(&conf_d)
                .map_err(|e| LedgerError::io(format!("creating {}", conf_d.display()), e))?;
            self.chown_to_postgres(&conf_d)?;
        }
        let conf = self.data_dir().join("postgresql.conf");
        let text =
            fs::read_to_string(&conf).map_err(|e| LedgerError::io("reading postgresql.conf", e))?;
        let included = text.lines().any(|line| {
            line.trim_start()
                .starts_with(&format!("include_dir = '{CONF_D}'"))
        });
        if included {
            return Ok(());
        }
        self.append_settings(&format!(
            "\n# dozor: the files in {CONF_D}/ (deploy/postgres/archive.conf) override the settings above\n\
             include_dir = '{CONF_D}'\n"
        ))
    }

    /// Starts the managed cluster with its socket in this directory whatever postgresql.conf
    /// says (a copy restored from another directory's backup names that one's). A copy being
    /// restored (`recovery.signal`) is waited for until it has replayed the archived WAL and
    /// promoted itself: before that it is read-only and holds only part of the ledger.
    fn start_managed(&mut self) -> Result<(), LedgerError> {
        let socket = self.socket_dir().display().to_string();
        // Unix socket only, whatever postgresql.conf says (one made by `initdb` for `pg_upgrade`
        // would listen on localhost).
        let options = format!(
            "{DURABLE_SERVER_OPTIONS} -c listen_addresses= -k {}",
            shell_quoted(&socket)
        );
        let recovery_signal = self.data_dir().join("recovery.signal");
        if !recovery_signal.exists() {
            return self.start_waiting(&options, START_WAIT_SECONDS);
        }
        tracing::info!(
            cluster = %self.root.display(),
            "a restored copy: waiting while PostgreSQL replays the archived WAL"
        );
        self.start_waiting(&options, RECOVERY_WAIT_SECONDS)?;
        let mut reported = Instant::now();
        while recovery_signal.exists() {
            if !self.is_running() {
                return Err(cluster_err(format!(
                    "PostgreSQL stopped while restoring the copy under {}: see {}",
                    self.root.display(),
                    self.log_file().display()
                )));
            }
            if reported.elapsed() >= Duration::from_secs(30) {
                tracing::info!(cluster = %self.root.display(), "still replaying the archived WAL");
                reported = Instant::now();
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        // Promoted: it takes writes once the end-of-recovery checkpoint is done.
        let deadline = Instant::now() + Duration::from_secs(START_WAIT_SECONDS);
        loop {
            let promoted = super::connection::connect(&self.url("postgres"))
                .and_then(|mut c| super::reads::takes_writes(&mut c))
                .unwrap_or(false);
            if promoted {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(cluster_err(format!(
                    "the restored copy under {} did not take writes after its recovery: see {}",
                    self.root.display(),
                    self.log_file().display()
                )));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The owner lock, unless another live process holds it.
    fn try_owner_lock(&self) -> Result<Option<fs::File>, LedgerError> {
        let path = self.root.join("owner.lock");
        let file = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| LedgerError::io(format!("opening {}", path.display()), e))?;
        match file.try_lock() {
            Ok(()) => Ok(Some(file)),
            Err(fs::TryLockError::WouldBlock) => Ok(None),
            Err(fs::TryLockError::Error(e)) => {
                Err(LedgerError::io(format!("locking {}", path.display()), e))
            }
        }
    }

    /// A throwaway cluster in a temporary directory with fsync off. It is stopped and removed
    /// when dropped, or by a watchdog when this process exits without dropping it.
    pub fn temporary() -> Result<LocalCluster, LedgerError> {
        LocalCluster::temporary_reading(false)
    }

    /// A throwaway cluster that reads `conf.d/` after its postgresql.conf, as the managed one
    /// and Debian's do: what the backup drill runs an external PostgreSQL as.
    pub fn temporary_with_conf_d() -> Result<LocalCluster, LedgerError> {
        LocalCluster::temporary_reading(true)
    }

    /// [`LocalCluster::temporary`], reading `conf.d/` too with `conf_d`.
    fn temporary_reading(conf_d: bool) -> Result<LocalCluster, LedgerError> {
        let temp = tempfile::Builder::new()
            .prefix("dozor-pg-")
            .tempdir()
            .map_err(|e| LedgerError::io("creating a temporary directory", e))?;
        let mut cluster = LocalCluster::prepare(temp.path().to_path_buf(), Some(temp))?;
        cluster.init(true)?;
        if conf_d {
            cluster.include_conf_d()?;
        }
        cluster.start_with("")?;
        cluster.spawn_watchdog()?;
        Ok(cluster)
    }

    /// Restarts the server (settings such as `archive_mode` change only so).
    pub fn restart(&self) -> Result<(), LedgerError> {
        // Its output to the log, as at the start (a pipe left open would hold the caller).
        let log = self.log_file().display().to_string();
        self.pg_ctl(&["restart", "-w", "-t", "60", "-m", "fast", "-l", &log])
    }

    /// Where PostgreSQL's programs are (`initdb`, `pg_ctl`, `pg_verifybackup`).
    pub fn bin_dir(&self) -> &Path {
        &self.bin_dir
    }

    /// The directory of the cluster's Unix socket.
    pub fn socket_directory(&self) -> PathBuf {
        self.socket_dir()
    }

    /// The cluster's data directory.
    pub fn data_directory(&self) -> PathBuf {
        self.data_dir()
    }

    pub(super) fn prepare(
        root: PathBuf,
        temp: Option<tempfile::TempDir>,
    ) -> Result<LocalCluster, LedgerError> {
        let bin_dir = bin_dir_for(&root.join("data"))?;
        let run_as = if running_as_root() {
            Some(postgres_account()?)
        } else {
            None
        };
        fs::create_dir_all(&root)
            .map_err(|e| LedgerError::io(format!("creating {}", root.display()), e))?;
        let root = root
            .canonicalize()
            .map_err(|e| LedgerError::io(format!("resolving {}", root.display()), e))?;
        let cluster = LocalCluster {
            root,
            bin_dir,
            run_as,
            started_here: false,
            owner_lock: None,
            tcp_port: None,
            _temp: temp,
        };
        let socket_dir = cluster.socket_dir();
        fs::create_dir_all(&socket_dir)
            .map_err(|e| LedgerError::io("creating the socket directory", e))?;
        if let Some(account) = &cluster.run_as {
            for dir in [cluster.root.as_path(), socket_dir.as_path()] {
                std::os::unix::fs::chown(dir, Some(account.uid), Some(account.gid)).map_err(
                    |e| LedgerError::io(format!("handing {} to postgres", dir.display()), e),
                )?;
            }
        }
        // Private, also when an earlier version left it open to every local user.
        fs::set_permissions(&socket_dir, fs::Permissions::from_mode(0o700))
            .map_err(|e| LedgerError::io("making the socket directory private", e))?;
        Ok(cluster)
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub(super) fn data_dir(&self) -> PathBuf {
        self.root.join("data")
    }

    pub(super) fn socket_dir(&self) -> PathBuf {
        self.root.join("socket")
    }

    fn log_file(&self) -> PathBuf {
        self.root.join("postgres.log")
    }

    pub(super) fn command(&self, program: &str) -> Command {
        let binary = self.bin_dir.join(program);
        let mut command = match &self.run_as {
            Some(account) => {
                let mut c = Command::new("runuser");
                c.args(["-u", &account.name, "--"]).arg(&binary);
                c
            }
            None => Command::new(&binary),
        };
        command.stdin(Stdio::null());
        command
    }

    /// Runs a system tool (not PostgreSQL's) as the user PostgreSQL runs as.
    pub(super) fn run_tool(&self, program: &str, args: &[&OsStr]) -> Result<(), LedgerError> {
        let mut command = match &self.run_as {
            Some(account) => {
                let mut c = Command::new("runuser");
                c.args(["-u", &account.name, "--", program]);
                c
            }
            None => Command::new(program),
        };
        command.stdin(Stdio::null());
        run_to_success(command, program, args)
    }

    /// Hands a file dozor wrote to the user PostgreSQL runs as.
    pub(super) fn chown_to_postgres(&self, path: &Path) -> Result<(), LedgerError> {
        match &self.run_as {
            Some(account) => std::os::unix::fs::chown(path, Some(account.uid), Some(account.gid))
                .map_err(|e| LedgerError::io(format!("handing {} to postgres", path.display()), e)),
            None => Ok(()),
        }
    }

    pub(super) fn run(&self, program: &str, args: &[&OsStr]) -> Result<(), LedgerError> {
        run_to_success(self.command(program), program, args)
    }

    fn init(&mut self, throwaway: bool) -> Result<(), LedgerError> {
        let settings = if throwaway {
            "fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n"
        } else {
            ""
        };
        self.init_with(throwaway, settings)
    }

    /// `initdb`, then dozor's settings and `settings` appended to postgresql.conf.
    pub(super) fn init_with(&mut self, no_sync: bool, settings: &str) -> Result<(), LedgerError> {
        let data = self.data_dir();
        let mut args: Vec<&OsStr> = vec![
            OsStr::new("-D"),
            data.as_os_str(),
            OsStr::new("-U"),
            OsStr::new(SUPERUSER),
            OsStr::new("--auth=trust"),
            OsStr::new("--encoding=UTF8"),
            OsStr::new("--no-locale"),
        ];
        if no_sync {
            args.push(OsStr::new("--no-sync"));
        }
        self.run("initdb", &args)?;
        let mut text = format!(
            "\n# dozor: Unix socket only, inside the cluster directory\n\
             listen_addresses = ''\n\
             unix_socket_directories = '{}'\n\
             port = {SOCKET_PORT}\n\
             max_connections = 200\n",
            self.socket_dir().display()
        );
        text.push_str(settings);
        self.append_settings(&text)
    }

    /// Appends `text` to postgresql.conf (later lines win).
    pub(super) fn append_settings(&self, text: &str) -> Result<(), LedgerError> {
        let conf = self.data_dir().join("postgresql.conf");
        let mut conf_text =
            fs::read_to_string(&conf).map_err(|e| LedgerError::io("reading postgresql.conf", e))?;
        conf_text.push_str(text);
        fs::write(&conf, conf_text).map_err(|e| LedgerError::io("writing postgresql.conf", e))?;
        Ok(())
    }

    fn is_running(&self) -> bool {
        let data = self.data_dir();
        self.command("pg_ctl")
            .args([OsStr::new("status"), OsStr::new("-D"), data.as_os_str()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .map(|s| s.success())
            .unwrap_or(false)
    }

    /// Starts the server with `options` (`postgres` command-line settings) unless it runs.
    pub(super) fn start_with(&mut self, options: &str) -> Result<(), LedgerError> {
        self.start_waiting(options, START_WAIT_SECONDS)
    }

    /// [`LocalCluster::start_with`], waiting up to `seconds` for it to accept connections.
    fn start_waiting(&mut self, options: &str, seconds: u64) -> Result<(), LedgerError> {
        if self.is_running() {
            return Ok(());
        }
        let (data, log) = (self.data_dir(), self.log_file());
        let seconds = seconds.to_string();
        self.run(
            "pg_ctl",
            &[
                OsStr::new("start"),
                OsStr::new("-o"),
                OsStr::new(options),
                OsStr::new("-w"),
                OsStr::new("-t"),
                OsStr::new(&seconds),
                OsStr::new("-D"),
                data.as_os_str(),
                OsStr::new("-l"),
                log.as_os_str(),
            ],
        )?;
        self.started_here = true;
        Ok(())
    }

    /// Whether this process started the cluster (and so stops it).
    pub(super) fn forget_started(&mut self) {
        self.started_here = false;
    }

    /// Stops the cluster if this process started it.
    pub fn stop(&mut self) -> Result<(), LedgerError> {
        if !self.started_here {
            return Ok(());
        }
        self.pg_ctl_stop()?;
        self.started_here = false;
        // Only now may another process take the cluster over.
        self.owner_lock = None;
        Ok(())
    }

    fn pg_ctl_stop(&self) -> Result<(), LedgerError> {
        self.pg_ctl(&["stop", "-w", "-m", "fast"])
    }

    /// Runs `pg_ctl` with `args` on this cluster's data directory (`-D`, last).
    pub(super) fn pg_ctl(&self, args: &[&str]) -> Result<(), LedgerError> {
        let data = self.data_dir();
        let mut all: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
        all.extend([OsStr::new("-D"), data.as_os_str()]);
        self.run("pg_ctl", &all)
    }

    /// Stops and removes a throwaway cluster once this process is gone, even if it never
    /// drops the cluster (test binaries keep one in a static).
    pub(super) fn spawn_watchdog(&self) -> Result<(), LedgerError> {
        let script = r#"while kill -0 "$1" 2>/dev/null; do sleep 0.5; done
if [ -n "$5" ]; then runuser -u "$5" -- "$2" stop -m immediate -D "$3"; else "$2" stop -m immediate -D "$3"; fi
rm -rf "$4""#;
        let pg_ctl = self.bin_dir.join("pg_ctl");
        let account = self
            .run_as
            .as_ref()
            .map(|a| a.name.clone())
            .unwrap_or_default();
        Command::new("sh")
            .arg("-c")
            .arg(script)
            .arg("dozor-pg-watchdog")
            .arg(std::process::id().to_string())
            .arg(&pg_ctl)
            .arg(self.data_dir())
            .arg(&self.root)
            .arg(account)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| LedgerError::io("starting the cluster watchdog", e))?;
        Ok(())
    }

    /// A libpq URL for `database` over the cluster's Unix socket, as the superuser.
    pub fn url(&self, database: &str) -> String {
        self.url_as(SUPERUSER, database)
    }

    fn url_as(&self, role: &str, database: &str) -> String {
        // A cluster on loopback TCP has its socket under the same port number.
        format!(
            "postgres://{role}@/{database}?host={}&port={}",
            self.socket_dir().display(),
            self.tcp_port.unwrap_or(SOCKET_PORT)
        )
    }

    /// Makes the server's login role ([`SERVER_ROLE`], a member of `dozor_writer` only) unless
    /// it exists, and returns its URL for `database`. Needs the migrations (they make
    /// `dozor_writer`). No password: only the socket directory's owner (and root) can connect.
    pub fn create_server_role(&self, database: &str) -> Result<String, LedgerError> {
        let mut conn = super::connection::connect(&self.url(database))?;
        match diesel::sql_query(format!("CREATE ROLE {SERVER_ROLE} LOGIN")).execute(&mut conn) {
            Ok(_) => {}
            // Roles are cluster-wide: made by an earlier start, another database's, or (unique
            // violation) a concurrent one.
            Err(diesel::result::Error::DatabaseError(kind, info))
                if info.message().contains("already exists")
                    || matches!(kind, DatabaseErrorKind::UniqueViolation) => {}
            Err(e) => return Err(e.into()),
        }
        // Whatever an earlier start or a hand left, the role gets no more than logging in...
        diesel::sql_query(format!(
            "ALTER ROLE {SERVER_ROLE} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION \
             NOBYPASSRLS INHERIT"
        ))
        .execute(&mut conn)?;
        // ...and the writer's privileges (a no-op when it has them already).
        diesel::sql_query(format!("GRANT {WRITER_ROLE} TO {SERVER_ROLE}")).execute(&mut conn)?;
        // A membership granted by hand would give the server more than the writer's privileges.
        let others: Vec<RoleName> = diesel::sql_query(
            "SELECT g.rolname::text AS rolname FROM pg_auth_members m \
             JOIN pg_roles g ON g.oid = m.roleid JOIN pg_roles r ON r.oid = m.member \
             WHERE r.rolname = $1 AND g.rolname <> $2 ORDER BY 1",
        )
        .bind::<diesel::sql_types::Text, _>(SERVER_ROLE)
        .bind::<diesel::sql_types::Text, _>(WRITER_ROLE)
        .load(&mut conn)?;
        if !others.is_empty() {
            let names: Vec<&str> = others.iter().map(|r| r.rolname.as_str()).collect();
            return Err(cluster_err(format!(
                "role {SERVER_ROLE} must be a member of {WRITER_ROLE} only, but is also a member of {}",
                names.join(", ")
            )));
        }
        Ok(self.url_as(SERVER_ROLE, database))
    }

    /// Creates `database` unless it exists (so a read-only copy, still recovering, that has
    /// it is not asked to create it).
    pub fn create_database(&self, database: &str) -> Result<(), LedgerError> {
        let mut conn = self.connect_to_manage(database)?;
        let found: Found = diesel::sql_query(
            "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1) AS found",
        )
        .bind::<diesel::sql_types::Text, _>(database)
        .get_result(&mut conn)?;
        if found.found {
            return Ok(());
        }
        match diesel::sql_query(format!("CREATE DATABASE \"{database}\"")).execute(&mut conn) {
            Ok(_) => {}
            Err(diesel::result::Error::DatabaseError(_, info))
                if info.message().contains("already exists") => {}
            Err(e) => return Err(e.into()),
        }
        Ok(())
    }
}

impl LocalCluster {
    /// Drops `database` if it exists (benchmarks start from an empty database).
    pub fn drop_database(&self, database: &str) -> Result<(), LedgerError> {
        let mut conn = self.connect_to_manage(database)?;
        diesel::sql_query(format!(
            "DROP DATABASE IF EXISTS \"{database}\" WITH (FORCE)"
        ))
        .execute(&mut conn)?;
        Ok(())
    }

    /// A connection to the `postgres` database, to create or drop `database` (refused unless
    /// its name is safe to quote into SQL).
    fn connect_to_manage(&self, database: &str) -> Result<PgConnection, LedgerError> {
        if !database
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_')
        {
            return Err(cluster_err(format!("unsafe database name `{database}`")));
        }
        super::connection::connect(&self.url("postgres"))
    }
}

impl Drop for LocalCluster {
    fn drop(&mut self) {
        if self._temp.is_some() {
            let _ = self.stop();
        }
    }
}
