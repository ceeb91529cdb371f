//! Requests as raw bytes on the wire: a codec that sends and receives a
//! message's encoding untouched, so tests can put malformed bodies, or
//! messages built by reflection from the descriptors, on a real call.

use tonic::transport::Channel;
use tonic::{Request, Status};

/// A codec that sends raw bytes and receives them.
#[derive(Default)]
pub struct RawCodec;

/// Encodes raw bytes as they are.
pub struct RawEncoder;
/// Decodes a message into its raw bytes.
pub struct RawDecoder;

impl tonic::codec::Codec for RawCodec {
    type Encode = Vec<u8>;
    type Decode = Vec<u8>;
    type Encoder = RawEncoder;
    type Decoder = RawDecoder;
    fn encoder(&mut self) -> RawEncoder {
        RawEncoder
    }
    fn decoder(&mut self) -> RawDecoder {
        RawDecoder
    }
}

impl tonic::codec::Encoder for RawEncoder {
    type Item = Vec<u8>;
    type Error = Status;
    fn encode(
        &mut self,
        item: Vec<u8>,
        dst: &mut tonic::codec::EncodeBuf<'_>,
    ) -> Result<(), Status> {
        use bytes::BufMut;
        dst.put_slice(&item);
        Ok(())
    }
}

impl tonic::codec::Decoder for RawDecoder {
    type Item = Vec<u8>;
    type Error = Status;
    fn decode(&mut self, src: &mut tonic::codec::DecodeBuf<'_>) -> Result<Option<Vec<u8>>, Status> {
        use bytes::Buf;
        let mut out = vec![0; src.remaining()];
        src.copy_to_slice(&mut out);
        Ok(Some(out))
    }
}

/// A gRPC client over `url` that sends raw bodies.
pub async fn client(url: &str) -> tonic::client::Grpc<Channel> {
    let channel = Channel::from_shared(url.to_owned())
        .expect("a URL")
        .connect()
        .await
        .expect("connect");
    tonic::client::Grpc::new(channel)
}

/// Calls unary `path` (`/druids.v1.DruidsService/GetState`) with `request`.
pub async fn unary(
    grpc: &mut tonic::client::Grpc<Channel>,
    path: &str,
    request: Request<Vec<u8>>,
) -> Result<Vec<u8>, Status> {
    grpc.ready()
        .await
        .map_err(|e| Status::unavailable(e.to_string()))?;
    grpc.unary(request, path.parse().expect("a path"), RawCodec)
        .await
        .map(|r| r.into_inner())
}

/// Opens server-streaming `path` with `request`: Ok once the server answered
/// the call with its headers (the stream is then dropped).
pub async fn open_stream(
    grpc: &mut tonic::client::Grpc<Channel>,
    path: &str,
    request: Request<Vec<u8>>,
) -> Result<(), Status> {
    grpc.ready()
        .await
        .map_err(|e| Status::unavailable(e.to_string()))?;
    grpc.server_streaming(request, path.parse().expect("a path"), RawCodec)
        .await
        .map(|_| ())
}

/// `message` as one length-prefixed message of the gRPC over HTTP/2 spec:
/// the compressed flag, the length, the bytes.
pub fn framed(compressed: bool, message: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(5 + message.len());
    out.push(u8::from(compressed));
    out.extend_from_slice(&(message.len() as u32).to_be_bytes());
    out.extend_from_slice(message);
    out
}
