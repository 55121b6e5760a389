//! The server's edge: the connections it takes, before any request is routed. What a
//! public address meets first is bounded here: how many connections one address may hold
//! open, how long a request's headers may take, TLS when the server is given a
//! certificate, and which address a request comes from (the peer's, or, from a proxy the
//! server was told to trust, the one that proxy says).

use std::collections::HashMap;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context;
use axum::extract::ConnectInfo;
use axum::Router;
use hyper::body::Incoming;
use hyper::Request;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls::{self, ServerConfig};
use tokio_rustls::TlsAcceptor;
use tower::Service;

/// How long a request's headers may take to arrive, from the moment the connection is
/// taken or the last answer sent: a client that opens connections and sends nothing, or a
/// byte at a time, holds them for this long at most.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a TLS handshake may take.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a stop waits for the requests under way before it closes what is left.
pub const STOP_PATIENCE: Duration = Duration::from_secs(10);

/// How the edge treats connections.
pub struct Edge {
    /// Connections one address may hold open at once; more are closed as they come.
    pub per_address: usize,
    /// TLS, if the server was given a certificate and its key.
    pub tls: Option<TlsAcceptor>,
    /// A reverse proxy in front of the server: requests from it come from the address
    /// its `X-Forwarded-For` names last (the one it saw), and from no other peer is that
    /// header believed.
    pub trust_proxy: Option<IpAddr>,
}

impl Edge {
    /// TLS from a certificate chain and its private key, both PEM files.
    pub fn tls(cert: &Path, key: &Path) -> anyhow::Result<TlsAcceptor> {
        let certs = CertificateDer::pem_file_iter(cert)
            .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
            .with_context(|| format!("cannot read the certificate {}", cert.display()))?;
        let key = PrivateKeyDer::from_pem_file(key)
            .with_context(|| format!("cannot read the private key {}", key.display()))?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()?
            .with_no_client_auth()
            .with_single_cert(certs, key)
            .context("the certificate and the key do not go together")?;
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(TlsAcceptor::from(Arc::new(config)))
    }
}

/// Serves `router` on `listener` until `stop` completes; then lets the requests under way
/// finish, for `STOP_PATIENCE` at most.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    edge: Edge,
    stop: impl Future<Output = ()>,
) -> anyhow::Result<()> {
    let edge = Arc::new(edge);
    let open = Arc::new(OpenConnections::default());
    let graceful = GracefulShutdown::new();
    tokio::pin!(stop);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Out of descriptors, most likely: wait for some to close rather
                    // than spin.
                    tracing::warn!(%error, "cannot take a connection");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut stop => break,
        };
        let proxied = edge.trust_proxy == Some(peer.ip());
        let slot = if proxied {
            None
        } else {
            match open.enter(peer.ip(), edge.per_address) {
                Some(slot) => Some(slot),
                None => continue, // closed as it is dropped
            }
        };
        let router = router.clone();
        let edge = edge.clone();
        let watcher = graceful.watcher();
        tokio::spawn(async move {
            let _slot = slot;
            let service = hyper::service::service_fn(move |mut request: Request<Incoming>| {
                let client = if proxied {
                    forwarded_for(&request).unwrap_or(peer)
                } else {
                    peer
                };
                request.extensions_mut().insert(ConnectInfo(client));
                router.clone().call(request)
            });
            let mut http = hyper::server::conn::http1::Builder::new();
            http.timer(TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT);
            let served = match &edge.tls {
                None => {
                    let connection = http.serve_connection(TokioIo::new(stream), service);
                    watcher.watch(connection).await
                }
                Some(tls) => {
                    let Some(stream) = handshake(tls, stream).await else {
                        return;
                    };
                    let connection = http.serve_connection(TokioIo::new(stream), service);
                    watcher.watch(connection).await
                }
            };
            if let Err(error) = served {
                tracing::debug!(%peer, %error, "connection ended");
            }
        });
    }
    drop(listener);
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(STOP_PATIENCE) => {
            tracing::warn!("requests still under way when the server stopped");
        }
    }
    Ok(())
}

async fn handshake(
    tls: &TlsAcceptor,
    stream: TcpStream,
) -> Option<tokio_rustls::server::TlsStream<TcpStream>> {
    match tokio::time::timeout(HANDSHAKE_TIMEOUT, tls.accept(stream)).await {
        Ok(Ok(stream)) => Some(stream),
        Ok(Err(error)) => {
            tracing::debug!(%error, "TLS handshake failed");
            None
        }
        Err(_) => None,
    }
}

/// The address a trusted proxy says a request came from: the last in `X-Forwarded-For`,
/// which is the one the proxy appended (those before it are the client's to write).
fn forwarded_for<B>(request: &Request<B>) -> Option<SocketAddr> {
    let value = request
        .headers()
        .get_all("x-forwarded-for")
        .iter()
        .next_back()?;
    let last = value.to_str().ok()?.rsplit(',').next()?.trim();
    let ip: IpAddr = last.parse().ok()?;
    Some(SocketAddr::new(ip, 0))
}

/// How many connections each address holds open.
#[derive(Default)]
struct OpenConnections {
    by_address: Mutex<HashMap<IpAddr, usize>>,
}

impl OpenConnections {
    /// A place for one more connection from `address`, if it holds fewer than `most`.
    fn enter(self: &Arc<Self>, address: IpAddr, most: usize) -> Option<Slot> {
        let mut by_address = self.by_address.lock().unwrap_or_else(|e| e.into_inner());
        let open = by_address.entry(address).or_insert(0);
        if *open >= most {
            return None;
        }
        *open += 1;
        Some(Slot {
            open: self.clone(),
            address,
        })
    }
}

/// One connection's place among its address's; given back when the connection ends.
struct Slot {
    open: Arc<OpenConnections>,
    address: IpAddr,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut by_address = self
            .open
            .by_address
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some(open) = by_address.get_mut(&self.address) {
            *open -= 1;
            if *open == 0 {
                by_address.remove(&self.address);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_address_a_proxy_appended_is_believed() {
        let request = |values: &[&str]| {
            let mut builder = Request::builder();
            for value in values {
                builder = builder.header("x-forwarded-for", *value);
            }
            builder.body(()).unwrap()
        };
        let ip = |r: &Request<()>| forwarded_for(r).map(|a| a.ip().to_string());
        assert_eq!(ip(&request(&["1.2.3.4"])).as_deref(), Some("1.2.3.4"));
        // Whatever a client wrote before the proxy's own entry is not believed.
        assert_eq!(
            ip(&request(&["6.6.6.6, 1.2.3.4"])).as_deref(),
            Some("1.2.3.4")
        );
        assert_eq!(
            ip(&request(&["6.6.6.6", "1.2.3.4"])).as_deref(),
            Some("1.2.3.4")
        );
        assert_eq!(ip(&request(&["not an address"])), None);
        assert_eq!(ip(&request(&[])), None);
    }

    #[test]
    fn an_address_holds_at_most_its_share_of_connections() {
        let open = Arc::new(OpenConnections::default());
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        let first = open.enter(a, 2).unwrap();
        let _second = open.enter(a, 2).unwrap();
        assert!(open.enter(a, 2).is_none());
        assert!(open.enter(b, 2).is_some(), "another address is not held up");
        drop(first);
        assert!(
            open.enter(a, 2).is_some(),
            "a connection that ends gives its place back"
        );
    }
}
