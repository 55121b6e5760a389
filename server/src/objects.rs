//! The replay bytes, in object storage (`object_store`): keyed by their content hash, so
//! the same game sent twice is kept once. On one machine a folder (`LocalFileSystem`);
//! beyond it, an S3 bucket or any store that speaks S3 (`AmazonS3`), behind the same
//! calls.

use std::path::Path;
use std::sync::Arc;

use anyhow::Context;
use bytes::Bytes;
use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
use object_store::local::LocalFileSystem;
use object_store::path::Path as Key;
use object_store::prefix::PrefixStore;
use object_store::{ObjectStore, PutMode, PutOptions, PutPayload};
use sandglass_claim::{content_hash, hex};

#[derive(Clone)]
pub struct Objects(Arc<dyn ObjectStore>);

impl Objects {
    /// The store at `location`: a folder (made if missing), or `s3://BUCKET[/PREFIX]`, set
    /// up from the `AWS_*` environment variables as the AWS tools read them and then from
    /// `options` (`KEY=VALUE`, in object_store's names for an S3 store's settings, such
    /// as `aws_endpoint`). The store is asked for its games once, so that a bucket that
    /// is not there or does not answer is said before the first game is sent.
    pub async fn open(location: &str, options: &[String]) -> anyhow::Result<Objects> {
        let objects = match location.strip_prefix("s3://") {
            Some(bucket) => s3(bucket, options)?,
            None if options.is_empty() => folder(Path::new(location))?,
            None => anyhow::bail!("--objects-option sets an s3:// store, not a folder"),
        };
        match objects.reach().await {
            Ok(()) => Ok(objects),
            Err(error) => Err(error).with_context(|| format!("cannot reach {location}")),
        }
    }

    /// Whether the store answers: it is asked for its games.
    pub async fn reach(&self) -> Result<(), object_store::Error> {
        // A listing is never "not found" but for a bucket that is not there.
        let games = Key::from("games");
        self.0.list_with_delimiter(Some(&games)).await.map(drop)
    }

    /// Keeps `bytes` under `hash` (theirs): written once, whole or not at all; bytes kept
    /// already are left as they are.
    pub async fn keep(&self, hash: &str, bytes: Bytes) -> anyhow::Result<()> {
        let create = PutOptions {
            mode: PutMode::Create,
            ..PutOptions::default()
        };
        match self
            .0
            .put_opts(&key(hash), PutPayload::from_bytes(bytes), create)
            .await
        {
            Ok(_) | Err(object_store::Error::AlreadyExists { .. }) => Ok(()),
            Err(error) => Err(error).context("cannot keep the game's bytes"),
        }
    }

    /// The bytes kept under `hash`, checked against it: what comes back from storage is
    /// believed only once it hashes to its key.
    pub async fn fetch(&self, hash: &str) -> anyhow::Result<Bytes> {
        let bytes = self
            .0
            .get(&key(hash))
            .await
            .with_context(|| format!("cannot read game {hash}'s bytes"))?
            .bytes()
            .await
            .with_context(|| format!("cannot read game {hash}'s bytes"))?;
        anyhow::ensure!(
            hex(&content_hash(&bytes)) == hash,
            "game {hash}'s bytes in storage are damaged: they no longer hash to their key"
        );
        Ok(bytes)
    }
}

/// The store in the folder `dir`, made if missing.
fn folder(dir: &Path) -> anyhow::Result<Objects> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot make the objects folder {}", dir.display()))?;
    let store = LocalFileSystem::new_with_prefix(dir)
        .with_context(|| format!("cannot open the objects folder {}", dir.display()))?;
    Ok(Objects(Arc::new(store)))
}

/// The S3 store `BUCKET[/PREFIX]` (the location after `s3://`), with `options`.
fn s3(location: &str, options: &[String]) -> anyhow::Result<Objects> {
    let (bucket, prefix) = location.split_once('/').unwrap_or((location, ""));
    let mut builder = AmazonS3Builder::from_env().with_bucket_name(bucket);
    for option in options {
        let (name, value) = option
            .split_once('=')
            .with_context(|| format!("--objects-option {option:?} is not KEY=VALUE"))?;
        let name: AmazonS3ConfigKey = name
            .parse()
            .with_context(|| format!("{name:?} is not a setting of an S3 store"))?;
        builder = builder.with_config(name, value);
    }
    let store = builder
        .build()
        .with_context(|| format!("cannot open s3://{location}"))?;
    Ok(Objects(match prefix.trim_matches('/') {
        "" => Arc::new(store),
        prefix => Arc::new(PrefixStore::new(store, prefix)),
    }))
}

/// Where a game's bytes are kept: by their hash, under a folder of the hash's first two
/// digits, so that no folder holds more than a 256th of the games.
fn key(hash: &str) -> Key {
    Key::from(format!("games/{}/{hash}.sgr", &hash[..2.min(hash.len())]))
}
