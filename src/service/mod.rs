//! The gRPC server: the `stipula.v1.ProblemSolver` service, gRPC health and server reflection.
//!
//! `serve` binds an address and runs until `shutdown` resolves; `serve_with_listener` runs on an
//! already bound listener (tests bind `127.0.0.1:0`); `shutdown_signal` resolves on SIGINT or
//! SIGTERM. At shutdown the health status turns NOT_SERVING, new solves are refused with
//! UNAVAILABLE and running ones are cancelled.

mod deadline;
mod solver;
mod stats;

use std::fmt;
use std::future::Future;
use std::net::SocketAddr;

use tokio::net::TcpListener;
use tokio_stream::wrappers::TcpListenerStream;
use tokio_stream::StreamExt;

pub use solver::{SolverService, PROGRESS_INTERVAL};
pub use stats::ServerStats;

use crate::proto::v1::problem_solver_server::ProblemSolverServer;

/// Default listen address.
pub const DEFAULT_ADDR: &str = "127.0.0.1:50051";

/// How the server is set up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServeConfig {
    /// Address to listen on.
    pub addr: SocketAddr,
    /// Bound on the transposition table shared by all solves (entries).
    pub tt_entries: usize,
    /// Solves allowed to run at once; more are refused with RESOURCE_EXHAUSTED (at least 1).
    pub max_concurrent_solves: usize,
}

impl Default for ServeConfig {
    /// `127.0.0.1:50051`, the default table size, one solve per core.
    fn default() -> ServeConfig {
        ServeConfig {
            addr: DEFAULT_ADDR.parse().expect("valid default address"),
            tt_entries: crate::solve::tt::DEFAULT_ENTRIES,
            max_concurrent_solves: std::thread::available_parallelism().map_or(1, |n| n.get()),
        }
    }
}

/// Why the server could not start or stopped with an error.
#[derive(Debug)]
pub enum ServeError {
    /// The address could not be bound.
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    /// Building the reflection service failed (a bad descriptor set).
    Reflection(tonic_reflection::server::Error),
    /// The transport failed.
    Transport(tonic::transport::Error),
}

impl fmt::Display for ServeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServeError::Bind { addr, source } => write!(f, "cannot listen on {addr}: {source}"),
            ServeError::Reflection(e) => write!(f, "cannot build the reflection service: {e}"),
            ServeError::Transport(e) => write!(f, "gRPC transport error: {e}"),
        }
    }
}

impl std::error::Error for ServeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ServeError::Bind { source, .. } => Some(source),
            ServeError::Reflection(e) => Some(e),
            ServeError::Transport(e) => Some(e),
        }
    }
}

/// Binds `config.addr` and serves until `shutdown` resolves.
pub async fn serve(
    config: ServeConfig,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(), ServeError> {
    let listener = TcpListener::bind(config.addr)
        .await
        .map_err(|source| ServeError::Bind {
            addr: config.addr,
            source,
        })?;
    let service = SolverService::new(config.tt_entries, config.max_concurrent_solves);
    serve_with_listener(listener, service, shutdown).await
}

/// Serves `service` (with health and reflection) on an already bound listener until `shutdown`
/// resolves. Keep `service.stats()` first to watch the server.
pub async fn serve_with_listener(
    listener: TcpListener,
    service: SolverService,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(), ServeError> {
    let local = listener.local_addr().ok();
    let stats = service.stats();

    let (health, health_service) = tonic_health::server::health_reporter();
    health
        .set_serving::<ProblemSolverServer<SolverService>>()
        .await;

    let reflection_v1 = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(crate::proto::v1::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1()
        .map_err(ServeError::Reflection)?;
    let reflection_v1alpha = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(crate::proto::v1::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1alpha()
        .map_err(ServeError::Reflection)?;

    let incoming = TcpListenerStream::new(listener).map(|conn| {
        conn.inspect(|stream| {
            let _ = stream.set_nodelay(true);
        })
    });
    let shutdown = async move {
        shutdown.await;
        tracing::info!("shutting down: cancelling running solves");
        health
            .set_not_serving::<ProblemSolverServer<SolverService>>()
            .await;
        stats.shared.begin_shutdown();
    };

    if let Some(addr) = local {
        tracing::info!(%addr, "stipula gRPC server listening");
    }
    tonic::transport::Server::builder()
        .add_service(health_service)
        .add_service(reflection_v1)
        .add_service(reflection_v1alpha)
        .add_service(service.into_server())
        .serve_with_incoming_shutdown(incoming, shutdown)
        .await
        .map_err(ServeError::Transport)?;
    tracing::info!("server stopped");
    Ok(())
}

/// Resolves when the process receives SIGINT (Ctrl-C) or, on Unix, SIGTERM.
pub async fn shutdown_signal() {
    let interrupt = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => tracing::info!("SIGINT received"),
        () = terminate => tracing::info!("SIGTERM received"),
    }
}
