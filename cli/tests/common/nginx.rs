//! Debian's nginx serving a folder as static files, as an operator publishes a tlog-tiles log:
//! installed on first use when the machine lacks it (as root, with apt-get), run in the
//! foreground as one process on a free loopback port with a configuration of its own (no system
//! service, nothing under /etc or /var touched), killed when dropped.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use super::poll::poll_until;

const NGINX: &str = "/usr/sbin/nginx";

/// nginx's path, installing Debian's package when it is missing.
pub fn nginx_binary() -> PathBuf {
    super::debian::program(NGINX, "nginx", "nginx")
}

/// A running nginx serving folders, each under a URL prefix.
pub struct Nginx {
    child: Child,
    /// Its configuration, logs and temporary files.
    dir: tempfile::TempDir,
    pub port: u16,
    /// `http://127.0.0.1:<port>/<prefix>/` of the first folder.
    pub url: String,
}

/// The locations serving the tlog-tiles folder `folder` at `/<prefix>/`.
fn log_locations(folder: &Path, prefix: &str) -> String {
    let folder = folder.canonicalize().unwrap();
    let at = |path: &str| folder.join(path).display().to_string();
    format!(
        r#"
        location = /{prefix}/checkpoint {{
            alias {checkpoint};
            default_type text/plain;
            charset utf-8;
            add_header Cache-Control "no-cache, max-age=0" always;
        }}
        location = /{prefix}/minimum-index {{
            alias {minimum};
            default_type text/plain;
            charset utf-8;
            add_header Cache-Control "no-cache, max-age=0" always;
        }}
        location /{prefix}/tile/entries/ {{
            alias {entries}/;
            gzip on;
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
            gzip on;
            gzip_types application/x-ndjson;
            gzip_min_length 0;
            add_header Cache-Control "public, max-age=31536000, immutable";
        }}
        location /{prefix}/ {{
            alias {root}/;
        }}
"#,
        checkpoint = at("checkpoint"),
        minimum = at("minimum-index"),
        entries = at("tile/entries"),
        tiles = at("tile"),
        verdicts = at("verdicts"),
        root = folder.display(),
    )
}

impl Nginx {
    /// nginx serving `folder` (a tlog-tiles publish folder) at `http://127.0.0.1:<port>/<prefix>/`
    /// with the headers c2sp.org/tlog-tiles asks for: `checkpoint` as `text/plain;
    /// charset=utf-8` and not cached, tiles and bundles as `application/octet-stream` and
    /// immutable, bundles gzip-compressed; `verdicts/…` as JSON lines (`application/x-ndjson`,
    /// as the server's route gives them), `minimum-index` as text. Anything else as it is.
    pub fn serve_tiles(folder: &Path, prefix: &str) -> Nginx {
        Nginx::serve_logs(&[(folder, prefix)])
    }

    /// [`Nginx::serve_tiles`] of several folders (a casino's premises each, say) on one port;
    /// [`Nginx::url_of`] gives each one's URL.
    pub fn serve_logs(logs: &[(&Path, &str)]) -> Nginx {
        let dir = tempfile::tempdir().unwrap();
        let port = super::free_port();
        let locations: String = logs
            .iter()
            .map(|(folder, prefix)| log_locations(folder, prefix.trim_matches('/')))
            .collect();
        let scratch = dir.path().display().to_string();
        let config = format!(
            r#"daemon off;
master_process off;
worker_processes 1;
pid {scratch}/nginx.pid;
error_log {scratch}/error.log warn;
events {{ worker_connections 64; }}
http {{
    log_format files '$uri $status "$sent_http_content_type" $sent_http_content_encoding';
    access_log {scratch}/access.log files;
    client_body_temp_path {scratch}/body;
    proxy_temp_path {scratch}/proxy;
    fastcgi_temp_path {scratch}/fastcgi;
    uwsgi_temp_path {scratch}/uwsgi;
    scgi_temp_path {scratch}/scgi;
    types {{ }}
    default_type application/octet-stream;
    server {{
        listen 127.0.0.1:{port};
{locations}
    }}
}}
"#
        );
        std::fs::write(dir.path().join("nginx.conf"), config).unwrap();
        let child = spawn(dir.path());
        let first = logs
            .first()
            .map_or("", |(_, prefix)| prefix.trim_matches('/'));
        let mut nginx = Nginx {
            child,
            dir,
            port,
            url: format!("http://127.0.0.1:{port}/{first}/"),
        };
        nginx.wait_until_listening();
        nginx
    }

    /// `http://127.0.0.1:<port>/<prefix>/`.
    pub fn url_of(&self, prefix: &str) -> String {
        format!(
            "http://127.0.0.1:{}/{}/",
            self.port,
            prefix.trim_matches('/')
        )
    }

    /// Stops it: nothing answers on its port until [`Nginx::start`].
    pub fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Starts it again, with the same configuration on the same port.
    pub fn start(&mut self) {
        self.child = spawn(self.dir.path());
        self.wait_until_listening();
    }

    fn wait_until_listening(&mut self) {
        poll_until(Duration::from_secs(20), Duration::from_millis(50), || {
            if let Some(status) = self.child.try_wait().unwrap() {
                panic!("nginx exited ({status}):\n{}", self.log());
            }
            std::net::TcpStream::connect(("127.0.0.1", self.port))
                .map(drop)
                .map_err(|e| format!("nginx does not listen on {}: {e}", self.port))
        })
    }

    /// Its error log and what it wrote on standard error.
    pub fn log(&self) -> String {
        ["stderr.log", "error.log"]
            .iter()
            .map(|f| std::fs::read_to_string(self.dir.path().join(f)).unwrap_or_default())
            .collect()
    }

    /// The requests it answered (its access log), a line each: the path, the status, the
    /// content type in quotes and the content encoding (`-` for none), e.g.
    /// `/log/tile/entries/000 200 "application/octet-stream" gzip`.
    pub fn access_log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("access.log")).unwrap_or_default()
    }
}

/// nginx in the foreground on the configuration `dir/nginx.conf`.
fn spawn(dir: &Path) -> Child {
    Command::new(nginx_binary())
        .arg("-p")
        .arg(dir)
        .arg("-e")
        .arg(dir.join("error.log"))
        .arg("-c")
        .arg(dir.join("nginx.conf"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(dir.join("stderr.log")).unwrap())
        .spawn()
        .unwrap()
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
