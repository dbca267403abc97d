//! The Ministry of Finance's monthly package as it is delivered (its communication interface):
//! the ZIP encrypted as CMS EnvelopedData to the Ministry's encryption certificates (and the
//! operator's own), that sealed with a CAdES baseline-B enveloping signature made with the
//! operator's seal; and the other way, a sealed and encrypted file from the Ministry opened and
//! its seal checked against the Ministry's seal certificates. No I/O: bytes in, bytes out.
//!
//! Place in the map (docs/ARCHITECTURE.md): stands alone, importing no crate of dozor's;
//! `reports` (the package) and `api` (the Ministry's downloads) use it.

mod ber;
pub mod certificate;
pub mod envelope;
pub mod error;
mod ess;
pub mod identity;
pub mod ministry;
pub mod pki;
pub mod seal;

pub use certificate::{read_certificates, Certificate};
pub use envelope::{decrypt, encrypt};
pub use error::DeliveryError;
pub use identity::Identity;
pub use seal::{open_seal, seal, Opened};
