//! The server through real HTTP on 127.0.0.1, each test on a PostgreSQL database of its
//! own, with real worker processes: goldens verified and ranked, workers killed
//! mid-fold, and every kind of bad upload refused in words, changing nothing; the board
//! and a game's page opened in headless Chromium.

#[path = "../../tests/binary/browser.rs"]
mod browser;
mod common;

use std::time::Duration;

use common::{goldens, Site};
use sandglass_claim::{content_hash, hex, Identity};
use sandglass_protocol::ranking::BEST_FIRST;
use sandglass_protocol::Ranking;
use sandglass_replay::verdict::{check, check_folded, Verdict};
use sandglass_sim::Event;

/// `sandglass verify`'s verdict on `bytes`, by the same function it calls.
fn verify(bytes: &[u8]) -> Verdict {
    match sandglass_replay::from_bytes(bytes) {
        Ok(file) => check(&file, "the file", |_| {}),
        Err(error) => Verdict::refused(error),
    }
}

/// A golden of a whole game that ended (rules 10, classic), as its `.sgr` bytes.
fn whole_golden() -> Vec<u8> {
    goldens()
        .into_iter()
        .find(|(name, _)| name.ends_with("v10/classic-whole-1.sgr"))
        .unwrap()
        .1
}

/// The goldens of short games, as their `.sgr` bytes.
fn short_goldens() -> Vec<Vec<u8>> {
    goldens()
        .into_iter()
        .filter(|(name, _)| name.contains("short"))
        .map(|(_, bytes)| bytes)
        .collect()
}

fn game_path(bytes: &[u8]) -> String {
    format!("/games/{}", hex(&content_hash(bytes)))
}

/// The board and a game's page in a real browser: the player's row on the board, the
/// game's page with the hash `sandglass verify` prints, and the web replay viewer it links
/// to (served by the server, `--web`) verifying the same bytes on the page, to the same
/// hash, opened at the game's last turn.
#[cfg_attr(
    lacks_chromium,
    ignore = "skipped: Chromium is not installed (.ci/run installs it)"
)]
#[test]
fn the_board_and_a_games_page_open_in_a_browser_and_its_viewer_shows_the_games_hash() {
    if !browser::chromium_installed() {
        return;
    }
    let web = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../web/dist");
    if !web.join("sandglass.wasm").is_file() {
        let message = "the web viewer is not built (cargo xtask web; .ci/run sees to it)";
        assert!(std::env::var_os("CI").is_none(), "{message}");
        eprintln!("SKIPPED: {message}");
        return;
    }
    let newest = sandglass_sim::rules::KEPT[sandglass_sim::rules::KEPT.len() - 1];
    let wanted = format!("v{newest}/classic-whole-1.sgr");
    let (_, bytes) = goldens()
        .into_iter()
        .find(|(name, _)| *name == wanted)
        .unwrap();
    let Verdict::Ok { hash, .. } = verify(&bytes) else {
        panic!("{wanted} verifies");
    };
    let hash = format!("0x{hash:016x}");
    let Some(mut site) = Site::start(&["--web", web.to_str().unwrap()]) else {
        return;
    };
    let me = Identity::generate().unwrap();
    assert_eq!(site.submit(&bytes, &me, "camel").0, 202);
    site.worker();
    site.verdict(&bytes);
    let mut browser = browser::Devtools::open();
    browser.go_to(&format!("{}/", site.url));
    browser.wait_for("document.body.innerText.includes('camel')", "the board");
    browser.go_to(&format!("{}{}", site.url, game_path(&bytes)));
    let shown = format!("document.body.innerText.includes('{hash}')");
    browser.wait_for(&shown, "the game's page to give its hash");
    let watch = browser.evaluate(
        "Array.from(document.links).find(a => a.textContent.includes('replay viewer')).href",
    );
    assert!(
        watch.contains("replay=") && watch.contains("&turn="),
        "{watch}"
    );
    browser.go_to(&watch);
    let verified =
        format!("document.getElementById('verdict').textContent.includes('hash={hash}')");
    browser.wait_for(&verified, "the viewer to verify the game to its hash");
    browser.wait_for(
        "document.getElementById('status').textContent.includes(' at turn ')",
        "the viewer to open at the game's last turn",
    );
}

#[test]
fn every_golden_is_verified_by_two_workers_and_the_finished_ones_ranked() {
    let Some(mut site) = Site::start(&["--burst", "1000"]) else {
        return;
    };
    let (_, first) = site.worker();
    let (_, second) = site.worker();
    let me = Identity::generate().unwrap();
    let goldens = goldens();
    assert!(goldens.len() >= 90, "{} goldens", goldens.len());
    // A golden whose events are another version's golden's (the same seed, and the
    // versions' differences never met: the short games, the million events on one
    // level) is the same play, the camel's own, held already.
    let mut taken = vec![];
    for (name, bytes) in &goldens {
        let (status, words) = site.submit(bytes, &me, "camel");
        match status {
            202 => taken.push((name, bytes)),
            _ => assert!(
                status == 200 && words.starts_with("already sent"),
                "{name}: {words}"
            ),
        }
    }
    assert!(taken.len() >= goldens.len() / 2, "{} taken", taken.len());
    let mut ranked = 0;
    for &(name, bytes) in &taken {
        let page = site.verdict(bytes);
        let Verdict::Ok { hash, .. } = verify(bytes) else {
            panic!("{name} does not verify");
        };
        assert!(page.contains("<strong>Verified"), "{name}: {page}");
        assert!(
            page.contains(&format!("hash=0x{hash:016x}")),
            "{name}: {page}"
        );
        let file = sandglass_replay::from_bytes(bytes).unwrap();
        let ended = check_folded(&file, "the file", |_| {}).1.unwrap().outcome();
        let rules = file.header.rules_version;
        let (_, board) = site.get(&format!("/?rules={rules}"));
        let row = format!("href=\"{}\"", game_path(bytes));
        assert_eq!(
            board.contains(&row),
            ended.is_some(),
            "{name} on rules {rules}'s board"
        );
        ranked += usize::from(ended.is_some());
        if ended.is_none() {
            assert!(page.contains("not ranked"), "{name}: {page}");
        }
    }
    assert!(ranked > 0);
    // Both workers took a share.
    for lines in [first, second] {
        let verifying = lines
            .try_iter()
            .filter(|l| l.starts_with("verifying"))
            .count();
        assert!(verifying > 0, "a worker verified nothing");
    }
    let (_, board) = site.get("/");
    assert!(
        board.contains("not say it was the player&#39;s only try"),
        "{board}"
    );
    let (_, board) = site.get("/?ruleset=nethack");
    assert!(board.contains("<td>nethack</td>"), "{board}");
    assert!(!board.contains("<td>classic</td>"), "{board}");
    // The same game sent again is kept once, and stays the player's.
    let (name, bytes) = taken[0];
    assert_eq!(site.objects_kept(), taken.len());
    let (status, words) = site.submit(bytes, &me, "camel");
    assert_eq!(
        (status, words.starts_with("already sent")),
        (200, true),
        "{name}: {words}"
    );
    assert_eq!(site.objects_kept(), taken.len());
    // A game's page links the viewer to its bytes, which are the bytes sent.
    let page = site.verdict(bytes);
    let replay = format!("{}/replays/{}.sgr", site.url, hex(&content_hash(bytes)));
    assert!(
        page.contains(&format!("?replay={replay}&amp;turn=")),
        "{page}"
    );
    assert_eq!(&site.get_bytes(&replay[site.url.len()..]), bytes);
    let (status, player) = site.get("/players/camel");
    assert_eq!(status, 200);
    assert!(player.contains(&me.public_hex()), "{player}");
}

#[test]
fn a_worker_killed_mid_fold_loses_nothing() {
    let Some(mut site) = Site::start(&[]) else {
        return;
    };
    let me = Identity::generate().unwrap();
    let millions: Vec<_> = goldens()
        .into_iter()
        .filter(|(name, _)| name.contains("million"))
        .collect();
    // Several versions' million-event games are one play (the same events from the same
    // seed, the versions' differences never met on the first level): the first is taken,
    // the others are the camel's own, held already.
    let mut taken = vec![];
    for (name, bytes) in &millions {
        let (status, said) = site.submit(bytes, &me, "camel");
        match status {
            202 => taken.push((name, bytes)),
            _ => assert!(
                status == 200 && said.starts_with("already sent"),
                "{name}: {said}"
            ),
        }
    }
    assert!(taken.len() > 1, "the worker has more than one game to fold");
    // A fold of a million events takes about a tenth of a second: the worker is killed
    // the moment it says it has claimed a game, and the test goes on once that game was
    // caught before its verdict (the kill may come too late on a loaded machine).
    let mut caught = false;
    while !caught {
        let (index, lines) = site.worker();
        let claimed = loop {
            let line = lines
                .recv_timeout(Duration::from_secs(60))
                .expect("the worker claimed no game");
            if let Some(hash) = line.strip_prefix("verifying ") {
                break hash.to_owned();
            }
        };
        site.kill_worker(index);
        let (_, page) = site.get(&format!("/games/{claimed}"));
        caught = page.contains("Waiting to be folded");
    }
    // The game is claimed again by the next worker, and every game gets its verdict.
    site.worker();
    for (name, bytes) in taken {
        let page = site.verdict(bytes);
        assert!(page.contains("<strong>Verified"), "{name}: {page}");
    }
}

#[test]
fn bad_uploads_get_words_and_change_nothing() {
    let Some(mut site) = Site::start(&["--most-bytes", "1000000"]) else {
        return;
    };
    site.worker();
    let alice = Identity::generate().unwrap();
    let mallory = Identity::generate().unwrap();
    let good = whole_golden();
    let refused = |site: &Site, bytes: &[u8], status: u16, words: &str| {
        let (got, said) = site.submit(bytes, &alice, "alice");
        assert_eq!(got, status, "{said}");
        assert!(said.contains(words), "{said:?} should say {words:?}");
    };
    refused(&site, &good[..good.len() / 2], 422, "the file is truncated");
    let mut damaged = good.clone();
    damaged[good.len() / 2] ^= 0x10;
    refused(&site, &damaged, 422, "checksum does not match");
    refused(
        &site,
        b"GIF89a, not a replay at all",
        422,
        "not a Sandglass replay",
    );
    refused(&site, b"", 422, "the file is empty");
    // Too large: refused by the length it declares, before a byte of it is read (a
    // client still sending it finds the connection closed, so the test sends none).
    let mut upload = site.connect();
    let head = "POST /games HTTP/1.1\r\nhost: x\r\ncontent-length: 1000001\r\n\
                connection: close\r\n\r\n";
    std::io::Write::write_all(&mut upload, head.as_bytes()).unwrap();
    let mut answer = String::new();
    std::io::Read::read_to_string(&mut upload, &mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert!(
        answer.contains("the file is 1000001 bytes, more than this server takes (at most 1000000)"),
        "{answer}"
    );
    // A rules version this server does not keep, newer or dropped, well formed otherwise.
    for (version, words) in [(99, "newer than this build"), (1, "no longer plays")] {
        let mut file = sandglass_replay::from_bytes(&good).unwrap();
        file.header.rules_version = version;
        let bytes = sandglass_replay::to_bytes(&file);
        refused(&site, &bytes, 422, &format!("rules version {version}, "));
        refused(&site, &bytes, 422, words);
    }
    // Every refusal said why in `sandglass verify`'s words, and nothing was kept.
    assert_eq!(site.objects_kept(), 0);
    assert_eq!(site.get("/players/alice").0, 404);

    // Missing, forged and misdirected signatures.
    let (status, words) = site.post(&good, &[]);
    assert_eq!(status, 401, "{words}");
    assert!(words.contains("must be sent signed"), "{words}");
    let bob = "bob";
    let forged = [
        ("x-sandglass-player", bob),
        ("x-sandglass-key", &alice.public_hex()),
        ("x-sandglass-signature", &"ab".repeat(64)),
    ];
    let (status, words) = site.post(&good, &forged);
    assert_eq!(
        (status, words.contains("does not match")),
        (401, true),
        "{words}"
    );
    let elsewhere = sandglass_claim::Claim {
        server: "http://another.server",
        player: "alice",
        content: content_hash(&good),
    };
    let misdirected = [
        ("x-sandglass-player", "alice"),
        ("x-sandglass-key", &alice.public_hex()),
        ("x-sandglass-signature", &alice.sign(&elsewhere)),
    ];
    assert_eq!(site.post(&good, &misdirected).0, 401);
    assert_eq!(site.objects_kept(), 0);

    // Alice's upload is hers: nobody else may claim it, nor her name.
    assert_eq!(site.submit(&good, &alice, "alice").0, 202);
    // Her key in capitals is still her key.
    let claim = sandglass_claim::Claim {
        server: &site.url,
        player: "alice",
        content: content_hash(&good),
    };
    let shouted = [
        ("x-sandglass-player", "alice"),
        ("x-sandglass-key", &alice.public_hex().to_uppercase()),
        ("x-sandglass-signature", &alice.sign(&claim)),
    ];
    let (status, words) = site.post(&good, &shouted);
    assert_eq!(
        (status, words.starts_with("already sent")),
        (200, true),
        "{words}"
    );
    let (status, words) = site.submit(&good, &mallory, "mallory");
    assert_eq!((status, words.contains("by alice")), (409, true), "{words}");
    let (status, words) = site.submit(&good, &mallory, "alice");
    assert_eq!(
        (status, words.contains("belongs to another")),
        (403, true),
        "{words}"
    );
    assert_eq!(site.get("/players/mallory").0, 404);
    let page_before = site.verdict(&good);
    assert!(page_before.contains("/players/alice"), "{page_before}");
    assert!(page_before.contains("<strong>Verified"), "{page_before}");

    // A game whose bytes are well formed but whose log is not the game it claims: one
    // draw changed, and the checksum made again. It is queued, folded and refused,
    // and its page gives `sandglass verify`'s words.
    let mut crafted = sandglass_replay::from_bytes(&good).unwrap();
    let draw = crafted.events.iter_mut().rev().find_map(|e| match e {
        Event::Draw(value) => Some(value),
        Event::Command(_) => None,
    });
    *draw.unwrap() ^= 1;
    let crafted = sandglass_replay::to_bytes(&crafted);
    assert_eq!(site.submit(&crafted, &alice, "alice").0, 202);
    let page = site.verdict(&crafted);
    let Verdict::Fail { what, .. } = verify(&crafted) else {
        panic!("the crafted game verifies");
    };
    assert!(page.contains("<strong>Refused"), "{page}");
    let what = what.replace('\'', "&#39;");
    assert!(page.contains(&what), "{page} should say {what}");
    let (_, board) = site.get("/");
    assert!(!board.contains(&game_path(&crafted)), "{board}");
    let (_, alices) = site.get("/players/alice");
    assert!(!alices.contains(&game_path(&crafted)), "{alices}");
    // Nor does a refused game of rules of its own make a link on the board (another
    // game's: the same events under other rules would be the same play, alice's own).
    let mut odd = golden_file("v10/classic-short-2.sgr");
    odd.header.ruleset.time = sandglass_sim::tape::TimeModel::Classic {
        gain: 50,
        threshold: 100,
    };
    let odd = sandglass_replay::to_bytes(&odd);
    assert_eq!(site.submit(&odd, &alice, "alice").0, 202);
    assert!(site.verdict(&odd).contains("<strong>Refused"));
    let (_, board) = site.get("/");
    assert!(!board.contains("classic-50-100"), "{board}");
    // The game it was made from is as it was: changed bytes are another game.
    assert_eq!(site.verdict(&good), page_before);
}

#[test]
fn floods_from_a_key_or_an_address_are_answered_429() {
    let Some(site) = Site::start(&["--burst", "2", "--per-minute", "1"]) else {
        return;
    };
    let shorts = short_goldens();
    // A key may send 2 at once...
    let me = Identity::generate().unwrap();
    let statuses: Vec<u16> = shorts[..3]
        .iter()
        .map(|bytes| site.submit(bytes, &me, "camel").0)
        .collect();
    assert_eq!(statuses, [202, 202, 429]);
    let (status, words) = site.submit(&shorts[3], &me, "camel");
    assert_eq!(status, 429);
    assert!(
        words.contains("too many games sent from this key"),
        "{words}"
    );
    // ... and another player at the same address 2 more; the address, which may be
    // shared, 8 in all, whatever they hold.
    let other = Identity::generate().unwrap();
    let statuses: Vec<u16> = shorts[4..6]
        .iter()
        .map(|bytes| site.submit(bytes, &other, "dromedary").0)
        .collect();
    assert_eq!(statuses, [202, 202]);
    // Junk counts too, before a byte of it is read: the address has taken 6 posts (the
    // refused ones among them), so a third player may send 2 more from it.
    let third = Identity::generate().unwrap();
    let statuses: Vec<u16> = (0..3)
        .map(|i| {
            site.submit(format!("junk {i}").as_bytes(), &third, "bactrian")
                .0
        })
        .collect();
    assert_eq!(statuses, [422, 422, 429]);
    let (status, words) = site.submit(b"junk", &third, "bactrian");
    assert_eq!(status, 429);
    assert!(
        words.contains("too many games sent from this address"),
        "{words}"
    );
}

/// Behind a proxy the server was told to trust, each player is their own address: a
/// flood of junk from one address in an honest player's name spends that address's
/// allowance, never the player's own; and the address a client writes itself into
/// X-Forwarded-For is not believed, nor the header from any other peer. Every 429
/// says when to try again.
#[test]
fn junk_in_an_honest_name_from_elsewhere_spends_nothing_of_theirs() {
    let Some(site) = Site::start(&[
        "--burst",
        "2",
        "--per-minute",
        "1",
        "--trust-proxy",
        "127.0.0.1",
    ]) else {
        return;
    };
    let shorts = short_goldens();
    let honest = Identity::generate().unwrap();
    let from = |address: &str, bytes: &[u8], signature: &str| {
        let claim = sandglass_claim::Claim {
            server: &site.url,
            player: "camel",
            content: content_hash(bytes),
        };
        let signed = honest.sign(&claim);
        let signature = if signature.is_empty() {
            &signed
        } else {
            signature
        };
        let mut response = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .build()
            .new_agent()
            .post(format!("{}/games", site.url))
            .header("x-forwarded-for", address)
            .header("x-sandglass-player", "camel")
            .header("x-sandglass-key", honest.public_hex())
            .header("x-sandglass-signature", signature)
            .send(bytes)
            .unwrap();
        let retry_after = response
            .headers()
            .get("retry-after")
            .map(|v| v.to_str().unwrap().to_owned());
        let words = response.body_mut().read_to_string().unwrap();
        (response.status().as_u16(), words, retry_after)
    };
    let forged = "ab".repeat(64);
    // Mallory, at 10.0.0.66, floods in camel's name: two are read and refused (not a
    // replay), then her address's allowance of the name is spent.
    let statuses: Vec<u16> = (0..4)
        .map(|i| from("10.0.0.66", format!("junk {i}").as_bytes(), &forged).0)
        .collect();
    assert_eq!(statuses, [422, 422, 429, 429]);
    let (_, words, retry_after) = from("10.0.0.66", b"junk", &forged);
    assert!(words.contains("key from this address"), "{words}");
    assert_eq!(retry_after.as_deref(), Some("60"));
    // Camel, at 10.0.0.7, sends as much as ever; writing another address first in the
    // header changes nothing (the proxy's own entry, the last, is the one believed).
    assert_eq!(from("10.0.0.7", &shorts[0], "").0, 202);
    assert_eq!(from("10.0.0.66, 10.0.0.7", &shorts[1], "").0, 202);
    let (status, words, retry_after) = from("10.0.0.7", &shorts[2], "");
    assert_eq!(status, 429, "{words}");
    assert!(retry_after.is_some());
}

#[test]
fn sandglass_submit_signs_with_its_own_key_and_sends_only_where_told() {
    // The client's binary, built beside this package's by `cargo test --workspace`.
    let client = std::path::Path::new(common::BIN).with_file_name("sandglass");
    if !client.is_file() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "the sandglass binary is not built"
        );
        eprintln!("SKIPPED: build the client first (cargo build --release -p sandglass)");
        return;
    }
    let Some(mut site) = Site::start(&["--most-bytes", "100000"]) else {
        return;
    };
    site.worker();
    let dir = tempfile::tempdir().unwrap();
    let replays = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../replays/v10");
    let quit = replays.join("nethack-quit-4.sgr");
    let run = |config: &str, args: &[&std::ffi::OsStr]| {
        let out = std::process::Command::new(&client)
            .arg("submit")
            .args(args)
            .arg("--config-dir")
            .arg(dir.path().join(config))
            .arg("--data-dir")
            .arg(dir.path().join("data"))
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&out.stdout) + String::from_utf8_lossy(&out.stderr);
        (out.status.success(), said.into_owned())
    };
    let url = std::ffi::OsStr::new(&site.url);
    let named = |s: &'static str| std::ffi::OsStr::new(s);
    // No server named: nothing is sent anywhere.
    let (ok, said) = run("mine", &[quit.as_os_str()]);
    assert!(!ok && said.contains("--server URL"), "{said}");
    let sent = [
        quit.as_os_str(),
        named("--server"),
        url,
        named("--name"),
        named("camel"),
    ];
    let (ok, said) = run("mine", &sent);
    assert!(ok && said.contains("queued"), "{said}");
    let page = site.verdict(&std::fs::read(&quit).unwrap());
    assert!(
        page.contains("/players/camel") && page.contains("<strong>Verified"),
        "{page}"
    );
    // The server and the name are remembered, and the key with them.
    let (ok, said) = run("mine", &[quit.as_os_str()]);
    assert!(ok && said.contains("already sent"), "{said}");
    // Another player's key (another config folder) cannot take the name, nor the game.
    let short = replays.join("nethack-short-1.sgr");
    let theirs = [
        short.as_os_str(),
        named("--server"),
        url,
        named("--name"),
        named("camel"),
    ];
    let (ok, said) = run("theirs", &theirs);
    assert!(!ok && said.contains("belongs to another"), "{said}");
    let stolen = [
        quit.as_os_str(),
        named("--server"),
        url,
        named("--name"),
        named("dromedary"),
    ];
    let (ok, said) = run("theirs", &stolen);
    assert!(!ok && said.contains("by camel"), "{said}");
    // A damaged file is refused in `sandglass verify`'s words, and not sent.
    let damaged = dir.path().join("damaged.sgr");
    let mut bytes = std::fs::read(&short).unwrap();
    bytes[40] ^= 1;
    std::fs::write(&damaged, bytes).unwrap();
    let kept = site.objects_kept();
    let (ok, said) = run("mine", &[damaged.as_os_str()]);
    assert!(!ok && said.contains("checksum does not match"), "{said}");
    // A game larger than the server takes is refused in words, however the server's
    // answer arrives (read, or the connection closed under the upload).
    let million = replays.join("classic-million-4.sgr");
    let (ok, said) = run("mine", &[million.as_os_str()]);
    let words = [
        "more than this server takes",
        "larger than the server takes",
    ];
    assert!(!ok && words.iter().any(|w| said.contains(w)), "{said}");
    assert_eq!(site.objects_kept(), kept);
}

#[test]
fn a_server_killed_mid_upload_keeps_nothing_of_it() {
    let Some(mut site) = Site::start(&[]) else {
        return;
    };
    let me = Identity::generate().unwrap();
    let all = goldens();
    let whole = &all
        .iter()
        .find(|(n, _)| n.ends_with("classic-whole-1.sgr"))
        .unwrap()
        .1;
    let cut = &all.iter().find(|(n, _)| n.contains("million")).unwrap().1;
    assert_eq!(site.submit(whole, &me, "camel").0, 202);
    // A quarter of a game sent, and the server killed under it.
    let claim = sandglass_claim::Claim {
        server: &site.url,
        player: "camel",
        content: content_hash(cut),
    };
    let mut upload = site.connect();
    let head = format!(
        "POST /games HTTP/1.1\r\nhost: x\r\ncontent-length: {}\r\nx-sandglass-player: camel\r\n\
         x-sandglass-key: {}\r\nx-sandglass-signature: {}\r\n\r\n",
        cut.len(),
        me.public_hex(),
        me.sign(&claim)
    );
    std::io::Write::write_all(&mut upload, head.as_bytes()).unwrap();
    std::io::Write::write_all(&mut upload, &cut[..cut.len() / 4]).unwrap();
    site.restart_server();
    // The game sent whole is there, kept once; nothing of the one cut off.
    assert_eq!(site.objects_kept(), 1);
    assert_eq!(site.get(&game_path(cut)).0, 404);
    site.worker();
    assert!(site.verdict(whole).contains("<strong>Verified"));
}

#[test]
fn the_viewer_is_served_beside_the_games_it_opens() {
    let web = tempfile::tempdir().unwrap();
    for (name, text) in [
        ("index.html", "<title>viewer</title>"),
        ("sandglass.wasm", "\0asm"),
    ] {
        std::fs::write(web.path().join(name), text).unwrap();
    }
    let web_dir = web.path().to_str().unwrap();
    let Some(mut site) = Site::start(&["--web", web_dir]) else {
        return;
    };
    site.worker();
    let (status, page) = site.get("/viewer/");
    assert_eq!((status, page.as_str()), (200, "<title>viewer</title>"));
    let wasm = site.get_response("/viewer/sandglass.wasm");
    assert_eq!(wasm.headers()["content-type"], "application/wasm");
    for outside in [
        "/viewer/..%2FCargo.toml",
        "/viewer/.hidden",
        "/viewer/missing.js",
    ] {
        assert_eq!(site.get(outside).0, 404, "{outside}");
    }
    let me = Identity::generate().unwrap();
    let (_, bytes) = goldens().swap_remove(0);
    assert_eq!(site.submit(&bytes, &me, "camel").0, 202);
    let page = site.verdict(&bytes);
    let link = format!("href=\"{}/viewer/?replay={}/replays/", site.url, site.url);
    assert!(page.contains(&link), "{page}");
}

/// The boards sort in PostgreSQL by `BEST_FIRST`, the client's own table by `Ranking`:
/// the same rows come out in the same order, ties left to each list's own tie-break.
#[test]
fn the_boards_rank_games_as_the_clients_table_does() {
    let Some(pg) = common::Database::fresh() else {
        return;
    };
    let games: [(u64, u64); 7] = [
        (300, 90),
        (1200, 4000),
        (300, 40),
        (0, 1),
        (5_000_000_000, 9),
        (1200, 3000),
        (300, 90),
    ];
    let values: Vec<String> = (games.iter().enumerate())
        .map(|(id, (points, turns))| format!("({id}, {points}, {turns})"))
        .collect();
    let by_sql = pg.sql(&format!(
        "SELECT v.id FROM (VALUES {}) AS v (id, points, turns) ORDER BY {BEST_FIRST}, v.id",
        values.join(", ")
    ));
    let mut by_rust: Vec<usize> = (0..games.len()).collect();
    by_rust.sort_by_key(|&id| {
        let (points, turns) = games[id];
        (Ranking { points, turns }, id)
    });
    let by_rust: Vec<String> = by_rust.iter().map(usize::to_string).collect();
    assert_eq!(by_sql, by_rust.join("\n"));
}

#[test]
fn processes_starting_together_migrate_the_database_once() {
    // A cluster of its own: the shared cluster's databases are migrated already.
    let Some(pg) = common::Postgres::own() else {
        return;
    };
    let migrating: Vec<_> = (0..4)
        .map(|_| {
            let url = pg.url();
            std::thread::spawn(move || {
                std::process::Command::new(common::BIN)
                    .args(["migrate", "--database", &url])
                    .output()
                    .unwrap()
            })
        })
        .collect();
    for run in migrating {
        let out = run.join().unwrap();
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{said}");
    }
}

#[test]
fn bytes_damaged_in_storage_are_never_folded_and_hold_up_nothing() {
    let Some(mut site) = Site::start(&[]) else {
        return;
    };
    let me = Identity::generate().unwrap();
    let all = goldens();
    let [(_, first), (_, second)] = [&all[0], &all[1]];
    assert_eq!(site.submit(first, &me, "camel").0, 202);
    assert_eq!(site.submit(second, &me, "camel").0, 202);
    // The first game's bytes damaged in the store, under the server's feet.
    let hash = hex(&content_hash(first));
    let kept = site
        .objects
        .join("games")
        .join(&hash[..2])
        .join(format!("{hash}.sgr"));
    let mut damaged = first.clone();
    damaged[30] ^= 1;
    std::fs::write(&kept, &damaged).unwrap();
    let (_, lines) = site.worker();
    assert!(site.verdict(second).contains("<strong>Verified"));
    let (_, page) = site.get(&game_path(first));
    assert!(page.contains("Waiting to be folded"), "{page}");
    // The worker logged why, at the error level (waited for as long as a loaded machine
    // may take; never for ever).
    let said = std::iter::from_fn(|| lines.recv_timeout(Duration::from_secs(120)).ok())
        .find(|line| line.contains("ERROR"))
        .expect("the worker logged no error for the damaged bytes");
    assert!(said.contains("no longer hash to their key"), "{said}");
    // Mended, it is folded.
    std::fs::write(&kept, first).unwrap();
    assert!(site.verdict(first).contains("<strong>Verified"));
}

/// The replay bytes in an S3 bucket, on moto's S3-compatible server (`.ci/run` installs
/// it in `target/moto/`): a game sent is kept there, not in a folder; a worker reads it
/// back from there and verifies it to the hash `sandglass verify` prints; the viewer is
/// served the same bytes; the same game sent again is kept once. A bucket that is not
/// there stops the server as it starts, in words.
#[test]
fn the_bytes_can_be_kept_in_an_s3_bucket() {
    let Some(moto) = Moto::start() else { return };
    moto.make_bucket("sand");
    let objects = |bucket: &str| {
        let endpoint = format!("aws_endpoint={}", moto.url);
        let mut args = vec![
            "--objects".to_owned(),
            format!("s3://{bucket}/games-of-a-site"),
        ];
        for option in [
            &endpoint,
            "aws_allow_http=true",
            "aws_region=us-east-1",
            "aws_access_key_id=sandglass",
            "aws_secret_access_key=sandglass",
        ] {
            args.extend(["--objects-option".to_owned(), option.to_owned()]);
        }
        args
    };
    let Some(mut site) = Site::start_on_objects(Some(objects("sand")), &[]) else {
        return;
    };
    site.worker();
    let me = Identity::generate().unwrap();
    let (name, bytes) = &goldens()[0];
    assert_eq!(site.submit(bytes, &me, "camel").0, 202, "{name}");
    let page = site.verdict(bytes);
    let Verdict::Ok { hash, .. } = verify(bytes) else {
        panic!("{name} does not verify")
    };
    assert!(page.contains(&format!("0x{hash:016x}")), "{page}");
    assert_eq!(site.objects_kept(), 0, "nothing in a folder");
    let replay = format!("/replays/{}.sgr", hex(&content_hash(bytes)));
    assert_eq!(&site.get_bytes(&replay), bytes);
    let (status, words) = site.submit(bytes, &me, "camel");
    assert_eq!(
        (status, words.starts_with("already sent")),
        (200, true),
        "{words}"
    );

    let mut serve = std::process::Command::new(common::BIN)
        .args([
            "serve",
            "--database",
            &site.pg.url(),
            "--listen",
            "127.0.0.1:0",
        ])
        .args(objects("no-such-bucket"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(status) = serve.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > Duration::from_secs(120) {
            let _ = serve.kill();
            panic!("a server on a bucket that is not there started");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let mut said = String::new();
    std::io::Read::read_to_string(&mut serve.stderr.take().unwrap(), &mut said).unwrap();
    assert!(!status.success(), "{said}");
    assert!(said.contains("cannot reach s3://no-such-bucket"), "{said}");
}

/// moto's S3-compatible server on a port of its own, until dropped.
struct Moto {
    url: String,
    process: std::process::Child,
}

impl Moto {
    /// `None` (the test skipped, saying why) where moto is not installed, unless `CI`
    /// is set: `.ci/run` installs it.
    fn start() -> Option<Moto> {
        let server =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/moto/bin/moto_server");
        if !server.is_file() {
            let why = "moto is not installed: .ci/run puts it in target/moto";
            assert!(std::env::var_os("CI").is_none(), "{why}");
            eprintln!("SKIPPED: {why}");
            return None;
        }
        let port = common::free_port();
        let process = std::process::Command::new(server)
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let start = std::time::Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "moto did not start"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        Some(Moto {
            url: format!("http://127.0.0.1:{port}"),
            process,
        })
    }

    fn make_bucket(&self, bucket: &str) {
        let made = ureq::put(format!("{}/{bucket}", self.url)).send_empty();
        assert!(made.is_ok(), "{made:?}");
    }
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

#[test]
fn a_server_stops_on_sigterm() {
    let Some(mut site) = Site::start(&[]) else {
        return;
    };
    assert!(site.terminate_server().success());
}

/// Games verified per second by one worker and by two, on two mixes: every golden
/// (about 10 million events, most of them in the million-event ones) and 200 short bot
/// games (where the claim, the fetch and the commit weigh most). BENCHMARKS.md quotes it.
#[test]
#[ignore = "a benchmark: cargo test --release -p sandglass-server --test server -- --ignored --nocapture"]
fn bench_games_verified_per_second() {
    let short = bot_games(200, 100);
    let goldens: Vec<Vec<u8>> = goldens().into_iter().map(|(_, bytes)| bytes).collect();
    for (mix, games) in [("every golden", &goldens), ("200 short games", &short)] {
        for workers in [1, 2] {
            let Some(mut site) = Site::start(&["--burst", "1000"]) else {
                return;
            };
            let me = Identity::generate().unwrap();
            for bytes in games {
                assert_eq!(site.submit(bytes, &me, "camel").0, 202);
            }
            let start = std::time::Instant::now();
            let logs: Vec<_> = (0..workers).map(|_| site.worker().1).collect();
            for bytes in games {
                site.verdict(bytes);
            }
            let seconds = start.elapsed().as_secs_f64();
            let (mut took, mut folding) = (0.0, 0.0);
            for line in logs.iter().flat_map(|log| log.try_iter()) {
                if let Some((all, fold)) = line
                    .strip_prefix("took ")
                    .and_then(|l| l.strip_suffix(" ms of it folding"))
                    .and_then(|l| l.split_once(" ms, "))
                {
                    took += all.parse::<f64>().unwrap();
                    folding += fold.parse::<f64>().unwrap();
                }
            }
            let events: u64 = games
                .iter()
                .map(|b| sandglass_replay::from_bytes(b).unwrap().events.len() as u64)
                .sum();
            println!(
                "{mix}: {workers} worker(s): {} games, {events} events in {seconds:.2} s: \
                 {:.1} games/s, {:.1} M events/s; {:.1}% of the workers' time outside the fold",
                games.len(),
                games.len() as f64 / seconds,
                events as f64 / seconds / 1e6,
                100.0 * (took - folding) / took
            );
        }
    }
}

/// Submissions taken per second, and how long each waited, with 200 clients sending at
/// once: each a thread of this process with a key and name of its own, sending five
/// short bot games one after the other through blocking HTTP (`ureq`), to the server in
/// its own process on loopback, its limits raised out of the way. BENCHMARKS.md quotes it.
#[test]
#[ignore = "a benchmark: cargo test --release -p sandglass-server --test server -- --ignored --nocapture"]
fn bench_submissions_from_200_clients_at_once() {
    use std::time::Instant;
    const CLIENTS: usize = 200;
    const EACH: usize = 5;
    let games = bot_games((CLIENTS * EACH) as u64, 20);
    // Every client is at 127.0.0.1 here, so the cap on one address's connections is
    // raised past them; the limits on posts are kept, their figures raised.
    let options = ["--burst", "1000000", "--connections-per-address", "256"];
    let Some(site) = Site::start(&options) else {
        return;
    };
    let (start, cpu) = (Instant::now(), site.server_cpu());
    let mut waits: Vec<Duration> = std::thread::scope(|scope| {
        let clients: Vec<_> = games
            .chunks(EACH)
            .enumerate()
            .map(|(client, games)| {
                let site = &site;
                scope.spawn(move || {
                    let me = Identity::generate().unwrap();
                    let name = format!("client-{client}");
                    let mut waits = vec![];
                    for bytes in games {
                        let sent = Instant::now();
                        let (status, page) = site.submit(bytes, &me, &name);
                        assert_eq!(status, 202, "{page}");
                        waits.push(sent.elapsed());
                    }
                    waits
                })
            })
            .collect();
        clients
            .into_iter()
            .flat_map(|client| client.join().unwrap())
            .collect()
    });
    let seconds = start.elapsed().as_secs_f64();
    waits.sort();
    let at = |share: f64| waits[((waits.len() - 1) as f64 * share) as usize];
    println!(
        "{CLIENTS} clients, {} submissions in {seconds:.2} s: {:.0} taken a second; \
         waited median {:.1?}, p99 {:.1?}, longest {:.1?}; the server's processor time \
         {:.2?} a submission",
        waits.len(),
        waits.len() as f64 / seconds,
        at(0.5),
        at(0.99),
        at(1.0),
        (site.server_cpu() - cpu) / waits.len() as u32
    );
}

/// `count` bot games of `commands` commands (seeds 0 on), as `.sgr` bytes.
fn bot_games(count: u64, commands: u64) -> Vec<Vec<u8>> {
    use sandglass_sim::{bot::Bot, LiveTape, Recording, Rules, Ruleset};
    (0..count)
        .map(|seed| {
            let mut game = LiveTape::new(Rules::newest(Ruleset::NETHACK), seed);
            Bot::new(seed).play(&mut game, commands).unwrap();
            let tape = game.into_tape();
            let file = Recording::record(tape.header, tape.events).unwrap();
            sandglass_replay::to_bytes(&file)
        })
        .collect()
}

/// A game's first `commands` commands and their draws, as a file of its own.
fn cut(file: &sandglass_sim::Recording, commands: usize) -> Vec<u8> {
    let end = file
        .events
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e, Event::Command(_)))
        .nth(commands)
        .map_or(file.events.len(), |(i, _)| i);
    let events = file.events[..end].to_vec();
    let recording = sandglass_sim::Recording::record(file.header.clone(), events).unwrap();
    sandglass_replay::to_bytes(&recording)
}

/// A bot's game of `seed`: `shared` commands of one bot, then `then` of a bot of
/// `other`, as `.sgr` bytes.
fn branch(seed: u64, shared: u64, other: u64, then: u64) -> Vec<u8> {
    use sandglass_sim::{bot::Bot, LiveTape, Recording, Rules, Ruleset};
    let mut game = LiveTape::new(Rules::newest(Ruleset::NETHACK), seed);
    Bot::new(seed).play(&mut game, shared).unwrap();
    Bot::new(other).play(&mut game, then).unwrap();
    let tape = game.into_tape();
    sandglass_replay::to_bytes(&Recording::record(tape.header, tape.events).unwrap())
}

/// A game is its play, not its bytes: a copy of a public game re-stamped (another
/// `created_at`, so other bytes and another SHA-256), cut short, continued or taken over
/// part way, sent from a stranger's key, is never ranked as the stranger's; the bytes
/// served stay the first sender's. Two games that only begin alike (the same seed, the
/// same first few moves) are two games.
#[test]
fn a_game_is_known_by_its_play_and_a_stranger_cannot_take_any_of_it() {
    let Some(mut site) = Site::start(&[]) else {
        return;
    };
    site.worker();
    let alice = Identity::generate().unwrap();
    let mallory = Identity::generate().unwrap();
    let good = whole_golden();
    assert_eq!(site.submit(&good, &alice, "alice").0, 202);
    let refused = |bytes: &[u8], words: &str| {
        let (status, said) = site.submit(bytes, &mallory, "mallory");
        assert_eq!(status, 409, "{said}");
        assert!(said.contains(words), "{said:?} should say {words:?}");
    };

    // Downloaded, re-stamped and sent again: other bytes, the same play.
    let served = site.get_bytes(&format!("/replays/{}.sgr", hex(&content_hash(&good))));
    assert_eq!(served, good);
    let mut file = sandglass_replay::from_bytes(&served).unwrap();
    file.header.created_at += 86_400;
    let restamped = sandglass_replay::to_bytes(&file);
    assert_ne!(content_hash(&restamped), content_hash(&good));
    refused(&restamped, "sent already, by alice");
    // Cut short, within the opening and past it (where its first moves are what give it
    // away).
    refused(&cut(&file, 7), "the beginning of alice's game");
    refused(&cut(&file, 60), "first 50 commands are those of alice's");
    // Its owner sending her own copy is told it is held, and where.
    let (status, said) = site.submit(&restamped, &alice, "alice");
    assert_eq!(status, 200, "{said}");
    assert!(said.contains(&game_path(&good)), "{said}");

    // A game sent in play (alice's first 20 commands), then continued by another.
    let whole = branch(77, 120, 77, 0);
    let in_play = cut(&sandglass_replay::from_bytes(&whole).unwrap(), 20);
    assert_eq!(site.submit(&in_play, &alice, "alice").0, 202);
    refused(&whole, "begins with alice's game");
    // Taken over from alice's game after 60 commands, and played on otherwise.
    let alices = branch(78, 100, 78, 0);
    assert_eq!(site.submit(&alices, &alice, "alice").0, 202);
    refused(
        &branch(78, 60, 9_999, 40),
        "first 50 commands are those of alice's",
    );
    // Alice may branch her own games.
    assert_eq!(
        site.submit(&branch(78, 60, 9_999, 40), &alice, "alice").0,
        202
    );
    // Two games that part within the first moves are two players' own.
    let (status, said) = site.submit(&branch(78, 5, 4_242, 60), &mallory, "mallory");
    assert_eq!(status, 202, "{said}");

    // Nothing of mallory's copies was kept: the only bytes under her name are her own
    // game, and alice's game's page is hers.
    let (_, page) = site.get("/players/mallory");
    assert_eq!(page.matches("/games/").count(), 1, "{page}");
    assert!(site.verdict(&good).contains("/players/alice"));
    assert_eq!(
        site.get(&format!("/replays/{}.sgr", hex(&content_hash(&restamped))))
            .0,
        404
    );
}

/// The golden `name` (as `v10/classic-short-2.sgr`), read.
fn golden_file(name: &str) -> sandglass_sim::Recording {
    let (_, bytes) = goldens()
        .into_iter()
        .find(|(n, _)| n.ends_with(name))
        .unwrap();
    sandglass_replay::from_bytes(&bytes).unwrap()
}

/// `file` recorded again with `change` made to it: a forgery, which must still verify
/// (`sandglass verify` passes it), or it would be no threat to the board.
fn forged(
    file: &sandglass_sim::Recording,
    change: impl FnOnce(&mut sandglass_sim::Header, &mut Vec<Event>),
) -> Vec<u8> {
    let (mut header, mut events) = (file.header.clone(), file.events.clone());
    change(&mut header, &mut events);
    let recording = sandglass_sim::Recording::record(header, events).unwrap();
    let bytes = sandglass_replay::to_bytes(&recording);
    assert!(
        matches!(verify(&bytes), Verdict::Ok { .. }),
        "{:?}",
        verify(&bytes)
    );
    bytes
}

/// Regression: a copy of a public game that folds the same way under another rules
/// version, under a classic ruleset's threshold of 99 in place of 100, or with a dash
/// slipped in before a command it changes nothing for, was another play, and ranked as
/// the stranger's (on a board of its own for the first two). Each is the first sender's.
#[test]
fn a_copy_re_stamped_with_other_rules_or_a_dash_slipped_in_is_the_first_senders() {
    let Some(mut site) = Site::start(&[]) else {
        return;
    };
    let alice = Identity::generate().unwrap();
    let mallory = Identity::generate().unwrap();
    let short = golden_file("v10/classic-short-2.sgr");
    let whole = golden_file("v10/nethack-whole-3.sgr");
    for file in [&short, &whole] {
        let bytes = sandglass_replay::to_bytes(file);
        assert_eq!(site.submit(&bytes, &alice, "alice").0, 202);
    }
    let copies = [
        forged(&short, |header, _| header.rules_version = 9),
        forged(&short, |header, _| {
            header.ruleset.time = sandglass_sim::tape::TimeModel::Classic {
                gain: 100,
                threshold: 99,
            }
        }),
        forged(&whole, |_, events| {
            let pick_up = events
                .iter()
                .position(|e| *e == Event::Command(sandglass_sim::Command::PickUp))
                .unwrap();
            events.insert(pick_up, Event::Command(sandglass_sim::Command::Dash));
        }),
    ];
    for copy in &copies {
        let (status, said) = site.submit(copy, &mallory, "mallory");
        assert_eq!(status, 409, "{said}");
        assert!(said.contains("sent already, by alice"), "{said}");
    }
    let (_, page) = site.get("/players/mallory");
    assert!(!page.contains("/games/"), "{page}");

    // A server upgraded from the older encoding (migration 8 forgets every play) works
    // each out again from its bytes, asking the games sent meanwhile to wait, and then
    // knows the copies as before.
    site.kill_server();
    site.pg
        .sql("UPDATE games SET play = NULL, commands = NULL; DELETE FROM play_marks;");
    site.start_again(&[]);
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let (status, said) = loop {
        let (status, said) = site.submit(&copies[2], &mallory, "mallory");
        if status != 503 || std::time::Instant::now() > deadline {
            break (status, said);
        }
        assert!(said.contains("working out the plays"), "{said}");
        std::thread::sleep(Duration::from_millis(200));
    };
    assert_eq!(status, 409, "{said}");
    assert!(said.contains("sent already, by alice"), "{said}");
}

/// What a server's keeper reads: `/healthz` while the database answers (503 once it
/// does not), `/metrics` in Prometheus's text format, and a log line for each request
/// and its status.
#[test]
fn the_server_says_how_it_is_doing() {
    // A cluster of its own, which it stops at the end.
    let Some(mut site) = Site::start_on_own_cluster(&[]) else {
        return;
    };
    assert_eq!(site.get("/healthz"), (200, "ok\n".to_owned()));
    site.worker();
    let good = whole_golden();
    let alice = Identity::generate().unwrap();
    assert_eq!(site.submit(&good, &alice, "alice").0, 202);
    site.verdict(&good);
    assert_eq!(site.get("/no/such/page").0, 404);
    let (status, metrics) = site.get("/metrics");
    assert_eq!(status, 200);
    for line in [
        "# TYPE sandglass_queue_depth gauge",
        "sandglass_queue_depth 0",
        "# TYPE sandglass_verdicts_total counter",
        "sandglass_requests_total{status=\"202\"} 1",
        "sandglass_requests_total{status=\"404\"} 1",
        "sandglass_live_viewers 0",
    ] {
        assert!(metrics.contains(line), "{line:?} missing from\n{metrics}");
    }
    assert!(
        metrics
            .lines()
            .any(|l| l.starts_with("sandglass_verdicts_total{outcome=")),
        "{metrics}"
    );
    let log = site.server_log();
    let line = log
        .lines()
        .find(|l| l.contains("path=\"/games\"") || l.contains("path=/games "))
        .unwrap_or_else(|| panic!("no line for the game sent in\n{log}"));
    assert!(
        line.contains("status=202") && line.contains("method=POST"),
        "{line}"
    );
    site.pg.stop();
    let (status, words) = site.get("/healthz");
    assert_eq!(
        (status, words.as_str()),
        (503, "the database does not answer\n")
    );
}

/// Lets this process hold as many files as it may: a test that opens a thousand
/// connections needs more than the usual 1,024 descriptors.
fn raise_open_files() {
    // SAFETY: getrlimit and setrlimit on a struct of this frame.
    unsafe {
        let mut limit = std::mem::zeroed::<libc::rlimit>();
        assert_eq!(libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit), 0);
        limit.rlim_cur = limit.rlim_max;
        libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
    }
}

/// A thousand connections from one address, each a request's headers half sent and
/// held: the server keeps at most its cap of them (the rest are closed at once), closes
/// those it keeps once the header timeout passes, and answers another address's pages
/// all the while.
#[test]
fn a_thousand_idle_connections_from_one_address_hold_up_nobody_else() {
    use std::io::{Read, Write};
    use std::net::Ipv4Addr;
    let Some(site) = Site::start(&["--connections-per-address", "32"]) else {
        return;
    };
    raise_open_files();
    let stalling = Ipv4Addr::new(127, 0, 0, 1);
    let mut idle: Vec<_> = (0..1000)
        .map(|_| {
            let mut stream = site.connect_from(stalling);
            let _ = stream.write_all(b"GET / HTTP/1.1\r\nhost: x\r\n");
            stream
        })
        .collect();
    let patience = sandglass_server::edge::HEADER_TIMEOUT + Duration::from_secs(20);
    // Another player, at another address, is answered while they are held.
    for _ in 0..5 {
        let mut page = site.connect_from(Ipv4Addr::new(127, 0, 0, 2));
        page.set_read_timeout(Some(patience)).unwrap();
        page.write_all(b"GET / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")
            .unwrap();
        let mut answer = String::new();
        page.read_to_string(&mut answer).unwrap();
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    }
    // The last of the thousand was past the cap: closed at once, nothing read.
    let last = idle.last_mut().unwrap();
    last.set_read_timeout(Some(patience)).unwrap();
    let mut rest = vec![];
    let closed = last.read_to_end(&mut rest);
    assert!(
        matches!(closed, Ok(0))
            || closed.is_err_and(|e| e.kind() == std::io::ErrorKind::ConnectionReset),
        "a connection past the cap was kept"
    );
    // The first was kept, and is let go once its headers are overdue.
    let first = &mut idle[0];
    first.set_read_timeout(Some(patience)).unwrap();
    let mut said = vec![];
    match first.read_to_end(&mut said) {
        Ok(_) => {}
        Err(e) => assert_eq!(e.kind(), std::io::ErrorKind::ConnectionReset, "{e}"),
    }
}

/// Thirty large uploads at once, each sent slowly: only as many are read as the
/// server's bound on the bytes in flight holds (the rest are refused 503 with
/// Retry-After, before their bodies are held), so the server's memory stays within that
/// bound and a margin whatever the uploads do. The figures are printed for
/// BENCHMARKS.md.
#[test]
fn thirty_slow_large_uploads_are_held_within_the_servers_bound() {
    use std::io::{Read, Write};
    const BOUND: u64 = 64 << 20;
    const SIZE: usize = 30_000_000;
    let bound = BOUND.to_string();
    let Some(site) = Site::start(&["--uploads-in-flight", &bound]) else {
        return;
    };
    let (before, _) = site.server_memory();
    let url = site.url.clone();
    let uploads: Vec<_> = (0..30)
        .map(|i| {
            let mut stream = site.connect();
            let url = url.clone();
            std::thread::spawn(move || {
                let who = Identity::generate().unwrap();
                let junk = vec![i as u8; SIZE];
                let claim = sandglass_claim::Claim {
                    server: &url,
                    player: "camel",
                    content: content_hash(&junk),
                };
                let head = format!(
                    "POST /games HTTP/1.1\r\nhost: x\r\ncontent-length: {SIZE}\r\n\
                     x-sandglass-player: camel{i}\r\nx-sandglass-key: {}\r\n\
                     x-sandglass-signature: {}\r\nconnection: close\r\n\r\n",
                    who.public_hex(),
                    who.sign(&claim)
                );
                stream.write_all(head.as_bytes()).unwrap();
                // A megabyte every tenth of a second: three seconds an upload.
                for chunk in junk.chunks(1 << 20) {
                    if stream.write_all(chunk).is_err() {
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(100));
                }
                let mut answer = String::new();
                let _ = stream.read_to_string(&mut answer);
                answer
            })
        })
        .collect();
    let answers: Vec<String> = uploads.into_iter().map(|t| t.join().unwrap()).collect();
    let (_, peak) = site.server_memory();
    let read = answers
        .iter()
        .filter(|a| a.starts_with("HTTP/1.1 422"))
        .count();
    let busy = answers
        .iter()
        .filter(|a| a.starts_with("HTTP/1.1 503") && a.contains("retry-after: 5"))
        .count();
    println!(
        "30 slow uploads of {SIZE} bytes, --uploads-in-flight {BOUND}: {read} read whole, \
         {busy} refused busy; server memory {:.1} MiB before, {:.1} MiB at its peak",
        before as f64 / (1 << 20) as f64,
        peak as f64 / (1 << 20) as f64
    );
    assert!(read >= 2, "{answers:?}");
    assert!(busy > 0, "{answers:?}");
    // The bound, and a margin for the server's own buffers and the uploads' last
    // megabyte each in the sockets.
    let margin = 48 << 20;
    assert!(
        peak <= before + BOUND + margin,
        "the server reached {peak} bytes from {before}"
    );
}

/// HTTPS served by the server itself (`--tls-cert`, `--tls-key`): pages and a signed
/// game over it, the claim naming the https:// URL; plain HTTP to the same port gets
/// nothing but a closed connection.
#[test]
fn the_server_speaks_https_when_given_a_certificate() {
    let dir = tempfile::tempdir().unwrap();
    let (cert, key) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
    let made = std::process::Command::new("openssl")
        .args([
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
        ])
        .args(["-nodes", "-days", "2", "-subj", "/CN=127.0.0.1"])
        .args(["-addext", "subjectAltName=IP:127.0.0.1"])
        .args(["-addext", "basicConstraints=critical,CA:FALSE"])
        .arg("-keyout")
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .output()
        .expect("openssl (Debian's openssl) makes the test's certificate");
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let (cert_arg, key_arg) = (cert.to_str().unwrap(), key.to_str().unwrap());
    let Some(mut site) = Site::start(&["--tls-cert", cert_arg, "--tls-key", key_arg]) else {
        return;
    };
    assert!(site.url.starts_with("https://127.0.0.1:"), "{}", site.url);
    site.worker();
    let pem = std::fs::read(&cert).unwrap();
    let roots = ureq::tls::RootCerts::Specific(std::sync::Arc::new(vec![
        ureq::tls::Certificate::from_pem(&pem).unwrap().to_owned(),
    ]));
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .tls_config(ureq::tls::TlsConfig::builder().root_certs(roots).build())
        .build()
        .into();
    let mut health = agent.get(format!("{}/healthz", site.url)).call().unwrap();
    assert_eq!(health.body_mut().read_to_string().unwrap(), "ok\n");
    let good = whole_golden();
    let alice = Identity::generate().unwrap();
    let claim = sandglass_claim::Claim {
        server: &site.url,
        player: "alice",
        content: content_hash(&good),
    };
    let mut sent = agent
        .post(format!("{}/games", site.url))
        .header("x-sandglass-player", "alice")
        .header("x-sandglass-key", alice.public_hex())
        .header("x-sandglass-signature", alice.sign(&claim))
        .send(&good[..])
        .unwrap();
    let status = sent.status().as_u16();
    assert_eq!(status, 202, "{}", sent.body_mut().read_to_string().unwrap());
    // Plain HTTP to it is not understood.
    let plain = format!("http://{}/healthz", &site.url["https://".len()..]);
    assert!(agent.get(plain).call().is_err());
}

/// A day that cannot be (the year 0, which PostgreSQL's calendar lacks; before any
/// desert) is not found, as any other page that is not there, rather than a failure.
#[test]
fn a_day_that_cannot_be_is_not_found() {
    let Some(site) = Site::start(&[]) else {
        return;
    };
    for path in [
        "/daily/0000-01-01",
        "/daily/0000-01-01/nethack.json",
        "/daily/1969-12-31",
    ] {
        let (status, words) = site.get(path);
        assert_eq!(status, 404, "{path}: {words}");
    }
    assert!(
        !site.server_log().contains("ERROR"),
        "{}",
        site.server_log()
    );
}

/// A player who names a server on their own machine `localhost` where it calls itself
/// `127.0.0.1` is the same server's player: their signature is taken. One naming any
/// other server is not, and is told the name this one goes by.
#[test]
fn a_server_on_this_machine_takes_a_claim_under_any_of_its_names() {
    let Some(site) = Site::start(&[]) else {
        return;
    };
    let shorts = short_goldens();
    let camel = Identity::generate().unwrap();
    let signed_for = |server: &str, bytes: &[u8]| {
        let claim = sandglass_claim::Claim {
            server,
            player: "camel",
            content: content_hash(bytes),
        };
        site.post(
            bytes,
            &[
                ("x-sandglass-player", "camel"),
                ("x-sandglass-key", &camel.public_hex()),
                ("x-sandglass-signature", &camel.sign(&claim)),
            ],
        )
    };
    let localhost = site.url.replace("127.0.0.1", "localhost");
    assert_eq!(signed_for(&localhost, &shorts[0]).0, 202);
    let elsewhere = site.url.replace("127.0.0.1", "10.0.0.1");
    let (status, words) = signed_for(&elsewhere, &shorts[1]);
    assert_eq!(status, 401, "{words}");
    assert!(
        words.contains(&format!("(this server is {})", site.url)),
        "{words}"
    );
}

/// What a hand-made client is told: a name outside ASCII is said to be a bad name (not an
/// unsigned request); a body sent in chunks past the most taken is said to be larger
/// than that; a body that stops coming is let go after the body's patience, in words.
#[test]
fn refusals_say_what_was_wrong() {
    use std::io::{Read, Write};
    let Some(site) = Site::start(&["--most-bytes", "1000"]) else {
        return;
    };
    let key = Identity::generate().unwrap().public_hex();
    let ask = |head: &[u8], body: &[u8]| {
        let mut stream = site.connect();
        stream.write_all(head).unwrap();
        stream.write_all(body).unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        answer
    };
    let signed = |name: &[u8]| {
        let mut head = b"POST /games HTTP/1.1\r\nhost: x\r\nconnection: close\r\n".to_vec();
        head.extend(b"x-sandglass-player: ");
        head.extend(name);
        head.extend(format!("\r\nx-sandglass-key: {key}\r\nx-sandglass-signature: ").as_bytes());
        head.extend("ab".repeat(64).as_bytes());
        head.extend(b"\r\n");
        head
    };
    let mut head = signed("chameau-é".as_bytes());
    head.extend(b"content-length: 4\r\n\r\n");
    let answer = ask(&head, b"junk");
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    assert!(
        answer.contains("a player's name is 1 to 32 letters"),
        "{answer}"
    );

    let mut head = signed(b"camel");
    head.extend(b"transfer-encoding: chunked\r\n\r\n");
    let mut body = format!("{:x}\r\n", 2000).into_bytes();
    body.extend([0u8; 2000]);
    body.extend(b"\r\n0\r\n\r\n");
    let answer = ask(&head, &body);
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert!(
        answer.contains("the file is larger than this server takes (at most 1000 bytes)"),
        "{answer}"
    );

    let mut head = signed(b"camel");
    head.extend(b"content-length: 100\r\n\r\n");
    let answer = ask(&head, b"only ten b");
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(
        answer.contains("the file stalled: nothing came for 10 s"),
        "{answer}"
    );
}
