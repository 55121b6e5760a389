//! `sandglass-server`: ranks Sandglass games by folding their logs (docs/design.md, "The
//! server").
//!
//! `serve` answers HTTP (submissions and pages); `worker` folds queued games and writes
//! their verdicts. Both keep no state of their own: PostgreSQL holds players, games,
//! verdicts and the queue, and the replay bytes live in object storage. Any number of
//! each may run against the same database and store.

use std::io::IsTerminal;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};

use sandglass_server::edge::Edge;
use sandglass_server::{app, db, limits::Limits, objects::Objects, serve, viewer, worker};

#[derive(Parser)]
#[command(version, about = "Ranks Sandglass games by folding their logs")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

// Parsed once, at start: the size of its largest variant costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum Cmd {
    /// Answer HTTP: take signed games, queue them, and show the boards and games.
    Serve {
        #[command(flatten)]
        shared: Shared,
        /// Where to listen (port 0: any free port; the address is printed on stdout).
        #[arg(long, default_value = "127.0.0.1:8080")]
        listen: SocketAddr,
        /// The URL players reach this server at, which their signatures name; by
        /// default `http://` and the address listened on.
        #[arg(long)]
        public_url: Option<String>,
        /// The web replay viewer's folder (`web/dist/`, built by `cargo xtask web`), to
        /// serve at /viewer/, where a game's page then links.
        #[arg(long, value_name = "DIR")]
        web: Option<PathBuf>,
        /// The web replay viewer's page, where a game's page links with `?replay=` the
        /// URL of the game's bytes on this server (default: /viewer/ with --web, else
        /// the page `cargo xtask web --serve` serves).
        #[arg(long, value_name = "URL")]
        viewer: Option<String>,
        /// The largest upload taken, in bytes.
        #[arg(long, default_value_t = 32 << 20)]
        most_bytes: u64,
        /// The bytes all uploads in flight may hold at once; past it, an upload is
        /// answered 503 with Retry-After before its body is read.
        #[arg(long, default_value_t = 256 << 20)]
        uploads_in_flight: u64,
        /// Connections one address may hold open at once (a trusted proxy's are not
        /// counted: the proxy keeps its own).
        #[arg(long, default_value_t = 32)]
        connections_per_address: usize,
        /// Serve HTTPS with this certificate chain (PEM), with --tls-key.
        #[arg(long, value_name = "FILE", requires = "tls_key")]
        tls_cert: Option<PathBuf>,
        /// The private key (PEM) of --tls-cert.
        #[arg(long, value_name = "FILE", requires = "tls_cert")]
        tls_key: Option<PathBuf>,
        /// A reverse proxy in front of the server (its address): requests from it are
        /// taken to come from the address its X-Forwarded-For names last. Believed from
        /// no other peer.
        #[arg(long, value_name = "ADDR")]
        trust_proxy: Option<IpAddr>,
        /// Submissions a key may make at once before it must wait (an address, which
        /// may be shared, four times as many).
        #[arg(long, default_value_t = 30)]
        burst: u32,
        /// Submissions a key may make per minute once its burst is spent (an address
        /// four times as many).
        #[arg(long, default_value_t = 10)]
        per_minute: u32,
        /// Turns a live view of a run is held behind the game, as a tournament wants
        /// (0: none). The whole run shows once it ends.
        #[arg(long, default_value_t = 0)]
        live_delay_turns: u64,
    },
    /// Fold queued games, one at a time, and write their verdicts.
    Worker {
        #[command(flatten)]
        shared: Shared,
        /// How long to wait before looking again when the queue is empty.
        #[arg(long, default_value_t = 500)]
        idle_ms: u64,
    },
    /// Create or bring the database's tables up to date, then stop (`serve` and `worker`
    /// do this too when they start).
    Migrate {
        #[command(flatten)]
        database: Database,
    },
}

#[derive(Args)]
struct Shared {
    #[command(flatten)]
    database: Database,
    /// Where the replay bytes are kept: a folder (made if missing), or an S3 bucket,
    /// `s3://BUCKET[/PREFIX]`, any store that speaks S3 (its region, credentials and
    /// endpoint from the `AWS_*` environment variables, as the AWS tools read them).
    #[arg(long)]
    objects: String,
    /// A setting of an S3 store, over the environment's: `KEY=VALUE` with the names of
    /// object_store's `AmazonS3ConfigKey` (`aws_endpoint=http://127.0.0.1:9000`,
    /// `aws_allow_http=true`, `aws_region=...`). Repeat for each.
    #[arg(long = "objects-option", value_name = "KEY=VALUE")]
    objects_options: Vec<String>,
}

#[derive(Args)]
struct Database {
    /// The PostgreSQL database: a URL (`postgres://user@host:5432/db`) or `key=value`
    /// pairs (`host=/run/postgresql dbname=sandglass`).
    #[arg(long)]
    database: String,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    // A line an event, `key=value` fields; colours only for a person at a terminal.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_target(false)
        .init();
    match Cli::parse().cmd {
        Cmd::Serve {
            shared,
            listen,
            public_url,
            web,
            viewer,
            most_bytes,
            uploads_in_flight,
            connections_per_address,
            tls_cert,
            tls_key,
            trust_proxy,
            burst,
            per_minute,
            live_delay_turns,
        } => {
            let tls = match (tls_cert, tls_key) {
                (Some(cert), Some(key)) => Some(Edge::tls(&cert, &key)?),
                _ => None,
            };
            let edge = Edge {
                per_address: connections_per_address,
                tls,
                trust_proxy,
            };
            let pool = db::connect(&shared.database.database).await?;
            let objects = Objects::open(&shared.objects, &shared.objects_options).await?;
            let listener = tokio::net::TcpListener::bind(listen).await?;
            let listen = listener.local_addr()?;
            let scheme = if edge.tls.is_some() { "https" } else { "http" };
            let public_url = public_url.unwrap_or_else(|| format!("{scheme}://{listen}"));
            let public_url = sandglass_claim::server_base(&public_url).to_owned();
            let viewer = viewer.unwrap_or_else(|| match web {
                Some(_) => format!("{public_url}{}", viewer::PATH),
                None => "http://127.0.0.1:8000/web/dist/".to_owned(),
            });
            let config = app::Config {
                public_url,
                viewer,
                web,
                most_bytes,
                uploads_in_flight,
                limits: Limits { burst, per_minute },
                live_delay_turns,
            };
            let database = db::config(&shared.database.database)?;
            serve::run(listener, database, pool, objects, config, edge).await
        }
        Cmd::Worker { shared, idle_ms } => {
            let pool = db::connect(&shared.database.database).await?;
            let objects = Objects::open(&shared.objects, &shared.objects_options).await?;
            worker::run(pool, objects, Duration::from_millis(idle_ms)).await
        }
        Cmd::Migrate { database } => {
            db::connect(&database.database).await?;
            println!("the database is up to date");
            Ok(())
        }
    }
}
