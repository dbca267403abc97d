//! `dozor serve` as a process on a data directory of its own, with its own PostgreSQL
//! cluster, and a blocking HTTP client for it.

use std::os::unix::fs::PermissionsExt as _;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::poll::poll_until;
use super::Succeeds as _;

/// A data directory for `dozor serve`; stops a PostgreSQL left running in it when dropped.
pub struct Site {
    pub dir: tempfile::TempDir,
}

impl Site {
    pub fn new() -> Site {
        let dir = tempfile::tempdir().unwrap();
        // PostgreSQL (the `postgres` user when the tests run as root) must reach <dir>/pg.
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        Site { dir }
    }

    pub fn path(&self) -> PathBuf {
        self.dir.path().canonicalize().unwrap()
    }

    pub fn dozor(&self) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_dozor"));
        command
            .env_remove("DATABASE_URL")
            .env_remove("DOZOR_OWNER_DATABASE_URL")
            .env("DOZOR_DATA_DIR", self.path());
        command
    }

    pub fn serve(&self) -> Server {
        self.serve_with(&[])
    }

    /// `dozor serve` with these environment variables too.
    pub fn serve_with(&self, env: &[(&str, &str)]) -> Server {
        let port = super::free_port();
        let mut command = self.dozor();
        command
            .envs(env.iter().copied())
            .args(["serve", "--workers", "2", "--checkpoint-seconds", "1"])
            // These tests count ledger entries; the nightly job's seals would add to them.
            .args(["--nightly-at", "off"])
            .arg("--bind")
            .arg(format!("127.0.0.1:{port}"));
        self.start(command, port)
    }

    /// `dozor serve` exactly as a person starts it, with the data directory's configuration
    /// (which must listen on `port`) and nothing else.
    pub fn serve_as_configured(&self, port: u16) -> Server {
        let mut command = self.dozor();
        command.arg("serve");
        self.start(command, port)
    }

    /// Starts `command` (a `dozor serve`) logging to a file, and waits until it answers on
    /// `port`.
    fn start(&self, mut command: Command, port: u16) -> Server {
        let log_path = self.path().join(format!("serve-{port}.log"));
        let log = std::fs::File::create(&log_path).unwrap();
        let child = command
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap();
        let mut server = Server {
            child,
            log: log_path,
            http: Http::new(port),
        };
        server.wait_until_healthy();
        server
    }

    /// A new API key of `role`, from the command line (on the database directly): its token.
    pub fn apikey(&self, name: &str, role: &str) -> String {
        self.apikey_in(self.dozor(), name, role)
    }

    /// [`Site::apikey`] on the database at `database_url` instead of the site's own cluster.
    pub fn apikey_on(&self, database_url: &str, name: &str, role: &str) -> String {
        let mut dozor = self.dozor();
        dozor.env("DATABASE_URL", database_url);
        self.apikey_in(dozor, name, role)
    }

    fn apikey_in(&self, mut dozor: Command, name: &str, role: &str) -> String {
        let out = dozor
            .args(["apikey", "create", "--name", name, "--role", role])
            .succeeds();
        let created: Value = serde_json::from_slice(&out.stdout).unwrap();
        created["token"].as_str().unwrap().to_owned()
    }

    pub fn socket_dir(&self) -> PathBuf {
        self.path().join("pg/socket")
    }

    pub fn url_as(&self, role: &str) -> String {
        format!(
            "postgres://{role}@/dozor?host={}&port=5432",
            self.socket_dir().display()
        )
    }

    /// The postmaster's pid while one runs on this directory's cluster.
    pub fn postmaster(&self) -> Option<u32> {
        let text = std::fs::read_to_string(self.path().join("pg/data/postmaster.pid")).ok()?;
        let pid: u32 = text.lines().next()?.trim().parse().ok()?;
        alive(pid).then_some(pid)
    }
}

impl Drop for Site {
    fn drop(&mut self) {
        if let Some(pid) = self.postmaster() {
            // Immediate shutdown, so that a failed test leaves no PostgreSQL behind.
            let _ = Command::new("kill")
                .args(["-QUIT", &pid.to_string()])
                .status();
            let deadline = Instant::now() + Duration::from_secs(10);
            while alive(pid) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    }
}

/// A running `dozor serve`; killed when dropped.
pub struct Server {
    pub child: Child,
    pub log: PathBuf,
    pub http: Http,
}

impl Server {
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    pub fn wait_until_healthy(&mut self) {
        poll_until(Duration::from_secs(60), Duration::from_millis(100), || {
            if let Some(status) = self.child.try_wait().unwrap() {
                panic!("the server exited ({status}):\n{}", self.log());
            }
            let health = self.http.try_call("GET", "/health", None, None);
            match health.map(|r| r.0) {
                Some(200) => Ok(()),
                _ => Err(format!("no answer from the server:\n{}", self.log())),
            }
        })
    }

    pub fn kill_9(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }

    /// SIGTERM, as systemd stops it; the server's exit status.
    /// Stops the server with SIGTERM: it exits successfully.
    pub fn stop(self) {
        let status = self.terminate();
        assert!(status.success(), "{status}");
    }

    pub fn terminate(mut self) -> std::process::ExitStatus {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        poll_until(
            Duration::from_secs(30),
            Duration::from_millis(50),
            || match self.child.try_wait().unwrap() {
                Some(status) => Ok(status),
                None => Err(format!("the server did not stop:\n{}", self.log())),
            },
        )
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub struct Http {
    pub runtime: tokio::runtime::Runtime,
    pub client: reqwest::Client,
    pub base: String,
    pub port: u16,
}

impl Http {
    pub fn new(port: u16) -> Http {
        Http {
            runtime: tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap(),
            client: reqwest::Client::builder()
                .timeout(Duration::from_secs(30))
                .build()
                .unwrap(),
            base: format!("http://127.0.0.1:{port}"),
            port,
        }
    }

    /// Status and body; none when the server cannot be reached.
    pub fn try_call(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<&Value>,
    ) -> Option<(u16, String)> {
        let url = format!("{}{path}", self.base);
        let mut request = match method {
            "GET" => self.client.get(url),
            "POST" => self.client.post(url),
            other => panic!("no {other} requests here"),
        };
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        if let Some(body) = body {
            request = request.json(body);
        }
        self.runtime.block_on(async {
            let response = request.send().await.ok()?;
            let status = response.status().as_u16();
            Some((status, response.text().await.ok()?))
        })
    }

    /// Status, headers (lower-case names) and body of a GET.
    #[allow(dead_code)]
    pub fn get_with_headers(
        &self,
        path: &str,
        token: Option<&str>,
    ) -> (u16, std::collections::BTreeMap<String, String>, String) {
        let mut request = self.client.get(format!("{}{path}", self.base));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        self.runtime.block_on(async {
            let response = request.send().await.unwrap();
            let status = response.status().as_u16();
            let headers = response
                .headers()
                .iter()
                .map(|(k, v)| (k.as_str().to_owned(), v.to_str().unwrap_or("").to_owned()))
                .collect();
            (status, headers, response.text().await.unwrap())
        })
    }

    /// Status and body (null unless JSON).
    pub fn get(&self, path: &str, token: Option<&str>) -> (u16, Value) {
        let (status, text) = self.try_call("GET", path, token, None).unwrap();
        (status, serde_json::from_str(&text).unwrap_or(Value::Null))
    }

    /// Registers a table (`registration`, e.g. `common::registration`'s) with `token`: it is
    /// accepted.
    pub fn register_table(&self, token: Option<&str>, registration: &Value) {
        let (status, body) = self.post("/api/v1/tables", token, registration);
        assert_eq!(status, 201, "{body}");
    }

    pub fn post(&self, path: &str, token: Option<&str>, body: &Value) -> (u16, Value) {
        let (status, text) = self.try_call("POST", path, token, Some(body)).unwrap();
        (status, serde_json::from_str(&text).unwrap_or(Value::Null))
    }
}

impl Http {
    /// A request written byte for byte as given, over a socket of its own (no client library
    /// that might normalise the path): its status and body.
    pub fn raw(
        &self,
        method: &str,
        target: &str,
        token: Option<&str>,
        body: Option<&Value>,
    ) -> (u16, String) {
        use std::io::{Read as _, Write as _};
        let mut stream = std::net::TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let body = body.map(|b| b.to_string()).unwrap_or_default();
        let mut head =
            format!("{method} {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n");
        if let Some(token) = token {
            head.push_str(&format!("Authorization: Bearer {token}\r\n"));
        }
        if !body.is_empty() {
            head.push_str(&format!(
                "Content-Type: application/json\r\nContent-Length: {}\r\n",
                body.len()
            ));
        }
        stream
            .write_all(format!("{head}\r\n{body}").as_bytes())
            .unwrap();
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).unwrap();
        let answer = String::from_utf8_lossy(&answer).into_owned();
        let status = answer
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("not an HTTP answer: {answer}"));
        let body = answer
            .split_once("\r\n\r\n")
            .map(|(_, b)| b.to_owned())
            .unwrap_or_default();
        (status, body)
    }
}

/// Whether process `pid` runs (a zombie, stopped and not yet reaped by init, does not).
pub fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            let (_, after_name) = stat.rsplit_once(')')?;
            after_name
                .split_whitespace()
                .next()
                .map(|state| state != "Z")
        })
        .unwrap_or(false)
}
