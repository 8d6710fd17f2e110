//! Generated protobuf / gRPC code for the `stipula.v1` API (see `proto/stipula/v1/`): messages
//! (prost), the `ProblemSolver` client and server (tonic), and proto3 JSON serde impls (pbjson).

/// The `stipula.v1` package.
#[allow(
    clippy::all,
    clippy::pedantic,
    clippy::nursery,
    missing_docs,
    rustdoc::all,
    unused_qualifications
)]
pub mod v1 {
    include!(concat!(env!("OUT_DIR"), "/stipula.v1.rs"));
    include!(concat!(env!("OUT_DIR"), "/stipula.v1.serde.rs"));

    /// The encoded `FileDescriptorSet` of the `stipula.v1` protos (with comments), for server
    /// reflection.
    pub const FILE_DESCRIPTOR_SET: &[u8] =
        include_bytes!(concat!(env!("OUT_DIR"), "/stipula.v1.descriptor.bin"));
}
