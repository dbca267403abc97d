//! Example requests of the routes that every role and spelling test calls the same way.

use serde_json::{json, Value};

/// The request for `method path` (a route as the API lists it) when it reads a table, the
/// ledger, findings or a report, or changes a table's limits or the Ministry's files: its URI
/// with the parameters filled in for the tests' table R01 and day, and its body. `None` for
/// another route.
pub fn example_of_shared_route(method: &str, path: &str) -> Option<(String, Option<Value>)> {
    let day = "2026-11-20";
    Some(match (method, path) {
        ("GET", "/api/v1/tables/{table_id}") => ("/api/v1/tables/R01".into(), None),
        ("GET", "/api/v1/tables/{table_id}/gaps") => ("/api/v1/tables/R01/gaps".into(), None),
        ("GET", "/api/v1/tables/{table_id}/records/{seq_no}") => {
            ("/api/v1/tables/R01/records/1".into(), None)
        }
        ("GET", "/api/v1/tables/{table_id}/rounds/{round_id}") => {
            ("/api/v1/tables/R01/rounds/R01-1".into(), None)
        }
        ("GET", "/api/v1/tables/{table_id}/limits") => ("/api/v1/tables/R01/limits".into(), None),
        ("POST", "/api/v1/tables/{table_id}/limits") => (
            "/api/v1/tables/R01/limits".into(),
            Some(
                json!({"limits": {"min_bet_h": 1_000, "max_straight_up_h": 100_000, "max_inside_h": 200_000, "max_outside_h": 500_000}, "reason": "evening session"}),
            ),
        ),
        ("GET", "/api/v1/ledger/entries/{index}") => ("/api/v1/ledger/entries/0".into(), None),
        ("GET", "/api/v1/findings") => (format!("{path}?state=open"), None),
        ("GET", "/api/v1/reports/mf") => (format!("{path}?month=2026-11&misto=kasino_1"), None),
        ("GET", "/api/v1/reports/mf/deliveries") => (path.into(), None),
        ("POST", "/api/v1/reports/mf/deliveries") => {
            (format!("{path}?month=2026-10&misto=kasino_1"), None)
        }
        // Not a sealed file: kept as evidence and refused (422) for the role that may post.
        ("POST", "/api/v1/reports/mf/confirmations") => (
            format!("{path}?file=12345679-M-202611-Z-kasino_1-01.Ok.zip.p7e.p7s"),
            Some(json!("not a sealed file")),
        ),
        ("GET", "/api/v1/reports/periods" | "/api/v1/reports/wheels") => {
            (format!("{path}?month=2026-11"), None)
        }
        (
            "GET",
            "/api/v1/reports/daily"
            | "/api/v1/reports/shoes"
            | "/api/v1/reports/fantasy"
            | "/api/v1/reports/time-collection"
            | "/api/v1/reports/table-audit",
        ) => (format!("{path}?day={day}"), None),
        ("GET", "/api/v1/reports/rtp") => (format!("{path}?month=2026-11&format=csv"), None),
        ("GET", "/reports/month/{month}") => ("/reports/month/2026-11".into(), None),
        ("GET", "/api/v1/reports/tax") => (format!("{path}?quarter=2026Q4"), None),
        ("GET", "/api/v1/exports") => (format!("{path}?from={day}&to={day}"), None),
        _ => return None,
    })
}

/// The request for a tiles route that succeeds in a tree of `tree_size` entries (1 to 255, its
/// latest checkpoint's): the partial level-0 tile, bundle and verdicts of that width.
pub fn example_of_tiles_route(
    method: &str,
    path: &str,
    tree_size: u64,
) -> Option<(String, Option<Value>)> {
    let uri = match (method, path) {
        ("GET", "/api/v1/tiles/checkpoint" | "/api/v1/tiles/minimum-index") => path.to_owned(),
        ("GET", "/api/v1/tiles/tile/{path}") => format!("/api/v1/tiles/tile/0/000.p/{tree_size}"),
        ("GET", "/api/v1/tiles/verdicts/{path}") => {
            format!("/api/v1/tiles/verdicts/000.p/{tree_size}")
        }
        _ => return None,
    };
    Some((uri, None))
}
