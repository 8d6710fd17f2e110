//! Rendering solver results for the outside world: Popeye's text layout, the protobuf messages of
//! the gRPC API and their proto3 JSON form. Rendering is one-way: it reads `chess`, `problem` and
//! `solve` types and never depends on `service`.

pub mod json;
pub mod popeye;
pub mod proto;
