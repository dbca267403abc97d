//! What the monitor benchmarks share: the monitor's configuration, medians, rounding.

/// A configuration of `dozor monitor` following `casinos` (name, tiles URL, operator key; no
/// witness: the bench's casinos have none), with its state given by `DATABASE_URL`.
pub(super) fn monitor_config(poll_seconds: u64, casinos: &[(String, String, String)]) -> String {
    let mut text = format!(
        "[follow]\npoll_seconds = {poll_seconds}\nbackoff_max_seconds = {}\n",
        poll_seconds.max(60)
    );
    for (name, url, key) in casinos {
        text.push_str(&format!(
            "\n[[casino]]\nname = \"{name}\"\ntiles_url = \"{url}\"\noperator_keys = [\"{key}\"]\n\
             allow_no_witness = true\n"
        ));
    }
    text
}

/// The median of `values` (sorted here); 0 for none.
pub(super) fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    match values.len() {
        0 => 0.0,
        n if n % 2 == 1 => values[n / 2],
        n => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

pub(super) fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_of_an_odd_and_an_even_count() {
        // Sorted 1, 2, 9: the middle one.
        assert_eq!(median(&mut [9.0, 1.0, 2.0]), 2.0);
        // Sorted 1, 2, 4, 9: (2 + 4) / 2 = 3.
        assert_eq!(median(&mut [4.0, 9.0, 1.0, 2.0]), 3.0);
        assert_eq!(median(&mut []), 0.0);
    }

    #[test]
    fn the_monitor_configuration_names_every_casino_and_the_poll() {
        let key = crate::direct::operator(1).map(|o| o.verifier().to_string());
        let key = key.unwrap_or_default();
        let casinos = [
            (
                "c-01".to_owned(),
                "http://127.0.0.1:1/c-01/".to_owned(),
                key.clone(),
            ),
            (
                "c-02".to_owned(),
                "http://127.0.0.1:1/c-02/".to_owned(),
                key,
            ),
        ];
        let text = monitor_config(5, &casinos);
        let config = dozor_monitor::config::MonitorConfig::parse(&text, std::path::Path::new("."));
        let config = config.map_err(|e| e.to_string());
        let names: Vec<String> = config
            .as_ref()
            .map(|c| c.casinos.iter().map(|c| c.tiles_url.clone()).collect())
            .unwrap_or_default();
        assert_eq!(
            names,
            ["http://127.0.0.1:1/c-01/", "http://127.0.0.1:1/c-02/"],
            "{config:?}"
        );
        assert_eq!(config.map(|c| c.poll.as_secs()), Ok(5));
    }
}
