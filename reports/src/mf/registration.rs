//! The registration of the operator's communication parameters with the Ministry, in the form
//! its schema `comParamReg.xsd` describes: the operator, the certificates it seals and
//! receives with, the URLs the Ministry downloads from and notifies, and the packages (model
//! M, live game Z, one per premises) they serve. Filled from the configuration and the keys.

use chrono::{DateTime, NaiveDate, SecondsFormat, Utc};

use super::config::OperatorConfig;
use super::keys::DeliveryKeys;
use crate::html::esc;

/// The schema's namespace.
pub const NAMESPACE: &str = "http://hazard.mfcr.cz/komunikacni-modul/registrace-parametru/2019-02";

/// The notification URLs: the download URL's origin with the listener's notification paths.
fn notification_urls(download_url: &str) -> (String, String) {
    let rest = download_url
        .strip_prefix("https://")
        .unwrap_or(download_url);
    let host = rest.split('/').next().unwrap_or(rest);
    (
        format!("https://{host}/notify/error"),
        format!("https://{host}/notify/ok"),
    )
}

fn certificates(
    xml: &mut String,
    element: &str,
    certificates: &[&delivery::Certificate],
) -> Result<(), delivery::DeliveryError> {
    if certificates.is_empty() {
        return Ok(());
    }
    xml.push_str(&format!("      <{element}>\n"));
    for c in certificates {
        xml.push_str(&format!(
            "        <CertifikatText>{}</CertifikatText>\n",
            esc(c.pem()?.trim_end())
        ));
    }
    xml.push_str(&format!("      </{element}>\n"));
    Ok(())
}

/// The form, valid from `valid_from`, submitted at `now`. `server_chain` is the Ministry
/// listener's certificate chain: the certificates above the server's own go in as the
/// server's CA certificates.
pub fn form(
    config: &OperatorConfig,
    keys: &DeliveryKeys,
    server_chain: &[delivery::Certificate],
    valid_from: NaiveDate,
    now: DateTime<Utc>,
) -> Result<String, delivery::DeliveryError> {
    let delivery = config.delivery.as_ref().ok_or_else(|| {
        delivery::DeliveryError::Cms("the configuration has no [delivery] section".into())
    })?;
    let (error_url, ok_url) = notification_urls(&delivery.download_url);
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    xml.push_str(&format!(
        "<Registrace xmlns=\"{NAMESPACE}\" IDProvozovatel=\"{}\" NazevProvozovatel=\"{}\" PlatnostOd=\"{valid_from}\" Podano=\"{}\" Playground=\"{}\">\n",
        esc(&config.operator.ico),
        esc(&config.operator.name),
        now.to_rfc3339_opts(SecondsFormat::Secs, true),
        delivery.playground,
    ));
    xml.push_str("  <Zmenit>\n    <Certifikaty>\n");
    let seal: Vec<&delivery::Certificate> = std::iter::once(keys.seal.certificate()).collect();
    certificates(&mut xml, "PecetCertifikaty", &seal)?;
    certificates(
        &mut xml,
        "SifrovaniCertifikaty",
        &[keys.encryption.certificate()],
    )?;
    let server_cas: Vec<&delivery::Certificate> = server_chain.iter().skip(1).collect();
    certificates(&mut xml, "AutentizaceServeruCACertifikaty", &server_cas)?;
    xml.push_str("    </Certifikaty>\n    <Url>\n");
    xml.push_str(&format!(
        "      <StazeniBalickuUrl>{}</StazeniBalickuUrl>\n      <NotifikaceChybyUrl>{}</NotifikaceChybyUrl>\n      <NotifikaceUspechuUrl>{}</NotifikaceUspechuUrl>\n",
        esc(&delivery.download_url),
        esc(&error_url),
        esc(&ok_url)
    ));
    xml.push_str("    </Url>\n");
    for premises in &config.premises {
        xml.push_str(&format!(
            "    <Balicek Model=\"M\" HraDruh=\"Z\" Kasino=\"{}\"/>\n",
            esc(&premises.id)
        ));
    }
    xml.push_str("  </Zmenit>\n</Registrace>\n");
    Ok(xml)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ministry_is_notified_at_the_download_host() {
        assert_eq!(
            notification_urls("https://mf.kasino.example:8443/data/"),
            (
                "https://mf.kasino.example:8443/notify/error".into(),
                "https://mf.kasino.example:8443/notify/ok".into()
            )
        );
    }
}
