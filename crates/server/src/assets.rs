//! The browser UI, embedded in the binary at build time (see `build.rs`),
//! served compressed and cached.
//!
//! `web/index.html` answers `/`, `/t/{table_id}` (a friend's invitation link)
//! and `/games/{game_id}` (a replay); every other file of `web/` is served at
//! its path. Every response of the server carries a strict
//! Content-Security-Policy and friends (see [`security_headers`]).
//!
//! # Caching
//!
//! Each file has a content hash, computed by `build.rs`, and is served with
//! it as a strong `ETag`. Two policies:
//!
//! - A plain path (`/js/net.js`, and the page itself at `/`) is served with
//!   `Cache-Control: no-cache`: the browser keeps it but asks each time with
//!   `If-None-Match`, and a current copy costs a `304` without a body.
//! - A versioned path whose `?v=` is the file's current hash
//!   (`/css/app.css?v=0123456789`) is served with
//!   `Cache-Control: public, max-age=31536000, immutable`: the browser never
//!   asks again, because another version of the file has another URL. A
//!   stale or unknown `?v=` gets the current file with `no-cache`.
//!
//! The page refers to versioned URLs only: `build.rs` rewrites its
//! `/css/app.css`, `/js/main.js` and `/favicon.svg`, and inserts an import
//! map that maps every module to its versioned URL. The modules import each
//! other by relative path (`./net.js`, resolved to `/js/net.js`) and the map
//! turns that into `/js/net.js?v=…`, so a return visit costs one `304` for
//! the page and nothing else. The alternatives were worse: hashed file names
//! would need the imports inside the modules rewritten, and versioning only
//! the entry points would leave a revalidation per module. The import map is
//! an inline script, which `script-src 'self'` forbids, so the CSP allows
//! exactly its SHA-256 (`INLINE_SCRIPT_HASHES`, computed by `build.rs`). A
//! browser without import maps (before 2023) ignores the map and loads the
//! plain paths, which still revalidate.
//!
//! The page itself always revalidates (`no-cache`), whichever route serves
//! it: it is what carries the versions.
//!
//! # Compression
//!
//! Text files are compressed at build time, with brotli and gzip at their
//! highest levels, and each encoding is kept only if it is smaller. A request
//! gets the best one its `Accept-Encoding` allows (see [`negotiate`]), with
//! `Vary: Accept-Encoding` so that caches keep the encodings apart. No CPU is
//! spent per request, and the JSON API and `/ws` are never compressed.

mod negotiate;

/// `build.rs`'s scan of the modules' imports, here for its unit tests.
#[cfg(test)]
#[path = "../build/imports.rs"]
mod imports;

use std::sync::OnceLock;

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};

use negotiate::Encoding;

/// One file of `web/`, as `build.rs` prepared it.
#[derive(Debug)]
struct Asset {
    /// Path relative to `web/`, with `/` separators: `css/app.css`.
    path: &'static str,
    /// The first hex digits of the SHA-256 of `identity`: version and ETag.
    hash: &'static str,
    /// The file as it is (for `index.html`: as `build.rs` rewrote it).
    identity: &'static [u8],
    /// Gzip-compressed, if the file is text and that made it smaller.
    gzip: Option<&'static [u8]>,
    /// Brotli-compressed, on the same terms.
    br: Option<&'static [u8]>,
}

include!(concat!(env!("OUT_DIR"), "/assets.rs"));

/// Shown at `/` when the binary was built without `web/`.
const PLACEHOLDER: &[u8] =
    b"<!doctype html><title>oxo</title><p>oxo server is running; the web UI was not built in.";

/// For a versioned URL whose version is current.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";

impl Asset {
    /// The embedded file at `path` (relative to `web/`), if any.
    fn find(path: &str) -> Option<&'static Asset> {
        // `build.rs` sorts the files by path.
        ASSETS
            .binary_search_by(|asset| asset.path.cmp(path))
            .ok()
            .map(|at| &ASSETS[at])
    }

    /// The encodings besides identity, in the server's order of preference.
    fn encodings(&self) -> Vec<Encoding> {
        [(Encoding::Br, self.br), (Encoding::Gzip, self.gzip)]
            .into_iter()
            .filter_map(|(encoding, bytes)| bytes.map(|_| encoding))
            .collect()
    }

    fn bytes(&self, encoding: Encoding) -> &'static [u8] {
        let compressed = match encoding {
            Encoding::Br => self.br,
            Encoding::Gzip => self.gzip,
            Encoding::Identity => None,
        };
        compressed.unwrap_or(self.identity)
    }

    /// The answer to a `GET` (or `HEAD`) with `headers`: the best encoding,
    /// or `304 Not Modified` if the client's copy is current. `immutable`
    /// chooses the caching policy (see the module docs).
    fn respond(&self, headers: &HeaderMap, immutable: bool) -> Response {
        let available = self.encodings();
        let encoding = negotiate::choose(headers, &available);
        let etag = encoding.etag(self.hash);
        let mut out = HeaderMap::new();
        out.insert(
            header::ETAG,
            HeaderValue::from_str(&etag).expect("an ETag of hex digits is a valid header value"),
        );
        out.insert(
            header::CACHE_CONTROL,
            HeaderValue::from_static(if immutable { IMMUTABLE } else { "no-cache" }),
        );
        if !available.is_empty() {
            out.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
        }
        if negotiate::not_modified(headers, &etag) {
            return (StatusCode::NOT_MODIFIED, out).into_response();
        }
        out.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(content_type(self.path)),
        );
        if let Some(token) = encoding.token() {
            out.insert(header::CONTENT_ENCODING, HeaderValue::from_static(token));
        }
        (out, Body::from(self.bytes(encoding))).into_response()
    }
}

fn content_type(path: &str) -> &'static str {
    let ext = path.rsplit_once('.').map_or("", |(_, e)| e);
    match ext {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" | "map" => "application/json",
        "webmanifest" => "application/manifest+json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "jpg" | "jpeg" => "image/jpeg",
        "webp" => "image/webp",
        "woff2" => "font/woff2",
        "txt" | "md" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// `web/index.html` (for `/`, `/t/{id}` and `/games/{id}`), always
/// revalidated.
pub(crate) async fn index(headers: HeaderMap) -> Response {
    match Asset::find("index.html") {
        Some(asset) => asset.respond(&headers, false),
        None => (
            [
                (header::CONTENT_TYPE, "text/html; charset=utf-8"),
                (header::CACHE_CONTROL, "no-cache"),
            ],
            PLACEHOLDER,
        )
            .into_response(),
    }
}

/// A page's address with a slash at its end (`/t/{id}/`, `/games/{id}/`):
/// sent on, for good (308), to the page's address without it, the query
/// kept.
pub(crate) async fn without_slash(uri: Uri) -> Response {
    let path = uri.path().trim_end_matches('/');
    let to = match uri.query() {
        Some(query) => format!("{path}?{query}"),
        None => path.to_owned(),
    };
    // A request's path and query are always a valid header value; should
    // one not be, the page is not found rather than the server failing.
    match HeaderValue::try_from(to) {
        Ok(location) => (
            StatusCode::PERMANENT_REDIRECT,
            [(header::LOCATION, location)],
        )
            .into_response(),
        Err(_) => StatusCode::NOT_FOUND.into_response(),
    }
}

/// Any other path: the file of `web/` with that path, or 404; immutable if
/// the query names its current version (`?v=HASH`). A page that does not
/// exist (a path whose last part has no file extension) gets the UI with
/// status 404, so that people see a "not found" page in the UI's own style
/// with a way home; a missing file gets a plain 404.
pub(crate) async fn asset(method: Method, uri: Uri, headers: HeaderMap) -> Response {
    let path = uri.path().trim_start_matches('/');
    let Some(asset) = Asset::find(path) else {
        let is_page = !path.rsplit('/').next().unwrap_or("").contains('.');
        if is_page && (method == Method::GET || method == Method::HEAD) {
            let mut page = index(HeaderMap::new()).await;
            *page.status_mut() = StatusCode::NOT_FOUND;
            return page;
        }
        return (
            StatusCode::NOT_FOUND,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            "not found\n",
        )
            .into_response();
    };
    if method != Method::GET && method != Method::HEAD {
        // As the routes answer it: a JSON error saying what is accepted.
        let refusal = crate::http::method_not_allowed(method).await;
        return (
            [(header::ALLOW, HeaderValue::from_static("GET,HEAD"))],
            refusal,
        )
            .into_response();
    }
    let version = uri
        .query()
        .and_then(|query| query.split('&').find_map(|pair| pair.strip_prefix("v=")));
    asset.respond(&headers, version == Some(asset.hash))
}

/// The Content-Security-Policy: same-origin everything, plus the import map
/// of `index.html` by its hash.
fn csp() -> &'static HeaderValue {
    static CSP: OnceLock<HeaderValue> = OnceLock::new();
    CSP.get_or_init(|| {
        let mut script_src = String::from("'self'");
        if !INLINE_SCRIPT_HASHES.is_empty() {
            script_src = format!("{script_src} {INLINE_SCRIPT_HASHES}");
        }
        let policy = format!(
            "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; \
             style-src 'self'; script-src {script_src}; frame-ancestors 'none'; base-uri 'none'"
        );
        HeaderValue::from_str(&policy).expect("the CSP and base64 hashes are valid header text")
    })
}

/// Adds the security headers to every response.
pub(crate) async fn security_headers(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_SECURITY_POLICY, csp().clone());
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_types_follow_extensions() {
        assert_eq!(content_type("js/app.js"), "text/javascript; charset=utf-8");
        assert_eq!(content_type("favicon.svg"), "image/svg+xml");
        assert_eq!(content_type("README"), "application/octet-stream");
    }

    #[test]
    fn assets_are_sorted_for_binary_search() {
        assert!(ASSETS.windows(2).all(|w| w[0].path < w[1].path));
        for asset in ASSETS {
            assert_eq!(Asset::find(asset.path).map(|a| a.path), Some(asset.path));
        }
        assert!(Asset::find("no/such/file").is_none());
    }

    #[test]
    fn compressed_encodings_are_smaller_and_only_for_text() {
        for asset in ASSETS {
            for bytes in [asset.gzip, asset.br].into_iter().flatten() {
                assert!(bytes.len() < asset.identity.len(), "{}", asset.path);
                assert!(
                    content_type(asset.path).starts_with("text/")
                        || content_type(asset.path).ends_with("json")
                        || asset.path.ends_with(".svg"),
                    "{}",
                    asset.path
                );
            }
        }
    }

    #[test]
    fn the_csp_allows_the_import_map_and_nothing_else_inline() {
        let csp = csp().to_str().expect("ASCII");
        assert!(csp.contains("script-src 'self'"), "{csp}");
        assert!(!csp.contains("unsafe-inline"), "{csp}");
        if Asset::find("index.html")
            .is_some_and(|a| a.identity.windows(9).any(|w| w == b"importmap"))
        {
            assert!(csp.contains("'sha256-"), "{csp}");
        }
    }
}
