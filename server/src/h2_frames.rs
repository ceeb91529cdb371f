//! Just enough of HTTP/2's framing (RFC 9113 §4.1) to follow which streams
//! of one connection are still open, for the `STREAM_END_GOAWAY_UNPROCESSED`
//! fault of a test plan: a GOAWAY whose last stream id is below every call
//! still open on the connection. h2 (under hyper) chooses the last stream id
//! of its own GOAWAY frames and has no call for a lower one, so the armed
//! connection ([`crate::transport`]) writes that frame itself, between two
//! of h2's frames, and needs to know where frames begin and which streams
//! are open. Only the 9-byte frame headers are read: header blocks (HPACK)
//! are never decoded, and every byte passes through unchanged.

use std::collections::BTreeMap;

/// The client's connection preface ("PRI * HTTP/2.0…"), before its frames.
const PREFACE_LEN: usize = 24;
const HEADER_LEN: usize = 9;

const DATA: u8 = 0x0;
const HEADERS: u8 = 0x1;
const RST_STREAM: u8 = 0x3;
const GOAWAY: u8 = 0x7;
/// The END_STREAM flag of DATA and HEADERS frames.
const END_STREAM: u8 = 0x1;

/// One frame's header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Header {
    len: usize,
    kind: u8,
    flags: u8,
    stream: u32,
}

impl Header {
    fn parse(b: &[u8; HEADER_LEN]) -> Header {
        Header {
            len: usize::from(b[0]) << 16 | usize::from(b[1]) << 8 | usize::from(b[2]),
            kind: b[3],
            flags: b[4],
            stream: u32::from_be_bytes([b[5], b[6], b[7], b[8]]) & 0x7fff_ffff,
        }
    }

    fn ends_stream(&self) -> bool {
        matches!(self.kind, DATA | HEADERS) && self.flags & END_STREAM != 0
    }
}

/// One direction of a connection, cut into frames as its bytes go by.
#[derive(Debug)]
struct Frames {
    /// Bytes to pass before the next frame header (a preface, or the rest
    /// of a frame's payload).
    skip: usize,
    head: [u8; HEADER_LEN],
    /// Bytes of the next header seen so far.
    have: usize,
}

impl Frames {
    fn new(preface: usize) -> Frames {
        Frames {
            skip: preface,
            head: [0; HEADER_LEN],
            have: 0,
        }
    }

    /// Follows `bytes`, calling `on` with each frame header completed.
    fn feed(&mut self, mut bytes: &[u8], mut on: impl FnMut(Header)) {
        while !bytes.is_empty() {
            if self.skip > 0 {
                let n = self.skip.min(bytes.len());
                self.skip -= n;
                bytes = &bytes[n..];
                continue;
            }
            let n = (HEADER_LEN - self.have).min(bytes.len());
            self.head[self.have..self.have + n].copy_from_slice(&bytes[..n]);
            self.have += n;
            bytes = &bytes[n..];
            if self.have == HEADER_LEN {
                self.have = 0;
                let header = Header::parse(&self.head);
                self.skip = header.len;
                on(header);
            }
        }
    }

    /// Whether the bytes so far end exactly between two frames.
    fn at_boundary(&self) -> bool {
        self.skip == 0 && self.have == 0
    }

    /// How many bytes may pass before the next place where a frame could
    /// end (never 0).
    fn to_next_step(&self) -> usize {
        if self.have > 0 {
            HEADER_LEN - self.have
        } else if self.skip > 0 {
            self.skip
        } else {
            HEADER_LEN
        }
    }
}

/// Which side of a stream has ended.
#[derive(Clone, Copy, Debug, Default)]
struct Halves {
    client_done: bool,
    server_done: bool,
}

/// The streams of one server-side connection, followed from the bytes it
/// reads and writes.
#[derive(Debug)]
pub struct Streams {
    read: Frames,
    written: Frames,
    open: BTreeMap<u32, Halves>,
    /// The highest stream id the client opened.
    highest: u32,
}

impl Default for Streams {
    fn default() -> Streams {
        Streams {
            read: Frames::new(PREFACE_LEN),
            written: Frames::new(0),
            open: BTreeMap::new(),
            highest: 0,
        }
    }
}

impl Streams {
    /// Follows bytes the server read from the client.
    pub fn read(&mut self, bytes: &[u8]) {
        let Streams {
            read,
            open,
            highest,
            ..
        } = self;
        read.feed(bytes, |h| {
            if h.stream == 0 {
                return;
            }
            if h.kind == HEADERS && h.stream > *highest && h.stream % 2 == 1 {
                *highest = h.stream;
                open.insert(h.stream, Halves::default());
            }
            if h.kind == RST_STREAM {
                open.remove(&h.stream);
            } else if h.ends_stream() {
                close_half(open, h.stream, |s| &mut s.client_done);
            }
        });
    }

    /// Follows bytes the server wrote to the client.
    pub fn written(&mut self, bytes: &[u8]) {
        let Streams { written, open, .. } = self;
        written.feed(bytes, |h| {
            if h.kind == RST_STREAM {
                open.remove(&h.stream);
            } else if h.ends_stream() {
                close_half(open, h.stream, |s| &mut s.server_done);
            }
        });
    }

    /// Whether what the server wrote so far ends between two frames, so a
    /// frame of its own may go next.
    pub fn write_boundary(&self) -> bool {
        self.written.at_boundary()
    }

    /// How many more bytes of the server's may be written before the next
    /// place a frame of its own could go.
    pub fn written_to_next_step(&self) -> usize {
        self.written.to_next_step()
    }

    /// The last stream id for a GOAWAY that reports every open stream as
    /// not processed: just below the lowest open one (or the highest the
    /// client opened, if none is open).
    pub fn below_open(&self) -> u32 {
        match self.open.keys().next() {
            Some(&lowest) => lowest.saturating_sub(2),
            None => self.highest,
        }
    }
}

fn close_half(open: &mut BTreeMap<u32, Halves>, stream: u32, half: fn(&mut Halves) -> &mut bool) {
    if let Some(s) = open.get_mut(&stream) {
        *half(s) = true;
        if s.client_done && s.server_done {
            open.remove(&stream);
        }
    }
}

/// A GOAWAY frame with `last_stream` and NO_ERROR.
pub fn goaway(last_stream: u32) -> [u8; 17] {
    let mut frame = [0u8; 17];
    frame[2] = 8;
    frame[3] = GOAWAY;
    frame[9..13].copy_from_slice(&(last_stream & 0x7fff_ffff).to_be_bytes());
    frame
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(kind: u8, flags: u8, stream: u32, payload: usize) -> Vec<u8> {
        let mut f = vec![0, (payload >> 8) as u8, payload as u8, kind, flags];
        f.extend_from_slice(&stream.to_be_bytes());
        f.extend(std::iter::repeat_n(0xAB, payload));
        f
    }

    fn client(frames: &[Vec<u8>]) -> Vec<u8> {
        let mut bytes = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec();
        for f in frames {
            bytes.extend_from_slice(f);
        }
        bytes
    }

    #[test]
    fn streams_open_on_headers_and_close_when_both_sides_end() {
        let mut s = Streams::default();
        let read = client(&[
            frame(0x4, 0, 0, 6), // SETTINGS
            frame(HEADERS, 0x4, 1, 30),
            frame(DATA, END_STREAM, 1, 12),
            frame(HEADERS, 0x4, 3, 20),
            frame(DATA, END_STREAM, 3, 12),
        ]);
        // Byte by byte: frames split anywhere are followed the same.
        for b in &read {
            s.read(std::slice::from_ref(b));
        }
        assert_eq!(s.below_open(), 0, "stream 1 open");
        let mut out = frame(HEADERS, 0x4, 1, 10);
        out.extend(frame(DATA, 0, 1, 40));
        out.extend(frame(HEADERS, 0x4 | END_STREAM, 1, 8)); // trailers
        s.written(&out[..15]);
        assert!(!s.write_boundary());
        assert_eq!(s.written_to_next_step(), 4);
        s.written(&out[15..]);
        assert!(s.write_boundary());
        assert_eq!(s.below_open(), 1, "stream 3 is the lowest open");
        s.written(&frame(RST_STREAM, 0, 3, 4));
        assert_eq!(s.below_open(), 3, "none open: the highest opened");
    }

    #[test]
    fn a_client_reset_closes_its_stream() {
        let mut s = Streams::default();
        s.read(&client(&[
            frame(HEADERS, 0x4, 5, 10),
            frame(HEADERS, 0x4, 7, 10),
            frame(RST_STREAM, 0, 5, 4),
        ]));
        assert_eq!(s.below_open(), 5);
    }

    #[test]
    fn the_goaway_frame_is_well_formed() {
        let f = goaway(0x8000_0007);
        let mut b = [0u8; HEADER_LEN];
        b.copy_from_slice(&f[..HEADER_LEN]);
        assert_eq!(
            Header::parse(&b),
            Header {
                len: 8,
                kind: GOAWAY,
                flags: 0,
                stream: 0
            }
        );
        assert_eq!(&f[9..13], &[0, 0, 0, 7]);
        assert_eq!(&f[13..], &[0, 0, 0, 0], "NO_ERROR");
    }
}
