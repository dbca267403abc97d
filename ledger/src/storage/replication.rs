//! A primary with a synchronous streaming standby, from the PostgreSQL binaries on the machine,
//! on loopback TCP: what the failover drill runs dozor on (deploy/ sets up the same for
//! production, on two machines).
//!
//! The primary commits only once the standby has flushed the commit's WAL
//! (`synchronous_standby_names`, `synchronous_commit = on`), so every receipt dozor gives is on
//! both. The standby is a hot standby that waits to be promoted; once promoted it is a primary
//! without a synchronous standby of its own (it would otherwise wait forever for one).

use std::ffi::OsStr;
use std::time::{Duration, Instant};

use diesel::prelude::*;

use super::cluster::LocalCluster;
use crate::error::LedgerError;

/// The superuser the drill's clusters are made with.
const SUPERUSER: &str = "postgres";

fn cluster_err(message: impl Into<String>) -> LedgerError {
    LedgerError::Cluster(message.into())
}

/// A free loopback TCP port (free when asked; the cluster takes it at once).
fn free_port() -> Result<u16, LedgerError> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")
        .map_err(|e| LedgerError::io("finding a free loopback port", e))?;
    listener
        .local_addr()
        .map(|a| a.port())
        .map_err(|e| LedgerError::io("finding a free loopback port", e))
}

/// A name written into PostgreSQL's configuration: letters, digits and `_` only.
fn check_name(what: &str, name: &str) -> Result<(), LedgerError> {
    if !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return Err(cluster_err(format!("unsafe {what} name `{name}`")));
    }
    Ok(())
}

impl LocalCluster {
    /// A throwaway primary on loopback TCP that commits only once the standby named
    /// `standby` has the WAL: until that standby runs, every write waits (make it first, with
    /// [`LocalCluster::temporary_standby_of`]). Removed when dropped, or by its watchdog.
    pub fn temporary_primary(standby: &str) -> Result<LocalCluster, LedgerError> {
        check_name("standby", standby)?;
        // Synchronous commit stays on: it is what makes the standby hold every receipt.
        Self::temporary_on_loopback(&format!(
            "max_wal_senders = 4\n\
             max_slot_wal_keep_size = '4GB'\n\
             synchronous_commit = on\n\
             synchronous_standby_names = 'FIRST 1 ({standby})'\n"
        ))
    }

    /// A throwaway hot standby of `primary` (a [`LocalCluster::temporary_primary`]) under the
    /// name the primary waits for, streaming from it; returns once the primary counts it as
    /// its synchronous standby.
    pub fn temporary_standby_of(
        primary: &LocalCluster,
        name: &str,
    ) -> Result<LocalCluster, LedgerError> {
        check_name("standby", name)?;
        let primary_port = primary
            .tcp_port
            .ok_or_else(|| cluster_err("the primary does not listen on loopback TCP"))?;
        let mut cluster = Self::temporary_unstarted()?;
        let data = cluster.data_dir();
        cluster.pg_basebackup(
            primary_port,
            &data,
            &[
                // standby.signal and primary_conninfo.
                OsStr::new("-R"),
                // A replication slot of the standby's name: the primary keeps the WAL the
                // standby has not received, so a standby that was stopped catches up.
                OsStr::new("--create-slot"),
                OsStr::new("--slot"),
                OsStr::new(name),
            ],
        )?;
        let port = free_port()?;
        // The copied postgresql.conf is the primary's: its own socket, port and name (the
        // name is what the primary's synchronous_standby_names waits for), and no synchronous
        // standby of its own once promoted. A standby whose primary is gone retries it every
        // second rather than every five, and notices its promotion as soon.
        cluster.append_settings(&format!(
            "\n# the standby's own\n\
             unix_socket_directories = '{}'\n\
             port = {port}\n\
             cluster_name = '{name}'\n\
             hot_standby = on\n\
             wal_retrieve_retry_interval = '1s'\n\
             synchronous_standby_names = ''\n",
            cluster.socket_dir().display()
        ))?;
        cluster.tcp_port = Some(port);
        cluster.start_with("")?;
        cluster.spawn_watchdog()?;
        primary.wait_for_synchronous_standby(name, Duration::from_secs(60))?;
        Ok(cluster)
    }

    /// A throwaway cluster on loopback TCP that archives every finished WAL segment into
    /// `archive` (a directory PostgreSQL's user can write), as deploy/postgres/primary.conf
    /// configures production: with base backups, what a point-in-time restore needs.
    pub fn temporary_archiving(archive: &std::path::Path) -> Result<LocalCluster, LedgerError> {
        Self::temporary_on_loopback(&format!(
            "archive_mode = on\n\
             archive_command = 'test ! -f {archive}/%f && cp %p {archive}/%f'\n",
            archive = archive.display()
        ))
    }

    /// A throwaway cluster listening on a free loopback port, with WAL for replication and
    /// `settings`; started, and removed when dropped or by its watchdog. fsync and full-page
    /// writes are off: the drills kill processes, not the machine, and the kernel keeps what a
    /// killed process wrote.
    fn temporary_on_loopback(settings: &str) -> Result<LocalCluster, LedgerError> {
        let mut cluster = Self::temporary_unstarted()?;
        let port = free_port()?;
        cluster.init_with(
            true,
            &format!(
                "listen_addresses = '127.0.0.1'\n\
                 port = {port}\n\
                 fsync = off\n\
                 full_page_writes = off\n\
                 wal_level = replica\n\
                 {settings}"
            ),
        )?;
        cluster.tcp_port = Some(port);
        cluster.start_with("")?;
        cluster.spawn_watchdog()?;
        Ok(cluster)
    }

    /// A base backup of this cluster into `dir` (plain format, with the WAL that makes it
    /// consistent), as `pg_basebackup` takes one of production.
    pub fn base_backup(&self, dir: &std::path::Path) -> Result<(), LedgerError> {
        let port = self
            .tcp_port
            .ok_or_else(|| cluster_err("this cluster does not listen on loopback TCP"))?;
        self.pg_basebackup(port, dir, &[])
    }

    /// `pg_basebackup` of the cluster on loopback `port` into `dir`, with the WAL that makes
    /// the copy consistent, and `extra` arguments.
    fn pg_basebackup(
        &self,
        port: u16,
        dir: &std::path::Path,
        extra: &[&OsStr],
    ) -> Result<(), LedgerError> {
        let port = port.to_string();
        let mut args = vec![
            OsStr::new("-h"),
            OsStr::new("127.0.0.1"),
            OsStr::new("-p"),
            OsStr::new(&port),
            OsStr::new("-U"),
            OsStr::new(SUPERUSER),
            OsStr::new("-D"),
            dir.as_os_str(),
            OsStr::new("-X"),
            OsStr::new("stream"),
            OsStr::new("-c"),
            OsStr::new("fast"),
        ];
        args.extend_from_slice(extra);
        self.run("pg_basebackup", &args)
    }

    /// Makes the current WAL segment finished, so that it is archived.
    pub fn switch_wal(&self) -> Result<(), LedgerError> {
        let mut conn = super::connection::connect(&self.url("postgres"))?;
        diesel::sql_query("SELECT pg_switch_wal()").execute(&mut conn)?;
        Ok(())
    }

    /// A throwaway cluster restored from the base backup in `backup` and the WAL in `archive`
    /// up to `target_time` (PostgreSQL's `recovery_target_time`, a timestamp with time zone;
    /// `None`: everything archived), then promoted: a restore to a point in time.
    pub fn temporary_restored(
        backup: &std::path::Path,
        archive: &std::path::Path,
        target_time: Option<&str>,
    ) -> Result<LocalCluster, LedgerError> {
        let mut cluster = Self::temporary_unstarted()?;
        let data = cluster.data_dir();
        // A copy made by PostgreSQL's user (who owns what it runs on), keeping the backup.
        cluster.run_tool(
            "cp",
            &[OsStr::new("-a"), backup.as_os_str(), data.as_os_str()],
        )?;
        let port = free_port()?;
        let mut settings = format!(
            "\n# restored\n\
             unix_socket_directories = '{}'\n\
             port = {port}\n\
             archive_mode = off\n\
             restore_command = 'cp {}/%f %p'\n\
             recovery_target_action = 'promote'\n",
            cluster.socket_dir().display(),
            archive.display()
        );
        if let Some(target) = target_time {
            if target.contains('\'') {
                return Err(cluster_err("a recovery target time holds no quote"));
            }
            settings.push_str(&format!("recovery_target_time = '{target}'\n"));
        }
        cluster.append_settings(&settings)?;
        std::fs::write(data.join("recovery.signal"), "")
            .map_err(|e| LedgerError::io("writing recovery.signal", e))?;
        cluster.chown_to_postgres(&data.join("recovery.signal"))?;
        cluster.tcp_port = Some(port);
        cluster.start_with("")?;
        cluster.spawn_watchdog()?;
        // Recovery replays the archive, then promotes: wait until it takes writes.
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let promoted = super::connection::connect(&cluster.url("postgres"))
                .and_then(|mut c| super::reads::takes_writes(&mut c))
                .unwrap_or(false);
            if promoted {
                return Ok(cluster);
            }
            if Instant::now() >= deadline {
                return Err(cluster_err("the restored cluster did not finish recovery"));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// A temporary directory prepared for a cluster not yet made.
    fn temporary_unstarted() -> Result<LocalCluster, LedgerError> {
        let temp = tempfile::Builder::new()
            .prefix("dozor-pg-")
            .tempdir()
            .map_err(|e| LedgerError::io("creating a temporary directory", e))?;
        LocalCluster::prepare(temp.path().to_path_buf(), Some(temp))
    }

    /// A libpq URL for `database` on loopback TCP as `role` (no password: trust on loopback,
    /// as initdb set it up for this throwaway cluster).
    pub fn tcp_url(&self, role: &str, database: &str) -> Result<String, LedgerError> {
        let port = self
            .tcp_port
            .ok_or_else(|| cluster_err("this cluster does not listen on loopback TCP"))?;
        Ok(format!("postgres://{role}@127.0.0.1:{port}/{database}"))
    }

    /// The loopback port, for clusters that listen on one.
    pub fn tcp_port(&self) -> Option<u16> {
        self.tcp_port
    }

    /// Waits until the primary streams to `name` synchronously.
    fn wait_for_synchronous_standby(&self, name: &str, wait: Duration) -> Result<(), LedgerError> {
        #[derive(QueryableByName)]
        struct Count {
            #[diesel(sql_type = diesel::sql_types::BigInt)]
            n: i64,
        }
        let deadline = Instant::now() + wait;
        loop {
            let mut conn = super::connection::connect(&self.url("postgres"))?;
            let found: Count = diesel::sql_query(
                "SELECT count(*) AS n FROM pg_stat_replication \
                 WHERE application_name = $1 AND sync_state = 'sync' AND state = 'streaming'",
            )
            .bind::<diesel::sql_types::Text, _>(name)
            .get_result(&mut conn)?;
            if found.n > 0 {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(cluster_err(format!(
                    "the standby `{name}` did not become synchronous within {wait:?}"
                )));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The postmaster's process id, while it runs.
    pub fn postmaster_pid(&self) -> Option<u32> {
        let text = std::fs::read_to_string(self.data_dir().join("postmaster.pid")).ok()?;
        text.lines().next()?.trim().parse().ok()
    }

    /// Kills the postmaster with SIGKILL, as a crashed machine stops it, and waits until its
    /// loopback port no longer answers (its backends notice their postmaster is gone and exit).
    pub fn kill_postmaster(&mut self) -> Result<(), LedgerError> {
        let pid = self
            .postmaster_pid()
            .ok_or_else(|| cluster_err("no postmaster runs"))?;
        let status = std::process::Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status()
            .map_err(|e| LedgerError::io("running kill", e))?;
        if !status.success() {
            return Err(cluster_err(format!("kill -KILL {pid} failed")));
        }
        self.forget_started();
        let deadline = Instant::now() + Duration::from_secs(30);
        while self.is_accepting() {
            if Instant::now() >= deadline {
                return Err(cluster_err("the killed cluster still accepts connections"));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(())
    }

    fn is_accepting(&self) -> bool {
        self.tcp_port.is_some_and(|port| {
            std::net::TcpStream::connect_timeout(
                &std::net::SocketAddr::from(([127, 0, 0, 1], port)),
                Duration::from_millis(200),
            )
            .is_ok()
        })
    }

    /// Promotes a standby to primary (`pg_ctl promote`), waiting until it takes writes.
    pub fn promote(&self) -> Result<(), LedgerError> {
        self.pg_ctl(&["promote", "-w", "-t", "60"])
    }
}

/// A libpq URL naming several servers: libpq tries them in order and keeps the first that
/// takes writes (`target_session_attrs=read-write`), so after a failover new connections reach
/// the promoted standby without a change of configuration.
pub fn multi_host_url(role: &str, ports: &[u16], database: &str) -> String {
    let hosts: Vec<String> = ports.iter().map(|p| format!("127.0.0.1:{p}")).collect();
    format!(
        "postgres://{role}@{}/{database}?target_session_attrs=read-write",
        hosts.join(",")
    )
}
