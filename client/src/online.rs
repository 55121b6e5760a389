//! Talking to the server the player named: signed requests under the player's key and
//! name, over blocking HTTP (`ureq`), never on the thread that draws or plays.
//!
//! Nothing here is ever sent to a server the player did not name: every caller takes
//! the server from `--server` or the settings, which hold only one the player named.

use std::io::ErrorKind;
use std::path::Path;
use std::time::Duration;

use sandglass_claim::{
    check_name, server_base, Claim, Identity, KEY_HEADER, PLAYER_HEADER, SIGNATURE_HEADER,
};

use crate::identity;

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
}

impl Answer {
    pub fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }
}

impl Server {
    /// The server `url` for the player `name`, whose key is kept in `config` (made on
    /// first use); each request gives up after `timeout`.
    pub fn new(url: &str, name: &str, config: &Path, timeout: Duration) -> anyhow::Result<Server> {
        check_name(name)?;
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
    Answer {
        status: answer.status().as_u16(),
        words: words.trim().to_owned(),
    }
}

/// Whether `error` is the server closing the connection on a request it would not read
/// (one larger than it takes, refused by its length).
pub fn closed_on(error: &ureq::Error) -> bool {
    matches!(error, ureq::Error::Io(io)
        if matches!(io.kind(), ErrorKind::BrokenPipe | ErrorKind::ConnectionReset))
}
