// The migrations are embedded at compile time (`storage::MIGRATIONS`): a new or changed one
// must rebuild the crate.
fn main() {
    println!("cargo:rerun-if-changed=../migrations");
}
