//! The protobuf codec of the generated service and client: prost's, except
//! that a body that does not decode (garbage bytes, invalid UTF-8 in a
//! string, a wrong wire type, nesting too deep) is `INVALID_ARGUMENT` — the
//! client sent a malformed request — rather than prost's `INTERNAL`, which
//! would blame the server.

use prost::Message;
use tonic::Status;
use tonic::codec::{BufferSettings, Codec, DecodeBuf, Decoder};
use tonic_prost::{ProstCodec, ProstDecoder, ProstEncoder};

/// [`ProstCodec`] with malformed bodies refused as `INVALID_ARGUMENT`.
#[derive(Debug, Default, Clone, Copy)]
pub struct StrictCodec<T, U>(std::marker::PhantomData<(T, U)>);

impl<T, U> Codec for StrictCodec<T, U>
where
    T: Message + Send + 'static,
    U: Message + Default + Send + 'static,
{
    type Encode = T;
    type Decode = U;
    type Encoder = ProstEncoder<T>;
    type Decoder = StrictDecoder<U>;

    fn encoder(&mut self) -> Self::Encoder {
        ProstCodec::<T, U>::default().encoder()
    }

    fn decoder(&mut self) -> Self::Decoder {
        StrictDecoder(ProstCodec::<T, U>::default().decoder())
    }
}

/// Decodes like prost, and calls a body that does not decode malformed.
#[derive(Debug)]
pub struct StrictDecoder<U>(ProstDecoder<U>);

impl<U: Message + Default> Decoder for StrictDecoder<U> {
    type Item = U;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<U>, Status> {
        self.0.decode(buf).map_err(|status| {
            Status::invalid_argument(format!(
                "the message is not a valid protobuf encoding of its type: {}",
                status.message()
            ))
        })
    }

    fn buffer_settings(&self) -> BufferSettings {
        self.0.buffer_settings()
    }
}
