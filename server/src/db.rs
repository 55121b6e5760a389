//! The PostgreSQL database: a pool of connections, and its tables made or brought up to
//! date by versioned migrations (`server/migrations/`, refinery) whenever a server or a
//! worker starts.

use anyhow::Context;
use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod};
use tokio_postgres::NoTls;

mod embedded {
    refinery::embed_migrations!("migrations");
}

/// Every process migrates when it starts, so several starting at once take turns on this
/// advisory lock rather than racing to make the same tables.
const MIGRATION_LOCK: i64 = 0x5347_5253_4552_5645; // "SGRSERVE"

/// Connections one process keeps open at most.
const MOST_CONNECTIONS: usize = 16;

/// Connects to `database` (a URL or `key=value` pairs), migrates it, and gives a pool.
pub async fn connect(database: &str) -> anyhow::Result<Pool> {
    let config = config(database)?;
    migrate(&config)
        .await
        .context("cannot bring the database's tables up to date")?;
    let manager = Manager::from_config(
        config,
        NoTls,
        ManagerConfig {
            recycling_method: RecyclingMethod::Fast,
        },
    );
    Ok(Pool::builder(manager).max_size(MOST_CONNECTIONS).build()?)
}

/// The connection settings `database` (a URL or `key=value` pairs) names.
pub fn config(database: &str) -> anyhow::Result<tokio_postgres::Config> {
    database
        .parse()
        .with_context(|| format!("the database {database:?} is not a PostgreSQL URL"))
}

/// Where `config` points, in words, without its password: what a failed connection
/// tried.
fn described(config: &tokio_postgres::Config) -> String {
    use tokio_postgres::config::Host;
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .map(|host| match host {
            Host::Tcp(name) => name.clone(),
            Host::Unix(path) => path.display().to_string(),
        })
        .collect();
    let ports: Vec<String> = config.get_ports().iter().map(u16::to_string).collect();
    format!(
        "{:?} on {} port {} as user {:?}{}",
        config.get_dbname().unwrap_or("(the user's name)"),
        if hosts.is_empty() {
            "localhost".to_owned()
        } else {
            hosts.join(",")
        },
        if ports.is_empty() {
            "5432".to_owned()
        } else {
            ports.join(",")
        },
        config.get_user().unwrap_or("(this system user)"),
        if config.get_password().is_some() {
            " with a password"
        } else {
            " with no password"
        },
    )
}

async fn migrate(config: &tokio_postgres::Config) -> anyhow::Result<()> {
    let (mut client, connection) = config
        .connect(NoTls)
        .await
        .with_context(|| format!("cannot reach the database {}", described(config)))?;
    let connection = tokio::spawn(connection);
    client
        .execute("SELECT pg_advisory_lock($1)", &[&MIGRATION_LOCK])
        .await?;
    embedded::migrations::runner()
        .run_async(&mut client)
        .await?;
    // Closing the connection lets go of the lock.
    drop(client);
    let _ = connection.await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_database_is_described_as_it_was_tried_without_its_password() {
        let url = "postgres://keeper:secret@db.example:5433/sandglass";
        let said = described(&config(url).unwrap());
        assert_eq!(
            said,
            "\"sandglass\" on db.example port 5433 as user \"keeper\" with a password"
        );
        assert!(!said.contains("secret"));
    }
}
