//! Headless Chromium driven as a person uses a page — follow a link, fill a form, press its
//! button — through ChromeDriver's W3C WebDriver protocol (Debian's `chromium-driver`,
//! installed on first use like the browser), with the network off but for the loopback.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{json, Value};

const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
/// How WebDriver names an element in its answers.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

fn chromedriver() -> PathBuf {
    super::browser::chromium();
    let path = Path::new(CHROMEDRIVER);
    if !path.exists() {
        let installed = Command::new("apt-get")
            .args(["-o", "DPkg::Lock::Timeout=600", "-y", "-q"])
            .args(["install", "--no-install-recommends", "chromium-driver"])
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status()
            .is_ok_and(|s| s.success());
        assert!(
            installed && path.exists(),
            "ChromeDriver is needed (Debian package `chromium-driver`) and could not be installed"
        );
    }
    path.to_path_buf()
}

/// A browser session; the driver is stopped when dropped.
pub struct Browser {
    driver: Child,
    runtime: tokio::runtime::Runtime,
    client: reqwest::Client,
    session: String,
    base: String,
    _profile: tempfile::TempDir,
}

impl Browser {
    pub fn start() -> Browser {
        let driver_path = chromedriver();
        let port = super::free_port();
        let driver = Command::new(driver_path)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(60))
            .build()
            .unwrap();
        let base = format!("http://127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let ready = runtime.block_on(async {
                let answer = client.get(format!("{base}/status")).send().await.ok()?;
                answer.json::<Value>().await.ok()
            });
            if ready.is_some_and(|v| v["value"]["ready"] == true) {
                break;
            }
            assert!(Instant::now() < deadline, "ChromeDriver did not start");
            std::thread::sleep(Duration::from_millis(100));
        }
        let profile = tempfile::tempdir().unwrap();
        let mut browser = Browser {
            driver,
            runtime,
            client,
            session: String::new(),
            base,
            _profile: profile,
        };
        let capabilities = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": super::browser::chromium(),
                "args": [
                    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
                    "--no-first-run", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync", "--hide-scrollbars",
                    // The network off but for the loopback, where the tests serve.
                    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost",
                    "--proxy-server=http://127.0.0.1:9",
                    "--window-size=1280,1600",
                    format!("--user-data-dir={}", browser._profile.path().display()),
                ]
            }
        }}});
        let created = browser.call("POST", "/session", Some(capabilities));
        browser.session = created["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no WebDriver session: {created}"))
            .to_owned();
        browser
    }

    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let url = format!("{}{path}", self.base);
        let request = match method {
            "GET" => self.client.get(url),
            "POST" => self
                .client
                .post(url)
                .json(&body.unwrap_or_else(|| json!({}))),
            "DELETE" => self.client.delete(url),
            other => panic!("no {other} here"),
        };
        let answer: Value = self
            .runtime
            .block_on(async { request.send().await.unwrap().json().await.unwrap() });
        answer["value"].clone()
    }

    fn in_session(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        self.call(method, &format!("/session/{}{path}", self.session), body)
    }

    pub fn go(&self, url: &str) {
        self.in_session("POST", "/url", Some(json!({ "url": url })));
    }

    /// The page's HTML as the browser holds it now.
    pub fn source(&self) -> String {
        self.in_session("GET", "/source", None)
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    fn element(&self, css: &str) -> String {
        let found = self.in_session(
            "POST",
            "/element",
            Some(json!({"using": "css selector", "value": css})),
        );
        found[ELEMENT]
            .as_str()
            .unwrap_or_else(|| panic!("no element `{css}` on the page: {found}"))
            .to_owned()
    }

    pub fn click(&self, css: &str) {
        let id = self.element(css);
        self.in_session("POST", &format!("/element/{id}/click"), None);
    }

    /// Types `text` into the field `css`.
    pub fn type_into(&self, css: &str, text: &str) {
        let id = self.element(css);
        self.in_session(
            "POST",
            &format!("/element/{id}/value"),
            Some(json!({ "text": text })),
        );
    }

    /// Waits until the page's HTML holds `text` (a navigation is under way); the HTML.
    pub fn wait_for(&self, text: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let source = self.source();
            if source.contains(text) {
                return source;
            }
            assert!(
                Instant::now() < deadline,
                "the page never showed `{text}`:\n{source}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// A screenshot of the window, `{name}.png` under the tests' temporary directory: its path
    /// and size.
    pub fn screenshot(&self, name: &str) -> (PathBuf, usize) {
        let encoded = self.in_session("GET", "/screenshot", None);
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(encoded.as_str().unwrap_or_default())
            .unwrap();
        let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}.png"));
        std::fs::write(&path, &bytes).unwrap();
        (path, bytes.len())
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                self.in_session("DELETE", "", None)
            }));
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}
