//! The `stipula.v1.ProblemSolver` gRPC service: a thin layer mapping requests to the library and
//! its results and errors back to messages and status codes.

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, OwnedSemaphorePermit, Semaphore};
use tokio::task::{JoinError, JoinHandle};
use tokio::time::{Instant, MissedTickBehavior};
use tokio_stream::wrappers::ReceiverStream;
use tonic::metadata::MetadataMap;
use tonic::{Request, Response, Status};
use tracing::{field, Instrument, Span};

use super::deadline;
use super::stats::{ServerStats, Shared};
use crate::chess::{self, Setup};
use crate::problem::SolveOptions;
use crate::proto::v1 as pb;
use crate::proto::v1::problem_solver_server::{ProblemSolver, ProblemSolverServer};
use crate::render::proto as render;
use crate::solve::{Problem, ProblemError, SearchControl, SolutionTree, Solver, StopReason};

/// How often a streamed solve reports progress.
pub const PROGRESS_INTERVAL: Duration = Duration::from_millis(250);

/// The service: one solver (one transposition table) for every request, and a bound on the
/// number of solves running at once.
pub struct SolverService {
    solver: Arc<Solver>,
    permits: Arc<Semaphore>,
    max_concurrent_solves: usize,
    shared: Arc<Shared>,
    next_request: AtomicU64,
}

impl SolverService {
    /// A service whose transposition table holds at most `tt_entries` entries and which runs at
    /// most `max_concurrent_solves` solves at once (at least one).
    pub fn new(tt_entries: usize, max_concurrent_solves: usize) -> SolverService {
        let max = max_concurrent_solves.max(1);
        let solver = Solver::new(tt_entries);
        // A request's threads default to one per core: their helpers are started now, not
        // by the first request that shares its search out.
        solver.start_helpers(0);
        SolverService {
            solver: Arc::new(solver),
            permits: Arc::new(Semaphore::new(max)),
            max_concurrent_solves: max,
            shared: Arc::default(),
            next_request: AtomicU64::new(1),
        }
    }

    /// A handle on the server's counters; stays valid after the service is moved into a server.
    pub fn stats(&self) -> ServerStats {
        ServerStats {
            shared: self.shared.clone(),
        }
    }

    /// The tonic server for this service.
    pub fn into_server(self) -> ProblemSolverServer<SolverService> {
        ProblemSolverServer::new(self)
    }

    /// The client's `x-request-id`, or a server-assigned number.
    fn request_id(&self, metadata: &MetadataMap) -> String {
        metadata
            .get("x-request-id")
            .and_then(|v| v.to_str().ok())
            .filter(|s| !s.is_empty() && s.len() <= 128)
            .map(str::to_owned)
            .unwrap_or_else(|| self.next_request.fetch_add(1, Relaxed).to_string())
    }

    /// Checks a solve request and starts its search on a blocking thread.
    fn start(
        &self,
        req: &pb::SolveRequest,
        rpc_timeout: Option<Duration>,
    ) -> Result<Running, Status> {
        if self.shared.is_shutting_down() {
            return Err(Status::unavailable("the server is shutting down"));
        }
        let problem = Problem::parse(&req.fen, &req.stipulation).map_err(problem_status)?;
        let mut options: SolveOptions = render::solve_options(req.options.as_ref());

        // The call deadline (a little early, see `with_margin`) and the requested time limit:
        // the search stops at whichever comes first.
        let rpc_limit = rpc_timeout.map(deadline::with_margin);
        let rpc_binds = match (rpc_limit, options.time_limit) {
            (Some(rpc), Some(own)) => rpc <= own,
            (Some(_), None) => true,
            (None, _) => false,
        };
        if rpc_binds {
            options.time_limit = rpc_limit;
        }

        let Ok(permit) = self.permits.clone().try_acquire_owned() else {
            self.shared.reject();
            return Err(Status::resource_exhausted(format!(
                "the server is busy: {0} of {0} solves running; retry later",
                self.max_concurrent_solves
            )));
        };

        let control = Arc::new(SearchControl::new(options.node_budget, options.time_limit));
        let started = Instant::now();
        let rpc_deadline = rpc_limit.map(|d| started + d);
        let active = ActiveSolve {
            id: self.shared.begin(control.clone()),
            shared: self.shared.clone(),
            _permit: permit,
        };
        let solver = self.solver.clone();
        let worker_control = control.clone();
        let span = Span::current();
        let handle = tokio::task::spawn_blocking(move || {
            let _enter = span.enter();
            let _active = active;
            solver.solve(&problem, &options, &worker_control)
        });
        Ok(Running {
            guard: CancelOnDrop(Some(control.clone())),
            control,
            handle,
            rpc_deadline,
            rpc_binds,
            started,
            shared: self.shared.clone(),
        })
    }
}

/// Marks a solve as running until its search thread ends (even by a panic); holds its permit.
struct ActiveSolve {
    id: u64,
    shared: Arc<Shared>,
    _permit: OwnedSemaphorePermit,
}

impl Drop for ActiveSolve {
    fn drop(&mut self) {
        self.shared.end(self.id);
    }
}

/// Cancels the search when the request goes away (its future or stream task is dropped) before
/// the search has ended.
struct CancelOnDrop(Option<Arc<SearchControl>>);

impl CancelOnDrop {
    fn disarm(&mut self) {
        self.0 = None;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(control) = self.0.take() {
            if !control.is_stopped() {
                tracing::debug!("client went away: cancelling the search");
            }
            control.cancel();
        }
    }
}

/// A solve in progress.
struct Running {
    control: Arc<SearchControl>,
    handle: JoinHandle<Result<SolutionTree, ProblemError>>,
    guard: CancelOnDrop,
    /// When the server gives up on the call's deadline.
    rpc_deadline: Option<Instant>,
    /// Whether the call's deadline, rather than `time_limit_ms`, is the search's time limit.
    rpc_binds: bool,
    started: Instant,
    shared: Arc<Shared>,
}

/// How waiting for a search ended.
// One short-lived value per call: boxing the tree would buy nothing.
#[allow(clippy::large_enum_variant)]
enum Waited {
    Done(Result<Result<SolutionTree, ProblemError>, JoinError>),
    /// The call's deadline passed before the search ended (the search has been told to stop).
    DeadlineExpired,
}

impl Running {
    /// Sleeps until the call's deadline (forever without one).
    fn rpc_deadline(&self) -> impl Future<Output = ()> + use<> {
        let deadline = self.rpc_deadline;
        async move {
            match deadline {
                Some(d) => tokio::time::sleep_until(d).await,
                None => std::future::pending().await,
            }
        }
    }

    fn deadline_expired(&self) -> Waited {
        self.control.stop_with(StopReason::Deadline);
        Waited::DeadlineExpired
    }

    /// Waits for the search to end or the call's deadline to pass.
    async fn wait(&mut self) -> Waited {
        let expiry = self.rpc_deadline();
        tokio::select! {
            r = &mut self.handle => Waited::Done(r),
            () = expiry => self.deadline_expired(),
        }
    }

    fn progress(&self) -> pb::SolveEvent {
        pb::SolveEvent {
            event: Some(pb::solve_event::Event::Progress(render::solve_progress(
                &self.control.progress(),
            ))),
        }
    }

    /// The answer to the call, and logs the outcome on the request's span.
    fn finish(&mut self, waited: Waited) -> Result<pb::SolveResponse, Status> {
        self.guard.disarm();
        let nodes = self.control.nodes();
        let elapsed_ms = self.started.elapsed().as_millis() as u64;
        let stopped =
            || format!("the proof was not complete after {elapsed_ms} ms and {nodes} nodes");
        let result = match waited {
            Waited::DeadlineExpired => Err(Status::deadline_exceeded(format!(
                "deadline exceeded: {}",
                stopped()
            ))),
            Waited::Done(Err(e)) => {
                tracing::error!(error = %e, "solver task failed");
                Err(Status::internal("the solver failed on this problem"))
            }
            Waited::Done(Ok(Err(e))) => Err(problem_status(e)),
            Waited::Done(Ok(Ok(tree))) => {
                match tree.stop_reason.or_else(|| self.control.stop_reason()) {
                    Some(StopReason::Deadline) if self.rpc_binds => Err(Status::deadline_exceeded(
                        format!("deadline exceeded: {}", stopped()),
                    )),
                    Some(StopReason::Cancelled) if self.shared.is_shutting_down() => Err(
                        Status::unavailable(format!("the server is shutting down: {}", stopped())),
                    ),
                    Some(StopReason::Cancelled) => {
                        Err(Status::cancelled(format!("cancelled: {}", stopped())))
                    }
                    _ => Ok(render::solve_response(&tree)),
                }
            }
        };
        let span = Span::current();
        span.record("nodes", nodes);
        span.record("elapsed_ms", elapsed_ms);
        match &result {
            Ok(r) => {
                span.record("outcome", r.verdict().as_str_name());
                tracing::info!("solve finished");
            }
            Err(s) => {
                span.record("outcome", field::debug(s.code()));
                tracing::info!(reason = s.message(), "solve failed");
            }
        }
        result
    }
}

/// The status for a problem that cannot be solved as asked.
fn problem_status(e: ProblemError) -> Status {
    match e {
        ProblemError::Unsupported(_) => Status::unimplemented(e.to_string()),
        ProblemError::Position(_) | ProblemError::Stipulation(_) => {
            Status::invalid_argument(e.to_string())
        }
    }
}

fn solve_span(rpc: &'static str, request_id: &str, req: &pb::SolveRequest) -> Span {
    tracing::info_span!(
        "request",
        rpc,
        %request_id,
        stipulation = %req.stipulation,
        fen = %req.fen,
        nodes = field::Empty,
        elapsed_ms = field::Empty,
        outcome = field::Empty,
    )
}

/// Logs a request refused before its search started.
fn refused(status: Status) -> Status {
    let span = Span::current();
    span.record("outcome", field::debug(status.code()));
    tracing::info!(reason = status.message(), "solve refused");
    status
}

#[tonic::async_trait]
impl ProblemSolver for SolverService {
    async fn solve(
        &self,
        request: Request<pb::SolveRequest>,
    ) -> Result<Response<pb::SolveResponse>, Status> {
        let rpc_timeout = deadline::grpc_timeout(request.metadata());
        let request_id = self.request_id(request.metadata());
        let req = request.into_inner();
        let span = solve_span("Solve", &request_id, &req);
        async move {
            let mut running = self.start(&req, rpc_timeout).map_err(refused)?;
            let waited = running.wait().await;
            running.finish(waited).map(Response::new)
        }
        .instrument(span)
        .await
    }

    type SolveStreamStream = ReceiverStream<Result<pb::SolveEvent, Status>>;

    async fn solve_stream(
        &self,
        request: Request<pb::SolveRequest>,
    ) -> Result<Response<Self::SolveStreamStream>, Status> {
        let rpc_timeout = deadline::grpc_timeout(request.metadata());
        let request_id = self.request_id(request.metadata());
        let req = request.into_inner();
        let span = solve_span("SolveStream", &request_id, &req);
        let running = span.in_scope(|| self.start(&req, rpc_timeout).map_err(refused))?;
        let (tx, rx) = mpsc::channel(8);
        tokio::spawn(stream_events(running, tx).instrument(span));
        Ok(Response::new(ReceiverStream::new(rx)))
    }

    async fn validate(
        &self,
        request: Request<pb::ValidateRequest>,
    ) -> Result<Response<pb::ValidateResponse>, Status> {
        let request_id = self.request_id(request.metadata());
        let req = request.into_inner();
        let span = tracing::info_span!("request", rpc = "Validate", %request_id, fen = %req.fen);
        let _enter = span.enter();
        let setup = Setup::from_fen(&req.fen).map_err(|e| {
            tracing::info!(error = %e, "validate refused");
            Status::invalid_argument(e.to_string())
        })?;
        let report = chess::validate(&setup);
        tracing::info!(legal = report.is_legal(), "validated");
        Ok(Response::new(render::validate_response(&report)))
    }
}

/// Feeds a streamed solve: a progress event at once and every `PROGRESS_INTERVAL`, then the
/// result (or the error status) as the last item. Returning early — the client closed the
/// stream — drops `running`, which cancels the search.
async fn stream_events(mut running: Running, tx: mpsc::Sender<Result<pb::SolveEvent, Status>>) {
    let mut ticker =
        tokio::time::interval_at(Instant::now() + PROGRESS_INTERVAL, PROGRESS_INTERVAL);
    ticker.set_missed_tick_behavior(MissedTickBehavior::Delay);
    if tx.send(Ok(running.progress())).await.is_err() {
        return;
    }
    let expiry = running.rpc_deadline();
    tokio::pin!(expiry);
    let waited = loop {
        tokio::select! {
            r = &mut running.handle => break Waited::Done(r),
            () = &mut expiry => break running.deadline_expired(),
            () = tx.closed() => return,
            _ = ticker.tick() => {
                // Progress is best effort: a client slow to read skips snapshots.
                if let Err(mpsc::error::TrySendError::Closed(_)) = tx.try_send(Ok(running.progress())) {
                    return;
                }
            }
        }
    };
    let last = running.finish(waited).map(|r| pb::SolveEvent {
        event: Some(pb::solve_event::Event::Result(r)),
    });
    let _ = tx.send(last).await;
}
