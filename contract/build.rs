//! Compiles every `.proto` file under `proto/` without `protoc`: protox parses
//! them into a descriptor set, tonic-prost-build generates messages, client and
//! server from it, and the encoded set is kept for gRPC server reflection. A new
//! file under `proto/` is picked up with no change here.

use std::path::{Path, PathBuf};

use prost::Message;

/// Every `.proto` file below `dir`, sorted so that builds are reproducible.
fn proto_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            files.extend(proto_files(&path)?);
        } else if path.extension().is_some_and(|e| e == "proto") {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=../proto");
    let files = proto_files(Path::new("../proto"))?;
    let fds = protox::compile(&files, ["../proto"])?;
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(out.join("druids_descriptor.bin"), fds.encode_to_vec())?;
    // Type names (`prost::Name`) let `druids_contract::json` find each message's descriptor.
    let mut config = prost_build::Config::new();
    config.enable_type_names();
    // Malformed request bodies are INVALID_ARGUMENT, not INTERNAL (`druids_contract::wire`).
    tonic_prost_build::configure()
        .codec_path("crate::wire::StrictCodec")
        .compile_fds_with_config(fds, config)?;
    Ok(())
}
