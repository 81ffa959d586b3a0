//! Players: who holds which token, their names and the seats they hold.
//!
//! An [`Account`] is shared (`Arc`) by the player's connections and by every
//! table where the player sits, so a rename or the count of held seats is
//! seen everywhere at once. Accounts are loaded lazily: from the database on
//! the first `hello` with their token, or on start for players seated at
//! unfinished tables.
//!
//! # Memory follows the players who are here
//!
//! The registry holds accounts weakly: an account lives exactly as long as
//! a connection or a seat holds it, and a player who has left everything
//! costs no memory (their row stays in the database and loads again on
//! their next `hello`). Dead entries are swept whenever the map has doubled
//! since the last sweep, so the map stays within twice the live players.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::Instant;

use crate::config::RateLimit;
use crate::ids::TokenHash;
use crate::live::LiveStatus;
use crate::rate::Bucket;
use crate::store::{PlayerRow, Store};

/// A player as the server knows them (the token itself is never kept).
#[derive(Debug)]
pub(crate) struct Account {
    /// Public id, shown to others.
    pub(crate) id: Arc<str>,
    /// SHA-256 of the player's token.
    pub(crate) token_hash: TokenHash,
    /// Display name; short lock, never held across `.await`.
    name: Mutex<Arc<str>>,
    /// The tables where this player holds a seat, with their status.
    tables: Mutex<Vec<(Arc<str>, LiveStatus)>>,
    /// The player's rate buckets, shared by all their connections, so
    /// that more connections do not chat or start games faster. Made on
    /// first use: most players connected at any time are idle, and an
    /// idle player's memory is mostly such small things.
    buckets: Mutex<Option<Box<Buckets>>>,
}

/// The limits kept per player rather than per connection.
#[derive(Debug)]
struct Buckets {
    /// Chat messages.
    chat: Bucket,
    /// New rounds: tables created and rematches asked for.
    rounds: Bucket,
    /// Renames.
    names: Bucket,
}

impl Buckets {
    fn get(&mut self, budget: Budget) -> &mut Bucket {
        match budget {
            Budget::Chat => &mut self.chat,
            Budget::Rounds => &mut self.rounds,
            Budget::Names => &mut self.names,
        }
    }
}

/// What a player may do only so often, all their connections together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Budget {
    /// Chat messages.
    Chat,
    /// New rounds: tables created and rematches asked for.
    Rounds,
    /// Renames (a durable write, and a new state at each of the player's
    /// tables).
    Names,
}

/// A token a request took from its player's budget before it was
/// answered. A refused request changes nothing, so its refusal gives the
/// token back ([`Spent::give_back`]); dropped, the token stays spent.
///
/// A request for a table on another node (a cluster with a bus) is
/// answered there: its token stays spent whatever the answer.
#[derive(Debug)]
pub(crate) struct Spent {
    account: Arc<Account>,
    budget: Budget,
    limit: RateLimit,
}

impl Spent {
    /// Returns the token: the request it was spent on was refused.
    pub(crate) fn give_back(self) {
        if let Some(buckets) = lock(&self.account.buckets).as_mut() {
            buckets.get(self.budget).give_back(self.limit);
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Account {
    /// A player with no seats.
    pub(crate) fn new(id: Arc<str>, token_hash: TokenHash, name: Arc<str>) -> Account {
        Account {
            id,
            token_hash,
            name: Mutex::new(name),
            tables: Mutex::new(Vec::new()),
            buckets: Mutex::new(None),
        }
    }

    /// Spends one token of the player's `budget`, bounded by `limit`, for
    /// a request not yet answered; `None` if the budget is spent already.
    pub(crate) fn spend(
        self: &Arc<Self>,
        budget: Budget,
        limit: RateLimit,
        now: Instant,
    ) -> Option<Spent> {
        let mut buckets = lock(&self.buckets);
        let buckets = buckets.get_or_insert_with(|| {
            Box::new(Buckets {
                chat: Bucket::new(now),
                rounds: Bucket::new(now),
                names: Bucket::new(now),
            })
        });
        buckets.get(budget).take(limit, now).then(|| Spent {
            account: Arc::clone(self),
            budget,
            limit,
        })
    }

    /// The display name.
    pub(crate) fn name(&self) -> Arc<str> {
        Arc::clone(&lock(&self.name))
    }

    /// Changes the display name.
    pub(crate) fn set_name(&self, name: Arc<str>) {
        *lock(&self.name) = name;
    }

    /// The tables where this player holds a seat.
    pub(crate) fn tables(&self) -> Vec<Arc<str>> {
        lock(&self.tables)
            .iter()
            .map(|(t, _)| Arc::clone(t))
            .collect()
    }

    /// The tables where this player holds a seat that is in play (waiting
    /// for an opponent or playing a round): the games to resume.
    pub(crate) fn tables_in_play(&self) -> Vec<Arc<str>> {
        lock(&self.tables)
            .iter()
            .filter(|(_, s)| s.in_play())
            .map(|(t, _)| Arc::clone(t))
            .collect()
    }

    /// Takes a seat at `table` for the player, unless they already hold
    /// `max` seats in play elsewhere: counted here ([`Account::try_add_table`])
    /// and, in a cluster, by `store` across every node (see
    /// `Store::seats_full`).
    pub(crate) async fn try_take_seat(
        &self,
        store: &dyn Store,
        table: &Arc<str>,
        status: &LiveStatus,
        max: usize,
    ) -> bool {
        !store.seats_full(&self.id, table, max).await && self.try_add_table(table, status, max)
    }

    /// Whether the player holds `max` seats in play at tables other than
    /// `table` already: counted here and, in a cluster, by `store` across
    /// every node (see [`Account::try_take_seat`]).
    pub(crate) async fn seats_full_elsewhere(
        &self,
        store: &dyn Store,
        table: &str,
        max: usize,
    ) -> bool {
        let here = lock(&self.tables)
            .iter()
            .filter(|(t, s)| &**t != table && s.in_play())
            .count();
        here >= max || store.seats_full(&self.id, table, max).await
    }

    /// Records a seat at `table`, unless the player already holds `max`
    /// seats in play elsewhere (finished rounds do not count). Holding one
    /// already there is fine.
    pub(crate) fn try_add_table(&self, table: &Arc<str>, status: &LiveStatus, max: usize) -> bool {
        let mut tables = lock(&self.tables);
        if tables.iter().any(|(t, _)| t == table) {
            return true;
        }
        if tables.iter().filter(|(_, s)| s.in_play()).count() >= max {
            return false;
        }
        tables.push((Arc::clone(table), status.clone()));
        true
    }

    /// Forgets the seat at `table`.
    pub(crate) fn remove_table(&self, table: &str) {
        lock(&self.tables).retain(|(t, _)| &**t != table);
    }
}

/// Every account in memory, by token hash (weakly: see the module docs).
#[derive(Debug, Default)]
pub(crate) struct Accounts {
    inner: Mutex<Registry>,
}

#[derive(Debug, Default)]
struct Registry {
    by_token: HashMap<TokenHash, Weak<Account>>,
    /// The map's size after the last sweep.
    swept: usize,
    /// Seats at tables listed on start whose actors have not started yet
    /// (see `table::asleep`), by player id: an account loaded meanwhile
    /// takes them up, so its player finds those tables on `hello`.
    waiting_seats: HashMap<Arc<str>, Vec<(Arc<str>, LiveStatus)>>,
}

impl Accounts {
    /// The account with this token hash, if loaded.
    pub(crate) fn get(&self, hash: &TokenHash) -> Option<Arc<Account>> {
        lock(&self.inner).by_token.get(hash).and_then(Weak::upgrade)
    }

    /// How many players are in memory (connected or seated).
    pub(crate) fn loaded(&self) -> usize {
        lock(&self.inner)
            .by_token
            .values()
            .filter(|w| w.strong_count() > 0)
            .count()
    }

    /// Adds `account`, or returns the one already there with the same token
    /// (two connections loading the same player at once share it).
    pub(crate) fn insert(&self, account: Account) -> Arc<Account> {
        let mut inner = lock(&self.inner);
        if let Some(live) = inner
            .by_token
            .get(&account.token_hash)
            .and_then(Weak::upgrade)
        {
            return live;
        }
        if inner.by_token.len() >= 2 * inner.swept.max(512) {
            inner.by_token.retain(|_, w| w.strong_count() > 0);
            inner.by_token.shrink_to_fit();
            inner.swept = inner.by_token.len();
        }
        if let Some(seats) = inner.waiting_seats.get(&account.id) {
            for (table, status) in seats {
                account.try_add_table(table, status, usize::MAX);
            }
        }
        let account = Arc::new(account);
        inner
            .by_token
            .insert(account.token_hash, Arc::downgrade(&account));
        account
    }

    /// The account of `row`, a player read from the store: the one loaded
    /// already if there is one.
    pub(crate) fn load(&self, row: &PlayerRow) -> Arc<Account> {
        self.insert(Account::new(
            Arc::from(row.id.as_str()),
            row.token_hash,
            Arc::from(row.name.as_str()),
        ))
    }

    /// Player `player` holds a seat at `table`, listed on start but not
    /// started yet: any account of theirs loaded before it starts shows
    /// it ([`Accounts::seat_started`] ends that).
    pub(crate) fn seat_waiting(&self, player: &Arc<str>, table: &Arc<str>, status: &LiveStatus) {
        lock(&self.inner)
            .waiting_seats
            .entry(Arc::clone(player))
            .or_default()
            .push((Arc::clone(table), status.clone()));
    }

    /// The table `table`, where `player` sits, has started (or is gone):
    /// its seat is the table's to keep from now on.
    pub(crate) fn seat_started(&self, player: &str, table: &str) {
        let mut inner = lock(&self.inner);
        if let Some(seats) = inner.waiting_seats.get_mut(player) {
            seats.retain(|(t, _)| &**t != table);
            if seats.is_empty() {
                inner.waiting_seats.remove(player);
                if inner.waiting_seats.is_empty() {
                    // Every listed table started: give its room back.
                    inner.waiting_seats = HashMap::new();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seats_in_play_are_limited() {
        use oxo_protocol::TableStatus;
        let a = Account::new("p".into(), [0; 32], "A".into());
        let (t1, t2): (Arc<str>, Arc<str>) = ("t1".into(), "t2".into());
        let s1 = LiveStatus::new(TableStatus::InProgress);
        let s2 = LiveStatus::new(TableStatus::Waiting);
        assert!(a.try_add_table(&t1, &s1, 1));
        assert!(a.try_add_table(&t1, &s1, 1));
        assert!(!a.try_add_table(&t2, &s2, 1));
        s1.set(TableStatus::RoundOver);
        assert!(
            a.try_add_table(&t2, &s2, 1),
            "a finished round does not count"
        );
        assert_eq!(a.tables_in_play(), vec![t2.clone()]);
        a.remove_table("t1");
        assert_eq!(a.tables(), vec![t2]);
    }

    #[test]
    fn accounts_live_as_long_as_someone_holds_them() {
        let accounts = Accounts::default();
        let a = accounts.insert(Account::new("p".into(), [1; 32], "A".into()));
        assert!(accounts.get(&[1; 32]).is_some());
        let again = accounts.insert(Account::new("p".into(), [1; 32], "A".into()));
        assert!(Arc::ptr_eq(&a, &again));
        drop((a, again));
        assert!(accounts.get(&[1; 32]).is_none());
        for i in 0..5000u32 {
            let mut hash = [0; 32];
            hash[..4].copy_from_slice(&i.to_le_bytes());
            drop(accounts.insert(Account::new("q".into(), hash, "Q".into())));
        }
        assert!(lock(&accounts.inner).by_token.len() <= 1024);
    }
}
