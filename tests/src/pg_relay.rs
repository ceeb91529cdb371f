//! PostgreSQL out of reach, as a network fault makes it: [`PgRelay`] is a TCP
//! relay in front of a real PostgreSQL, through which a store (in the test
//! process, or a `druids-server` given the relay's URL) reaches it.
//!
//! * [`PgRelay::cut_off`] ends every connection and refuses new ones (a
//!   database outage, as the server sees it) until [`PgRelay::restore`].
//! * A connection lost just after a write committed: the worst moment for a
//!   client that retries, because it cannot tell whether its write went
//!   through. The relay reads the server's protocol messages; once armed
//!   ([`PgRelay::arm`]), when a statement whose command tag starts with a
//!   given word (`UPDATE`, `INSERT`) has completed and its transaction ended
//!   (`ReadyForQuery`), it runs a hook (what another node does meanwhile) and
//!   then closes the connection without passing the answer on. Every other
//!   connection, and every later one, is relayed unchanged.
//!
//! A relay accepts until the test process ends.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

/// What runs between the commit and the cut.
type Hook = Box<dyn FnOnce() + Send>;

/// The relay.
pub struct PgRelay {
    /// The database's URL through the relay.
    url: String,
    armed: Arc<Mutex<Option<(String, Hook)>>>,
    /// The client side of every connection relayed, and whether the
    /// database is out of reach.
    links: Arc<Mutex<Links>>,
}

#[derive(Default)]
struct Links {
    open: Vec<TcpStream>,
    down: bool,
}

impl PgRelay {
    /// A relay to the database at `url` (a `postgres://…@127.0.0.1:PORT/db`
    /// URL, as [`crate::postgres::PgCluster::database`] makes).
    pub fn new(url: &str) -> PgRelay {
        let (head, db) = url.rsplit_once('/').expect("a database URL");
        let (host, pg_port) = head.rsplit_once(':').expect("a port");
        let pg_port: u16 = pg_port.parse().expect("a port");
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the relay");
        let port = listener.local_addr().unwrap().port();
        let armed: Arc<Mutex<Option<(String, Hook)>>> = Arc::default();
        let shared = Arc::clone(&armed);
        let links: Arc<Mutex<Links>> = Arc::default();
        let known = Arc::clone(&links);
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { return };
                let mut links = known.lock().unwrap();
                if links.down {
                    let _ = client.shutdown(Shutdown::Both);
                    continue;
                }
                let Ok(server) = TcpStream::connect(("127.0.0.1", pg_port)) else {
                    continue;
                };
                links.open.push(client.try_clone().unwrap());
                relay(client, server, Arc::clone(&shared));
            }
        });
        PgRelay {
            url: format!("{host}:{port}/{db}"),
            armed,
            links,
        }
    }

    /// Ends every relayed connection and refuses new ones until
    /// [`PgRelay::restore`].
    pub fn cut_off(&self) {
        let mut links = self.links.lock().unwrap();
        links.down = true;
        for link in links.open.drain(..) {
            let _ = link.shutdown(Shutdown::Both);
        }
    }

    /// Relays new connections again.
    pub fn restore(&self) {
        self.links.lock().unwrap().down = false;
    }

    /// The database's URL through this relay.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Cuts the next connection whose statement completes with a tag starting
    /// with `tag`, after its commit and `hook`.
    pub fn arm(&self, tag: &str, hook: impl FnOnce() + Send + 'static) {
        *self.armed.lock().unwrap() = Some((tag.to_owned(), Box::new(hook)));
    }

    /// Whether the armed cut has happened.
    pub fn fired(&self) -> bool {
        self.armed.lock().unwrap().is_none()
    }
}

/// Relays one connection: bytes from the client as they come, the server's
/// messages one by one (watched for the armed cut).
fn relay(client: TcpStream, server: TcpStream, armed: Arc<Mutex<Option<(String, Hook)>>>) {
    let (mut c_in, mut s_out) = (client.try_clone().unwrap(), server.try_clone().unwrap());
    std::thread::spawn(move || {
        let _ = std::io::copy(&mut c_in, &mut s_out);
        let _ = s_out.shutdown(Shutdown::Write);
    });
    std::thread::spawn(move || {
        let (mut s_in, mut c_out) = (server, client);
        let mut matched = false;
        // The first bytes may answer an SSLRequest ('N', one byte) if the
        // client sent one; tokio-postgres without TLS sends none.
        while let Some((kind, message)) = read_message(&mut s_in) {
            match kind {
                b'C' => {
                    let tag = String::from_utf8_lossy(&message[5..]);
                    matched = armed
                        .lock()
                        .unwrap()
                        .as_ref()
                        .is_some_and(|(want, _)| tag.starts_with(want.as_str()));
                }
                b'Z' if matched => {
                    if let Some((_, hook)) = armed.lock().unwrap().take() {
                        hook();
                        let _ = c_out.shutdown(Shutdown::Both);
                        let _ = s_in.shutdown(Shutdown::Both);
                        return;
                    }
                }
                _ => {}
            }
            if c_out.write_all(&message).is_err() {
                break;
            }
        }
        let _ = c_out.shutdown(Shutdown::Both);
    });
}

/// One backend message (type byte, length, body), whole, with its type.
fn read_message(from: &mut TcpStream) -> Option<(u8, Vec<u8>)> {
    let mut head = [0u8; 5];
    from.read_exact(&mut head).ok()?;
    let len = u32::from_be_bytes(head[1..5].try_into().unwrap()) as usize;
    let mut message = head.to_vec();
    message.resize(1 + len, 0);
    from.read_exact(&mut message[5..]).ok()?;
    Some((head[0], message))
}
