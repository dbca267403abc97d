//! A handler's database work, done off the async workers: the ledger's and the reports' calls
//! block, so they run on actix's blocking threads and their errors come back as answers.

use actix_web::web;
use diesel::PgConnection;

use crate::error::ApiError;
use crate::gate::State;
use crate::state::AppState;

/// `work` on a blocking thread with the server's state; its error as an [`ApiError`].
pub async fn blocking<T, E>(
    state: State,
    work: impl FnOnce(&AppState) -> Result<T, E> + Send + 'static,
) -> Result<T, ApiError>
where
    T: Send + 'static,
    ApiError: From<E>,
{
    web::block(move || work(&state).map_err(ApiError::from)).await?
}

/// `work` on a blocking thread, on a connection to the primary taken first.
pub async fn on_primary<T, E>(
    state: State,
    work: impl FnOnce(&mut PgConnection, &AppState) -> Result<T, E> + Send + 'static,
) -> Result<T, ApiError>
where
    T: Send + 'static,
    ApiError: From<E>,
{
    blocking::<T, ApiError>(state, move |state: &AppState| {
        Ok(work(&mut *state.conn()?, state)?)
    })
    .await
}
