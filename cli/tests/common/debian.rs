//! Programs from Debian's packages that tests run for real (a browser, a web server): installed
//! on first use when the machine lacks them, as root, with apt-get (CI installs them first).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The program at `path`, installing Debian's `package` (described as `what` if that fails)
/// when it is missing.
pub fn program(path: &str, package: &str, what: &str) -> PathBuf {
    let path = Path::new(path);
    if !path.exists() {
        let install = |args: &[&str]| {
            Command::new("apt-get")
                .args(["-o", "DPkg::Lock::Timeout=600", "-y", "-q"])
                .args(args)
                .env("DEBIAN_FRONTEND", "noninteractive")
                .stdout(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        };
        let installed = install(&["install", "--no-install-recommends", package])
            || (install(&["update"]) && install(&["install", "--no-install-recommends", package]));
        assert!(
            installed && path.exists(),
            "{what} is needed (Debian package `{package}`) and could not be installed"
        );
    }
    path.to_path_buf()
}
