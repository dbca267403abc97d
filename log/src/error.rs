use thiserror::Error;

/// What is wrong with a record, key or signature, read without any storage.
#[derive(Debug, Error)]
pub enum LogError {
    #[error("not canonicalizable JSON: {0}")]
    Canonical(String),
    #[error("bad signature: {0}")]
    Signature(String),
    #[error("bad key: {0}")]
    Key(String),
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },
}

impl LogError {
    pub fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        LogError::Io {
            context: context.into(),
            source,
        }
    }
}
