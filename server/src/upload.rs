//! Reading what a client posts, within bounds: no body larger than its kind allows, none
//! that stalls or drags, and no more bytes held by all the uploads in flight together
//! than the server's setting (`App::uploads`), so that many slow uploads at once cannot
//! swell the server. Past that setting an upload is refused unread, with `Retry-After`.

use std::net::IpAddr;
use std::time::Duration;

use axum::body::Body;
use axum::http::{header, HeaderMap, StatusCode};
use bytes::{Bytes, BytesMut};
use futures_util::StreamExt;
use tokio::sync::OwnedSemaphorePermit;
use tokio::time::Instant;

use sandglass_claim::{ClaimError, KEY_HEADER, PLAYER_HEADER, SIGNATURE_HEADER};

use crate::app::App;
use crate::limits::Post;
use crate::refusal::Refusal;

/// How long a body may go without sending a byte.
pub const BODY_IDLE: Duration = Duration::from_secs(10);

/// How long a whole body may take: 32 MiB, the largest game taken by default, at a slow
/// home line's quarter of a megabyte a second, with room to spare.
pub const BODY_WHOLE: Duration = Duration::from_secs(180);

/// How long a refused request's body is read and thrown away, so that a client still
/// sending it hears why it was refused rather than finding its connection closed.
const DRAIN_PATIENCE: Duration = Duration::from_secs(5);

/// A body read whole, and its share of the uploads' bytes, held while it is.
pub struct Upload {
    pub bytes: Bytes,
    _held: OwnedSemaphorePermit,
}

/// What a signed request claims: who, under which key, with which signature.
pub struct Signed {
    pub player: String,
    pub key: String,
    pub signature: String,
}

/// A signed post of `what` (at most `most` bytes) from `address`, refused before a byte
/// of its body is held unless its declared size, its claim's headers and the admission's
/// buckets allow it; then read. A refused body is drained, so the client hears why.
pub async fn read_signed(
    app: &App,
    address: IpAddr,
    headers: &HeaderMap,
    body: Body,
    post: Post,
    what: &str,
    most: u64,
) -> Result<(Signed, Upload), Refusal> {
    check_declared(headers, what, most)?;
    let admitted = signed_by(headers).and_then(|signed| {
        let limits = app.config.limits;
        app.admission.admit(limits, post, address, &signed.key)?;
        Ok(signed)
    });
    match admitted {
        Ok(signed) => Ok((signed, read(app, headers, body, what, most).await?)),
        Err(refusal) => Err(drained(body, refusal).await),
    }
}

/// The claim's name, public key (in lower case: one key, one spelling) and signature,
/// from the request's headers.
pub fn signed_by(headers: &HeaderMap) -> Result<Signed, Refusal> {
    let unsigned = || {
        Refusal::new(
            StatusCode::UNAUTHORIZED,
            format!(
                "a game must be sent signed: the player's name, public key and signature in \
                 {PLAYER_HEADER}, {KEY_HEADER} and {SIGNATURE_HEADER} (`sandglass submit` does this)"
            ),
        )
    };
    let field = |name: &str, unreadable: ClaimError| match headers.get(name) {
        None => Err(unsigned()),
        Some(value) => match value.to_str() {
            Ok("") => Err(unsigned()),
            Ok(text) => Ok(text.to_owned()),
            // Bytes a header may carry but no name, key or signature holds (a name
            // outside ASCII, say): said as what is wrong with it.
            Err(_) => Err(Refusal::new(StatusCode::BAD_REQUEST, unreadable)),
        },
    };
    let player = field(PLAYER_HEADER, ClaimError::BadName)?;
    let key = field(KEY_HEADER, ClaimError::BadKey)?;
    let signature = field(SIGNATURE_HEADER, ClaimError::BadSignature)?;
    Ok(Signed {
        player,
        key: key.to_ascii_lowercase(),
        signature,
    })
}

/// Refuses, unread, a `what` that says it is longer than `most` bytes: the first check
/// of a post, since it needs nothing but the length.
pub fn check_declared(headers: &HeaderMap, what: &str, most: u64) -> Result<(), Refusal> {
    match declared(headers).filter(|&size| size > most) {
        Some(size) => Err(too_large(what, Some(size), most)),
        None => Ok(()),
    }
}

fn declared(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok()?.parse::<u64>().ok())
}

/// A `what` of `size` bytes (or, sent in chunks, past `most` and not done) refused.
fn too_large(what: &str, size: Option<u64>, most: u64) -> Refusal {
    let words = match size {
        Some(size) => {
            format!("the {what} is {size} bytes, more than this server takes (at most {most})")
        }
        None => format!("the {what} is larger than this server takes (at most {most} bytes)"),
    };
    Refusal::new(StatusCode::PAYLOAD_TOO_LARGE, words)
}

/// Reads `body`, a `what` of at most `most` bytes, after reserving room for it among
/// the uploads in flight: its declared length, or `most` when it declares none.
pub async fn read(
    app: &App,
    headers: &HeaderMap,
    body: Body,
    what: &str,
    most: u64,
) -> Result<Upload, Refusal> {
    check_declared(headers, what, most)?;
    let declared = declared(headers);
    let reserve = u32::try_from(declared.unwrap_or(most)).unwrap_or(u32::MAX);
    let Ok(held) = app.uploads.clone().try_acquire_many_owned(reserve) else {
        return Err(drained(
            body,
            Refusal::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "the server holds as many uploads as it can at the moment; try again shortly",
            ),
        )
        .await);
    };
    // Room for what it says it is, at once: grown by doubling, a body would pass
    // through buffers up to twice its size.
    let mut bytes = BytesMut::with_capacity(reserve as usize);
    let mut stream = body.into_data_stream();
    let deadline = Instant::now() + BODY_WHOLE;
    loop {
        let next = tokio::time::timeout_at(deadline.min(Instant::now() + BODY_IDLE), stream.next());
        let chunk = match next.await {
            Ok(Some(Ok(chunk))) => chunk,
            Ok(None) => break,
            Ok(Some(Err(error))) => {
                return Err(Refusal::new(
                    StatusCode::BAD_REQUEST,
                    format!("the {what} could not be read whole: {error}"),
                ))
            }
            Err(_) => {
                let words = if Instant::now() >= deadline {
                    format!(
                        "the {what} took longer than {} s to send",
                        BODY_WHOLE.as_secs()
                    )
                } else {
                    format!(
                        "the {what} stalled: nothing came for {} s",
                        BODY_IDLE.as_secs()
                    )
                };
                return Err(Refusal::new(StatusCode::REQUEST_TIMEOUT, words));
            }
        };
        if (bytes.len() + chunk.len()) as u64 > most.min(u64::from(reserve)) {
            return Err(too_large(what, None, most));
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(Upload {
        bytes: bytes.freeze(),
        _held: held,
    })
}

/// `refusal`, once what is left of `body` has been read and thrown away (for a few
/// seconds at most, holding none of it).
pub async fn drained(body: Body, refusal: Refusal) -> Refusal {
    let mut stream = body.into_data_stream();
    let _ = tokio::time::timeout(DRAIN_PATIENCE, async {
        while let Some(Ok(_)) = stream.next().await {}
    })
    .await;
    refusal
}
