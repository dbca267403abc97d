//! Debian's nginx serving publish folders as static files, as a casino serves its tlog-tiles:
//! run in the foreground as one process on a free loopback port with a configuration of its own
//! (nothing under /etc or /var touched), killed when dropped.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context as _};

const NGINX: &str = "/usr/sbin/nginx";

pub(super) struct Nginx {
    child: Child,
    /// Its configuration, logs and temporary files.
    dir: tempfile::TempDir,
    port: u16,
}

/// The locations serving the folder `folder` at `/<prefix>/`, with the headers c2sp.org/tlog-tiles
/// asks for (the checkpoint not cached, tiles immutable); bundles and verdicts compressed on the
/// fly when `gzip` (the server's choice: the files are published uncompressed).
fn locations(folder: &Path, prefix: &str, gzip: bool) -> String {
    let gzip = if gzip { "on" } else { "off" };
    let at = |path: &str| folder.join(path).display().to_string();
    format!(
        r#"
        location = /{prefix}/checkpoint {{
            alias {checkpoint};
            default_type text/plain;
            charset utf-8;
            add_header Cache-Control "no-cache, max-age=0" always;
        }}
        location /{prefix}/tile/entries/ {{
            alias {entries}/;
            gzip {gzip};
            gzip_types application/octet-stream;
            gzip_min_length 0;
            add_header Cache-Control "public, max-age=31536000, immutable";
        }}
        location /{prefix}/tile/ {{
            alias {tiles}/;
            add_header Cache-Control "public, max-age=31536000, immutable";
        }}
        location /{prefix}/verdicts/ {{
            alias {verdicts}/;
            default_type application/x-ndjson;
            gzip {gzip};
            gzip_types application/x-ndjson;
            gzip_min_length 0;
            add_header Cache-Control "public, max-age=31536000, immutable";
        }}
        location /{prefix}/ {{
            alias {root}/;
            default_type text/plain;
        }}
"#,
        checkpoint = at("checkpoint"),
        entries = at("tile/entries"),
        tiles = at("tile"),
        verdicts = at("verdicts"),
        root = folder.display(),
        gzip = gzip,
    )
}

impl Nginx {
    /// nginx serving each folder at `http://127.0.0.1:<port>/<prefix>/`, one worker process;
    /// bundles and verdicts compressed on the fly when `gzip`.
    pub fn serve(logs: &[(PathBuf, String)], gzip: bool) -> anyhow::Result<Nginx> {
        anyhow::ensure!(
            Path::new(NGINX).exists(),
            "{NGINX} is missing: this benchmark serves the tiles with Debian's nginx (apt-get install nginx)"
        );
        let dir = tempfile::tempdir()?;
        let port = std::net::TcpListener::bind("127.0.0.1:0")?
            .local_addr()?
            .port();
        let mut served = String::new();
        for (folder, prefix) in logs {
            let folder = folder
                .canonicalize()
                .with_context(|| format!("{}", folder.display()))?;
            served.push_str(&locations(&folder, prefix, gzip));
        }
        let scratch = dir.path().display().to_string();
        let config = format!(
            r#"daemon off;
master_process off;
worker_processes 1;
pid {scratch}/nginx.pid;
error_log {scratch}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    client_body_temp_path {scratch}/body;
    proxy_temp_path {scratch}/proxy;
    fastcgi_temp_path {scratch}/fastcgi;
    uwsgi_temp_path {scratch}/uwsgi;
    scgi_temp_path {scratch}/scgi;
    types {{ }}
    default_type application/octet-stream;
    keepalive_requests 100000;
    server {{
        listen 127.0.0.1:{port};
{served}
    }}
}}
"#
        );
        let conf = dir.path().join("nginx.conf");
        std::fs::write(&conf, config)?;
        let child = Command::new(NGINX)
            .arg("-p")
            .arg(dir.path())
            .arg("-e")
            .arg(dir.path().join("error.log"))
            .arg("-c")
            .arg(&conf)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(dir.path().join("stderr.log"))?)
            .spawn()
            .context("starting nginx")?;
        let mut nginx = Nginx { child, dir, port };
        nginx.wait_until_listening()?;
        Ok(nginx)
    }

    /// `http://127.0.0.1:<port>/<prefix>/`.
    pub fn url_of(&self, prefix: &str) -> String {
        format!("http://127.0.0.1:{}/{prefix}/", self.port)
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    fn wait_until_listening(&mut self) -> anyhow::Result<()> {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(status) = self.child.try_wait()? {
                let log: String = ["stderr.log", "error.log"]
                    .iter()
                    .map(|f| std::fs::read_to_string(self.dir.path().join(f)).unwrap_or_default())
                    .collect();
                return Err(anyhow!("nginx exited ({status}): {}", log.trim()));
            }
            if std::net::TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
                return Ok(());
            }
            anyhow::ensure!(
                Instant::now() < deadline,
                "nginx does not listen on {} after 20 s",
                self.port
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
