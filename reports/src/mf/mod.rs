//! The Ministry of Finance's monthly data package (vyhláška č. 10/2019 Sb., model `M`, live
//! game `Z`): its schema, the package built from the ledger, and a validator that speaks the
//! Ministry's error codes.

pub mod config;
pub mod confirm;
pub mod deliver;
pub mod keys;
pub mod name;
pub mod package;
pub mod registration;
pub mod schema;
pub mod status;
pub mod validate;
pub mod values;

pub use config::OperatorConfig;
pub use name::PackageName;
pub use package::{build, Package, PackageError, PackageRequest, PackageSummary};
pub use schema::Schema;
pub use validate::{validate, MfError, PackageSource, ValidationSettings};
