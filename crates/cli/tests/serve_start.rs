//! Starting and stopping `oxo serve`: a stop request that comes as soon as
//! the server has said where it listens is honoured cleanly.

mod common;

use common::{TempDir, start, stop};

#[tokio::test]
async fn sigterm_right_after_the_listening_line_stops_cleanly() {
    let dir = TempDir::new("early-stop");
    for _ in 0..3 {
        let (server, _) = start(&dir.join("oxo.db"), &[], None).await;
        // No pause: the signal handler must already be in place.
        stop(server).await;
    }
}
