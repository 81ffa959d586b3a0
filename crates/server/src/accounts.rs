//! Players: who holds which token, their names and the seats they hold.
//!
//! An [`Account`] is shared (`Arc`) by the player's connections and by every
//! table where the player sits, so a rename or the count of held seats is
//! seen everywhere at once. Accounts are loaded lazily: from the database on
//! the first `hello` with their token, or on start for players seated at
//! unfinished tables.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use oxo_protocol::limits::MAX_NAME_CHARS;

use crate::ids::TokenHash;

/// A player as the server knows them (the token itself is never kept).
#[derive(Debug)]
pub(crate) struct Account {
    /// Public id, shown to others.
    pub(crate) id: Arc<str>,
    /// SHA-256 of the session token.
    pub(crate) token_hash: TokenHash,
    /// Display name; short lock, never held across `.await`.
    name: Mutex<Arc<str>>,
    /// Ids of the tables where this player holds a seat.
    tables: Mutex<Vec<Arc<str>>>,
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
        }
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
        lock(&self.tables).clone()
    }

    /// Records a seat at `table`, unless the player already holds `max`
    /// seats elsewhere. Holding one already there is fine.
    pub(crate) fn try_add_table(&self, table: &Arc<str>, max: usize) -> bool {
        let mut tables = lock(&self.tables);
        if tables.iter().any(|t| t == table) {
            return true;
        }
        if tables.len() >= max {
            return false;
        }
        tables.push(Arc::clone(table));
        true
    }

    /// Forgets the seat at `table`.
    pub(crate) fn remove_table(&self, table: &str) {
        lock(&self.tables).retain(|t| &**t != table);
    }
}

/// Every account in memory, by token hash.
#[derive(Debug, Default)]
pub(crate) struct Accounts {
    by_token: Mutex<HashMap<TokenHash, Arc<Account>>>,
}

impl Accounts {
    /// The account with this token hash, if loaded.
    pub(crate) fn get(&self, hash: &TokenHash) -> Option<Arc<Account>> {
        lock(&self.by_token).get(hash).cloned()
    }

    /// Adds `account`, or returns the one already there with the same token
    /// (two connections loading the same player at once share it).
    pub(crate) fn insert(&self, account: Account) -> Arc<Account> {
        let mut map = lock(&self.by_token);
        Arc::clone(
            map.entry(account.token_hash)
                .or_insert_with(|| Arc::new(account)),
        )
    }
}

/// Checks a display name: trimmed, 1 to [`MAX_NAME_CHARS`] characters, no
/// control or invisible formatting characters (bidi overrides, zero-width).
///
/// # Errors
///
/// What is wrong with it, for an `invalid_name` refusal.
pub(crate) fn validate_name(name: &str) -> Result<Arc<str>, String> {
    let name = name.trim();
    let chars = name.chars().count();
    if chars == 0 {
        return Err("The name is empty".into());
    }
    if chars > MAX_NAME_CHARS {
        return Err(format!(
            "The name has {chars} characters; at most {MAX_NAME_CHARS} are allowed"
        ));
    }
    if let Some(c) = name.chars().find(|&c| c.is_control() || is_invisible(c)) {
        return Err(format!(
            "The name contains the unprintable character U+{:04X}",
            u32::from(c)
        ));
    }
    Ok(Arc::from(name))
}

/// Formatting characters that would let a name hide or reorder text.
fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2064}'
        | '\u{2066}'..='\u{2069}' | '\u{FEFF}' | '\u{00AD}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked() {
        assert_eq!(validate_name("  Ann ").unwrap().as_ref(), "Ann");
        assert_eq!(validate_name("Zoë 🎲").unwrap().as_ref(), "Zoë 🎲");
        assert!(validate_name("   ").is_err());
        assert!(validate_name(&"x".repeat(MAX_NAME_CHARS + 1)).is_err());
        assert!(validate_name("a\u{7}b").is_err());
        assert!(validate_name("evil\u{202E}txt").is_err());
    }

    #[test]
    fn seats_are_limited() {
        let a = Account::new("p".into(), [0; 32], "A".into());
        let (t1, t2): (Arc<str>, Arc<str>) = ("t1".into(), "t2".into());
        assert!(a.try_add_table(&t1, 1));
        assert!(a.try_add_table(&t1, 1));
        assert!(!a.try_add_table(&t2, 1));
        a.remove_table("t1");
        assert!(a.try_add_table(&t2, 1));
    }
}
