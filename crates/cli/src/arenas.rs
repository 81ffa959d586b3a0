//! How many arenas glibc's allocator keeps for `oxo serve`.
//!
//! glibc gives threads arenas of their own, up to eight per core, and each
//! arena reuses only the blocks freed into it. The server's threads (the
//! runtime's workers, the database writer, the blocking pool) then each
//! hold free blocks the others cannot use: a connection's handshake
//! buffers freed on one worker stay there while the next connection
//! allocates on another. Two arenas for the whole server measured 1.4 MiB
//! less resident memory with 10,000 idle players (median of five runs each,
//! 39.5 to 38.1 MiB), and no difference in CPU per move beyond the noise
//! (README, "Performance targets"); each thread still has its own cache of
//! small blocks, so they rarely wait on an arena's lock.
//!
//! An operator's own `MALLOC_ARENA_MAX` is left as it is. On other C
//! libraries (musl, macOS) there is nothing to set.

/// Arenas for the server when the environment does not say.
const SERVER_ARENAS: u16 = 2;

/// What [`limit`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Arenas {
    /// Limited to this many arenas.
    Limited(u16),
    /// `MALLOC_ARENA_MAX` is set: glibc follows it.
    FromEnvironment,
    /// Not glibc, or glibc refused the setting: its default stands.
    Default,
}

/// The limit to set, given the value of `MALLOC_ARENA_MAX` if any.
fn wanted(env: Option<&std::ffi::OsStr>) -> Option<u16> {
    match env {
        Some(_) => None,
        None => Some(SERVER_ARENAS),
    }
}

/// Limits glibc to [`SERVER_ARENAS`] arenas unless `MALLOC_ARENA_MAX` says
/// otherwise. Call it before the runtime starts its threads: glibc fixes
/// the limit when a second thread first allocates.
pub(crate) fn limit() -> Arenas {
    match wanted(std::env::var_os("MALLOC_ARENA_MAX").as_deref()) {
        None => Arenas::FromEnvironment,
        Some(n) if set_arena_max(n) => Arenas::Limited(n),
        Some(_) => Arenas::Default,
    }
}

/// glibc's `mallopt(M_ARENA_MAX, n)`; true if it took the setting.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
fn set_arena_max(n: u16) -> bool {
    // SAFETY: `mallopt` only sets a number in glibc's allocator state,
    // under glibc's own lock; it reads no pointer of ours, and any positive
    // value is valid for M_ARENA_MAX.
    unsafe { libc::mallopt(libc::M_ARENA_MAX, i32::from(n)) == 1 }
}

/// Not glibc: nothing to set.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn set_arena_max(_n: u16) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_operators_setting_wins() {
        assert_eq!(wanted(Some("8".as_ref())), None);
        assert_eq!(wanted(Some("".as_ref())), None);
        assert_eq!(wanted(None), Some(SERVER_ARENAS));
    }

    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[test]
    fn glibc_takes_the_limit() {
        assert!(set_arena_max(SERVER_ARENAS));
    }
}
