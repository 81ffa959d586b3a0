//! The player's token per server, kept between runs so that a dropped
//! connection or a new `oxo play --server` comes back as the same player
//! (to the same seats).
//!
//! One JSON file, `tokens.json`, in the user's config directory:
//! `$OXO_CONFIG_DIR` if set, else `$XDG_CONFIG_HOME/oxo`, else
//! `~/.config/oxo`. The directory is made owner-only (0700) and the file
//! owner-only (0600): a token is a seat.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::PathBuf;

use oxo_client::Address;

/// The directory of oxo's own files, if one can be named.
pub(super) fn config_dir() -> Option<PathBuf> {
    let var = |name| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(dir) = var("OXO_CONFIG_DIR") {
        return Some(PathBuf::from(dir));
    }
    if let Some(dir) = var("XDG_CONFIG_HOME") {
        return Some(PathBuf::from(dir).join("oxo"));
    }
    var("HOME").map(|home| PathBuf::from(home).join(".config").join("oxo"))
}

fn read_all() -> BTreeMap<String, String> {
    config_dir()
        .and_then(|dir| fs::read(dir.join("tokens.json")).ok())
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default()
}

/// The token saved for the server at `address`, if any.
pub(crate) fn load(address: &Address) -> Option<String> {
    read_all().remove(&address.http_url())
}

/// Saves `token` for the server at `address` (owner-only file).
///
/// # Errors
///
/// No config directory can be named, or it cannot be written.
pub(crate) fn save(address: &Address, token: &str) -> io::Result<()> {
    let dir = config_dir().ok_or_else(|| io::Error::other("no HOME or XDG_CONFIG_HOME"))?;
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&dir)?;
    let mut all = read_all();
    all.insert(address.http_url(), token.to_owned());
    let path = dir.join("tokens.json");
    let tmp = dir.join("tokens.json.tmp");
    let text = serde_json::to_vec_pretty(&all).map_err(io::Error::other)?;
    {
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&tmp)?;
        io::Write::write_all(&mut file, &text)?;
        file.sync_all()?;
    }
    fs::set_permissions(&tmp, fs::Permissions::from_mode(0o600))?;
    fs::rename(tmp, path)
}
