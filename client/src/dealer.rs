//! A dealt run's commands sent to its server, on a thread of its own, and the draws it
//! deals back (`docs/live.md`, "Dealt runs"): the server keeps the run's seed, so the
//! game cannot be played a step without it.
//!
//! The store is written first: a command is marked as sent (`Session::send`) before it
//! goes, so a client stopped while it waited sends that same command again when the run
//! is opened, and the server answers it as it did. While the server cannot be reached
//! the thread tries again, a little later each time, and says so; the game takes no
//! other command meanwhile.

use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{bail, Context};
use sandglass_claim::command_content;
use sandglass_protocol::dealt::Dealt;
use sandglass_sim::{Command, Event, Game, Need, Observer, State};
use sandglass_store::{Session, Stream};

use crate::online::Server;

/// How long one request to the server may take.
const TIMEOUT: Duration = Duration::from_secs(10);
/// The longest wait between two tries while the server cannot be reached.
const MOST_BACKOFF: Duration = Duration::from_secs(5);

/// What the server said to a command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// The draws it dealt, kept on the server before they were sent.
    Dealt(Dealt),
    /// It will not take the command, in its words: the run cannot go on from here.
    Refused(String),
}

pub struct Dealer {
    orders: Sender<(u64, Command)>,
    answers: Receiver<Answer>,
    /// Why the server has not answered yet, while it cannot be reached.
    trouble: Arc<Mutex<Option<String>>>,
}

impl Dealer {
    /// Starts the thread that sends the commands of the run `stream` names, under the
    /// key kept in `config`.
    pub fn start(stream: Stream, config: PathBuf) -> Dealer {
        let (orders, ordered) = mpsc::channel();
        let (answer, answers) = mpsc::channel();
        let trouble = Arc::new(Mutex::new(None));
        let courier = Courier {
            stream,
            config,
            trouble: trouble.clone(),
        };
        std::thread::spawn(move || courier.run(ordered, answer));
        Dealer {
            orders,
            answers,
            trouble,
        }
    }

    /// Sends the camel's `command`, event `at` of the run (already marked as sent in the
    /// store).
    pub fn send(&self, at: u64, command: Command) {
        let _ = self.orders.send((at, command));
    }

    /// The server's answer to the command sent, if it has come.
    pub fn answer(&self) -> Option<Answer> {
        self.wait(Duration::ZERO)
    }

    /// The server's answer, waiting for it up to `patience`.
    pub fn wait(&self, patience: Duration) -> Option<Answer> {
        match self.answers.recv_timeout(patience) {
            Ok(answer) => Some(answer),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => Some(Answer::Refused(
                "the thread that sends the commands stopped".into(),
            )),
        }
    }

    /// Why the server has not answered, while it cannot be reached: for the screen.
    pub fn trouble(&self) -> Option<String> {
        read(&self.trouble)
    }
}

fn read(trouble: &Mutex<Option<String>>) -> Option<String> {
    trouble.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Plays the command `session` sent with the draws its server dealt, and checks that
/// the game reached is the server's.
pub fn take(session: &mut Session, dealt: &Dealt, obs: &mut impl Observer) -> anyhow::Result<Need> {
    let Some((at, _)) = session.sent() else {
        bail!("the server dealt draws for no command sent");
    };
    if dealt.first != at + 1 {
        bail!(
            "the server dealt the draws that follow event {}, where this run sent event {at}",
            dealt.first.saturating_sub(1)
        );
    }
    let need = session.dealt(&dealt.draws, obs)?;
    check_hash(session.state(), dealt)?;
    Ok(need)
}

/// The state the server's game is in after `dealt`, by its hash, is this one.
pub fn check_hash(state: &State, dealt: &Dealt) -> anyhow::Result<()> {
    let hash = format!("{:016x}", state.hash());
    if hash != dealt.hash {
        bail!(
            "this run's game is at hash {hash} and the server's at {}: they are not the same \
             game, and nothing more can be sent",
            dealt.hash
        );
    }
    Ok(())
}

/// A dealt run played by the bot (`sandglass daily --bot`): each command waits for its
/// draws, as long as the server takes to be reached again.
pub struct DealtRun<'a> {
    pub session: &'a mut Session,
    pub dealer: &'a Dealer,
}

impl DealtRun<'_> {
    /// Sends what a stop left waiting, and takes its answer.
    pub fn resend(&mut self) -> anyhow::Result<()> {
        if let Some((at, command)) = self.session.sent() {
            self.dealer.send(at, command);
            self.await_answer()?;
        }
        Ok(())
    }

    fn await_answer(&mut self) -> anyhow::Result<()> {
        loop {
            match self.dealer.wait(Duration::from_secs(1)) {
                Some(Answer::Dealt(dealt)) => return take(self.session, &dealt, &mut ()).map(drop),
                Some(Answer::Refused(why)) => bail!("the server refused the command: {why}"),
                None => {}
            }
        }
    }
}

impl Game for DealtRun<'_> {
    type Error = anyhow::Error;

    fn state(&self) -> &State {
        self.session.state()
    }

    fn play(&mut self, command: Command) -> anyhow::Result<()> {
        let at = self.session.send(command)?;
        self.dealer.send(at, command);
        self.await_answer()
    }
}

/// The thread's side.
struct Courier {
    stream: Stream,
    config: PathBuf,
    trouble: Arc<Mutex<Option<String>>>,
}

impl Courier {
    fn run(self, ordered: Receiver<(u64, Command)>, answer: Sender<Answer>) {
        let server = Server::new(
            &self.stream.server,
            &self.stream.player,
            &self.config,
            TIMEOUT,
        );
        for (at, command) in ordered {
            let answered = match &server {
                Ok(server) => self.answer(server, at, command),
                Err(error) => Answer::Refused(format!("{error:#}")),
            };
            if answer.send(answered).is_err() {
                return;
            }
        }
    }

    /// The server's answer to `command`, tried until the server gives one.
    fn answer(&self, server: &Server, at: u64, command: Command) -> Answer {
        let mut backoff = Duration::from_millis(250);
        loop {
            match self.send(server, at, command) {
                Ok(answered) => {
                    self.tell(None);
                    return answered;
                }
                Err((why, asked)) => {
                    self.tell(Some(why));
                    std::thread::sleep(asked.map_or(backoff, |asked| asked.max(backoff)));
                    backoff = (backoff * 2).min(MOST_BACKOFF);
                }
            }
        }
    }

    fn tell(&self, trouble: Option<String>) {
        *self.trouble.lock().unwrap_or_else(|e| e.into_inner()) = trouble;
    }

    /// One try: the server's answer, or why to try again and when the server asked.
    fn send(
        &self,
        server: &Server,
        at: u64,
        command: Command,
    ) -> Result<Answer, (String, Option<Duration>)> {
        let run = self.stream.run;
        let bytes = sandglass_replay::events_to_bytes(&[Event::Command(command)]);
        let answer = server
            .post_signed(
                &format!("/runs/{run}/commands?at={at}"),
                command_content(run, at, &bytes),
                &bytes,
            )
            .map_err(|e| (format!("{} cannot be reached: {e}", server.base), None))?;
        match answer.status {
            200 => serde_json::from_str::<Dealt>(&answer.words)
                .map(Answer::Dealt)
                .with_context(|| format!("{} answered what is not a dealing", server.base))
                .map_err(|e| (format!("{e:#}"), None)),
            500..=599 | 429 => Err((answer.words, answer.retry_after)),
            _ => Ok(Answer::Refused(answer.words)),
        }
    }
}
