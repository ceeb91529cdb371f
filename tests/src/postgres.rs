//! A private PostgreSQL for the tests of the PostgreSQL store: one cluster per
//! test binary ([`PgCluster::shared`]), one database per test
//! ([`PgCluster::database`]), so tests run in parallel against it.
//!
//! The cluster is real: Debian's binaries (`/usr/lib/postgresql/<version>/bin`,
//! or `initdb` on the `PATH`, or `DRUIDS_PG_BIN`), installed with
//! `apt-get install postgresql` when missing and the tests run as root;
//! otherwise the tests fail saying what to install. They never skip.
//! PostgreSQL refuses to run as root, so as root the cluster belongs to a
//! system user, `druids-pg`, created if needed. It listens on a free
//! 127.0.0.1 port with `fsync` on, lives in a temporary folder, and is stopped
//! and removed when the test process exits; clusters left by killed runs are
//! stopped and removed by the next run.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

/// The system user that owns clusters started as root.
const PG_USER: &str = "druids-pg";
/// Folders of clusters are `<temp>/druids-pg-<pid>`.
const DIR_PREFIX: &str = "druids-pg-";

/// A running PostgreSQL cluster.
pub struct PgCluster {
    bin: PathBuf,
    dir: PathBuf,
    port: u16,
    /// Run the server's programs as this user (`None`: as ourselves).
    user: Option<&'static str>,
}

static SHARED: OnceLock<PgCluster> = OnceLock::new();
static NEXT_DB: AtomicU32 = AtomicU32::new(0);

impl PgCluster {
    /// The cluster of this test binary, started on first use and stopped
    /// when the process exits.
    pub fn shared() -> &'static PgCluster {
        SHARED.get_or_init(|| {
            let cluster = PgCluster::start();
            extern "C" fn stop_shared() {
                if let Some(c) = SHARED.get() {
                    c.stop();
                }
            }
            unsafe extern "C" {
                fn atexit(callback: extern "C" fn()) -> std::ffi::c_int;
            }
            // SAFETY: registers a plain function with the C runtime.
            unsafe { atexit(stop_shared) };
            cluster
        })
    }

    /// Starts a new cluster in a temporary folder (panics if it cannot).
    /// Dropping it stops it and removes the folder.
    pub fn start() -> PgCluster {
        let bin = binaries();
        remove_leftovers();
        let user = is_root().then(|| {
            ensure_user();
            PG_USER
        });
        let dir = std::env::temp_dir().join(format!(
            "{DIR_PREFIX}{}-{}",
            std::process::id(),
            NEXT_DB.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create the cluster's folder");
        if let Some(user) = user {
            run(Command::new("chown").arg(user).arg(&dir), "chown");
        }
        let mut cluster = PgCluster {
            bin,
            dir,
            port: 0,
            user,
        };
        let data = cluster.dir.join("data");
        cluster.run_as(
            "initdb",
            &[
                "-D".as_ref(),
                data.as_os_str(),
                "-U".as_ref(),
                "postgres".as_ref(),
                "--auth=trust".as_ref(),
                "--encoding=UTF8".as_ref(),
                "--locale=C".as_ref(),
            ],
        );
        // A port can be taken between finding it free and binding it: try a few.
        for attempt in 0..5 {
            cluster.port = free_port();
            let options = format!(
                "-p {} -c listen_addresses=127.0.0.1 -k {} -c fsync=on -c max_connections=200 \
                 -c shared_buffers=16MB -c dynamic_shared_memory_type=mmap",
                cluster.port,
                cluster.dir.display()
            );
            let log = cluster.dir.join("log");
            let started = cluster.try_run_as(
                "pg_ctl",
                &[
                    "-D".as_ref(),
                    data.as_os_str(),
                    "-l".as_ref(),
                    log.as_os_str(),
                    "-o".as_ref(),
                    options.as_ref(),
                    "-w".as_ref(),
                    "start".as_ref(),
                ],
            );
            if started.status.success() {
                return cluster;
            }
            if attempt == 4 {
                let log = std::fs::read_to_string(&log).unwrap_or_default();
                panic!(
                    "PostgreSQL did not start: {}\n{log}",
                    String::from_utf8_lossy(&started.stderr)
                );
            }
        }
        unreachable!()
    }

    /// A new, empty database; its connection URL.
    pub fn database(&self, name: &str) -> String {
        let db = format!(
            "druids_{}_{}_{}",
            std::process::id(),
            NEXT_DB.fetch_add(1, Ordering::Relaxed),
            name.replace(|c: char| !c.is_ascii_alphanumeric(), "_")
        );
        self.sql("postgres", &format!("CREATE DATABASE {db}"));
        self.url(&db)
    }

    /// The connection URL of database `db`.
    pub fn url(&self, db: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{db}", self.port)
    }

    /// Runs `sql` in database `db` (panics if it fails); its output.
    pub fn sql(&self, db: &str, sql: &str) -> String {
        let out = Command::new(self.bin.join("psql"))
            .args(["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1"])
            .args(["-h", "127.0.0.1", "-U", "postgres"])
            .arg("-p")
            .arg(self.port.to_string())
            .args(["-d", db, "-c", sql])
            .output()
            .expect("run psql");
        assert!(
            out.status.success(),
            "psql {sql:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    /// Database name of a URL made by [`PgCluster::database`].
    pub fn db_name(url: &str) -> &str {
        url.rsplit('/').next().unwrap_or(url)
    }

    /// Ends every connection to database `db` but ours (the store reconnects).
    pub fn disconnect_all(&self, db: &str) {
        self.sql(
            "postgres",
            &format!(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity \
                 WHERE datname = '{db}' AND pid <> pg_backend_pid()"
            ),
        );
    }

    /// Stops the cluster now and removes its folder.
    pub fn stop(&self) {
        let data = self.dir.join("data");
        let _ = self.try_run_as(
            "pg_ctl",
            &[
                "-D".as_ref(),
                data.as_os_str(),
                "-m".as_ref(),
                "immediate".as_ref(),
                "-w".as_ref(),
                "stop".as_ref(),
            ],
        );
        let _ = std::fs::remove_dir_all(&self.dir);
    }

    fn try_run_as(&self, program: &str, args: &[&std::ffi::OsStr]) -> Output {
        let program = self.bin.join(program);
        let mut cmd = match self.user {
            Some(user) => {
                let mut c = Command::new("runuser");
                c.args(["-u", user, "--"]).arg(program);
                c
            }
            None => Command::new(program),
        };
        // Not the test's folder: the server user may not be allowed in it.
        cmd.current_dir(&self.dir).args(args);
        cmd.output().expect("run a PostgreSQL program")
    }

    fn run_as(&self, program: &str, args: &[&std::ffi::OsStr]) {
        let out = self.try_run_as(program, args);
        assert!(
            out.status.success(),
            "{program} failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

impl Drop for PgCluster {
    fn drop(&mut self) {
        self.stop();
    }
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

fn run(cmd: &mut Command, what: &str) -> Output {
    let out = cmd.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The folder of `initdb`, `pg_ctl` and `psql`, installing them if missing.
fn binaries() -> PathBuf {
    if let Some(bin) = find_binaries() {
        return bin;
    }
    if !is_root() {
        panic!(
            "the PostgreSQL tests need PostgreSQL's server programs (initdb, pg_ctl): \
             install Debian's `postgresql` package (apt-get install postgresql), \
             or set DRUIDS_PG_BIN to the folder holding them"
        );
    }
    assert!(
        crate::install::apt_install("postgresql", false, || find_binaries().is_some()),
        "apt-get install postgresql failed (or installed no initdb)"
    );
    find_binaries().expect("postgresql is installed")
}

fn find_binaries() -> Option<PathBuf> {
    let has = |dir: &Path| dir.join("initdb").is_file() && dir.join("pg_ctl").is_file();
    if let Some(dir) = std::env::var_os("DRUIDS_PG_BIN").map(PathBuf::from) {
        return has(&dir).then_some(dir);
    }
    // Debian: /usr/lib/postgresql/<version>/bin, the newest first.
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let version = e.file_name().to_str()?.parse().ok()?;
            Some((version, e.path().join("bin")))
        })
        .filter(|(_, dir)| has(dir))
        .collect();
    versions.sort();
    if let Some((_, dir)) = versions.pop() {
        return Some(dir);
    }
    std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .find(|dir| has(dir) && dir.join("psql").is_file())
}

/// Creates the system user that owns clusters started as root.
fn ensure_user() {
    let exists = Command::new("id")
        .arg(PG_USER)
        .output()
        .is_ok_and(|o| o.status.success());
    if !exists {
        // Another test binary may create it at the same moment: check again.
        let made = Command::new("useradd")
            .args([
                "--system",
                "--no-create-home",
                "--shell",
                "/usr/sbin/nologin",
            ])
            .arg(PG_USER)
            .output();
        let exists = Command::new("id")
            .arg(PG_USER)
            .output()
            .is_ok_and(|o| o.status.success());
        assert!(exists, "cannot create the user {PG_USER}: {made:?}");
    }
}

/// Stops and removes the clusters of test processes that are gone.
fn remove_leftovers() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(DIR_PREFIX)) else {
            continue;
        };
        let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        if pid == std::process::id() || Path::new(&format!("/proc/{pid}")).exists() {
            continue;
        }
        let dir = entry.path();
        let pidfile = dir.join("data/postmaster.pid");
        let postmaster = std::fs::read_to_string(&pidfile)
            .ok()
            .and_then(|s| s.lines().next().and_then(|l| l.trim().parse::<u32>().ok()));
        if let Some(postmaster) = postmaster {
            // Only if that pid is still a postgres (pids are reused): stopping
            // the postmaster ends its children.
            let cmdline = std::fs::read(format!("/proc/{postmaster}/cmdline")).unwrap_or_default();
            if String::from_utf8_lossy(&cmdline).contains("postgres") {
                let _ = Command::new("kill")
                    .args(["-QUIT", &postmaster.to_string()])
                    .status();
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// A port on 127.0.0.1 that nothing listens on right now.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("find a free port")
}
