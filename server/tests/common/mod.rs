//! The test helpers for the server's boundary: a throwaway PostgreSQL cluster, the
//! server and its workers as real processes, and HTTP on 127.0.0.1.

// Each test file uses its own part of these.
#![allow(dead_code)]

use std::fs;
use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use sandglass_claim::{
    content_hash, hex, Claim, Identity, KEY_HEADER, PLAYER_HEADER, SIGNATURE_HEADER,
};
use tempfile::TempDir;

pub const BIN: &str = env!("CARGO_BIN_EXE_sandglass-server");

/// PostgreSQL refuses to run as root: under root (as CI runs), the cluster runs as
/// `nobody`, in a directory it owns.
const NOBODY: u32 = 65534;

/// A PostgreSQL cluster of the test's own, in a temporary directory, listening on
/// 127.0.0.1 at a free port; stopped when dropped.
pub struct Postgres {
    bin: PathBuf,
    home: PathBuf,
    as_nobody: bool,
    port: u16,
    _dir: TempDir,
}

impl Postgres {
    /// The file every server on this cluster logs to.
    pub fn server_log(&self) -> PathBuf {
        self._dir.path().join("server.log")
    }

    /// A new cluster, or `None` (said on stderr) when PostgreSQL is not installed
    /// here; under CI it must be, and its absence fails the test.
    pub fn start() -> Option<Postgres> {
        let Some(bin) = binaries() else {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "PostgreSQL's initdb and pg_ctl are missing (install Debian's postgresql)"
            );
            eprintln!("SKIPPED: PostgreSQL's initdb and pg_ctl are not installed");
            return None;
        };
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
                "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200 \
                 -c shared_buffers=16MB",
                cluster.port,
                cluster.home.display()
            );
            let started = cluster.try_run("pg_ctl", |c| {
                c.arg("-D").arg(&data).args(["-o", &options, "-w", "-l"]);
                c.arg(cluster.home.join("log")).arg("start");
            });
            match started {
                Ok(()) => return Some(cluster),
                Err(why) if why.contains("Address already in use") => {
                    cluster.port = free_port();
                }
                Err(why) => panic!("pg_ctl failed: {why}"),
            }
        }
        panic!("pg_ctl found every port it was given taken");
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

    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    /// Runs `sql` with `psql` and gives its rows, one a line, fields split by `|`.
    pub fn sql(&self, sql: &str) -> String {
        let out = Command::new(self.bin.join("psql"))
            .args(["-At", "-v", "ON_ERROR_STOP=1", "-d", &self.url(), "-c", sql])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{sql}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
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

/// A server, a cluster and an objects folder; the workers started on them. Everything
/// stops when it is dropped.
pub struct Site {
    pub url: String,
    /// The folder the bytes are kept in, unless `objects_args` name another store.
    pub objects: PathBuf,
    /// Where every process is told the bytes are kept: `--objects` and its options.
    objects_args: Vec<String>,
    server: Child,
    workers: Vec<Child>,
    pub pg: Postgres,
    _dir: TempDir,
}

impl Site {
    /// A server with `options` on a new cluster; `None` when PostgreSQL is missing.
    pub fn start(options: &[&str]) -> Option<Site> {
        Site::start_on_objects(None, options)
    }

    /// A server with `options` on a new cluster, keeping the bytes where `objects` says
    /// (`--objects` and its options), or in a folder of its own.
    pub fn start_on_objects(objects: Option<Vec<String>>, options: &[&str]) -> Option<Site> {
        let pg = Postgres::start()?;
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("objects");
        let objects_args = objects
            .unwrap_or_else(|| vec!["--objects".to_owned(), folder.to_str().unwrap().to_owned()]);
        let (server, url) = serve(&pg, &objects_args, options);
        Some(Site {
            url,
            objects: folder,
            objects_args,
            server,
            workers: vec![],
            pg,
            _dir: dir,
        })
    }

    /// `kill -9` of the server, and another started on the same database and objects
    /// (at another port: `url` changes).
    pub fn restart_server(&mut self) {
        self.server.kill().unwrap();
        self.server.wait().unwrap();
        (self.server, self.url) = serve(&self.pg, &self.objects_args, &[]);
    }

    /// What the servers of this site have logged so far.
    pub fn server_log(&self) -> String {
        fs::read_to_string(self.pg.server_log()).unwrap_or_default()
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
        (self.server, _) = serve_at(&self.pg, &self.objects_args, &listen, options);
    }

    /// A second server process on the same database and objects, at its own address;
    /// killed when dropped.
    pub fn another_server(&self, options: &[&str]) -> OtherServer {
        let (child, url) = serve(&self.pg, &self.objects_args, options);
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

/// A server on `pg`, told where the bytes are by `objects`, with `options`, at a free
/// port: the process and its URL.
fn serve(pg: &Postgres, objects: &[String], options: &[&str]) -> (Child, String) {
    serve_at(pg, objects, "127.0.0.1:0", options)
}

fn serve_at(pg: &Postgres, objects: &[String], listen: &str, options: &[&str]) -> (Child, String) {
    // Its log (a line a request) goes beside the cluster, where `Site::server_log`
    // reads it, rather than into the tests' output.
    let log = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(pg.server_log())
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
