//! The open-files limit, for `oxo serve` and `oxo loadtest` alike: every
//! connection is a file descriptor, and the usual soft limit (1024) is far
//! below what a server under load, or the tool loading it, holds open.
//!
//! The limit belongs to the process, not to a library: the subcommands
//! raise it here before they start, and hand what they got to the library
//! that needs to know (the load tool reports it and warns when a run needs
//! more; the server's connection limit is chosen from it).

use std::io;

use rlimit::Resource;

/// Raises the soft open-files limit to the hard one, and returns the soft
/// limit now in force.
///
/// With `at_least`, a hard limit below it is first lifted to it where the
/// process may (as root); elsewhere the hard limit stays as it is and the
/// caller finds out from the limit returned.
///
/// # Errors
///
/// If the limits cannot be read or set.
pub(crate) fn raise_open_files_limit(at_least: Option<u64>) -> io::Result<u64> {
    if let Some(wanted) = at_least {
        if let Ok((_, hard)) = rlimit::getrlimit(Resource::NOFILE) {
            if hard < wanted {
                // Refused unless privileged: the usual case, not an error.
                let _ = rlimit::setrlimit(Resource::NOFILE, wanted, wanted);
            }
        }
    }
    rlimit::increase_nofile_limit(u64::MAX)
}

/// The soft open-files limit in force, if it can be read (for when raising
/// it failed).
pub(crate) fn open_files_limit() -> Option<u64> {
    rlimit::getrlimit(Resource::NOFILE)
        .ok()
        .map(|(soft, _)| soft)
}
