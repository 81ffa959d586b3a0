//! Embeds the browser UI (`web/` at the workspace root) into the server.
//!
//! Every file under `web/` (except hidden files and `node_modules`) becomes an
//! entry of `ASSETS` in `$OUT_DIR/assets.rs`: `("path/in/web", include_bytes!(..))`.
//! A generated list instead of a crate such as `include_dir` or `rust-embed`
//! keeps the dependency tree small and lets the server build (with a fallback
//! page) before `web/` exists.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::{env, fs};

fn main() {
    let manifest =
        PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let web = manifest.join("../../web");
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    println!("cargo::rerun-if-changed=build.rs");

    let mut files = Vec::new();
    if web.is_dir() {
        // Cargo scans a directory given to rerun-if-changed recursively.
        println!("cargo::rerun-if-changed={}", web.display());
        collect(&web, &web, &mut files);
    } else {
        println!("cargo::warning=web/ not found: the server will serve a placeholder page");
    }
    files.sort();

    let mut code =
        String::from("/// Every embedded file of `web/`: path relative to `web/`, contents.\n");
    code.push_str("pub(crate) static ASSETS: &[(&str, &[u8])] = &[\n");
    for (rel, abs) in &files {
        let _ = writeln!(code, "    ({rel:?}, include_bytes!({abs:?})),");
    }
    code.push_str("];\n");
    fs::write(out.join("assets.rs"), code).expect("OUT_DIR is writable");
}

fn collect(root: &Path, dir: &Path, files: &mut Vec<(String, String)>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') || name == "node_modules" {
            continue;
        }
        if path.is_dir() {
            collect(root, &path, files);
        } else if path.is_file() {
            let rel = path
                .strip_prefix(root)
                .expect("walked from root")
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            let abs = path.canonicalize().unwrap_or(path);
            files.push((rel, abs.to_string_lossy().into_owned()));
        }
    }
}
