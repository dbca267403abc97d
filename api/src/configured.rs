//! The parts of the configuration a running server re-reads on SIGHUP: the operator and its
//! premises, the Ministry delivery's keys and the tax-rate table. They are files an office
//! edits while the server runs (a configuration copied after the start, a renewed delivery
//! certificate, a new tax rate); the rest of the configuration (addresses, database, operator
//! key, gaming day, limits, witnesses, the Ministry's listener) takes effect at the next start.

use std::sync::{Arc, RwLock};

/// What a request reads of the reloadable configuration: one consistent set, even while a
/// reload replaces it.
#[derive(Debug, Clone, Default)]
pub struct Configured {
    /// The operator and its premises, for the Ministry's package; none when not configured.
    pub operator_config: Option<Arc<reports::mf::OperatorConfig>>,
    /// The keys and certificates of the Ministry's delivery; none when not configured.
    pub delivery_keys: Option<Arc<reports::mf::keys::DeliveryKeys>>,
    /// The operator's gambling-tax rate table; the bundled one when none.
    pub tax_rates: Option<Arc<reports::tax::RateTable>>,
}

/// The current [`Configured`], replaced whole by a reload.
#[derive(Debug, Default)]
pub struct Reloadable {
    current: RwLock<Arc<Configured>>,
}

impl Reloadable {
    pub fn new(configured: Configured) -> Reloadable {
        Reloadable {
            current: RwLock::new(Arc::new(configured)),
        }
    }

    /// The configuration in force now.
    pub fn current(&self) -> Arc<Configured> {
        // A poisoned lock only means a reader panicked; the value itself is whole.
        match self.current.read() {
            Ok(guard) => guard.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// Puts `configured` in force for every request that starts from now on.
    pub fn replace(&self, configured: Configured) {
        let configured = Arc::new(configured);
        match self.current.write() {
            Ok(mut guard) => *guard = configured,
            Err(poisoned) => *poisoned.into_inner() = configured,
        }
    }
}

/// Takes SIGHUP from its default action (ending the process) for the rest of the process's
/// life, so that a reload asked for while the server is still starting (migrations, a
/// restored copy replaying its WAL) is not a kill; [`reload_on_hangup`] acts on it once the
/// server runs. Call first thing at the start.
pub fn survive_hangup() -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()?;
    // Tokio installs its handler once and keeps it; the stream itself may go.
    let _installed = runtime.block_on(async {
        tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup())
    })?;
    Ok(())
}

/// Re-reads the configuration on every SIGHUP with `reload` and puts it in force; a reload
/// that fails keeps the configuration in force and logs why. Must run inside the server's
/// runtime.
pub fn reload_on_hangup<F>(reloadable: Arc<Reloadable>, reload: F) -> std::io::Result<()>
where
    F: Fn() -> Result<Configured, String> + Send + Sync + 'static,
{
    use tokio::signal::unix::{signal, SignalKind};
    let mut hangups = signal(SignalKind::hangup())?;
    let reload = Arc::new(reload);
    actix_web::rt::spawn(async move {
        while hangups.recv().await.is_some() {
            let reload = reload.clone();
            // Reading files (and opening the delivery's PKCS#12) blocks: off the workers.
            let read = actix_web::rt::task::spawn_blocking(move || reload()).await;
            match read {
                Ok(Ok(configured)) => {
                    reloadable.replace(configured);
                    tracing::info!("configuration re-read (SIGHUP)");
                }
                Ok(Err(reason)) => {
                    tracing::error!(%reason, "configuration not re-read: the one in force stays");
                }
                Err(cause) => {
                    tracing::error!(%cause, "configuration not re-read: the one in force stays");
                }
            }
        }
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replacement_is_seen_by_the_next_read_and_not_by_one_already_taken() {
        let reloadable = Reloadable::new(Configured::default());
        let before = reloadable.current();
        assert!(before.tax_rates.is_none());
        let rates = reports::tax::RateTable::bundled().unwrap();
        reloadable.replace(Configured {
            tax_rates: Some(Arc::new(rates)),
            ..Configured::default()
        });
        assert!(reloadable.current().tax_rates.is_some());
        // A request that took the set before the reload goes on with it, whole.
        assert!(before.tax_rates.is_none());
    }
}
