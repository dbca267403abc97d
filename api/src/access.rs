//! The role table: for every route, who may call it. The gate ([`crate::gate`]) enforces it for
//! the route the router matched, the OpenAPI document shows it, docs/ACCESS.md lists it, and the
//! tests call every route with every role from it. A route missing from the table is refused
//! to everyone.

use dozor_log::access::{Role, RESOLVING_ROLES};

/// Who may call a route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Anyone, without a key (what a transparency log publishes, health, the API description).
    Public,
    /// A gaming table: authenticated by the ed25519 signature of each record, not by a key.
    TableSignature,
    /// An API key with one of these roles.
    Roles(&'static [Role]),
}

impl Access {
    pub fn allows(self, role: Role) -> bool {
        match self {
            Access::Public | Access::TableSignature => true,
            Access::Roles(roles) => roles.contains(&role),
        }
    }

    /// The roles as the docs and the OpenAPI document name them.
    pub fn describe(self) -> String {
        match self {
            Access::Public => "public".into(),
            Access::TableSignature => "table signature".into(),
            Access::Roles(roles) => roles
                .iter()
                .map(|r| r.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RouteAccess {
    /// Upper-case HTTP method.
    pub method: &'static str,
    /// The route's pattern as registered (and as in the OpenAPI document).
    pub path: &'static str,
    pub access: Access,
}

use Role::{Admin, Compliance, Regulator, Reporter};

/// Who reads the table registry: those who manage it and those who check it.
const TABLE_READERS: &[Role] = &[Admin, Compliance, Regulator];
/// Who reads the ledger, findings and inspection exports.
const LEDGER_READERS: &[Role] = &[Compliance, Regulator];
/// Who runs and reads reports.
const REPORT_READERS: &[Role] = &[Compliance, Regulator, Reporter];
/// Who delivers the operator's packages to the Ministry (not the regulator: it receives them;
/// the nightly job may deliver what the ledger holds).
const DELIVERERS: &[Role] = &[Compliance, Reporter];
/// Who takes in the Ministry's confirmations: what they say is what the officer and the
/// regulator are told the Ministry accepted, so only the compliance officer, who answers for
/// the reporting duty (not the nightly job, not IT, not the regulator that sends them).
const CONFIRMATION_TAKERS: &[Role] = &[Compliance];
/// Who reads the ledger as C2SP tlog-tiles: the regulator follows the ledger by them, the
/// operator's IT checks what it publishes. Not public: tiles carry the casino's business data.
const TILE_READERS: &[Role] = &[Admin, Regulator];
/// Who sees which API keys exist (never their secrets).
const KEY_READERS: &[Role] = &[Admin, Compliance, Regulator];
const EVERY_ROLE: &[Role] = &[Admin, Compliance, Regulator, Reporter];
/// Who changes the registry and the keys.
const ADMINS: &[Role] = &[Admin];

const fn route(method: &'static str, path: &'static str, access: Access) -> RouteAccess {
    RouteAccess {
        method,
        path,
        access,
    }
}

/// The table's rows, one a line: a method and its path for a key of one of `roles`, or a
/// public route, or a table's signed submissions.
const fn get(path: &'static str, roles: &'static [Role]) -> RouteAccess {
    route("GET", path, Access::Roles(roles))
}

const fn post(path: &'static str, roles: &'static [Role]) -> RouteAccess {
    route("POST", path, Access::Roles(roles))
}

const fn public(path: &'static str) -> RouteAccess {
    route("GET", path, Access::Public)
}

const fn signed(path: &'static str) -> RouteAccess {
    route("POST", path, Access::TableSignature)
}

pub const ROUTES: &[RouteAccess] = &[
    public("/health"),
    public("/healthz"),
    public("/readyz"),
    // Any key: a Prometheus job scrapes with its own key (a reporter's, say); the series show
    // volumes and findings, which are not for everyone on the network.
    get("/metrics", EVERY_ROLE),
    public("/api/v1/openapi.json"),
    public("/api/v1/ledger/checkpoint"),
    public("/api/v1/ledger/proof/inclusion"),
    public("/api/v1/ledger/proof/consistency"),
    signed("/api/v1/records"),
    signed("/api/v1/records/batch"),
    post("/api/v1/tables", ADMINS),
    get("/api/v1/tables", TABLE_READERS),
    get("/api/v1/tables/{table_id}", TABLE_READERS),
    post("/api/v1/tables/{table_id}/keys", ADMINS),
    post("/api/v1/tables/{table_id}/keys/{key_id}/revoke", ADMINS),
    get("/api/v1/tables/{table_id}/gaps", TABLE_READERS),
    post("/api/v1/tables/{table_id}/limits", ADMINS),
    get("/api/v1/tables/{table_id}/limits", TABLE_READERS),
    get("/api/v1/tables/{table_id}/records/{seq_no}", LEDGER_READERS),
    get(
        "/api/v1/tables/{table_id}/rounds/{round_id}",
        LEDGER_READERS,
    ),
    get("/api/v1/ledger/head", LEDGER_READERS),
    get("/api/v1/ledger/entries/{index}", LEDGER_READERS),
    get("/api/v1/ledger/gaps", LEDGER_READERS),
    get("/api/v1/tiles/checkpoint", TILE_READERS),
    get("/api/v1/tiles/tile/{path}", TILE_READERS),
    get("/api/v1/tiles/verdicts/{path}", TILE_READERS),
    get("/api/v1/tiles/minimum-index", TILE_READERS),
    get("/api/v1/significant-events", LEDGER_READERS),
    get("/api/v1/findings", LEDGER_READERS),
    get("/api/v1/findings/{finding_id}", LEDGER_READERS),
    post("/api/v1/findings/{finding_id}/resolutions", RESOLVING_ROLES),
    get("/api/v1/reports/daily", REPORT_READERS),
    get("/api/v1/reports/shoes", REPORT_READERS),
    get("/api/v1/reports/fantasy", REPORT_READERS),
    get("/api/v1/reports/time-collection", REPORT_READERS),
    get("/api/v1/reports/table-audit", REPORT_READERS),
    get("/api/v1/reports/wheels", REPORT_READERS),
    get("/api/v1/reports/rtp", REPORT_READERS),
    get("/api/v1/reports/tax", REPORT_READERS),
    get("/reports/month/{month}", REPORT_READERS),
    get("/api/v1/reports/mf", REPORT_READERS),
    get("/api/v1/reports/mf/deliveries", REPORT_READERS),
    post("/api/v1/reports/mf/deliveries", DELIVERERS),
    post("/api/v1/reports/mf/confirmations", CONFIRMATION_TAKERS),
    get("/api/v1/reports/periods", REPORT_READERS),
    get("/api/v1/exports", LEDGER_READERS),
    get("/workbench/findings", LEDGER_READERS),
    get("/workbench/findings/{finding_id}", LEDGER_READERS),
    post(
        "/workbench/findings/{finding_id}/resolutions",
        RESOLVING_ROLES,
    ),
    get("/api/v1/apikeys", KEY_READERS),
    post("/api/v1/apikeys", ADMINS),
    post("/api/v1/apikeys/{key_id}/revoke", ADMINS),
    get("/api/v1/whoami", EVERY_ROLE),
];

/// Pages outside the API, public like the document they render: the API docs (`/docs`,
/// Swagger UI's own files). They hold no data; the document they load is public too.
pub const PUBLIC_PAGES: &[&str] = &["/docs", "/docs/{file:.*}"];

/// The rule of the route registered as `pattern` for `method`: none when the table has none
/// (the gate then refuses).
pub fn rule(method: &str, pattern: &str) -> Option<Access> {
    match lookup(method, &table_pattern(pattern)) {
        Lookup::Found(access) => Some(access),
        _ if method == "GET" && PUBLIC_PAGES.contains(&pattern) => Some(Access::Public),
        _ => None,
    }
}

/// The table's (and the OpenAPI document's) form of a pattern as registered: a parameter that
/// spans several segments is registered with its regular expression (`{path:.*}`) and named
/// without it (`{path}`). A pattern the table does not hold in that form is left as it is.
pub fn table_pattern(pattern: &str) -> std::borrow::Cow<'_, str> {
    if !pattern.contains(':') {
        return pattern.into();
    }
    let mut bare = String::with_capacity(pattern.len());
    let mut in_regex = false;
    for c in pattern.chars() {
        match c {
            ':' if bare.rfind('{') > bare.rfind('}') => in_regex = true,
            '}' => {
                in_regex = false;
                bare.push(c);
            }
            c if !in_regex => bare.push(c),
            _ => {}
        }
    }
    if ROUTES.iter().any(|r| r.path == bare) {
        bare.into()
    } else {
        pattern.into()
    }
}

/// What the table says about a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    Found(Access),
    /// The route exists only for these other methods.
    OtherMethods(Vec<&'static str>),
    /// The pattern is not in the table at all.
    Missing,
}

/// The rule for `method` on the route registered as `pattern`.
pub fn lookup(method: &str, pattern: &str) -> Lookup {
    let mut others = Vec::new();
    for r in ROUTES.iter().filter(|r| r.path == pattern) {
        if r.method == method {
            return Lookup::Found(r.access);
        }
        others.push(r.method);
    }
    if others.is_empty() {
        Lookup::Missing
    } else {
        Lookup::OtherMethods(others)
    }
}

/// A parameter that ends a pattern and takes the rest of the path, several segments (a tile's
/// path: its routes are registered with `{path:.*}`).
const SPANNING_PARAMETER: &str = "{path}";

/// The methods of the routes whose pattern `path` matches (a `{name}` stands for one
/// non-empty segment, a final [`SPANNING_PARAMETER`] for the rest): what a 405 lists in `Allow`.
pub fn methods_of_path(path: &str) -> Vec<&'static str> {
    let mut methods: Vec<&'static str> = ROUTES
        .iter()
        .filter(|r| pattern_matches(r.path, path))
        .map(|r| r.method)
        .collect();
    if PUBLIC_PAGES.iter().any(|p| pattern_matches(p, path)) {
        methods.push("GET");
    }
    methods.dedup();
    methods
}

fn pattern_matches(pattern: &str, path: &str) -> bool {
    let mut wanted = pattern.split('/').peekable();
    let mut given = path.split('/');
    loop {
        match (wanted.next(), given.next()) {
            (None, None) => return true,
            (Some(SPANNING_PARAMETER), Some(g)) if wanted.peek().is_none() => {
                return !g.is_empty() || given.next().is_some();
            }
            (Some(w), Some(g)) if w.starts_with('{') && w.ends_with('}') => {
                if g.is_empty() {
                    return false;
                }
            }
            (Some(w), Some(g)) if w == g => {}
            _ => return false,
        }
    }
}

/// The table as Markdown, as docs/ACCESS.md shows it (a test keeps the two equal).
pub fn markdown() -> String {
    let mut out =
        String::from("| method | route | admin | compliance | regulator | reporter | no key |\n");
    out.push_str("|---|---|---|---|---|---|---|\n");
    for r in ROUTES {
        let mark = |yes: bool| if yes { "✓" } else { "" };
        let keyless = match r.access {
            Access::Public => "✓",
            Access::TableSignature => "table signature",
            Access::Roles(_) => "",
        };
        let cells: Vec<&str> = Role::ALL
            .iter()
            .map(|role| mark(matches!(r.access, Access::Roles(_)) && r.access.allows(*role)))
            .collect();
        out.push_str(&format!(
            "| {} | `{}` | {} | {keyless} |\n",
            r.method,
            r.path,
            cells.join(" | ")
        ));
    }
    for page in PUBLIC_PAGES {
        out.push_str(&format!("| GET | `{page}` |  |  |  |  | ✓ |\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_route_is_listed_once_and_lookups_tell_methods_apart() {
        let mut seen = std::collections::HashSet::new();
        for r in ROUTES {
            assert!(
                seen.insert((r.method, r.path)),
                "{} {} twice",
                r.method,
                r.path
            );
        }
        assert_eq!(
            lookup("POST", "/api/v1/tables"),
            Lookup::Found(Access::Roles(&[Admin]))
        );
        assert_eq!(
            lookup("DELETE", "/api/v1/tables"),
            Lookup::OtherMethods(vec!["POST", "GET"])
        );
        assert_eq!(lookup("GET", "/api/v1/nothing"), Lookup::Missing);
        assert!(!Access::Roles(&[Admin]).allows(Compliance));
        // A parameter over several segments is named as the table and the document name it.
        assert_eq!(
            table_pattern("/api/v1/tiles/tile/{path:.*}"),
            "/api/v1/tiles/tile/{path}"
        );
        assert_eq!(
            rule("GET", "/api/v1/tiles/verdicts/{path:.*}"),
            Some(Access::Roles(TILE_READERS))
        );
        assert_eq!(table_pattern("/docs/{file:.*}"), "/docs/{file:.*}");
        assert_eq!(rule("GET", "/docs/{file:.*}"), Some(Access::Public));
        assert_eq!(
            table_pattern("/api/v1/tables/{table_id}"),
            "/api/v1/tables/{table_id}"
        );
        // Another method on a tile's path of several segments: a 405 naming GET.
        for path in [
            "/api/v1/tiles/tile/0/x001/000.p/5",
            "/api/v1/tiles/verdicts/000",
        ] {
            assert_eq!(methods_of_path(path), vec!["GET"], "{path}");
        }
        assert!(methods_of_path("/api/v1/tiles/tile/").is_empty());
        assert!(methods_of_path("/api/v1/tables/R01/x").is_empty());
        assert!(Access::Public.allows(Reporter));
    }
}
