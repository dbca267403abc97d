//! `[http]` of monitor.toml: where the monitor's own listener serves the regulator's view, and
//! who may read it. Fails closed: a listener on any address but this machine's loopback needs
//! at least one bearer token, kept in the configuration only as its SHA-256 (never the token).
//!
//! ```toml
//! [http]
//! listen = "127.0.0.1:9464"
//! # sha256sum of each token allowed to read the view (printf %s "$TOKEN" | sha256sum)
//! bearer_token_sha256 = ["9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"]
//! ```

use std::net::SocketAddr;

use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HttpFile {
    listen: String,
    #[serde(default)]
    bearer_token_sha256: Vec<String>,
}

/// The listener's settings, checked.
#[derive(Clone, PartialEq, Eq)]
pub struct HttpConfig {
    pub listen: SocketAddr,
    /// SHA-256 of each token allowed; none: every request on the loopback address is allowed.
    pub token_sha256: Vec<[u8; 32]>,
}

impl std::fmt::Debug for HttpConfig {
    /// Says how many token hashes there are, never which.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpConfig")
            .field("listen", &self.listen)
            .field("tokens", &self.token_sha256.len())
            .finish()
    }
}

impl HttpFile {
    /// The settings, or why they are refused (named as `[http] <setting>`).
    pub fn check(self) -> Result<HttpConfig, String> {
        let listen: SocketAddr = self.listen.trim().parse().map_err(|_| {
            format!(
                "[http] listen `{}` is not an address and port (127.0.0.1:9464)",
                self.listen
            )
        })?;
        let token_sha256 = self
            .bearer_token_sha256
            .iter()
            .enumerate()
            .map(|(n, text)| {
                let mut hash = [0u8; 32];
                hex::decode_to_slice(text.trim(), &mut hash).map_err(|_| {
                    format!(
                        "[http] bearer_token_sha256 {}: not 64 hex digits (a SHA-256)",
                        n + 1
                    )
                })?;
                Ok(hash)
            })
            .collect::<Result<Vec<_>, String>>()?;
        if !listen.ip().is_loopback() && token_sha256.is_empty() {
            return Err(format!(
                "[http] listen {listen} is not this machine's loopback address: bearer_token_sha256 must name the tokens allowed"
            ));
        }
        Ok(HttpConfig {
            listen,
            token_sha256,
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn file(listen: &str, tokens: &[&str]) -> HttpFile {
        HttpFile {
            listen: listen.into(),
            bearer_token_sha256: tokens.iter().map(|t| (*t).to_owned()).collect(),
        }
    }

    #[test]
    fn only_the_loopback_address_may_go_without_a_token() {
        assert!(file("127.0.0.1:9464", &[]).check().is_ok());
        assert!(file("[::1]:9464", &[]).check().is_ok());
        let open = file("0.0.0.0:9464", &[]).check().unwrap_err();
        assert!(open.contains("bearer_token_sha256"), "{open}");
        // SHA-256 of "test": 9f86d081….
        let hash = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
        let config = file("0.0.0.0:9464", &[hash]).check().unwrap();
        assert_eq!(hex::encode(config.token_sha256[0]), hash);
        assert!(!format!("{config:?}").contains("9f86"));
        assert!(file("0.0.0.0:9464", &["test"]).check().is_err());
        assert!(file("localhost", &[]).check().is_err());
    }
}
