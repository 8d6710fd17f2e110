//! The gRPC service end to end: a server on an ephemeral port, driven by the generated client.
//!
//! Tests that solve need the direct-play solver (`#2`, and a long `#6` that the deadline,
//! budget, concurrency and cancellation tests stop early).

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio_stream::StreamExt;
use tonic::transport::Channel;
use tonic::{Code, Request};

use stipula::proto::v1 as pb;
use stipula::proto::v1::problem_solver_client::ProblemSolverClient;
use stipula::service::{serve_with_listener, ServeError, ServerStats, SolverService};

/// Mate in two with two keys: 1.Ka6-b6 and the short mate 1.Se8-c7#.
const MATE_IN_TWO: &str = "k3N3/P7/K6p/8/8/8/8/8 w - - 0 1";
/// The game array: no mate in eight, and minutes to prove it (#6 now takes 0.4 s on 2 threads).
const LONG_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const LONG_STIP: &str = "#8";

/// The timing tests need the two cores to themselves: run one test at a time.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

struct TestServer {
    addr: SocketAddr,
    stats: ServerStats,
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<Result<(), ServeError>>,
}

impl TestServer {
    async fn start(max_concurrent_solves: usize) -> TestServer {
        // Request logs show with the output of a failing test (RUST_LOG overrides the filter).
        let _ = tracing_subscriber::fmt()
            .with_env_filter(
                tracing_subscriber::EnvFilter::try_from_default_env()
                    .unwrap_or_else(|_| "stipula::service=info".into()),
            )
            .with_test_writer()
            .try_init();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let service = SolverService::new(1 << 16, max_concurrent_solves);
        let stats = service.stats();
        let (stop, stopped) = oneshot::channel();
        let task = tokio::spawn(serve_with_listener(listener, service, async {
            let _ = stopped.await;
        }));
        TestServer {
            addr,
            stats,
            stop: Some(stop),
            task,
        }
    }

    fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    async fn client(&self) -> ProblemSolverClient<Channel> {
        ProblemSolverClient::connect(self.url()).await.unwrap()
    }

    async fn channel(&self) -> Channel {
        Channel::from_shared(self.url())
            .unwrap()
            .connect()
            .await
            .unwrap()
    }

    async fn shutdown(mut self) {
        let _ = self.stop.take().unwrap().send(());
        tokio::time::timeout(Duration::from_secs(5), self.task)
            .await
            .expect("server stops within 5 s")
            .unwrap()
            .unwrap();
    }

    /// Waits (up to `limit`) until no search is running; panics otherwise.
    async fn wait_idle(&self, limit: Duration) {
        let t0 = Instant::now();
        while self.stats.active_solves() > 0 {
            assert!(
                t0.elapsed() < limit,
                "a search still runs {limit:?} after it should have stopped"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Waits (up to 5 s) until `n` searches are running.
    async fn wait_active(&self, n: usize) {
        let t0 = Instant::now();
        while self.stats.active_solves() != n {
            assert!(t0.elapsed() < Duration::from_secs(5), "no search started");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    /// Asserts the server's node counter no longer moves.
    async fn assert_nodes_frozen(&self) {
        let before = self.stats.nodes();
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(
            self.stats.nodes(),
            before,
            "nodes still being searched after the solve ended"
        );
    }
}

fn request(fen: &str, stipulation: &str) -> pb::SolveRequest {
    pb::SolveRequest {
        fen: fen.into(),
        stipulation: stipulation.into(),
        options: None,
    }
}

fn long_request(options: pb::SolveOptions) -> pb::SolveRequest {
    pb::SolveRequest {
        options: Some(options),
        ..request(LONG_FEN, LONG_STIP)
    }
}

/// A move reduced as ../shared/tools/agree.py compares them: check / mate signs dropped.
fn norm(long: &str) -> String {
    long.trim_end_matches(['+', '#']).to_string()
}

fn keys(r: &pb::SolveResponse) -> BTreeSet<String> {
    r.solutions
        .iter()
        .map(|n| norm(&n.r#move.as_ref().expect("every node has a move").long))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn solve_mate_in_two() {
    let _serial = SERIAL.lock().await;
    let server = TestServer::start(2).await;
    let mut client = server.client().await;
    let r = client
        .solve(request(MATE_IN_TWO, "#2"))
        .await
        .expect("#2 solves")
        .into_inner();
    assert_eq!(
        keys(&r),
        BTreeSet::from(["Ka6-b6".to_string(), "Se8-c7".to_string()]),
        "{r:#?}"
    );
    assert!(
        !matches!(
            r.verdict(),
            pb::Verdict::NoSolution | pb::Verdict::Cancelled | pb::Verdict::Unspecified
        ),
        "{r:#?}"
    );
    assert_eq!(r.stop_reason(), pb::StopReason::Unspecified);
    assert_eq!(r.stipulation, "#2");
    assert!(r.fen.starts_with("k3N3/P7/K6p/8/8/8/8/8 w"), "{}", r.fen);
    for key in &r.solutions {
        assert_eq!(key.role(), pb::NodeRole::Key);
        assert_eq!(key.move_number, 1);
    }
    let mate = r
        .solutions
        .iter()
        .find(|n| n.r#move.as_ref().unwrap().uci == "e8c7")
        .expect("Se8-c7 is a key");
    assert!(mate.mate && mate.check, "{mate:?}");
    assert!(r.stats.as_ref().unwrap().nodes > 0);
    assert!(server.stats.nodes() > 0);
    assert_eq!(server.stats.solves_finished(), 1);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn solve_stream_sends_progress_then_the_result() {
    let _serial = SERIAL.lock().await;
    let server = TestServer::start(2).await;
    let mut client = server.client().await;

    // A quick solve: at least one progress event, then the result, then the end.
    let mut stream = client
        .solve_stream(request(MATE_IN_TWO, "#2"))
        .await
        .unwrap()
        .into_inner();
    let mut events = Vec::new();
    while let Some(e) = stream.next().await {
        events.push(e.expect("no error in the stream").event.expect("event set"));
    }
    assert!(events.len() >= 2, "{events:?}");
    assert!(matches!(events[0], pb::solve_event::Event::Progress(_)));
    let Some(pb::solve_event::Event::Result(r)) = events.last() else {
        panic!("the last event is the result: {events:?}");
    };
    assert_eq!(keys(r).len(), 2, "{r:?}");
    let results = events
        .iter()
        .filter(|e| matches!(e, pb::solve_event::Event::Result(_)))
        .count();
    assert_eq!(results, 1);

    // A long solve with a time limit: progress every ~250 ms, then a partial result.
    let t0 = Instant::now();
    let mut stream = client
        .solve_stream(long_request(pb::SolveOptions {
            time_limit_ms: 1100,
            ..Default::default()
        }))
        .await
        .unwrap()
        .into_inner();
    let mut progress = Vec::new();
    let mut result = None;
    while let Some(e) = stream.next().await {
        match e.unwrap().event.unwrap() {
            pb::solve_event::Event::Progress(p) => {
                assert!(result.is_none(), "progress after the result");
                progress.push((t0.elapsed(), p));
            }
            pb::solve_event::Event::Result(r) => result = Some(r),
        }
    }
    let r = result.expect("a result at the end");
    assert_eq!(r.verdict(), pb::Verdict::Cancelled, "{r:?}");
    assert_eq!(r.stop_reason(), pb::StopReason::Deadline);
    assert!(progress.len() >= 4, "{progress:?}");
    for pair in progress.windows(2) {
        assert!(pair[1].1.nodes >= pair[0].1.nodes, "nodes never decrease");
        assert!(
            pair[1].0 - pair[0].0 < Duration::from_secs(1),
            "progress at least once a second: {progress:?}"
        );
    }
    assert!(progress.last().unwrap().1.nodes > 0);
    server.wait_idle(Duration::from_secs(1)).await;
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn validate_legal_and_illegal() {
    let _serial = SERIAL.lock().await;
    let server = TestServer::start(1).await;
    let mut client = server.client().await;

    let ok = client
        .validate(pb::ValidateRequest {
            fen: "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1".into(),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(ok.legal, "{ok:?}");
    assert!(ok.problems.is_empty());
    assert_eq!(ok.castling, "KQkq");
    assert_eq!(ok.en_passant, "-");

    let bad = client
        .validate(pb::ValidateRequest {
            fen: "8/8/8/8/8/8/8/K7 w - - 0 1".into(),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(!bad.legal);
    let codes: Vec<&str> = bad.problems.iter().map(|p| p.code.as_str()).collect();
    assert!(codes.contains(&"KING_COUNT"), "{bad:?}");
    assert!(bad.problems.iter().all(|p| !p.message.is_empty()));

    let err = client
        .validate(pb::ValidateRequest {
            fen: "not a fen".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_are_invalid_arguments() {
    let _serial = SERIAL.lock().await;
    let server = TestServer::start(1).await;
    let mut client = server.client().await;
    for (fen, stip, needle) in [
        ("k7/8/8/8/8/8/8/K7 w - - 0 1 extra junk here", "#2", "FEN"),
        ("k7/9/8/8/8/8/8/K7 w - - 0 1", "#2", "FEN"),
        ("8/8/8/8/8/8/8/K7 w - - 0 1", "#2", "illegal"),
        (MATE_IN_TWO, "x#2", "stipulation"),
        (MATE_IN_TWO, "#99", "limit"),
    ] {
        for stream in [false, true] {
            let err = if stream {
                client.solve_stream(request(fen, stip)).await.map(|_| ())
            } else {
                client.solve(request(fen, stip)).await.map(|_| ())
            }
            .expect_err(fen);
            assert_eq!(err.code(), Code::InvalidArgument, "{fen} {stip}: {err:?}");
            assert!(
                err.message().contains(needle),
                "{fen} {stip}: the message names the problem: {}",
                err.message()
            );
        }
    }
    assert_eq!(server.stats.solves_started(), 0);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unsupported_stipulations_are_unimplemented() {
    let _serial = SERIAL.lock().await;
    let server = TestServer::start(1).await;
    let mut client = server.client().await;
    // Stipulations composers use that this solver does not solve: UNIMPLEMENTED, naming them;
    // nonsense is INVALID_ARGUMENT instead.
    let fen = "k7/8/1K6/8/8/8/8/7R b - - 0 1";
    for (stip, what) in [
        ("hs#2", "help-selfplay"),
        ("pser-h#2", "parry series"),
        ("h==2", "double stalemate"),
    ] {
        let e = client.solve(request(fen, stip)).await.unwrap_err();
        assert_eq!(e.code(), Code::Unimplemented, "{stip}: {e:?}");
        assert!(
            e.message().contains(stip) && e.message().contains(what),
            "{e:?}"
        );
    }
    let e = client.solve(request(fen, "hq#2")).await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e:?}");
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn busy_server_refuses_and_client_cancel_stops_the_search() {
    let _serial = SERIAL.lock().await;
    let server = TestServer::start(1).await;
    let mut first = server.client().await;
    let running = tokio::spawn(async move { first.solve(long_request(Default::default())).await });
    server.wait_active(1).await;

    let mut second = server.client().await;
    let err = second.solve(request(MATE_IN_TWO, "#2")).await.unwrap_err();
    assert_eq!(err.code(), Code::ResourceExhausted, "{err:?}");
    let err = second
        .solve_stream(request(MATE_IN_TWO, "#2"))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::ResourceExhausted, "{err:?}");
    assert_eq!(server.stats.solves_rejected(), 2);

    // The first client goes away: its search stops, and the slot is free again.
    running.abort();
    let _ = running.await;
    server.wait_idle(Duration::from_secs(1)).await;
    assert!(server.stats.nodes() > 0);
    server.assert_nodes_frozen().await;
    second
        .solve(request(MATE_IN_TWO, "#2"))
        .await
        .expect("the slot is free again");
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deadline_stops_the_search() {
    let _serial = SERIAL.lock().await;
    let server = TestServer::start(2).await;
    let mut client = server.client().await;
    let mut req = Request::new(long_request(Default::default()));
    req.set_timeout(Duration::from_millis(100));
    let t0 = Instant::now();
    let err = client.solve(req).await.unwrap_err();
    let took = t0.elapsed();
    assert_eq!(err.code(), Code::DeadlineExceeded, "{err:?}");
    assert!(took < Duration::from_millis(300), "answered after {took:?}");
    server.wait_idle(Duration::from_millis(500)).await;
    assert!(server.stats.nodes() > 0);
    server.assert_nodes_frozen().await;

    // The same through the stream: the last item is the DEADLINE_EXCEEDED status.
    let mut req = Request::new(long_request(Default::default()));
    req.set_timeout(Duration::from_millis(300));
    let t0 = Instant::now();
    let mut stream = client.solve_stream(req).await.unwrap().into_inner();
    let mut last = None;
    while let Some(item) = stream.next().await {
        last = Some(item);
    }
    let err = last.expect("an item").unwrap_err();
    assert_eq!(err.code(), Code::DeadlineExceeded, "{err:?}");
    assert!(t0.elapsed() < Duration::from_millis(600));
    server.wait_idle(Duration::from_millis(500)).await;
    server.assert_nodes_frozen().await;
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn node_budget_gives_a_partial_result() {
    let _serial = SERIAL.lock().await;
    let server = TestServer::start(1).await;
    let mut client = server.client().await;
    let r = client
        .solve(long_request(pb::SolveOptions {
            node_budget: 20_000,
            ..Default::default()
        }))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(r.verdict(), pb::Verdict::Cancelled, "{r:?}");
    assert_eq!(r.stop_reason(), pb::StopReason::NodeBudget);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_the_stream_cancels_the_search() {
    let _serial = SERIAL.lock().await;
    let server = TestServer::start(1).await;
    let mut client = server.client().await;
    let mut stream = client
        .solve_stream(long_request(Default::default()))
        .await
        .unwrap()
        .into_inner();
    let first = stream.next().await.unwrap().unwrap();
    assert!(matches!(
        first.event,
        Some(pb::solve_event::Event::Progress(_))
    ));
    server.wait_active(1).await;
    drop(stream);
    server.wait_idle(Duration::from_secs(1)).await;
    server.assert_nodes_frozen().await;
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_cancels_running_solves() {
    let _serial = SERIAL.lock().await;
    let server = TestServer::start(1).await;
    let mut client = server.client().await;
    let running = tokio::spawn(async move { client.solve(long_request(Default::default())).await });
    server.wait_active(1).await;
    let stats = server.stats.clone();
    let t0 = Instant::now();
    server.shutdown().await;
    assert!(t0.elapsed() < Duration::from_secs(2));
    assert!(stats.shutting_down());
    let err = running.await.unwrap().unwrap_err();
    assert_eq!(err.code(), Code::Unavailable, "{err:?}");
    assert_eq!(stats.active_solves(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_reports_serving() {
    use tonic_health::pb::health_check_response::ServingStatus;
    use tonic_health::pb::health_client::HealthClient;
    use tonic_health::pb::HealthCheckRequest;

    let _serial = SERIAL.lock().await;
    let server = TestServer::start(1).await;
    let mut health = HealthClient::new(server.channel().await);
    for service in ["", "stipula.v1.ProblemSolver"] {
        let r = health
            .check(HealthCheckRequest {
                service: service.into(),
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(r.status(), ServingStatus::Serving, "{service:?}");
    }
    let err = health
        .check(HealthCheckRequest {
            service: "no.such.Service".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::NotFound);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reflection_lists_and_describes_the_services() {
    use tonic_reflection::pb::{v1, v1alpha};

    let _serial = SERIAL.lock().await;
    let server = TestServer::start(1).await;
    let channel = server.channel().await;

    // v1: list the services, then fetch the file declaring ProblemSolver.
    let mut client = v1::server_reflection_client::ServerReflectionClient::new(channel.clone());
    let requests = [
        v1::server_reflection_request::MessageRequest::ListServices(String::new()),
        v1::server_reflection_request::MessageRequest::FileContainingSymbol(
            "stipula.v1.ProblemSolver".into(),
        ),
        v1::server_reflection_request::MessageRequest::FileContainingSymbol(
            "grpc.health.v1.Health".into(),
        ),
    ]
    .map(|m| v1::ServerReflectionRequest {
        host: String::new(),
        message_request: Some(m),
    });
    let mut responses = client
        .server_reflection_info(tokio_stream::iter(requests))
        .await
        .unwrap()
        .into_inner();
    let mut answers = Vec::new();
    while let Some(r) = responses.next().await {
        answers.push(r.unwrap().message_response.unwrap());
    }
    assert_eq!(answers.len(), 3);
    let v1::server_reflection_response::MessageResponse::ListServicesResponse(list) = &answers[0]
    else {
        panic!("{:?}", answers[0]);
    };
    let names: BTreeSet<&str> = list.service.iter().map(|s| s.name.as_str()).collect();
    for want in [
        "stipula.v1.ProblemSolver",
        "grpc.health.v1.Health",
        "grpc.reflection.v1.ServerReflection",
    ] {
        assert!(names.contains(want), "{want} in {names:?}");
    }
    for answer in &answers[1..] {
        let v1::server_reflection_response::MessageResponse::FileDescriptorResponse(files) = answer
        else {
            panic!("{answer:?}");
        };
        assert!(!files.file_descriptor_proto.is_empty());
    }

    // v1alpha, as older grpcurl versions use.
    let mut client = v1alpha::server_reflection_client::ServerReflectionClient::new(channel);
    let request = v1alpha::ServerReflectionRequest {
        host: String::new(),
        message_request: Some(
            v1alpha::server_reflection_request::MessageRequest::ListServices(String::new()),
        ),
    };
    let mut responses = client
        .server_reflection_info(tokio_stream::once(request))
        .await
        .unwrap()
        .into_inner();
    let answer = responses.next().await.unwrap().unwrap();
    let Some(v1alpha::server_reflection_response::MessageResponse::ListServicesResponse(list)) =
        answer.message_response
    else {
        panic!("{answer:?}");
    };
    assert!(list
        .service
        .iter()
        .any(|s| s.name == "stipula.v1.ProblemSolver"));
    server.shutdown().await;
}

/// Every root-to-leaf path of a help-play tree, as `long` texts.
fn lines(nodes: &[pb::SolutionNode]) -> BTreeSet<Vec<String>> {
    let mut out = BTreeSet::new();
    for n in nodes {
        let mv = norm(&n.r#move.as_ref().expect("move").long);
        if n.replies.is_empty() {
            out.insert(vec![mv]);
        } else {
            for mut tail in lines(&n.replies) {
                tail.insert(0, mv.clone());
                out.insert(tail);
            }
        }
    }
    out
}

/// Streams a solve to its end: (progress events seen, final result).
async fn stream_to_result(
    client: &mut pb::problem_solver_client::ProblemSolverClient<tonic::transport::Channel>,
    req: pb::SolveRequest,
) -> (usize, pb::SolveResponse) {
    let mut stream = client.solve_stream(req).await.unwrap().into_inner();
    let (mut progress, mut result) = (0, None);
    while let Some(e) = stream.next().await {
        match e.unwrap().event.unwrap() {
            pb::solve_event::Event::Progress(_) => progress += 1,
            pb::solve_event::Event::Result(r) => result = Some(r),
        }
    }
    (progress, result.expect("a result event"))
}

/// The acceptance check for help and self play over gRPC: an h#3 and an s#3 from the
/// reference corpus, streamed with progress events, give the reference answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn help_and_self_play_stream_with_progress() {
    let _serial = SERIAL.lock().await;
    let server = TestServer::start(2).await;
    let mut client = server.client().await;

    // BEISPIEL castling problem: h#3 with White's 0-0-0 as the first reply.
    let (progress, r) = stream_to_result(
        &mut client,
        request("8/8/8/1nk5/1rp5/6P1/8/R3K3 b Q - 0 1", "h#3"),
    )
    .await;
    assert!(progress >= 1);
    let want: BTreeSet<Vec<String>> = [vec![
        "Kc5-d4", "0-0-0", "Kd4-c3", "Rd1-e1", "Sb5-d4", "Re1-e3",
    ]]
    .iter()
    .map(|l| l.iter().map(|s| s.to_string()).collect())
    .collect();
    assert_eq!(lines(&r.solutions), want);

    // An s#3 whose only key is 1.f5-f6.
    let (progress, r) = stream_to_result(
        &mut client,
        request("2K3nr/1PPpp2p/3R3p/3pNPkP/3P4/3PP2Q/8/3B4 w - - 0 1", "s#3"),
    )
    .await;
    assert!(progress >= 1);
    assert_eq!(keys(&r), BTreeSet::from(["f5-f6".to_string()]));
    assert_eq!(r.verdict, pb::Verdict::Solved as i32);
}
