//! The test helpers for the server's boundary: a throwaway PostgreSQL cluster that the
//! tests of a process share (each test a database of its own on it, copied from one
//! migrated once), the server and its workers as real processes, and HTTP on 127.0.0.1.

// Each test file uses its own part of these.
#![allow(dead_code)]

use std::fs;
use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use sandglass_claim::{
    content_hash, hex, Claim, Identity, KEY_HEADER, PLAYER_HEADER, SIGNATURE_HEADER,
};
use tempfile::TempDir;

pub const BIN: &str = env!("CARGO_BIN_EXE_sandglass-server");

/// PostgreSQL refuses to run as root: under root (as CI runs), the cluster runs as
/// `nobody`, in a directory it owns.
const NOBODY: u32 = 65534;

/// A PostgreSQL cluster in a temporary directory, listening on 127.0.0.1 at a free port;
/// stopped when dropped.
pub struct Postgres {
    bin: PathBuf,
    home: PathBuf,
    as_nobody: bool,
    port: u16,
    _dir: TempDir,
}

/// The database on the shared cluster that the server's migrations are run on once, and
/// that every test's database is copied from.
const TEMPLATE: &str = "migrated_template";

/// The cluster the tests of this process share, and what they need to make databases
/// on it; `None` where PostgreSQL is not installed.
static SHARED: OnceLock<Option<SharedCluster>> = OnceLock::new();

struct SharedCluster {
    cluster: Postgres,
    /// The process that stops the cluster once this one has ended, which a `Drop`
    /// cannot do: a static is never dropped. Its stdin is a pipe nothing writes to,
    /// which the kernel closes as this process ends, however it ends.
    _watchdog: Child,
    /// The number of the next test database.
    databases_made: AtomicU32,
    /// Held while a database is copied from the template. CREATE DATABASE refuses a
    /// template another session is on; copies take turns (each takes tens of
    /// milliseconds) rather than rely on how a PostgreSQL version treats two at once.
    copying: Mutex<()>,
}

impl SharedCluster {
    /// The shared cluster, started (and its template migrated) by the first test that
    /// asks; `None` (said on stderr, for each test) when PostgreSQL is not installed.
    fn get() -> Option<&'static SharedCluster> {
        let shared = SHARED.get_or_init(|| {
            let bin = binaries()?;
            // Every test running at once is on this one cluster, each with a server,
            // workers and perhaps a second server, each process holding up to 17
            // connections: room for dozens of tests at once.
            let cluster = Postgres::start_in(bin, 1000);
            let watchdog = cluster.stop_when_this_process_ends();
            cluster.sql(&format!("CREATE DATABASE {TEMPLATE}"));
            let migrated = Command::new(BIN)
                .args(["migrate", "--database", &cluster.url_of(TEMPLATE)])
                .stdin(Stdio::null())
                .output()
                .unwrap();
            assert!(
                migrated.status.success(),
                "the template did not migrate: {}",
                String::from_utf8_lossy(&migrated.stderr)
            );
            // No test's process can connect to the template by mistake and so keep
            // every other test from copying it.
            cluster.sql(&format!(
                "ALTER DATABASE {TEMPLATE} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false"
            ));
            Some(SharedCluster {
                cluster,
                _watchdog: watchdog,
                databases_made: AtomicU32::new(0),
                copying: Mutex::new(()),
            })
        });
        if shared.is_none() {
            not_installed();
        }
        shared.as_ref()
    }
}

impl Postgres {
    /// A cluster of the test's own, or `None` (said on stderr) when PostgreSQL is not
    /// installed here; under CI it must be, and its absence fails the test. For a test
    /// that stops the cluster, or migrates an empty database itself: every other test
    /// takes a database of its own on the shared cluster (`Database::fresh`).
    pub fn own() -> Option<Postgres> {
        let Some(bin) = binaries() else {
            not_installed();
            return None;
        };
        Some(Postgres::start_in(bin, 200))
    }

    /// A new cluster of the binaries in `bin`, taking `max_connections` connections.
    fn start_in(bin: PathBuf, max_connections: u32) -> Postgres {
        let dir = tempfile::tempdir().unwrap();
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
        let home = dir.path().join("pg");
        fs::create_dir(&home).unwrap();
        let as_nobody = fs::metadata(&home).unwrap().uid() == 0;
        if as_nobody {
            std::os::unix::fs::chown(&home, Some(NOBODY), Some(NOBODY)).unwrap();
        }
        let mut cluster = Postgres {
            bin,
            home,
            as_nobody,
            port: free_port(),
            _dir: dir,
        };
        let data = cluster.home.join("data");
        cluster.run("initdb", |c| {
            c.arg("-D").arg(&data);
            c.args([
                "-U",
                "postgres",
                "--auth=trust",
                "-N",
                "-E",
                "UTF8",
                "--locale=C",
            ]);
        });
        // The port was free when it was chosen; on a busy machine another process may
        // take it before the cluster binds it, and then another port is chosen.
        for _ in 0..5 {
            let options = format!(
                "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off \
                 -c max_connections={max_connections} -c shared_buffers=16MB",
                cluster.port,
                cluster.home.display()
            );
            let started = cluster.try_run("pg_ctl", |c| {
                c.arg("-D").arg(&data).args(["-o", &options, "-w", "-l"]);
                c.arg(cluster.home.join("log")).arg("start");
            });
            match started {
                Ok(()) => return cluster,
                Err(why) if why.contains("Address already in use") => {
                    cluster.port = free_port();
                }
                Err(why) => panic!("pg_ctl failed: {why}"),
            }
        }
        panic!("pg_ctl found every port it was given taken");
    }

    /// Starts a watchdog that stops the cluster at once (SIGQUIT to the postmaster, as
    /// `pg_ctl -m immediate stop` sends) and removes its folder once this process has
    /// ended: once the pipe it reads, whose write end this process holds, is closed
    /// (Rust opens it close-on-exec, so no other child holds it open). It is a
    /// process group of its own, so that the Ctrl-C that ends the tests does not end it
    /// first; it runs as this process's user, who may signal the postmaster (run as
    /// `nobody` under root) and remove the folder (made by this process). It waits, as
    /// pg_ctl does, for the postmaster to remove its pid file as it exits (a minute at
    /// most), so that nothing is removed under a postmaster still running.
    fn stop_when_this_process_ends(&self) -> Child {
        let pid_file = self.home.join("data/postmaster.pid");
        let postmaster = fs::read_to_string(&pid_file).unwrap();
        let postmaster = postmaster.lines().next().unwrap();
        Command::new("sh")
            .args([
                "-c",
                r#"cat >/dev/null
                   kill -QUIT "$1"
                   for _ in $(seq 600); do [ -e "$2" ] || break; sleep 0.1; done
                   rm -rf "$3""#,
                "watchdog",
                postmaster,
            ])
            .arg(&pid_file)
            .arg(self._dir.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .unwrap()
    }

    /// Stops the cluster at once, as a crashed or unreachable database is met.
    pub fn stop(&self) {
        let data = self.home.join("data");
        self.run("pg_ctl", |c| {
            c.arg("-D")
                .arg(&data)
                .args(["-m", "immediate", "-w", "stop"]);
        });
    }

    /// The URL of the cluster's `postgres` database.
    pub fn url(&self) -> String {
        self.url_of("postgres")
    }

    fn url_of(&self, database: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{database}", self.port)
    }

    /// Runs `sql` on the `postgres` database with `psql` and gives its rows, one a
    /// line, fields split by `|`.
    pub fn sql(&self, sql: &str) -> String {
        self.sql_on(&self.url(), sql)
            .unwrap_or_else(|why| panic!("{sql}: {why}"))
    }

    /// Runs `sql` on the database at `url`: its rows, or what psql said.
    fn sql_on(&self, url: &str, sql: &str) -> Result<String, String> {
        let out = Command::new(self.bin.join("psql"))
            .args(["-At", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).into_owned());
        }
        Ok(String::from_utf8(out.stdout).unwrap().trim().to_owned())
    }

    fn run(&self, tool: &str, args: impl FnOnce(&mut Command)) {
        if let Err(why) = self.try_run(tool, args) {
            panic!("{tool} failed: {why}");
        }
    }

    /// Runs `tool`; if it fails, what it said and the cluster's log.
    fn try_run(&self, tool: &str, args: impl FnOnce(&mut Command)) -> Result<(), String> {
        let mut command = Command::new(self.bin.join(tool));
        args(&mut command);
        if self.as_nobody {
            command.uid(NOBODY).gid(NOBODY);
        }
        let out = command.stdin(Stdio::null()).output().unwrap();
        if out.status.success() {
            return Ok(());
        }
        let log = fs::read_to_string(self.home.join("log")).unwrap_or_default();
        Err(format!("{}\n{log}", String::from_utf8_lossy(&out.stderr)))
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let data = self.home.join("data");
        let mut command = Command::new(self.bin.join("pg_ctl"));
        command
            .arg("-D")
            .arg(&data)
            .args(["-m", "immediate", "-w", "stop"]);
        if self.as_nobody {
            command.uid(NOBODY).gid(NOBODY);
        }
        let _ = command.stdout(Stdio::null()).stderr(Stdio::null()).status();
    }
}

/// A test's database: a copy of the migrated template on the shared cluster (dropped
/// with this), or the `postgres` database of a cluster of the test's own.
pub struct Database {
    name: String,
    cluster: Cluster,
}

enum Cluster {
    Shared(&'static Postgres),
    Own(Postgres),
}

impl Database {
    /// A database of the test's own on the shared cluster, its tables made by the
    /// server's migrations; `None` when PostgreSQL is missing.
    pub fn fresh() -> Option<Database> {
        let shared = SharedCluster::get()?;
        let number = shared.databases_made.fetch_add(1, Ordering::Relaxed);
        let name = format!("test_{number}");
        {
            let _one_copy_at_a_time = shared.copying.lock().unwrap_or_else(|e| e.into_inner());
            shared
                .cluster
                .sql(&format!("CREATE DATABASE {name} TEMPLATE {TEMPLATE}"));
        }
        Some(Database {
            name,
            cluster: Cluster::Shared(&shared.cluster),
        })
    }

    /// The `postgres` database of a cluster of the test's own, as yet empty (the
    /// server migrates it when it starts): for a test that stops the database.
    pub fn on_own_cluster() -> Option<Database> {
        Some(Database {
            name: "postgres".to_owned(),
            cluster: Cluster::Own(Postgres::own()?),
        })
    }

    fn cluster(&self) -> &Postgres {
        match &self.cluster {
            Cluster::Shared(cluster) => cluster,
            Cluster::Own(cluster) => cluster,
        }
    }

    pub fn url(&self) -> String {
        self.cluster().url_of(&self.name)
    }

    /// Runs `sql` with `psql` and gives its rows, one a line, fields split by `|`.
    pub fn sql(&self, sql: &str) -> String {
        let cluster = self.cluster();
        cluster
            .sql_on(&self.url(), sql)
            .unwrap_or_else(|why| panic!("{sql}: {why}"))
    }

    /// Stops the database's cluster at once, as a crashed or unreachable database is
    /// met. Only a cluster of the test's own may be: the shared one holds every other
    /// test's database.
    pub fn stop(&self) {
        match &self.cluster {
            Cluster::Own(cluster) => cluster.stop(),
            Cluster::Shared(_) => {
                panic!("a test that stops its database needs a cluster of its own")
            }
        }
    }
}

impl Drop for Database {
    fn drop(&mut self) {
        // Dropped so that the shared cluster's folder does not grow by a database a
        // test; FORCE ends the sessions of any process of the test still connected.
        if let Cluster::Shared(cluster) = &self.cluster {
            let drop = format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name);
            let _ = cluster.sql_on(&cluster.url(), &drop);
        }
    }
}

/// Says that a test is skipped for want of PostgreSQL; fails it under CI, which
/// installs it.
fn not_installed() {
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "PostgreSQL's initdb and pg_ctl are missing (install Debian's postgresql)"
    );
    eprintln!("SKIPPED: PostgreSQL's initdb and pg_ctl are not installed");
}

/// The folder holding initdb and pg_ctl: Debian's (the newest version installed), or
/// the PATH's.
fn binaries() -> Option<PathBuf> {
    let mut debian: Vec<PathBuf> = fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path().join("bin"))
        .collect();
    debian.sort_by_key(|bin| {
        let version = bin
            .parent()
            .and_then(|v| v.file_name()?.to_str()?.parse().ok());
        version.unwrap_or(0u32)
    });
    let path = std::env::var_os("PATH").unwrap_or_default();
    let on_path = std::env::split_paths(&path);
    debian
        .into_iter()
        .rev()
        .chain(on_path)
        .find(|bin| bin.join("initdb").is_file() && bin.join("pg_ctl").is_file())
}

/// A port nobody listens on now, for a process of a test's to listen on.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A server, a database and an objects folder; the workers started on them. Everything
/// stops when it is dropped.
pub struct Site {
    pub url: String,
    /// The folder the bytes are kept in, unless `objects_args` name another store.
    pub objects: PathBuf,
    /// Where every process is told the bytes are kept: `--objects` and its options.
    objects_args: Vec<String>,
    server: Child,
    workers: Vec<Child>,
    pub pg: Database,
    /// The file every server of this site logs to.
    log: PathBuf,
    _dir: TempDir,
}

impl Site {
    /// A server with `options` on a new database; `None` when PostgreSQL is missing.
    pub fn start(options: &[&str]) -> Option<Site> {
        Site::start_on_objects(None, options)
    }

    /// A server with `options` on a new database, keeping the bytes where `objects`
    /// says (`--objects` and its options), or in a folder of its own.
    pub fn start_on_objects(objects: Option<Vec<String>>, options: &[&str]) -> Option<Site> {
        Some(Site::on(Database::fresh()?, objects, options))
    }

    /// A server with `options` on a cluster of its own, for a test that stops it.
    pub fn start_on_own_cluster(options: &[&str]) -> Option<Site> {
        Some(Site::on(Database::on_own_cluster()?, None, options))
    }

    fn on(pg: Database, objects: Option<Vec<String>>, options: &[&str]) -> Site {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("objects");
        let log = dir.path().join("server.log");
        let objects_args = objects
            .unwrap_or_else(|| vec!["--objects".to_owned(), folder.to_str().unwrap().to_owned()]);
        let (server, url) = serve(&pg, &log, &objects_args, options);
        Site {
            url,
            objects: folder,
            objects_args,
            server,
            workers: vec![],
            pg,
            log,
            _dir: dir,
        }
    }

    /// `kill -9` of the server, and another started on the same database and objects
    /// (at another port: `url` changes).
    pub fn restart_server(&mut self) {
        self.server.kill().unwrap();
        self.server.wait().unwrap();
        (self.server, self.url) = serve(&self.pg, &self.log, &self.objects_args, &[]);
    }

    /// What the servers of this site have logged so far.
    pub fn server_log(&self) -> String {
        fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// The server process's resident memory now and at its peak (`VmRSS`, `VmHWM`), in
    /// bytes.
    pub fn server_memory(&self) -> (u64, u64) {
        let status = fs::read_to_string(format!("/proc/{}/status", self.server.id())).unwrap();
        let field = |name: &str| {
            let line = status.lines().find(|l| l.starts_with(name)).unwrap();
            let kib: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
            kib << 10
        };
        (field("VmRSS:"), field("VmHWM:"))
    }

    /// A connection to the server from the loopback address `source` (any of 127.0.0.0/8
    /// is this machine), so that a test can be several clients at several addresses.
    pub fn connect_from(&self, source: std::net::Ipv4Addr) -> std::net::TcpStream {
        use std::os::fd::FromRawFd;
        let to: std::net::SocketAddrV4 = self.url["http://".len()..].parse().unwrap();
        let address = |ip: std::net::Ipv4Addr, port: u16| libc::sockaddr_in {
            sin_family: libc::AF_INET as libc::sa_family_t,
            sin_port: port.to_be(),
            sin_addr: libc::in_addr {
                s_addr: u32::from(ip).to_be(),
            },
            sin_zero: [0; 8],
        };
        let size = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
        // SAFETY: a socket made, bound and connected with addresses that outlive each
        // call, and handed to a TcpStream that owns it from then on.
        unsafe {
            let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
            assert!(fd >= 0, "socket: {}", std::io::Error::last_os_error());
            let stream = std::net::TcpStream::from_raw_fd(fd);
            let from = address(source, 0);
            let bound = libc::bind(fd, (&raw const from).cast(), size);
            assert_eq!(bound, 0, "bind: {}", std::io::Error::last_os_error());
            let to = address(*to.ip(), to.port());
            let connected = libc::connect(fd, (&raw const to).cast(), size);
            assert_eq!(connected, 0, "connect: {}", std::io::Error::last_os_error());
            stream
        }
    }

    /// The processor time the server process has used so far.
    pub fn server_cpu(&self) -> Duration {
        cpu_time(self.server.id())
    }

    /// `kill -9` of the server: nothing answers at its address until `start_again`.
    pub fn kill_server(&mut self) {
        self.server.kill().unwrap();
        self.server.wait().unwrap();
    }

    /// A server started again at the same address, after `kill_server`, with `options`.
    pub fn start_again(&mut self, options: &[&str]) {
        let listen = self.url.strip_prefix("http://").unwrap().to_owned();
        (self.server, _) = serve_at(&self.pg, &self.log, &self.objects_args, &listen, options);
    }

    /// A second server process on the same database and objects, at its own address;
    /// killed when dropped.
    pub fn another_server(&self, options: &[&str]) -> OtherServer {
        let (child, url) = serve(&self.pg, &self.log, &self.objects_args, options);
        OtherServer { child, url }
    }

    /// SIGTERM to the server, as a service manager stops it: how it exited.
    pub fn terminate_server(&mut self) -> std::process::ExitStatus {
        let pid = self.server.id().to_string();
        assert!(Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success());
        let start = Instant::now();
        loop {
            if let Some(status) = self.server.try_wait().unwrap() {
                return status;
            }
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "the server did not stop"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Starts a worker; its stderr lines (`verifying HASH`, then its verdict's line)
    /// come through the receiver.
    pub fn worker(&mut self) -> (usize, Receiver<String>) {
        let mut child = Command::new(BIN)
            .args(["worker", "--database", &self.pg.url(), "--idle-ms", "50"])
            .args(&self.objects_args)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (send, lines) = mpsc::channel();
        let stderr = BufReader::new(child.stderr.take().unwrap());
        std::thread::spawn(move || {
            for line in stderr.lines().map_while(Result::ok) {
                let _ = send.send(line);
            }
        });
        self.workers.push(child);
        (self.workers.len() - 1, lines)
    }

    /// `kill -9` of the worker `index`.
    pub fn kill_worker(&mut self, index: usize) {
        self.workers[index].kill().unwrap();
        self.workers[index].wait().unwrap();
    }

    pub fn get(&self, path: &str) -> (u16, String) {
        let mut response = agent().get(format!("{}{path}", self.url)).call().unwrap();
        let body = response.body_mut().read_to_string().unwrap();
        (response.status().as_u16(), body)
    }

    pub fn get_response(&self, path: &str) -> ureq::http::Response<ureq::Body> {
        agent().get(format!("{}{path}", self.url)).call().unwrap()
    }

    pub fn get_bytes(&self, path: &str) -> Vec<u8> {
        let mut response = self.get_response(path);
        assert_eq!(response.status().as_u16(), 200, "{path}");
        let body = response.body_mut().with_config().limit(64 << 20);
        body.read_to_vec().unwrap()
    }

    /// Sends `bytes` as `name`, signed by `who` for this server.
    pub fn submit(&self, bytes: &[u8], who: &Identity, name: &str) -> (u16, String) {
        let claim = Claim {
            server: &self.url,
            player: name,
            content: content_hash(bytes),
        };
        self.post(
            bytes,
            &[
                (PLAYER_HEADER, name),
                (KEY_HEADER, &who.public_hex()),
                (SIGNATURE_HEADER, &who.sign(&claim)),
            ],
        )
    }

    /// Posts `bytes` to `/games` with `headers` as they are.
    pub fn post(&self, bytes: &[u8], headers: &[(&str, &str)]) -> (u16, String) {
        self.post_to("/games", bytes, headers)
    }

    /// Posts `bytes` to `path` with `headers` as they are.
    pub fn post_to(&self, path: &str, bytes: &[u8], headers: &[(&str, &str)]) -> (u16, String) {
        let mut request = agent().post(format!("{}{path}", self.url));
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let mut response = request.send(bytes).unwrap();
        let body = response.body_mut().read_to_string().unwrap();
        (response.status().as_u16(), body)
    }

    /// A connection to the server, to speak HTTP on by hand.
    pub fn connect(&self) -> std::net::TcpStream {
        std::net::TcpStream::connect(&self.url["http://".len()..]).unwrap()
    }

    /// The game's page once its verdict is written.
    pub fn verdict(&self, bytes: &[u8]) -> String {
        let path = format!("/games/{}", hex(&content_hash(bytes)));
        let start = Instant::now();
        loop {
            let (status, page) = self.get(&path);
            assert_eq!(status, 200, "{page}");
            if !page.contains("Waiting to be folded") {
                return page;
            }
            assert!(
                start.elapsed() < Duration::from_secs(300),
                "no verdict on {path}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The files the objects folder holds.
    pub fn objects_kept(&self) -> usize {
        count_files(&self.objects)
    }
}

/// A server process beside a site's own.
pub struct OtherServer {
    child: Child,
    pub url: String,
}

impl OtherServer {
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The processor time it has used so far.
    pub fn cpu(&self) -> Duration {
        cpu_time(self.child.id())
    }
}

/// The processor time process `pid` has used so far (user and system), from `/proc`.
fn cpu_time(pid: u32) -> Duration {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // The fields after the command's name, which is in parentheses; utime and stime are
    // the 14th and 15th of the line.
    let after = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<u64> = after
        .split(' ')
        .skip(11)
        .take(2)
        .map(|f| f.parse().unwrap())
        .collect();
    // SAFETY: sysconf only reads a system setting.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as u64;
    Duration::from_secs_f64((fields[0] + fields[1]) as f64 / ticks as f64)
}

impl Drop for OtherServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Site {
    fn drop(&mut self) {
        for child in self.workers.iter_mut().chain([&mut self.server]) {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// A server on `pg`, logging to `log`, told where the bytes are by `objects`, with
/// `options`, at a free port: the process and its URL.
fn serve(pg: &Database, log: &Path, objects: &[String], options: &[&str]) -> (Child, String) {
    serve_at(pg, log, objects, "127.0.0.1:0", options)
}

fn serve_at(
    pg: &Database,
    log: &Path,
    objects: &[String],
    listen: &str,
    options: &[&str],
) -> (Child, String) {
    // Its log (a line a request) goes to the site's file, where `Site::server_log`
    // reads it, rather than into the tests' output.
    let log = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .unwrap();
    let mut server = Command::new(BIN)
        .args(["serve", "--database", &pg.url(), "--listen", listen])
        .args(objects)
        .args(options)
        .stdout(Stdio::piped())
        .stderr(log)
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(server.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let url = first
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("the server said {first:?}"))
        .to_owned();
    (server, url)
}

fn count_files(dir: &Path) -> usize {
    fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| match entry.file_type().map(|t| t.is_dir()) {
            Ok(true) => count_files(&entry.path()),
            _ => 1,
        })
        .sum()
}

/// An HTTP client that hands back every status rather than failing on 4xx and 5xx.
fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into()
}

/// Every golden replay of every kept rules version: its name and bytes.
pub fn goldens() -> Vec<(String, Vec<u8>)> {
    let replays = Path::new(env!("CARGO_MANIFEST_DIR")).join("../replays");
    let mut files: Vec<PathBuf> = fs::read_dir(&replays)
        .unwrap()
        .flatten()
        .filter(|entry| entry.path().is_dir())
        .flat_map(|dir| fs::read_dir(dir.path()).unwrap().flatten())
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "sgr"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let name = path.strip_prefix(&replays).unwrap().display().to_string();
            (name, fs::read(&path).unwrap())
        })
        .collect()
}
