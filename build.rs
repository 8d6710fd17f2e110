//! Generates the gRPC / protobuf code for `proto/stipula/v1` without a system `protoc`:
//! `protox` parses the protos into a descriptor set, `tonic-prost-build` generates the messages,
//! client and server, `pbjson-build` generates the proto3 JSON (serde) impls, and the encoded
//! descriptor set is written to `OUT_DIR` for server reflection.

use std::path::{Path, PathBuf};

use prost::Message;

const PROTO_ROOT: &str = "proto";
const PROTO_FILES: &[&str] = &[
    "proto/stipula/v1/chess.proto",
    "proto/stipula/v1/solve.proto",
    "proto/stipula/v1/solver_service.proto",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed={PROTO_ROOT}");
    for file in PROTO_FILES {
        println!("cargo:rerun-if-changed={file}");
    }
    let out_dir = PathBuf::from(std::env::var("OUT_DIR")?);

    let fds = protox::compile(PROTO_FILES, [PROTO_ROOT])?;
    let encoded = fds.encode_to_vec();
    std::fs::write(descriptor_path(&out_dir), &encoded)?;

    tonic_prost_build::configure()
        .build_server(true)
        .build_client(true)
        .emit_rerun_if_changed(false)
        .out_dir(&out_dir)
        .compile_fds(fds)?;

    pbjson_build::Builder::new()
        .out_dir(&out_dir)
        .register_descriptors(&encoded)?
        .build(&[".stipula.v1"])?;
    Ok(())
}

fn descriptor_path(out_dir: &Path) -> PathBuf {
    out_dir.join("stipula.v1.descriptor.bin")
}
