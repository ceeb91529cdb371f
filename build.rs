//! Compiles `proto/druids/v1/*.proto` without `protoc`: protox parses the files
//! into a descriptor set, tonic-prost-build generates messages, client and server
//! from it, and the encoded set is kept for gRPC server reflection.

use std::path::PathBuf;

use prost::Message;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    const FILES: [&str; 3] = [
        "proto/druids/v1/druids.proto",
        "proto/druids/v1/meduris.proto",
        "proto/druids/v1/dolmen.proto",
    ];
    println!("cargo:rerun-if-changed=proto");
    let fds = protox::compile(FILES, ["proto"])?;
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(out.join("druids_descriptor.bin"), fds.encode_to_vec())?;
    tonic_prost_build::configure().compile_fds(fds)?;
    Ok(())
}
