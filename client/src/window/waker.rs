//! Wakes the window while it sleeps. Once nothing on screen has changed for a while, the
//! window waits in miniquad's blocking event loop and takes no CPU at all; its own input
//! (a key, the pointer, a resize) wakes it. Two things it must see come without input:
//! the desktop asking it to close (the game reports its final hash on the way out) and a
//! part of it uncovered, to be drawn again. miniquad sees the first only in a frame and
//! the second not at all, and under X11 a frame can be asked for only by an event the
//! window receives. So a thread with its own connection to the X server watches the
//! window for exposure and, when part of it is exposed and every `HEARTBEAT` besides,
//! sends it a pointer motion to where the pointer already is: an event that changes
//! nothing but wakes the loop for one frame (and, the pointer having left the window,
//! tells it so: miniquad hears of no motion outside, and a hover caption would stay).
//! Other threads whose news the window must show at once (a live game's next stretch)
//! wake it the same way through `ring`.

use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::{Mutex, OnceLock};
use std::thread::JoinHandle;
use std::time::Duration;

use x11_dl::xlib;

/// How long the close button may wait while the window sleeps.
const HEARTBEAT: Duration = Duration::from_millis(500);

/// The watching thread; stopped and joined when dropped, before the window is destroyed
/// (an event sent to a destroyed window would be an X error, which ends the process).
pub struct Waker {
    stop: UnixStream,
    thread: Option<JoinHandle<()>>,
}

/// The thread's connection to the X server, used by that thread alone.
struct Connection {
    xlib: xlib::Xlib,
    display: *mut xlib::Display,
    window: xlib::Window,
}

// SAFETY: the connection is made on the window's thread and then used only by the
// watching thread; Xlib allows a connection to move between threads that do not share it.
unsafe impl Send for Connection {}

/// The ringing end of the running waker's bell, if one runs.
static BELL: Mutex<Option<UnixStream>> = Mutex::new(None);

/// Wakes the window for a frame, from any thread: what another thread has for it is
/// shown at once rather than at the next `HEARTBEAT`. Nothing to do while the window
/// cannot sleep.
pub fn ring() {
    if let Some(bell) = BELL.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
        // Non-blocking: a bell already full has rung, and the waker drains it.
        let _ = bell.write(&[0]);
    }
}

impl Waker {
    /// Starts watching the window whose GL context is current on this thread; `None`
    /// where there is no X window to watch (another platform, or EGL rather than GLX),
    /// and the window then never sleeps.
    pub fn start() -> Option<Waker> {
        let connection = Connection::open()?;
        let (stop, stopped) = UnixStream::pair().ok()?;
        let (bell, rung) = UnixStream::pair().ok()?;
        bell.set_nonblocking(true).ok()?;
        rung.set_nonblocking(true).ok()?;
        let thread = std::thread::Builder::new()
            .name("window waker".to_owned())
            .spawn(move || connection.watch(&stopped, rung))
            .ok()?;
        *BELL.lock().unwrap_or_else(|e| e.into_inner()) = Some(bell);
        Some(Waker {
            stop,
            thread: Some(thread),
        })
    }
}

impl Drop for Waker {
    fn drop(&mut self) {
        *BELL.lock().unwrap_or_else(|e| e.into_inner()) = None;
        // Closing our end makes the thread's end readable: it wakes and returns.
        let _ = self.stop.shutdown(std::net::Shutdown::Both);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Connection {
    fn open() -> Option<Connection> {
        let glx = x11_dl::glx::Glx::open().ok()?;
        // SAFETY: asks GLX which drawable is current on this thread: the window's, as the
        // loop runs inside miniquad's frame.
        let drawable = unsafe { (glx.glXGetCurrentDrawable)() };
        if drawable == 0 {
            return None;
        }
        let xlib = xlib::Xlib::open().ok()?;
        // SAFETY: a fresh connection of our own; null (no X server) is checked first.
        // Selecting exposure on another client's window is allowed to any number of clients.
        unsafe {
            let display = (xlib.XOpenDisplay)(std::ptr::null());
            if display.is_null() {
                return None;
            }
            forgive_errors_on(&xlib, display);
            let Some(window) = window_of(&xlib, display, drawable) else {
                (xlib.XCloseDisplay)(display);
                return None;
            };
            (xlib.XSelectInput)(display, window, xlib::ExposureMask);
            (xlib.XFlush)(display);
            Some(Connection {
                xlib,
                display,
                window,
            })
        }
    }

    /// Until `stopped` is readable: a wake for every exposure, every ring of the bell
    /// and every `HEARTBEAT`.
    fn watch(self, stopped: &UnixStream, mut rung: UnixStream) {
        // SAFETY: the connection is this thread's alone.
        let x = unsafe { (self.xlib.XConnectionNumber)(self.display) };
        let mut fds = [
            libc::pollfd {
                fd: x,
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd {
                fd: stopped.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd {
                fd: rung.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
        ];
        loop {
            // SAFETY: valid descriptors, for the length given.
            let ready = unsafe {
                libc::poll(
                    fds.as_mut_ptr(),
                    fds.len() as libc::nfds_t,
                    HEARTBEAT.as_millis() as i32,
                )
            };
            let interrupted = ready < 0
                && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted;
            if (ready < 0 && !interrupted)
                || fds[1].revents != 0
                || fds[0].revents & (libc::POLLHUP | libc::POLLERR) != 0
            {
                break;
            }
            // Drain what arrived (exposures, the one event selected) into a zeroed union
            // nobody reads.
            // SAFETY: the connection is this thread's alone.
            unsafe {
                while (self.xlib.XPending)(self.display) > 0 {
                    let mut event: xlib::XEvent = std::mem::zeroed();
                    (self.xlib.XNextEvent)(self.display, &mut event);
                }
            }
            // Every ring so far is answered by this one wake.
            let mut rings = [0; 64];
            while rung.read(&mut rings).is_ok_and(|n| n > 0) {}
            self.nudge();
        }
        // SAFETY: the connection is closed once, by its only user.
        unsafe { (self.xlib.XCloseDisplay)(self.display) };
    }

    /// Sends the window a pointer motion to where the pointer is: macroquad answers any
    /// motion with a frame, and the pointer has not moved.
    fn nudge(&self) {
        // SAFETY: plain Xlib calls on this thread's connection; the window outlives the
        // thread (the `Waker` is dropped before the window is destroyed).
        unsafe {
            let (mut root, mut child) = (0, 0);
            let (mut root_x, mut root_y, mut x, mut y) = (0, 0, 0, 0);
            let mut state = 0;
            let here = (self.xlib.XQueryPointer)(
                self.display,
                self.window,
                &mut root,
                &mut child,
                &mut root_x,
                &mut root_y,
                &mut x,
                &mut y,
                &mut state,
            );
            if here == xlib::False {
                // The pointer is on another screen: somewhere off the window.
                (x, y) = (-1, -1);
            }
            let mut event = xlib::XEvent {
                motion: xlib::XMotionEvent {
                    type_: xlib::MotionNotify,
                    serial: 0,
                    send_event: xlib::True,
                    display: self.display,
                    window: self.window,
                    root,
                    subwindow: 0,
                    time: xlib::CurrentTime,
                    x,
                    y,
                    x_root: root_x,
                    y_root: root_y,
                    state,
                    is_hint: 0,
                    same_screen: xlib::True,
                },
            };
            (self.xlib.XSendEvent)(
                self.display,
                self.window,
                xlib::False,
                xlib::PointerMotionMask,
                &mut event,
            );
            (self.xlib.XFlush)(self.display);
        }
    }
}

/// The X window that GLX drawable `drawable` draws to. miniquad makes its GLX window
/// (an XID of its own) for its X window just after creating that window on the same
/// connection, and Xlib numbers a connection's resources one after another: the window
/// is the last one in the tree numbered shortly before the drawable. Only windows found
/// in the tree are taken, so nothing is ever asked of an id that is not a window.
///
/// # Safety
/// `display` is an open connection used by this thread alone.
unsafe fn window_of(
    xlib: &xlib::Xlib,
    display: *mut xlib::Display,
    drawable: xlib::XID,
) -> Option<xlib::Window> {
    // Far fewer resources come between the two; a client's ids share their high bits.
    let near = (drawable & !0xffff).max(drawable.saturating_sub(64))..drawable;
    let mut best = None;
    let mut pending = vec![(xlib.XDefaultRootWindow)(display)];
    while let Some(parent) = pending.pop() {
        let (mut root, mut up) = (0, 0);
        let mut children = std::ptr::null_mut();
        let mut count = 0;
        if (xlib.XQueryTree)(
            display,
            parent,
            &mut root,
            &mut up,
            &mut children,
            &mut count,
        ) == 0
        {
            continue;
        }
        if !children.is_null() {
            for &child in std::slice::from_raw_parts(children, count as usize) {
                if near.contains(&child) && best.is_none_or(|b| child > b) {
                    best = Some(child);
                }
                pending.push(child);
            }
            (xlib.XFree)(children.cast());
        }
    }
    best
}

type ErrorHandler = unsafe extern "C" fn(*mut xlib::Display, *mut xlib::XErrorEvent) -> i32;

/// The connection whose X errors are forgiven, and the handler every other error goes to.
static FORGIVEN: AtomicPtr<xlib::Display> = AtomicPtr::new(std::ptr::null_mut());
static OTHERS: OnceLock<Option<ErrorHandler>> = OnceLock::new();

/// An X error on `display` (a window gone between listing it and asking of it) is
/// ignored: Xlib's default answer to any error is to end the process. Errors on every
/// other connection go to the handler there was before, as they did.
///
/// # Safety
/// Called on the window's thread, between frames: Xlib's error handler is the
/// process's, and miniquad sets it only while it creates the window.
unsafe fn forgive_errors_on(xlib: &xlib::Xlib, display: *mut xlib::Display) {
    unsafe extern "C" fn handler(
        display: *mut xlib::Display,
        event: *mut xlib::XErrorEvent,
    ) -> i32 {
        if display == FORGIVEN.load(Ordering::Acquire) {
            return 0;
        }
        match OTHERS.get().copied().flatten() {
            // SAFETY: the handler Xlib had, called as Xlib would have.
            Some(other) => unsafe { other(display, event) },
            None => 0,
        }
    }
    FORGIVEN.store(display, Ordering::Release);
    let previous = (xlib.XSetErrorHandler)(Some(handler));
    OTHERS.get_or_init(|| previous);
}
