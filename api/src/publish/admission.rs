//! Who gets a connection to the Ministry's listener, decided before any TLS: at most so many
//! connections from one address and so many in all.
//!
//! A connection still in its handshake has shown nothing (no certificate yet): when the
//! listener is full, the oldest of those gives way to the newcomer, so connections that never
//! finish a handshake cannot keep the Ministry out by holding every place. A connection whose
//! handshake admitted a certificate holds its place until it closes.

use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tokio::sync::oneshot;

/// The listener's limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListenerLimits {
    /// How long a connection may take from its accept to the end of its TLS handshake.
    pub handshake_timeout: Duration,
    /// Connections one client address may hold at once.
    pub per_address: usize,
    /// Connections the listener holds at once, in a handshake or admitted.
    pub total: usize,
}

impl Default for ListenerLimits {
    fn default() -> Self {
        ListenerLimits {
            handshake_timeout: Duration::from_secs(5),
            per_address: 16,
            total: 512,
        }
    }
}

/// Why a connection was closed at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Its address already holds as many connections as one address may.
    Address,
    /// Every place is held by a connection that finished its handshake.
    Full,
}

/// The places of the listener, shared by its workers.
#[derive(Debug)]
pub struct Admission {
    limits: ListenerLimits,
    places: Mutex<Places>,
}

#[derive(Debug, Default)]
struct Places {
    next: u64,
    /// Every place held, by its number: the address holding it.
    held: HashMap<u64, IpAddr>,
    by_address: HashMap<IpAddr, usize>,
    /// The places of connections still in their handshake, oldest first, each with the
    /// sender whose drop ends that handshake.
    handshaking: BTreeMap<u64, oneshot::Sender<()>>,
}

impl Places {
    fn release(&mut self, place: u64) {
        self.handshaking.remove(&place);
        let Some(address) = self.held.remove(&place) else {
            return;
        };
        if let Some(count) = self.by_address.get_mut(&address) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                self.by_address.remove(&address);
            }
        }
    }
}

impl Admission {
    pub fn new(limits: ListenerLimits) -> Arc<Admission> {
        Arc::new(Admission {
            limits,
            places: Mutex::new(Places::default()),
        })
    }

    pub fn limits(&self) -> ListenerLimits {
        self.limits
    }

    fn places(&self) -> MutexGuard<'_, Places> {
        // The counts stay consistent whatever panicked while holding them: every change is
        // one map operation.
        self.places.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A place for a new connection from `address`, or why not. A full listener pushes out its
    /// oldest connection still in a handshake.
    pub fn admit(self: &Arc<Self>, address: IpAddr) -> Result<Place, Refusal> {
        let mut places = self.places();
        if places.by_address.get(&address).copied().unwrap_or(0) >= self.limits.per_address {
            return Err(Refusal::Address);
        }
        if places.held.len() >= self.limits.total {
            // Dropping its sender ends that handshake; its place is free from now.
            let Some((oldest, _ends)) = places.handshaking.pop_first() else {
                return Err(Refusal::Full);
            };
            places.release(oldest);
        }
        let number = places.next;
        places.next += 1;
        let (ends, ended) = oneshot::channel();
        places.held.insert(number, address);
        *places.by_address.entry(address).or_insert(0) += 1;
        places.handshaking.insert(number, ends);
        Ok(Place {
            admission: Arc::clone(self),
            number,
            pushed_out: Some(ended),
        })
    }

    /// Connections held now: in all, and of `address`.
    #[cfg(test)]
    fn held(&self, address: IpAddr) -> (usize, usize) {
        let places = self.places();
        (
            places.held.len(),
            places.by_address.get(&address).copied().unwrap_or(0),
        )
    }
}

/// A connection's place, given back when dropped.
#[derive(Debug)]
pub struct Place {
    admission: Arc<Admission>,
    number: u64,
    pushed_out: Option<oneshot::Receiver<()>>,
}

impl Place {
    /// Resolves when a newcomer pushed this connection out of its handshake (once).
    pub fn pushed_out(&mut self) -> oneshot::Receiver<()> {
        // Asked again: a receiver whose sender is already gone, which resolves at once and
        // so ends the handshake (a mistake that fails closed).
        self.pushed_out
            .take()
            .unwrap_or_else(|| oneshot::channel().1)
    }

    /// The handshake admitted a certificate: the place is held until the connection closes.
    pub fn admitted(&self) {
        self.admission.places().handshaking.remove(&self.number);
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        self.admission.places().release(self.number);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn admission(per_address: usize, total: usize) -> Arc<Admission> {
        Admission::new(ListenerLimits {
            handshake_timeout: Duration::from_secs(1),
            per_address,
            total,
        })
    }

    fn ip(last: u8) -> IpAddr {
        IpAddr::from([127, 0, 0, last])
    }

    #[test]
    fn one_address_holds_at_most_its_share_and_gets_a_place_back_when_one_closes() {
        let admission = admission(2, 10);
        let first = admission.admit(ip(2)).unwrap();
        let _second = admission.admit(ip(2)).unwrap();
        assert_eq!(admission.admit(ip(2)).unwrap_err(), Refusal::Address);
        // Another address is not affected.
        let _other = admission.admit(ip(3)).unwrap();
        assert_eq!(admission.held(ip(2)), (3, 2));
        drop(first);
        assert_eq!(admission.held(ip(2)), (2, 1));
        assert!(admission.admit(ip(2)).is_ok());
    }

    #[tokio::test]
    async fn a_full_listener_pushes_out_its_oldest_handshake_never_an_admitted_connection() {
        let admission = admission(5, 3);
        let mut oldest = admission.admit(ip(2)).unwrap();
        let admitted = admission.admit(ip(3)).unwrap();
        admitted.admitted();
        let mut younger = admission.admit(ip(4)).unwrap();
        // Full: the newcomer takes the place of the oldest connection still in a handshake.
        let newcomer = admission.admit(ip(5)).unwrap();
        assert!(
            oldest.pushed_out().await.is_err(),
            "the oldest is pushed out"
        );
        assert_eq!(admission.held(ip(2)), (3, 0));
        // The next newcomer pushes out the younger one, then nothing is left to push out but
        // the admitted connection, which stays.
        let next = admission.admit(ip(6)).unwrap();
        assert!(younger.pushed_out().await.is_err());
        newcomer.admitted();
        next.admitted();
        assert_eq!(admission.admit(ip(7)).unwrap_err(), Refusal::Full);
        // The admitted connection of 127.0.0.3 still holds its place; dropping the pushed-out
        // connections later frees nothing twice.
        drop(oldest);
        drop(younger);
        assert_eq!(admission.held(ip(3)), (3, 1));
        drop(next);
        assert_eq!(admission.held(ip(3)), (2, 1));
    }
}
