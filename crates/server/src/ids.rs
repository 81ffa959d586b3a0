//! Random identifiers, player tokens and time stamps.
//!
//! Table and player ids are 128 random bits written as 32 lowercase hex
//! digits: unguessable, so a private table's id is its only key. Game ids
//! are as long, but begin with the game's sequence number (see
//! [`new_game_id`]). A player's token (the protocol's "session token") is
//! 256 random bits (64 hex digits); the server keeps only its SHA-256, so a
//! copy of the database does not let anyone sit in a seat.
//! All randomness comes from `rand::rng()`, a CSPRNG seeded by the OS.

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use sha2::{Digest, Sha256};

/// The SHA-256 of a player's token.
pub(crate) type TokenHash = [u8; 32];

const HEX: &[u8; 16] = b"0123456789abcdef";

fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(char::from(HEX[usize::from(b >> 4)]));
        s.push(char::from(HEX[usize::from(b & 0xf)]));
    }
    s
}

/// A new random 128-bit id (table, game or player) as 32 hex digits.
pub(crate) fn new_id() -> Arc<str> {
    let bytes: [u8; 16] = rand::random();
    Arc::from(hex(&bytes))
}

/// A new game id: the game's database key then 64 random bits, as 32 hex
/// digits. Ids in the order of their keys keep the id index's inserts on its
/// last page; the random half keeps them unguessable.
pub(crate) fn new_game_id(seq: i64) -> Arc<str> {
    let random: u64 = rand::random();
    Arc::from(format!("{seq:016x}{random:016x}"))
}

/// A new player token (256 random bits as 64 hex digits) and its hash.
pub(crate) fn new_token() -> (String, TokenHash) {
    let bytes: [u8; 32] = rand::random();
    let token = hex(&bytes);
    let hash = hash_token(&token);
    (token, hash)
}

/// Whether `token` has the shape of a token this server hands out.
pub(crate) fn is_token_shaped(token: &str) -> bool {
    token.len() == 64 && token.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The SHA-256 of a token, as stored.
pub(crate) fn hash_token(token: &str) -> TokenHash {
    Sha256::digest(token.as_bytes()).into()
}

/// Milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// The wall-clock time (Unix ms) of `at`, a moment of this process's
/// monotonic clock: for a deadline that must outlive the process.
pub(crate) fn wall_ms(at: tokio::time::Instant) -> i64 {
    let now = tokio::time::Instant::now();
    let ms = |d: std::time::Duration| i64::try_from(d.as_millis()).unwrap_or(i64::MAX);
    if at >= now {
        now_ms().saturating_add(ms(at - now))
    } else {
        now_ms().saturating_sub(ms(now - at))
    }
}

/// A random seed for a bot or a coin toss.
pub(crate) fn seed() -> u64 {
    rand::random()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_tokens_have_their_shapes() {
        let id = new_id();
        assert_eq!(id.len(), 32);
        assert_ne!(id, new_id());
        let (token, hash) = new_token();
        assert!(is_token_shaped(&token));
        assert_eq!(hash, hash_token(&token));
        assert!(!is_token_shaped("abc"));
        let g = new_game_id(255);
        assert_eq!(g.len(), 32);
        assert!(g.starts_with("00000000000000ff"));
        assert!(new_game_id(256) > g, "ids sort by key");
        assert!(!is_token_shaped(&"g".repeat(64)));
    }
}
