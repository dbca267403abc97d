//! `dozor simulate`: the simulator, a client of the server, given an admin API key; without one
//! (`--api-key`), a key made for the run in the local database and revoked when it ends.

use std::process::ExitCode;

use anyhow::Context as _;
use chrono::Utc;
use ledger::storage::database::DatabaseChoice;
use simulator::simulate::{SimulateArgs, Simulation};

pub fn run(global: &DatabaseChoice, args: SimulateArgs) -> anyhow::Result<ExitCode> {
    let simulation = Simulation::prepare(args)?;
    match simulation.api_key().map(str::to_owned) {
        Some(token) => simulation.run(&token),
        None => {
            let key = OwnKey::create(global, simulation.operator_key().map(|p| p.to_path_buf()))?;
            let result = simulation.run(&key.token);
            let revoked = key.revoke();
            let code = result?;
            revoked?;
            Ok(code)
        }
    }
}

/// The admin key a simulation makes for itself in the local database, revoked when it ends.
struct OwnKey {
    database: ledger::storage::database::Database,
    operator: dozor_log::checkpoint::NoteSigner,
    name: String,
    token: String,
}

impl OwnKey {
    fn create(
        global: &DatabaseChoice,
        operator_key: Option<std::path::PathBuf>,
    ) -> anyhow::Result<OwnKey> {
        let database = ledger::storage::database::Database::open(
            global.database_url.clone(),
            &global.data_dir,
        )?;
        let operator = ledger::operator_key::load_or_create(&global.data_dir, operator_key, None)?;
        let now = Utc::now();
        let name = format!("simulator-{}", now.format("%Y%m%dT%H%M%S%.6f"));
        let secret = dozor_log::access::ApiKeySecret::generate();
        let new = ledger::storage::api_keys::NewApiKey {
            name: &name,
            role: dozor_log::access::Role::Admin,
            created_by: &dozor_log::registry_history::cli_actor(),
            expires_at: Some(now + chrono::Duration::days(1)),
        };
        ledger::storage::api_keys::create_api_key(
            &mut ledger::storage::connect(&database.url)?,
            operator.signing_key(),
            &new,
            &secret,
            now,
        )
        .context("creating the simulator's API key (or give one with --api-key)")?;
        Ok(OwnKey {
            database,
            operator,
            name,
            token: secret.token(),
        })
    }

    fn revoke(self) -> anyhow::Result<()> {
        ledger::storage::api_keys::revoke_api_key(
            &mut ledger::storage::connect(&self.database.url)?,
            self.operator.signing_key(),
            &self.name,
            &dozor_log::registry_history::cli_actor(),
            "simulation finished",
            Utc::now(),
        )?;
        self.database.close()?;
        Ok(())
    }
}
