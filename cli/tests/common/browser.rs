//! Headless Chromium (Debian's `chromium`) for the pages people look at: installed on first use
//! when the machine lacks it (as root, with apt-get), run with the network off.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::Succeeds as _;

const CHROMIUM: &str = "/usr/bin/chromium";

/// The browser's path, installing Debian's package when it is missing.
pub fn chromium() -> PathBuf {
    super::debian::program(CHROMIUM, "chromium", "headless Chromium")
}

/// What the browser made of a page.
pub struct Rendered {
    /// The DOM after loading.
    pub dom: String,
    /// Where the screenshot is (under the tests' temporary directory).
    pub screenshot: PathBuf,
    pub screenshot_bytes: usize,
}

/// Loads `html` from a file in headless Chromium with every network request refused (no
/// DNS, an unreachable proxy): the DOM it builds and a screenshot, `{name}.png`.
pub fn render_offline(html: &str, name: &str) -> Rendered {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join(format!("{name}.html"));
    std::fs::write(&page, html).unwrap();
    render_url_offline(&format!("file://{}", page.display()), name, &[])
}

/// Loads `url` (a file, or a server on the loopback address, which Chromium reaches without
/// the proxy) with every other request refused; `extra` flags are added (a time budget for
/// a page that builds itself with scripts, say).
#[allow(dead_code)]
pub fn render_url_offline(url: &str, name: &str, extra_flags: &[&str]) -> Rendered {
    let browser = chromium();
    let url = url.to_owned();
    let run = |extra: &[String]| {
        let profile = tempfile::tempdir().unwrap();
        Command::new(&browser)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--hide-scrollbars",
                // The network off: no name resolves (but the loopback address, where a test serves), every
                // other request goes to a closed port.
                "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
                "--proxy-server=http://127.0.0.1:9",
                "--window-size=1000,2800",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .args(extra_flags)
            .args(extra)
            .arg(&url)
            .succeeds_or(|out| format!("chromium failed: {}", String::from_utf8_lossy(&out.stderr)))
    };
    let dom = String::from_utf8(run(&["--dump-dom".into()]).stdout).unwrap();
    let screenshot = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}.png"));
    run(&[format!("--screenshot={}", screenshot.display())]);
    let screenshot_bytes = std::fs::metadata(&screenshot).map_or(0, |m| m.len() as usize);
    Rendered {
        dom,
        screenshot,
        screenshot_bytes,
    }
}
