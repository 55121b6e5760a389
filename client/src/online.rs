//! Talking to the server the player named: signed requests under the player's key and
//! name, over blocking HTTP (`ureq`), never on the thread that draws or plays.
//!
//! Nothing here is ever sent to a server the player did not name: every caller takes
//! the server from `--server` or the settings, which hold only one the player named.

use std::io::ErrorKind;
use std::net::IpAddr;
use std::path::Path;
use std::time::Duration;

use anyhow::bail;

use sandglass_claim::{
    check_name, server_base, Claim, Identity, KEY_HEADER, PLAYER_HEADER, SIGNATURE_HEADER,
};

use crate::identity;
use crate::settings::Settings;

/// The most of a server's answer read: a line or two of words, or a small JSON object.
const MOST_ANSWER_BYTES: u64 = 64 << 10;

/// The player's server, name and key.
pub struct Server {
    /// The server's URL without a slash at its end: what signatures name.
    pub base: String,
    pub name: String,
    identity: Identity,
    agent: ureq::Agent,
}

/// What the server answered: its status and its words.
pub struct Answer {
    pub status: u16,
    pub words: String,
    /// How long the server asked to be left before the next try (`Retry-After`, in
    /// seconds), on a 429 or a 503.
    pub retry_after: Option<Duration>,
}

impl Answer {
    pub fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// Whether the server asks to be tried again later: too many requests, or busy.
    pub fn try_later(&self) -> bool {
        matches!(self.status, 429 | 503)
    }
}

/// Checks that what is sent to `base` cannot be read or taken on the way: it is
/// `https://`, or on this machine, or the player said in so many words that they accept
/// plain HTTP to it (`--over-plain-http`, remembered in the settings). Over plain HTTP,
/// anyone between could take a game and send it first under their own key.
pub fn check_transport(base: &str, settings: &Settings) -> anyhow::Result<()> {
    if base.starts_with("https://") || on_this_machine(base) {
        return Ok(());
    }
    if !base.starts_with("http://") {
        bail!("{base} is not a server's URL: it starts with https:// (or http://)");
    }
    if settings.plain_http.iter().any(|allowed| allowed == base) {
        return Ok(());
    }
    bail!(
        "{base} is plain HTTP and not this machine: anyone on the way could read what is \
         sent and send your game first as theirs. Use the server's https:// address, or, \
         if you accept that, say so with --over-plain-http"
    )
}

/// Whether the URL `base` names this machine: `localhost` or a loopback address.
fn on_this_machine(base: &str) -> bool {
    let Some(rest) = base.strip_prefix("http://") else {
        return false;
    };
    let authority = rest.split('/').next().unwrap_or("");
    // `[::1]:8080`, `127.0.0.1:8080`, `localhost`.
    let host = match authority.strip_prefix('[') {
        Some(bracketed) => bracketed.split(']').next().unwrap_or(""),
        None => authority
            .rsplit_once(':')
            .map_or(authority, |(host, _)| host),
    };
    host.eq_ignore_ascii_case("localhost")
        || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

impl Server {
    /// The server `url` for the player `name`, whose key is kept in `config` (made on
    /// first use); each request gives up after `timeout`.
    pub fn new(url: &str, name: &str, config: &Path, timeout: Duration) -> anyhow::Result<Server> {
        check_name(name)?;
        check_transport(server_base(url), &Settings::load(config))?;
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(timeout))
            .build()
            .into();
        Ok(Server {
            base: server_base(url).to_owned(),
            name: name.to_owned(),
            identity: identity::load_or_make(config)?,
            agent,
        })
    }

    /// POSTs `body` to `path`, signed as a claim over `content`.
    pub fn post_signed(
        &self,
        path: &str,
        content: [u8; 32],
        body: &[u8],
    ) -> Result<Answer, ureq::Error> {
        let claim = Claim {
            server: &self.base,
            player: &self.name,
            content,
        };
        let answer = self
            .agent
            .post(format!("{}{path}", self.base))
            .header(PLAYER_HEADER, &self.name)
            .header(KEY_HEADER, self.identity.public_hex())
            .header(SIGNATURE_HEADER, self.identity.sign(&claim))
            .send(body)?;
        Ok(read(answer))
    }

    pub fn get(&self, path: &str) -> Result<Answer, ureq::Error> {
        let answer = self.agent.get(format!("{}{path}", self.base)).call()?;
        Ok(read(answer))
    }
}

fn read(mut answer: ureq::http::Response<ureq::Body>) -> Answer {
    let words = answer
        .body_mut()
        .with_config()
        .limit(MOST_ANSWER_BYTES)
        .read_to_string()
        .unwrap_or_default();
    let retry_after = answer
        .headers()
        .get("retry-after")
        .and_then(|value| value.to_str().ok()?.trim().parse::<u64>().ok())
        .map(Duration::from_secs);
    Answer {
        status: answer.status().as_u16(),
        words: words.trim().to_owned(),
        retry_after,
    }
}

/// Whether `error` is the server closing the connection on a request it would not read
/// (one larger than it takes, refused by its length).
pub fn closed_on(error: &ureq::Error) -> bool {
    matches!(error, ureq::Error::Io(io)
        if matches!(io.kind(), ErrorKind::BrokenPipe | ErrorKind::ConnectionReset))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_https_or_this_machine_is_sent_to_unless_the_player_says_so() {
        let none = Settings::default();
        for base in [
            "https://sandglass.example",
            "http://127.0.0.1:8080",
            "http://127.9.9.9",
            "http://localhost:8080",
            "http://[::1]:8080",
        ] {
            assert!(check_transport(base, &none).is_ok(), "{base}");
        }
        for base in [
            "http://sandglass.example",
            "http://10.0.0.2:8080",
            "http://[::2]",
        ] {
            let error = check_transport(base, &none).unwrap_err().to_string();
            assert!(error.contains("--over-plain-http"), "{error}");
        }
        assert!(check_transport("ftp://x", &none).is_err());
        let said = Settings {
            plain_http: vec!["http://sandglass.example".into()],
            ..Settings::default()
        };
        assert!(check_transport("http://sandglass.example", &said).is_ok());
        assert!(check_transport("http://other.example", &said).is_err());
    }
}
