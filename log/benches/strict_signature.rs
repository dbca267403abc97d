//! Ingest's signature check: ed25519-dalek's `verify_strict` against `StrictKey::verify` (the
//! same decision with a fixed-base table per key) on the same signed records:
//! `cargo bench -p dozor-log --bench strict_signature`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use dozor_log::strict_signature::StrictKey;
use ed25519_dalek::{Signature, Signer as _, SigningKey};

const RECORDS: usize = 1_000;

fn checks(c: &mut Criterion) {
    let signer = SigningKey::from_bytes(&[7; 32]);
    let key = signer.verifying_key();
    // Record-sized messages (a roulette spin's canonical JSON is about 1 KB).
    let records: Vec<(Vec<u8>, Signature)> = (0..RECORDS)
        .map(|i| {
            let text = format!("{{\"seq_no\":{i},\"bets\":\"{}\"}}", "x".repeat(1_000));
            let signature = signer.sign(text.as_bytes());
            (text.into_bytes(), signature)
        })
        .collect();
    let strict = StrictKey::new(&key);
    // Both accept every record, so the comparison is between equals.
    for (message, signature) in &records {
        assert!(key.verify_strict(message, signature).is_ok());
        assert!(strict.verify(message, signature));
    }
    let mut group = c.benchmark_group("ingest_signature_check");
    group.throughput(Throughput::Elements(RECORDS as u64));
    group.bench_function("ed25519_dalek_verify_strict", |b| {
        b.iter(|| {
            records
                .iter()
                .all(|(m, s)| key.verify_strict(black_box(m), black_box(s)).is_ok())
        })
    });
    group.bench_function("strict_key_verify", |b| {
        b.iter(|| {
            records
                .iter()
                .all(|(m, s)| strict.verify(black_box(m), black_box(s)))
        })
    });
    group.finish();
}

criterion_group!(benches, checks);
criterion_main!(benches);
