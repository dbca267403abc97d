//! Witness servers of the ingest benchmark: `--witnesses` local `dozor witness` servers.

use std::time::Duration;

use anyhow::Context as _;

/// Witness servers on loopback, each with a key and a store of its own (removed at the end).
pub struct LocalWitnesses {
    pub endpoints: Vec<api::witnessing::WitnessEndpoint>,
    handles: Vec<actix_web::dev::ServerHandle>,
    threads: Vec<std::thread::JoinHandle<std::io::Result<()>>>,
    _stores: tempfile::TempDir,
}

impl LocalWitnesses {
    pub fn start(
        n: usize,
        log: &dozor_log::checkpoint::NoteVerifier,
    ) -> anyhow::Result<LocalWitnesses> {
        let mut witnesses = LocalWitnesses {
            endpoints: Vec::new(),
            handles: Vec::new(),
            threads: Vec::new(),
            _stores: tempfile::tempdir()?,
        };
        for i in 0..n {
            let signer = dozor_log::cosignature::CosignatureSigner::new(
                &format!("witness.bench/{i}"),
                dozor_log::keys::generate(),
            )?;
            let key = signer.verifier();
            let store =
                dozor_witness::Store::open(&witnesses._stores.path().join(format!("{i}.redb")))?;
            let witness = std::sync::Arc::new(dozor_witness::Witness::new(
                signer,
                std::slice::from_ref(log),
                store,
            ));
            let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
            let url = format!("http://{}", listener.local_addr()?);
            let (tx, rx) = std::sync::mpsc::channel();
            witnesses.threads.push(std::thread::spawn(move || {
                actix_web::rt::System::new().block_on(async move {
                    let server = dozor_witness::server::server(witness, listener)?;
                    let _ = tx.send(server.handle());
                    server.await
                })
            }));
            witnesses.handles.push(
                rx.recv_timeout(Duration::from_secs(10))
                    .context("witness did not start")?,
            );
            witnesses.endpoints.push(api::witnessing::WitnessEndpoint {
                url,
                key,
                ca_certificates: None,
            });
        }
        Ok(witnesses)
    }

    pub fn stop(self) {
        for handle in &self.handles {
            actix_web::rt::System::new().block_on(handle.stop(true));
        }
        for thread in self.threads {
            let _ = thread.join();
        }
    }
}
