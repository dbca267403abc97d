//! The pages' forms are posted only from the pages: a browser sends a page's key (HTTP Basic
//! credentials) with any request to the server, also one another site makes it send, so a form
//! post is taken only when it carries the token its page was served with (an HMAC of the key's
//! id under a secret the server draws at start) and no header says it came from another site
//! (`Sec-Fetch-Site`, `Origin`).

use actix_web::HttpRequest;
use hmac::{Hmac, Mac as _};
use rand::RngCore as _;
use sha2::Sha256;

use crate::error::ApiError;

/// The server's secret for form tokens: drawn at start, never stored or logged (a restart
/// makes pages served before it ask to be reloaded).
pub struct FormSecret([u8; 32]);

impl std::fmt::Debug for FormSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FormSecret(…)")
    }
}

impl FormSecret {
    pub fn generate() -> FormSecret {
        let mut bytes = [0u8; 32];
        rand::rngs::OsRng.fill_bytes(&mut bytes);
        FormSecret(bytes)
    }

    /// HMAC takes a key of any length, so this is never none; were it, no token would hold.
    fn mac(&self, key_id: &str) -> Option<Hmac<Sha256>> {
        let mut mac = <Hmac<Sha256> as hmac::Mac>::new_from_slice(&self.0).ok()?;
        mac.update(b"dozor page form\0");
        mac.update(key_id.as_bytes());
        Some(mac)
    }

    /// The token the pages served to the key `key_id` carry in their forms.
    pub fn token(&self, key_id: &str) -> String {
        self.mac(key_id)
            .map(|m| hex::encode(m.finalize().into_bytes()))
            .unwrap_or_default()
    }

    /// Whether `token` is the token of `key_id` (compared in constant time).
    fn holds(&self, key_id: &str, token: &str) -> bool {
        match (hex::decode(token), self.mac(key_id)) {
            (Ok(bytes), Some(mac)) => mac.verify_slice(&bytes).is_ok(),
            _ => false,
        }
    }
}

fn refuse(why: &str) -> ApiError {
    ApiError::CrossSite {
        message: format!(
            "{why}: a form of dozor's pages is taken only from the page it was served on; open the page again and submit it there"
        ),
    }
}

/// Refuses a form post that came from another site or lacks the page's token for `key_id`.
pub fn check(
    request: &HttpRequest,
    secret: &FormSecret,
    key_id: &str,
    token: &str,
) -> Result<(), ApiError> {
    let header = |name: &str| {
        request
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    if let Some(site) = header("sec-fetch-site") {
        if site != "same-origin" && site != "none" {
            return Err(refuse(&format!(
                "the browser says the form came from a {site} page"
            )));
        }
    }
    if let Some(origin) = header("origin") {
        // The whole origin, scheme included: a page served over plain HTTP on the same host
        // (another port's or a proxy's) is another origin.
        let info = request.connection_info();
        let same = origin == format!("{}://{}", info.scheme(), info.host());
        if !same {
            return Err(refuse(&format!("the form came from {origin}")));
        }
    }
    if !secret.holds(key_id, token) {
        return Err(refuse("the form does not carry its page's token"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

    #[test]
    fn a_token_holds_for_its_key_only_and_a_foreign_origin_is_refused() {
        let secret = FormSecret::generate();
        let token = secret.token("key-1");
        let same = TestRequest::post()
            .insert_header(("host", "dozor.local:8080"))
            .insert_header(("origin", "http://dozor.local:8080"))
            .insert_header(("sec-fetch-site", "same-origin"))
            .to_http_request();
        assert!(check(&same, &secret, "key-1", &token).is_ok());
        assert!(check(&same, &secret, "key-2", &token).is_err());
        assert!(check(&same, &secret, "key-1", "00").is_err());
        assert!(check(&same, &FormSecret::generate(), "key-1", &token).is_err());
        for (name, value) in [
            ("origin", "http://evil.example"),
            ("origin", "https://dozor.local:8080"),
            ("origin", "null"),
            ("origin", "http://dozor.local:8080/"),
            ("sec-fetch-site", "cross-site"),
            ("sec-fetch-site", "same-site"),
        ] {
            let foreign = TestRequest::post()
                .insert_header(("host", "dozor.local:8080"))
                .insert_header((name, value))
                .to_http_request();
            let refused = check(&foreign, &secret, "key-1", &token).unwrap_err();
            assert!(
                matches!(refused, ApiError::CrossSite { .. }),
                "{name}: {value}"
            );
        }
    }
}
