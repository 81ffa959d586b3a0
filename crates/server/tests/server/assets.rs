//! The embedded web UI over HTTP: compression by `Accept-Encoding`,
//! ETags and `304`s, immutable versioned URLs, and the page that ties them
//! together with an import map the CSP allows.

use std::io::Read;
use std::path::PathBuf;

use base64::Engine as _;
use sha2::{Digest, Sha256};

use crate::common::{HttpResponse, Server};

const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// A file of `web/` as it is on disk.
fn web(path: &str) -> Vec<u8> {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../web")
        .join(path);
    std::fs::read(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()))
}

/// The JavaScript modules of `web/js`, as paths relative to `web/`.
fn modules() -> Vec<String> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../web/js");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("web/js")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".js"))
        .map(|n| format!("js/{n}"))
        .collect();
    names.sort();
    names
}

fn gunzip(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes)
        .read_to_end(&mut out)
        .expect("valid gzip");
    out
}

fn unbrotli(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    brotli_decompressor::Decompressor::new(bytes, 4096)
        .read_to_end(&mut out)
        .expect("valid brotli");
    out
}

async fn get(server: &Server, path: &str, headers: &[(&str, &str)]) -> HttpResponse {
    server.request("GET", path, headers).await
}

/// The versioned URL that the page gives `path` (`/css/app.css`), e.g.
/// `/css/app.css?v=0123456789`.
fn versioned(page: &str, path: &str) -> String {
    let start = page
        .find(&format!("\"{path}?v="))
        .unwrap_or_else(|| panic!("{path} versioned in {page}"))
        + 1;
    let len = page[start..].find('"').expect("closing quote");
    page[start..start + len].to_owned()
}

#[tokio::test]
async fn text_files_are_served_compressed_as_accepted() {
    let server = Server::start().await;
    let mut files = vec!["css/app.css".to_owned(), "favicon.svg".to_owned()];
    files.extend(modules());
    // (identity, gzip, br) bytes, for app.css and for all the JS.
    let mut css = (0, 0, 0);
    let mut js = (0, 0, 0);
    for file in &files {
        let path = format!("/{file}");
        let plain = get(&server, &path, &[]).await;
        assert_eq!(plain.status, 200, "{path}");
        assert_eq!(plain.body, web(file), "{path}: identity is the file");
        assert_eq!(plain.header("content-encoding"), None, "{path}");
        assert_eq!(plain.header("vary"), Some("accept-encoding"), "{path}");

        let gz = get(&server, &path, &[("Accept-Encoding", "gzip")]).await;
        assert_eq!(gz.status, 200, "{path}");
        assert_eq!(gz.header("content-encoding"), Some("gzip"), "{path}");
        assert_eq!(gz.header("vary"), Some("accept-encoding"), "{path}");
        assert_eq!(gz.header("content-type"), plain.header("content-type"));
        assert_eq!(gunzip(&gz.body), plain.body, "{path}");
        assert!(gz.body.len() < plain.body.len(), "{path}");

        // What a browser sends.
        let br = get(
            &server,
            &path,
            &[("Accept-Encoding", "gzip, deflate, br, zstd")],
        )
        .await;
        assert_eq!(br.status, 200, "{path}");
        assert_eq!(br.header("content-encoding"), Some("br"), "{path}");
        assert_eq!(br.header("vary"), Some("accept-encoding"), "{path}");
        assert_eq!(unbrotli(&br.body), plain.body, "{path}");
        assert!(br.body.len() < plain.body.len(), "{path}");
        assert_eq!(
            br.header("content-length"),
            Some(br.body.len().to_string().as_str()),
            "{path}"
        );

        let sizes = (plain.body.len(), gz.body.len(), br.body.len());
        if file == "css/app.css" {
            css = sizes;
        } else if file.ends_with(".js") {
            js = (js.0 + sizes.0, js.1 + sizes.1, js.2 + sizes.2);
        }
    }
    eprintln!("bytes (identity, gzip, br): app.css {css:?}, all JS {js:?}");

    // q-values: refused, preferred, identity.
    let app = "/css/app.css";
    let enc = |r: &HttpResponse| r.header("content-encoding").map(str::to_owned);
    let refused = get(&server, app, &[("Accept-Encoding", "br;q=0, gzip")]).await;
    assert_eq!(enc(&refused).as_deref(), Some("gzip"));
    let preferred = get(&server, app, &[("Accept-Encoding", "br;q=0.5, gzip;q=0.9")]).await;
    assert_eq!(enc(&preferred).as_deref(), Some("gzip"));
    for accept in ["identity", "deflate", "br;q=0, gzip;q=0", "*;q=0"] {
        let r = get(&server, app, &[("Accept-Encoding", accept)]).await;
        assert_eq!(enc(&r), None, "{accept}");
        assert_eq!(r.body, web("css/app.css"), "{accept}");
    }
    server.stop().await;
}

#[tokio::test]
async fn etags_let_clients_revalidate_with_304() {
    let server = Server::start().await;
    for (path, accept) in [
        ("/css/app.css", "gzip, br"),
        ("/js/net.js", "gzip"),
        ("/js/net.js", "identity"),
        ("/", "gzip, br"),
        ("/t/0123456789abcdef0123456789abcdef", "gzip, br"),
    ] {
        let full = get(&server, path, &[("Accept-Encoding", accept)]).await;
        assert_eq!(full.status, 200, "{path}");
        assert_eq!(full.header("cache-control"), Some("no-cache"), "{path}");
        let etag = full.header("etag").expect("an ETag").to_owned();
        assert!(
            etag.starts_with('"') && etag.ends_with('"'),
            "strong: {etag}"
        );

        let weak = format!("W/{etag}");
        let listed = format!("\"0000000000\", {etag}");
        for tag in [etag.as_str(), weak.as_str(), listed.as_str(), "*"] {
            let r = get(
                &server,
                path,
                &[("Accept-Encoding", accept), ("If-None-Match", tag)],
            )
            .await;
            assert_eq!(r.status, 304, "{path} If-None-Match: {tag}");
            assert!(r.body.is_empty(), "{path}: a 304 has no body");
            assert_eq!(r.header("etag"), Some(etag.as_str()), "{path}");
            assert_eq!(r.header("cache-control"), Some("no-cache"), "{path}");
            assert_eq!(r.header("vary"), Some("accept-encoding"), "{path}");
            let csp = r.header("content-security-policy").expect("CSP on a 304");
            assert!(csp.contains("default-src 'self'"), "{csp}");
            assert_eq!(r.header("x-content-type-options"), Some("nosniff"));
        }

        let stale = get(
            &server,
            path,
            &[
                ("Accept-Encoding", accept),
                ("If-None-Match", "\"0000000000\""),
            ],
        )
        .await;
        assert_eq!(stale.status, 200, "{path}");
        assert_eq!(stale.body, full.body, "{path}");
    }

    // Each encoding is its own representation, with its own ETag.
    let mut tags = Vec::new();
    for accept in ["identity", "gzip", "br"] {
        let r = get(&server, "/css/app.css", &[("Accept-Encoding", accept)]).await;
        tags.push(r.header("etag").expect("an ETag").to_owned());
    }
    let [plain, gz, br] = &tags[..] else {
        unreachable!("three requests")
    };
    assert!(plain != gz && gz != br && plain != br, "{plain} {gz} {br}");
    let r = get(
        &server,
        "/css/app.css",
        &[("Accept-Encoding", "br"), ("If-None-Match", plain)],
    )
    .await;
    assert_eq!(r.status, 200, "the identity ETag does not validate brotli");
    server.stop().await;
}

#[tokio::test]
async fn head_and_other_methods() {
    let server = Server::start().await;
    for path in ["/css/app.css", "/"] {
        let get = server.request("GET", path, &[]).await;
        let head = server.request("HEAD", path, &[]).await;
        assert_eq!(head.status, 200, "{path}");
        assert!(head.body.is_empty(), "{path}: HEAD has no body");
        assert_eq!(
            head.header("content-length"),
            Some(get.body.len().to_string().as_str())
        );
        assert_eq!(head.header("etag"), get.header("etag"));
        assert_eq!(head.header("content-type"), get.header("content-type"));
        let etag = get.header("etag").expect("an ETag");
        let revalidated = server
            .request("HEAD", path, &[("If-None-Match", etag)])
            .await;
        assert_eq!(revalidated.status, 304, "{path}");
    }
    let post = server.request("POST", "/css/app.css", &[]).await;
    assert_eq!(post.status, 405);
    assert_eq!(post.header("allow"), Some("GET,HEAD"));
    assert_eq!(
        server.request("POST", "/no/such/file", &[]).await.status,
        404
    );
    server.stop().await;
}

#[tokio::test]
async fn the_page_refers_to_versioned_urls_that_are_immutable() {
    let server = Server::start().await;
    let page = get(&server, "/", &[]).await;
    assert_eq!(page.header("cache-control"), Some("no-cache"));
    let page = String::from_utf8(page.body).expect("UTF-8");
    for path in ["/css/app.css", "/js/main.js", "/favicon.svg"] {
        let url = versioned(&page, path);
        let hash = url.rsplit_once("?v=").expect("a version").1;
        assert_eq!(hash.len(), 10, "{url}");
        assert!(hash.bytes().all(|b| b.is_ascii_hexdigit()), "{url}");

        let r = get(&server, &url, &[("Accept-Encoding", "br")]).await;
        assert_eq!(r.status, 200, "{url}");
        assert_eq!(r.header("cache-control"), Some(IMMUTABLE), "{url}");
        assert_eq!(r.header("etag"), Some(format!("\"{hash}-br\"").as_str()));
        let plain = get(&server, &url, &[]).await;
        assert_eq!(plain.header("etag"), Some(format!("\"{hash}\"").as_str()));
        assert_eq!(plain.body, web(&path[1..]), "{url}");

        // The plain path and a stale version revalidate.
        let r = get(&server, path, &[]).await;
        assert_eq!(r.header("cache-control"), Some("no-cache"), "{path}");
        let stale = format!("{path}?v=0000000000");
        let r = get(&server, &stale, &[]).await;
        assert_eq!(r.status, 200, "{stale}");
        assert_eq!(r.header("cache-control"), Some("no-cache"), "{stale}");
        assert_eq!(r.body, web(&path[1..]), "{stale}");
    }
    // The page itself revalidates even with a version.
    let r = get(&server, "/?v=0000000000", &[]).await;
    assert_eq!(r.header("cache-control"), Some("no-cache"));
    server.stop().await;
}

#[tokio::test]
async fn an_import_map_versions_every_module_and_the_csp_allows_it() {
    let server = Server::start().await;
    let page = get(&server, "/", &[]).await;
    let csp = page
        .header("content-security-policy")
        .expect("CSP")
        .to_owned();
    let page = String::from_utf8(page.body).expect("UTF-8");

    let open = "<script type=\"importmap\">";
    let start = page.find(open).expect("an import map") + open.len();
    let map = &page[start..start + page[start..].find("</script>").expect("closed")];
    assert!(
        start
            < page
                .find("<script type=\"module\"")
                .expect("the entry module"),
        "the import map comes before the first module"
    );
    let json: serde_json::Value = serde_json::from_str(map).expect("the map is JSON");
    let imports = json["imports"].as_object().expect("imports");
    let modules = modules();
    assert_eq!(imports.len(), modules.len(), "{map}");
    for module in &modules {
        let url = imports[&format!("/{module}")].as_str().expect("a URL");
        assert!(url.starts_with(&format!("/{module}?v=")), "{url}");
        let r = get(&server, url, &[]).await;
        assert_eq!(r.header("cache-control"), Some(IMMUTABLE), "{url}");
        assert_eq!(r.body, web(module), "{url}");
    }

    let digest = base64::engine::general_purpose::STANDARD.encode(Sha256::digest(map));
    let script_src = csp
        .split(';')
        .map(str::trim)
        .find(|d| d.starts_with("script-src "))
        .expect("script-src");
    assert_eq!(script_src, format!("script-src 'self' 'sha256-{digest}'"));
    assert!(!csp.contains("unsafe-inline"), "{csp}");

    // The same page, and the same policy, on every route of the UI.
    for path in ["/t/0123456789abcdef0123456789abcdef", "/games/abc"] {
        let r = get(&server, path, &[]).await;
        assert_eq!(r.status, 200, "{path}");
        assert_eq!(r.header("cache-control"), Some("no-cache"), "{path}");
        assert_eq!(r.header("content-security-policy"), Some(csp.as_str()));
        assert_eq!(String::from_utf8_lossy(&r.body), page, "{path}");
    }
    server.stop().await;
}

#[tokio::test]
async fn the_page_preloads_imported_modules_at_their_versioned_urls() {
    let server = Server::start().await;
    let page = String::from_utf8(get(&server, "/", &[]).await.body).expect("UTF-8");
    let open = "<link rel=\"modulepreload\" href=\"";
    let preloads: Vec<&str> = page
        .match_indices(open)
        .map(|(at, _)| {
            let rest = &page[at + open.len()..];
            &rest[..rest.find('"').expect("closed")]
        })
        .collect();
    // Which ones is e2e/tests/firstload.spec.js's to check, against the
    // browser; here: some, each a current version, none twice, all after
    // the import map.
    assert!(preloads.len() > 1, "{page}");
    let mut unique = preloads.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), preloads.len(), "{preloads:?}");
    assert!(page.find("importmap") < page.find(open), "{page}");
    for url in preloads {
        let module = url.split_once('?').expect("a version").0;
        assert_eq!(versioned(&page, module), url);
        let r = get(&server, url, &[]).await;
        assert_eq!(r.header("cache-control"), Some(IMMUTABLE), "{url}");
    }
    server.stop().await;
}

#[tokio::test]
async fn the_api_is_not_compressed() {
    let server = Server::start().await;
    for path in ["/api/tables", "/healthz", "/metrics"] {
        let r = get(&server, path, &[("Accept-Encoding", "gzip, br")]).await;
        assert_eq!(r.status, 200, "{path}");
        assert_eq!(r.header("content-encoding"), None, "{path}");
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_pages_get_the_ui_with_404_and_missing_files_a_plain_404() {
    let server = Server::start().await;
    let page = get(&server, "/no/such/page", &[]).await;
    assert_eq!(page.status, 404);
    let body = String::from_utf8_lossy(&page.body);
    assert!(
        body.contains("<!doctype html") || body.contains("<!DOCTYPE html"),
        "{body}"
    );
    assert!(
        page.head.to_ascii_lowercase().contains("text/html"),
        "{}",
        page.head
    );
    let file = get(&server, "/js/no-such-module.js", &[]).await;
    assert_eq!(file.status, 404);
    assert!(!String::from_utf8_lossy(&file.body).contains("<html"));
    server.stop().await;
}

/// A page's address with a slash at its end (as some people type or paste
/// it) is sent on to the page, its query kept, rather than answered 404
/// while the page shows.
#[tokio::test]
async fn a_pages_address_with_a_slash_at_its_end_is_sent_on_to_the_page() {
    let server = Server::start().await;
    for (path, to) in [
        ("/games/abc/", "/games/abc"),
        ("/games/abc/?ply=3", "/games/abc?ply=3"),
        (
            "/t/0123456789abcdef0123456789abcdef/",
            "/t/0123456789abcdef0123456789abcdef",
        ),
    ] {
        let r = get(&server, path, &[]).await;
        assert_eq!(r.status, 308, "{path}");
        assert_eq!(r.header("location"), Some(to), "{path}");
    }
    server.stop().await;
}
