//! A table driven by arbitrary actions from two players and a spectator,
//! through the real server (session, table actor, in-memory store) without
//! a network, with invariants checked after every step: see
//! `crates/server/tests/common/table_model.rs`, which the stable proptest
//! in `crates/server/tests/server/properties.rs` shares.

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

#[path = "../../crates/server/tests/common/table_model.rs"]
mod table_model;

fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime")
    })
}

fuzz_target!(|data: &[u8]| {
    runtime().block_on(table_model::run(data));
});
