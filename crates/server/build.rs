//! Embeds the browser UI (`web/` at the workspace root) into the server,
//! ready to serve: hashed, precompressed, and with `index.html` pointing at
//! versioned URLs.
//!
//! Every file under `web/` (except hidden files and `node_modules`) becomes an
//! entry of `ASSETS` in `$OUT_DIR/assets.rs` (an `Asset`, defined in
//! `src/assets.rs`): its path relative to `web/`, a short content hash (the
//! first 10 hex digits of its SHA-256), its bytes, and its gzip and brotli
//! encodings when it is text and they are smaller. Compressing here, at the
//! highest levels, costs a second per build and no CPU per request.
//!
//! `index.html` is rewritten before it is hashed:
//!
//! - every `"/path"` attribute value naming another file of `web/` gets its
//!   hash as a version: `"/css/app.css?v=0123456789"`;
//! - an import map is inserted before the first `<script type="module"`,
//!   mapping every module (`/js/net.js`) to its versioned URL, so that the
//!   modules' relative imports (`./net.js`) load versioned URLs too, while
//!   the source in `web/` keeps plain paths. The map is an inline script, so
//!   `INLINE_SCRIPT_HASHES` carries its `'sha256-…'` for the CSP;
//! - after the entry module (`<script type="module" src="/js/main.js">`), a
//!   `<link rel="modulepreload">` for every module it imports, directly or
//!   not, at its versioned URL (see `build/imports.rs`): on a first visit the
//!   browser fetches them all at once instead of one level of imports per
//!   round trip.
//!
//! A generated list instead of a crate such as `include_dir` or `rust-embed`
//! keeps the dependency tree small and lets the server build (with a fallback
//! page) before `web/` exists.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::{env, fs};

use base64::Engine as _;
use sha2::{Digest, Sha256};

#[path = "build/imports.rs"]
mod imports;

/// Hex digits of SHA-256 in a version or ETag: 40 bits, plenty to tell two
/// versions of one file apart.
const HASH_LEN: usize = 10;

/// One file of `web/`.
struct File {
    /// Path relative to `web/`, with `/` separators.
    rel: String,
    /// Its bytes (for `index.html`, after the rewrite).
    bytes: Vec<u8>,
}

fn main() {
    let manifest =
        PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let web = manifest.join("../../web");
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    println!("cargo::rerun-if-changed=build.rs");

    let mut paths = Vec::new();
    if web.is_dir() {
        // Cargo scans a directory given to rerun-if-changed recursively.
        println!("cargo::rerun-if-changed={}", web.display());
        collect(&web, &web, &mut paths);
    } else {
        println!("cargo::warning=web/ not found: the server will serve a placeholder page");
    }
    paths.sort();
    let mut files: Vec<File> = paths
        .into_iter()
        .map(|(rel, abs)| File {
            bytes: fs::read(&abs).unwrap_or_else(|e| panic!("reading {}: {e}", abs.display())),
            rel,
        })
        .collect();

    let mut inline_hashes = Vec::new();
    let versions: Vec<(String, String)> = files
        .iter()
        .filter(|f| f.rel != "index.html" && url_safe(&f.rel))
        .map(|f| (f.rel.clone(), short_hash(&f.bytes)))
        .collect();
    if let Some(at) = files.iter().position(|f| f.rel == "index.html") {
        let html = String::from_utf8(std::mem::take(&mut files[at].bytes))
            .expect("web/index.html is UTF-8");
        let preloads = imports::graph(&entry_modules(&html), |rel| module_source(&files, rel));
        let (html, import_map) = rewrite_index(&html, &versions, &preloads);
        files[at].bytes = html.into_bytes();
        if let Some(map) = import_map {
            let digest = Sha256::digest(map.as_bytes());
            let b64 = base64::engine::general_purpose::STANDARD.encode(digest);
            inline_hashes.push(format!("'sha256-{b64}'"));
        }
    }
    emit(&out, &files, &inline_hashes);
}

/// Writes `$OUT_DIR/assets.rs`: `ASSETS` and `INLINE_SCRIPT_HASHES`.
fn emit(out: &Path, files: &[File], inline_hashes: &[String]) {
    let mut code = String::from(
        "/// Every embedded file of `web/`, sorted by path (see `build.rs`).\n\
         static ASSETS: &[Asset] = &[\n",
    );
    for (n, file) in files.iter().enumerate() {
        let stem = out.join(format!("asset-{n}"));
        let identity = write(&stem.with_extension("raw"), &file.bytes);
        let (gzip, br) = if compressible(&file.rel) {
            let gzip = Some(gzip(&file.bytes)).filter(|z| z.len() < file.bytes.len());
            let br = Some(brotli(&file.bytes)).filter(|z| z.len() < file.bytes.len());
            (
                gzip.map(|z| write(&stem.with_extension("gz"), &z)),
                br.map(|z| write(&stem.with_extension("br"), &z)),
            )
        } else {
            (None, None)
        };
        let _ = writeln!(
            code,
            "    Asset {{ path: {:?}, hash: {:?}, identity: include_bytes!({identity:?}), \
             gzip: {}, br: {} }},",
            file.rel,
            short_hash(&file.bytes),
            included(gzip.as_deref()),
            included(br.as_deref()),
        );
    }
    code.push_str("];\n\n");
    let _ = writeln!(
        code,
        "/// CSP sources for the inline scripts of `index.html` (its import map).\n\
         const INLINE_SCRIPT_HASHES: &str = {:?};",
        inline_hashes.join(" ")
    );
    fs::write(out.join("assets.rs"), code).expect("OUT_DIR is writable");
}

/// The text of the JavaScript module at `rel` among `files`, if there is one.
fn module_source<'a>(files: &'a [File], rel: &str) -> Option<&'a str> {
    let module = rel.ends_with(".js") || rel.ends_with(".mjs");
    files
        .iter()
        .find(|f| module && f.rel == rel)
        .and_then(|f| std::str::from_utf8(&f.bytes).ok())
}

/// The modules `index.html` loads by `<script type="module" src="/…">`, as
/// paths relative to `web/`.
fn entry_modules(html: &str) -> Vec<String> {
    let open = "<script type=\"module\" src=\"/";
    html.match_indices(open)
        .filter_map(|(at, _)| {
            let rest = &html[at + open.len()..];
            rest.find('"').map(|end| rest[..end].to_owned())
        })
        .collect()
}

/// Rewrites `index.html`: versioned URLs for the files in `versions`
/// (`(path, hash)`), an import map for the JavaScript modules among them,
/// and a `modulepreload` link for each of `preloads` after the first
/// module script. Returns the page and the import map's JSON, if one was
/// inserted.
fn rewrite_index(
    html: &str,
    versions: &[(String, String)],
    preloads: &[String],
) -> (String, Option<String>) {
    let mut html = html.to_owned();
    let links: String = preloads
        .iter()
        .filter_map(|rel| versions.iter().find(|(r, _)| r == rel))
        .map(|(rel, hash)| format!("\n  <link rel=\"modulepreload\" href=\"/{rel}?v={hash}\">"))
        .collect();
    if let Some(at) = html.find("<script type=\"module\"") {
        if let Some(end) = html[at..].find("</script>") {
            html.insert_str(at + end + "</script>".len(), &links);
        }
    }
    for (rel, hash) in versions {
        html = html.replace(&format!("\"/{rel}\""), &format!("\"/{rel}?v={hash}\""));
    }
    let imports: Vec<String> = versions
        .iter()
        .filter(|(rel, _)| rel.ends_with(".js") || rel.ends_with(".mjs"))
        .map(|(rel, hash)| format!("\"/{rel}\":\"/{rel}?v={hash}\""))
        .collect();
    let anchor = "<script type=\"module\"";
    let Some(at) = html.find(anchor).filter(|_| !imports.is_empty()) else {
        return (html, None);
    };
    let map = format!("{{\"imports\":{{{}}}}}", imports.join(","));
    html.insert_str(
        at,
        &format!("<script type=\"importmap\">{map}</script>\n  "),
    );
    (html, Some(map))
}

/// The first [`HASH_LEN`] hex digits of the SHA-256 of `bytes`.
fn short_hash(bytes: &[u8]) -> String {
    let mut hex = String::with_capacity(64);
    for b in Sha256::digest(bytes) {
        let _ = write!(hex, "{b:02x}");
    }
    hex.truncate(HASH_LEN);
    hex
}

/// Whether `rel` can stand in a URL, a quoted attribute and a JSON string
/// as it is (every file of `web/` today): only such files get versions.
fn url_safe(rel: &str) -> bool {
    rel.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"-._/".contains(&b))
}

/// Text formats, worth compressing; images such as PNG already are.
fn compressible(rel: &str) -> bool {
    let ext = rel.rsplit_once('.').map_or("", |(_, e)| e);
    matches!(
        ext,
        "html" | "js" | "mjs" | "css" | "svg" | "json" | "map" | "webmanifest" | "txt" | "md"
    )
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    z.write_all(bytes).expect("writing to a Vec");
    z.finish().expect("writing to a Vec")
}

fn brotli(bytes: &[u8]) -> Vec<u8> {
    // Quality 11 (the best), window 2^22 (the default).
    let mut z = brotli::CompressorWriter::new(Vec::new(), 4096, 11, 22);
    z.write_all(bytes).expect("writing to a Vec");
    z.into_inner()
}

/// Writes `bytes` to `path` and returns the path, for `include_bytes!`.
fn write(path: &Path, bytes: &[u8]) -> String {
    fs::write(path, bytes).expect("OUT_DIR is writable");
    path.to_string_lossy().into_owned()
}

/// `Some(include_bytes!(path))` or `None`, as code.
fn included(path: Option<&str>) -> String {
    path.map_or_else(
        || "None".to_owned(),
        |p| format!("Some(include_bytes!({p:?}))"),
    )
}

fn collect(root: &Path, dir: &Path, files: &mut Vec<(String, PathBuf)>) {
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
            files.push((rel, path));
        }
    }
}
