//! The bus link's own tests, on a throw-away NATS server (skipped
//! without one).

use super::*;
use crate::bus::testbus::TestBus;

fn header(conn: u64, seq: u64, kind: FrameKind) -> FrameHeader {
    FrameHeader {
        conn,
        owner: 2,
        stream: 9,
        seq,
        kind,
    }
}

/// This node's link on a throw-away bus, and one client's connection.
async fn setup(bus: &TestBus) -> (Link, Conn) {
    let client = async_nats::connect(bus.url.as_str())
        .await
        .expect("connect");
    let link = Link::new(client, 1, Duration::from_secs(1), Arc::default());
    let outbox = Outbox::new(7, 64, 1 << 20);
    let account = Arc::new(Account::new(Arc::from("p1"), [0; 32], Arc::from("Ann")));
    let conn = Conn { outbox, account };
    link.register(&conn);
    (link, conn)
}

#[tokio::test]
async fn frames_pass_in_order_and_a_gap_closes_the_connection() {
    let Some(bus) = TestBus::start() else {
        return;
    };
    let (link, conn) = setup(&bus).await;
    link.deliver(header(7, 1, FrameKind::Event), b"{\"type\":\"table\"}");
    link.deliver(header(7, 2, FrameKind::Event), b"{\"type\":\"chat\"}");
    assert_eq!(
        conn.outbox.try_recv().as_deref(),
        Some("{\"type\":\"table\"}")
    );
    assert_eq!(
        conn.outbox.try_recv().as_deref(),
        Some("{\"type\":\"chat\"}")
    );
    assert!(!conn.outbox.is_closing());
    // Frame 3 never came.
    link.deliver(header(7, 4, FrameKind::Event), b"{\"type\":\"table\"}");
    assert!(conn.outbox.is_closing(), "a gap closes");
    let (code, reason) = conn.outbox.close_frame().expect("a close frame");
    assert_eq!(code, close::TRY_AGAIN);
    assert!(reason.contains("reconnect"), "{reason}");
    assert!(conn.outbox.try_recv().is_none(), "nothing after the gap");
    assert_eq!(link.metrics.bus_gaps.load(Relaxed), 1);
}

#[tokio::test]
async fn a_reply_settles_what_is_owed_and_a_late_one_closes() {
    let Some(bus) = TestBus::start() else {
        return;
    };
    let (link, conn) = setup(&bus).await;
    conn.outbox.owe_reply();
    link.owe(conn.id());
    link.deliver(header(7, 1, FrameKind::Reply), b"{\"type\":\"ok\"}");
    let frame = conn.outbox.try_recv().expect("the reply");
    conn.outbox.taken(frame.len());
    assert!(conn.outbox.settled(), "the reply settles the request");
    link.overdue(Duration::ZERO);
    assert!(!conn.outbox.is_closing(), "nothing owed");

    conn.outbox.owe_reply();
    link.owe(conn.id());
    tokio::time::sleep(Duration::from_millis(5)).await;
    link.overdue(Duration::from_millis(1));
    assert!(conn.outbox.is_closing(), "an overdue reply closes");
}

/// The table's node may send the reply (on the frames' subject) before
/// its answer that it has the request (on the request's inbox): the
/// request is not owed forever then.
#[tokio::test]
async fn a_reply_that_overtakes_the_answer_is_not_owed_for_ever() {
    use futures_util::StreamExt;

    let Some(bus) = TestBus::start() else {
        return;
    };
    let (link, conn) = setup(&bus).await;
    let link = Arc::new(link);
    // Node 2, by hand: the reply first, then, later, the answer.
    let owner = link.client.clone();
    let mut asks = owner.subscribe(wire::tables_subject(2)).await.unwrap();
    tokio::spawn(async move {
        let ask = asks.next().await.expect("a forwarded request");
        let reply = header(7, 1, FrameKind::Reply).encode(b"{\"type\":\"ok\"}");
        owner
            .publish(wire::frames_subject(1), reply.into())
            .await
            .unwrap();
        owner.flush().await.unwrap();
        tokio::time::sleep(Duration::from_millis(100)).await;
        let inbox = ask.reply.expect("an inbox");
        owner
            .publish(inbox, Ack::Queued.to_bytes().into())
            .await
            .unwrap();
    });
    // This node's frames, as `bus::serve_frames` delivers them.
    let mut frames = link
        .client
        .subscribe(wire::frames_subject(1))
        .await
        .unwrap();
    let delivering = Arc::clone(&link);
    tokio::spawn(async move {
        while let Some(msg) = frames.next().await {
            if let Some((header, body)) = FrameHeader::decode(&msg.payload) {
                delivering.deliver(header, body);
            }
        }
    });
    link.client.flush().await.unwrap();

    conn.outbox.owe_reply();
    let request = Box::new(crate::handle::TableRequest {
        conn: conn.clone(),
        id: Some(1),
        req: crate::handle::TableReq::Sync,
        at: Instant::now(),
        spent: None,
    });
    let table = link.table(2, Arc::from("t1"));
    assert!(table.send(TableCmd::Request(request)).await);
    assert_eq!(conn.outbox.try_recv().as_deref(), Some("{\"type\":\"ok\"}"));
    link.overdue(Duration::ZERO);
    assert!(!conn.outbox.is_closing(), "the reply came: nothing is owed");
}

#[tokio::test]
async fn a_table_taken_over_elsewhere_closes_its_remote_clients() {
    let Some(bus) = TestBus::start() else {
        return;
    };
    let (link, conn) = setup(&bus).await;
    let table: Arc<str> = Arc::from("t1");
    link.note_remote(conn.id(), &table, Some(2));
    // Node 2 says it took its own table over: nothing changes.
    link.moved(2, std::slice::from_ref(&table));
    assert!(!conn.outbox.is_closing());
    // Node 3 (or this node) took it over: the client re-syncs.
    link.moved(3, &[table]);
    assert!(conn.outbox.is_closing());
}
